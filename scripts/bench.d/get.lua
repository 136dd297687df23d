-- A plain GET of the URL, with the result line of common.lua (the framework ceiling).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("common")
