-- The national-peak mix of scripts/bench-peak: every kind of app request at a fixed share, sent at a fixed
-- offered rate rather than as fast as the server answers.
--   wrk … -s peak.lua <balancer url> -- <rate/s> <thread count> <mix> <pool directory>
-- <mix> is "kind=weight,…" over the kinds below; the pool directory holds one file per real kind that spends a
-- one-time value (scripts/bench-peak cuts them per step) and fake-submission.bin.
--
-- Pacing: each thread owns rate/threads of the schedule. A connection that is free asks delay() for the next slot
-- of its thread and waits until then, so requests leave at the offered rate whatever the answers' latency, as long
-- as enough connections are free. When none is, slots fall behind, and the result line's rps drops below the
-- offered rate: scripts/bench-peak counts such a step as failed, so the latency wrk measures from the actual send
-- never hides a queue in front of the server.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local common = require("common")
local ffi = require("ffi")

ffi.cdef [[
    struct bench_timespec { long tv_sec; long tv_nsec; };
    int clock_gettime(int clock, struct bench_timespec *now);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("struct bench_timespec")
local function now_ms()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
    return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end


-- Random values for fake requests, made once per thread: the services store nothing for a fake, so a value may
-- repeat; their shape is a real one's (a fake is validated like a real request).
local function random_hex(length)
    local digits = {}
    for i = 1, length do digits[i] = string.format("%x", math.random(0, 15)) end
    return table.concat(digits)
end

local function random_uuid()
    local hex = random_hex(32)
    return string.format("%s-%s-4%s-a%s-%s", hex:sub(1, 8), hex:sub(9, 12), hex:sub(14, 16), hex:sub(18, 20), hex:sub(21, 32))
end

local json = { ["Content-Type"] = "application/json" }
local function headers(base, extra)
    local merged = {}
    for name, value in pairs(base) do merged[name] = value end
    for name, value in pairs(extra) do merged[name] = value end
    return merged
end

-- Each kind: how to make its next request. Real kinds spend or reuse pool values; fake kinds send cwa-fake: 1.
local makers = {}
local sequence, position = {}, 0
local interval_ms, next_slot_ms

function init(args)
    local rate, thread_count, mix, pools = tonumber(args[1]), tonumber(args[2]), args[3], args[4]
    math.randomseed(1000 + thread_index)
    interval_ms = 1000 * thread_count / rate

    local fakes = {}
    for i = 1, 512 do fakes[i] = { guid = random_hex(64), uuid = random_uuid() } end
    local fake_index = 0
    local function fake()
        fake_index = fake_index % #fakes + 1
        return fakes[fake_index]
    end
    local real_json = headers(json, { ["cwa-fake"] = "0" })
    local fake_json = headers(json, { ["cwa-fake"] = "1" })
    local function pool(name, reusable)
        return common.cursor(common.slice(pools .. "/" .. name .. ".txt", thread_count), reusable)
    end
    local file = assert(io.open(pools .. "/fake-submission.bin", "rb"))
    local fake_body = file:read("*a")
    file:close()

    local builders = {
        poll = function()
            local tokens = pool("poll", true)
            return function()
                return wrk.format("POST", "/version/v1/testresult", real_json, '{"registrationToken":"' .. tokens() .. '"}')
            end
        end,
        register = function()
            local guids = pool("register", false)
            return function()
                return wrk.format("POST", "/version/v1/registrationToken", real_json, '{"key":"' .. guids() .. '","keyType":"GUID"}')
            end
        end,
        tan = function()
            local tokens = pool("tan", false)
            return function()
                return wrk.format("POST", "/version/v1/tan", real_json, '{"registrationToken":"' .. tokens() .. '"}')
            end
        end,
        upload = function()
            local uploads = pool("upload", false)
            return function()
                local tan, hex = uploads():match("^(%S+) (%x+)$")
                return wrk.format("POST", "/version/v1/diagnosis-keys", {
                    ["Content-Type"] = "application/x-protobuf", ["cwa-fake"] = "0", ["cwa-authorization"] = tan,
                }, common.unhex(hex))
            end
        end,
        fake_register = function()
            return function()
                return wrk.format("POST", "/version/v1/registrationToken", fake_json, '{"key":"' .. fake().guid .. '","keyType":"GUID"}')
            end
        end,
        fake_poll = function()
            return function()
                return wrk.format("POST", "/version/v1/testresult", fake_json, '{"registrationToken":"' .. fake().uuid .. '"}')
            end
        end,
        fake_tan = function()
            return function()
                return wrk.format("POST", "/version/v1/tan", fake_json, '{"registrationToken":"' .. fake().uuid .. '"}')
            end
        end,
        fake_upload = function()
            return function()
                return wrk.format("POST", "/version/v1/diagnosis-keys", {
                    ["Content-Type"] = "application/x-protobuf", ["cwa-fake"] = "1", ["cwa-authorization"] = fake().uuid,
                }, fake_body)
            end
        end,
    }

    -- The mix as a shuffled cycle of 100 slots per thread: every share is exact over each 100 requests, and no
    -- kind comes in bursts.
    for kind, weight in mix:gmatch("([%w_]+)=(%d+)") do
        makers[kind] = assert(builders[kind], "unknown kind " .. kind)()
        for _ = 1, tonumber(weight) do table.insert(sequence, kind) end
    end
    for i = #sequence, 2, -1 do
        local j = math.random(1, i)
        sequence[i], sequence[j] = sequence[j], sequence[i]
    end
end

function delay()
    local now = now_ms()
    -- The first slot a fraction of an interval in, so that the threads do not all send at once.
    next_slot_ms = (next_slot_ms or (now + interval_ms * (thread_index + 1) / (thread_index + 2))) + interval_ms
    local wait = next_slot_ms - now
    return wait > 0 and math.floor(wait) or 0
end

function request()
    position = position % #sequence + 1
    return makers[sequence[position]]()
end
