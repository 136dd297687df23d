#!/usr/bin/env bash
# TAN verification on SQLite against the framework ceiling, in a few minutes instead of a full scripts/bench run:
# for comparing builds (or spending orders) of the target's closest endpoint, alternated in one sitting.
#
#   scripts/bench-tan-verify.sh                          # the release build, 3 rounds of 5 s
#   scripts/bench-tan-verify.sh /tmp/before /tmp/after   # two builds' directories, alternated each round
#   BENCH_ORDER=random scripts/bench-tan-verify.sh       # TANs spent in random order instead of as issued
#
# Settings (environment): BENCH_DURATION (seconds of load per row, 5), BENCH_ROUNDS (3), BENCH_TANS (TANs stored
# before each row, 300,000), BENCH_ORDER ("issued": spent in the order they were stored, as apps spend a TAN soon
# after getting it and as scripts/bench spends its pool; "random": the dearest layout for the write),
# BENCH_PORT_BASE (18100).
#
# Each row starts bench-ceiling and measures a constant answer (wrk, 2 threads, 64 connections, as scripts/bench),
# then starts the directory's verification-service on a fresh SQLite file, stores BENCH_TANS TANs straight into it
# (as the service stores them: SHA-256 hex, valid for 14 days) and loads /version/v1/tan/verify with a fresh TAN and
# a redemption key per request. CPU per request is the process's user + system time over the load.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /opt/swift/usr/bin ]]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
DURATION=${BENCH_DURATION:-5}
ROUNDS=${BENCH_ROUNDS:-3}
TANS=${BENCH_TANS:-300000}
ORDER=${BENCH_ORDER:-issued}
PORT_BASE=${BENCH_PORT_BASE:-18100}
CEILING_PORT=$((PORT_BASE + 99)) APP_PORT=$((PORT_BASE + 10)) INTERNAL_PORT=$((PORT_BASE + 11))
# The token the load presents at the internal listener (and verification at test-result's, which it never calls here).
SERVICE_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
LUA=$PWD/scripts/bench.d

