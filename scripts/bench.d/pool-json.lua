-- POSTs one JSON body per request, filled from a pool file (one value per line).
--   wrk … -s pool-json.lua <url> -- <pool file> <once|reuse> <thread count> '<template with one %s>'
-- e.g. '{"registrationToken":"%s"}'. Headers (cwa-fake, Content-Type) come from wrk's -H.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local common = require("common")

local next_value, template

function init(args)
    local path, mode, thread_count = args[1], args[2], tonumber(args[3])
    template = args[4]
    next_value = common.cursor(common.slice(path, thread_count), mode == "reuse")
end

function request()
    return wrk.format("POST", nil, nil, string.format(template, next_value()))
end
