-- POSTs one pre-built body per request from a pool file, optionally with its own credential in a header.
--   wrk … -s pool-body.lua <url> -- <pool file> <once|reuse> <thread count> [header name]
-- Pool lines are "<hex of the body>", or "<header value> <hex of the body>" (a space or a tab before the hex) when a
-- header name is given: a TAN and its SubmissionPayload (seed.py payloads), a bearer token and its survey
-- (seed_families.py). Other headers (Content-Type, cwa-fake) come from wrk's -H.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local common = require("common")

local next_item, header

function init(args)
    local lines = common.slice(args[1], tonumber(args[3]))
    header = args[4]
    -- Decoded once here, so that the load loop only formats requests.
    local items = {}
    for i, line in ipairs(lines) do
        local value, hex = line:match("^(.-)%s(%x+)$")
        items[i] = { value = value, body = common.unhex(hex or line) }
    end
    next_item = common.cursor(items, args[2] == "reuse")
end

function request()
    local item = next_item()
    -- wrk.format takes wrk.headers (those of -H) when given no table of its own.
    if header then wrk.headers[header] = item.value end
    return wrk.format("POST", nil, nil, item.body)
end
