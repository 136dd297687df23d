-- Lab uploads: each request posts a batch of new results (fresh ids, so every row is an insert).
--   wrk … -s lab-batch.lua <url> -- <batch size>
-- Authorization and Content-Type come from wrk's -H. An id is 64 hex characters: a random prefix per
-- thread and a counter, so ids never repeat across requests or threads.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("common")

local batch_size, prefix, counter

function init(args)
    batch_size = tonumber(args[1])
    math.randomseed(os.time() * 1000 + thread_index)
    local digits = {}
    for i = 1, 48 do digits[i] = string.format("%x", math.random(0, 15)) end
    prefix = table.concat(digits)
    counter = 0
end

function request()
    local items = {}
    for i = 1, batch_size do
        counter = counter + 1
        items[i] = string.format('{"id":"%s%016x","result":1}', prefix, counter)
    end
    return wrk.format("POST", nil, nil, '{"testResults":[' .. table.concat(items, ",") .. ']}')
end
