-- POSTs the same body, read from a file, with every request (fake submissions: nothing is parsed or stored).
--   wrk … -s body-file.lua <url> -- <body file>
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("common")

function init(args)
    local file = assert(io.open(args[1], "rb"))
    wrk.method = "POST"
    wrk.body = file:read("*a")
    file:close()
end