log() { printf '\033[1m[bench-tan]\033[0m %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }
source scripts/bench.d/process.sh
[[ $ORDER == issued || $ORDER == random ]] || fail "BENCH_ORDER must be issued or random, not '$ORDER'"
for tool in wrk curl python3; do command -v "$tool" >/dev/null || fail "$tool is missing (Debian: apt-get install wrk curl python3)"; done

BINS=("$@")
if ((${#BINS[@]} == 0)); then
    log "building verification-service and bench-ceiling (release)"
    scripts/release-build --product verification-service --product bench-ceiling >&2
    BINS=("$(scripts/release-build --show-bin-path)")
fi
for bin in "${BINS[@]}"; do
    [[ -x $bin/verification-service && -x $bin/bench-ceiling ]] || fail "$bin holds no verification-service and bench-ceiling"
done

WORK=$(mktemp -d /tmp/exposure-bench-tan.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

ticks_per_second=$(getconf CLK_TCK)

# start <ready URL> <command…>: starts it in the background; STARTED is its pid.
start() {
    local ready=$1 deadline=$((SECONDS + 30))
    shift
    "$@" >>"$WORK/service.log" 2>&1 &
    STARTED=$!
    PIDS+=("$STARTED")
    until curl -fs -o /dev/null --max-time 1 "$ready"; do
        kill -0 "$STARTED" 2>/dev/null || fail "$1 exited during start-up (see $WORK/service.log)"
        ((SECONDS < deadline)) || fail "$1 was not ready within 30 s"
        sleep 0.05
    done
}

# load <pid> <wrk arguments…>: runs wrk; sets rps, p99_us, requests, CPU_US (CPU per request of <pid>, in µs) and
# STOLEN (the share of the machine's CPU the hypervisor gave to other guests meanwhile, in %).
load() {
    local pid=$1 before steal_before output line
    shift
    before=$(cpu_ticks "$pid")
    steal_before=$(cpu_steal_ticks)
    output=$(wrk -t2 -c64 -d"${DURATION}s" --timeout 10s --latency "$@" 2>&1) || fail "wrk failed: $output"
    STOLEN=$(steal_percent "$steal_before" "$(cpu_steal_ticks)")
    settle "$pid" # the requests in flight when wrk stopped
    line=$(grep '^BENCH ' <<<"$output") || fail "wrk printed no result line: $output"
    local duration_us p50_us mean_us non2xx socket_errors exhausted_threads
    eval "${line#BENCH }"
    ((non2xx + socket_errors == 0)) || fail "$((non2xx + socket_errors)) requests failed"
    ((exhausted_threads == 0)) || fail "the pool of $TANS TANs ran out: raise BENCH_TANS"
    CPU_US=$(awk -v t="$(($(cpu_ticks "$pid") - before))" -v hz="$ticks_per_second" -v n="$requests" \
        'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
}

# Stores the TANs as the service would have issued them, and writes the plain TANs in the order they are spent.
store_tans() {
    python3 - "$1" "$TANS" "$ORDER" "$2" <<'PYTHON'
import hashlib, os, random, sqlite3, sys, time, uuid
path, count, order, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
now = int(time.time())
tans = [str(uuid.uuid4()) for _ in range(count)]
connection = sqlite3.connect(path, timeout=30)
connection.execute("BEGIN")
connection.executemany(
    "INSERT INTO tans (tan_hash, registration_token_hash, source, teletan_type, valid_until, created_at, redeemed_at) "
    "VALUES (?, ?, 'GUID', NULL, ?, ?, NULL)",
    ((hashlib.sha256(tan.encode()).hexdigest(), os.urandom(32).hex(), now + 14 * 86400, now) for tan in tans))
connection.execute("COMMIT")
connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
connection.close()
if order == "random":
    random.shuffle(tans)
with open(out, "w") as file:
    file.write("\n".join(tans) + "\n")
PYTHON
}

echo "| round | build | constant answers/s | CPU per answer (µs) | TANs/s | share of the ceiling | CPU per TAN (µs) | in constant answers | p99 (ms) | CPU stolen: ceiling / TANs |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
for ((round = 1; round <= ROUNDS; round++)); do
    for bin in "${BINS[@]}"; do
        start "http://127.0.0.1:$CEILING_PORT/health/ready" "$bin/bench-ceiling" "$CEILING_PORT"
        ceiling=$STARTED
        log "round $round, $bin: framework ceiling, ${DURATION}s"
        load "$ceiling" -s "$LUA/get.lua" "http://127.0.0.1:$CEILING_PORT/"
        stop "$ceiling"
        ceiling_rps=$rps ceiling_us=$CPU_US ceiling_stolen=$STOLEN

        rm -f "$WORK"/verification.db*
        # TESTRESULT_URL points nowhere: TAN verification does not ask test-result, and only /health/live is waited for.
        DATABASE_URL="sqlite://$WORK/verification.db" PORT=$APP_PORT INTERNAL_PORT=$INTERNAL_PORT BIND_HOST=127.0.0.1 \
            TESTRESULT_URL="http://127.0.0.1:$((PORT_BASE + 21))" MANAGEMENT_PORT=$((PORT_BASE + 12)) ISSUER_PORT=$((PORT_BASE + 13)) \
            TESTRESULT_API_TOKEN=$SERVICE_TOKEN INTERNAL_API_TOKENS="submission-bench=$SERVICE_TOKEN" \
            TELETAN_HASH_KEYS="bench:$(head -c 32 /dev/urandom | base64 -w0)" \
            start "http://127.0.0.1:$INTERNAL_PORT/health/live" "$bin/verification-service" serve
        verification=$STARTED
        log "round $round, $bin: storing $TANS TANs, then TAN verify (TANs spent $ORDER), ${DURATION}s"
        store_tans "$WORK/verification.db" "$WORK/tans.txt"
        load "$verification" -H "Content-Type: application/json" -H "X-Service-Token: $SERVICE_TOKEN" -s "$LUA/pool-json.lua" \
            "http://127.0.0.1:$INTERNAL_PORT/version/v1/tan/verify" -- "$WORK/tans.txt" once 2 \
            '{"tan":"%s","redemptionKey":"5d41402abc4b2a76b9719d911017c592"}'
        stop "$verification"
        awk -v round="$round" -v build="$bin" -v crps="$ceiling_rps" -v cus="$ceiling_us" -v rps="$rps" -v us="$CPU_US" \
            -v p99="$p99_us" -v stolen="$ceiling_stolen % / $STOLEN %" 'BEGIN {
                printf "| %d | %s | %\047d | %.1f | %\047d | %.0f %% | %.1f | %.2f | %.1f | %s |\n",
                    round, build, crps, cus, rps, 100 * rps / crps, us, us / cus, p99 / 1000, stolen }'
    done
done
