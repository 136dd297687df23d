-- Shared by every wrk script of scripts/bench: thread numbering, pools read from files, and one
-- machine-readable result line that scripts/bench parses instead of wrk's human-readable text.
local common = {}

-- setup() runs in wrk's main Lua state once per thread, just before that thread's init(): it numbers the
-- threads so that each can take its own slice of a pool, and keeps them so done() can read their counters.
local threads = {}
function setup(thread)
    thread:set("thread_index", #threads)
    table.insert(threads, thread)
end

-- The lines of `path` that belong to this thread: lines i with i mod thread_count == thread_index, so that
-- no two threads send the same one-time value (a GUID registers once, a TAN verifies once).
function common.slice(path, thread_count)
    local lines, n = {}, 0
    local file = assert(io.open(path, "r"), "cannot open pool " .. path)
    for line in file:lines() do
        if n % thread_count == thread_index and line ~= "" then table.insert(lines, line) end
        n = n + 1
    end
    file:close()
    assert(#lines > 0, "pool " .. path .. " has no line for thread " .. thread_index)
    return lines
end

-- The bytes a pool line gives in hex (bodies are kept as text in the pool files).
function common.unhex(hex)
    return (hex:gsub("..", function(pair) return string.char(tonumber(pair, 16)) end))
end

-- A cursor over a pool. One-time pools stop their thread when used up, and say so in the result line:
-- the figure is then a lower bound (wrk divides by the full duration). Reusable pools wrap around.
function common.cursor(lines, reusable)
    local next_index = 0
    exhausted = 0
    return function()
        next_index = next_index + 1
        if next_index > #lines then
            if not reusable then
                exhausted = 1
                wrk.thread:stop()
            end
            next_index = 1
        end
        return lines[next_index]
    end
end

-- BENCH_PACE_MS: each connection waits this long after an answer before it sends its next request, so that a
-- scenario runs at a partial load (the paced rows of scripts/bench) rather than as fast as the server answers.
local pace_ms = tonumber(os.getenv("BENCH_PACE_MS") or "")
if pace_ms and pace_ms > 0 then
    function delay() return pace_ms end
end

-- One line on standard output: BENCH key=value…, latencies in microseconds.
function done(summary, latency, requests)
    local exhausted_threads = 0
    for _, thread in ipairs(threads) do
        exhausted_threads = exhausted_threads + (tonumber(thread:get("exhausted")) or 0)
    end
    local errors = summary.errors
    io.write(string.format(
        "BENCH requests=%d duration_us=%d rps=%.1f p50_us=%d p99_us=%d mean_us=%.0f non2xx=%d socket_errors=%d exhausted_threads=%d\n",
        summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
        latency:percentile(50), latency:percentile(99), latency.mean,
        errors.status, errors.connect + errors.read + errors.write + errors.timeout, exhausted_threads))
end

return common
