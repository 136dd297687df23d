-- Real submissions: each request spends one pre-minted TAN with its own protobuf body (14 fresh keys).
--   wrk … -s submission.lua <url> -- <pool file> <thread count>
-- Pool lines are "<TAN> <hex of a SubmissionPayload>" (scripts/bench.d/seed.py payloads). Other headers
-- (cwa-fake: 0, Content-Type) come from wrk's -H.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local common = require("common")

local next_line

local function unhex(hex)
    return (hex:gsub("..", function(pair) return string.char(tonumber(pair, 16)) end))
end

function init(args)
    local lines = common.slice(args[1], tonumber(args[2]))
    -- Decoded once here, so that the load loop only formats requests.
    local requests = {}
    for i, line in ipairs(lines) do
        local tan, hex = line:match("^(%S+) (%x+)$")
        requests[i] = { tan = tan, body = unhex(hex) }
    end
    next_line = common.cursor(requests, false)
end

function request()
    local item = next_line()
    -- wrk.format takes wrk.headers (those of -H) when given no table of its own.
    wrk.headers["cwa-authorization"] = item.tan
    return wrk.format("POST", nil, nil, item.body)
end
