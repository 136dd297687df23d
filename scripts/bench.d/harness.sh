# Service processes, CPU readings and a throwaway PostgreSQL, shared by scripts/bench and scripts/bench-peak
# (sourced after process.sh; each script defines log, fail, WORK, RESULTS, STARTED_PIDS and PG_PORT first).

# The processes whose CPU time every scenario reports per request, as "name pid" pairs; set where they start.
# "postgres" stands for the throwaway server: its postmaster and every backend; "nginx" for its master and workers.
CPU_WATCH=()

# cpu_reading: "<name>=<ticks> …" for the processes of CPU_WATCH. A process that has gone counts 0.
cpu_reading() {
    local i name pid ticks child
    for ((i = 0; i < ${#CPU_WATCH[@]}; i += 2)); do
        name=${CPU_WATCH[i]} pid=${CPU_WATCH[i + 1]} ticks=0
        if [[ $name == postgres || $name == nginx ]]; then
            # The parent with what its exited children used (it reaps them), and each live child.
            ticks=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
            for child in $(pgrep -P "$pid"); do ticks=$((ticks + $(cpu_ticks "$child" 2>/dev/null || echo 0))); done
        else
            ticks=$(cpu_ticks "$pid" 2>/dev/null || echo 0)
        fi
        printf '%s=%s ' "$name" "$ticks"
    done
}

# cpu_per_request <before> <after> <requests>: "name ms, name ms": each watched process's CPU time per request
# between two readings, leaving out processes that used (next to) none.
cpu_per_request() {
    awk -v before="$1" -v after="$2" -v requests="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        n = split(before, b, " "); split(after, a, " ")
        for (i = 1; i <= n && requests > 0; i++) {
            split(b[i], x, "="); split(a[i], y, "=")
            ms = (y[2] - x[2]) * 1000 / hz / requests
            if (ms >= 0.005) { out = out separator sprintf("%s %.3f", x[1], ms); separator = ", " }
        }
        print out
    }'
}

# start <name> <ready URL> <executable> [args…], with the service's settings in the environment of the call.
# Sets STARTED_PID, STARTUP_MS (exec to the first 200 of the ready URL) and IDLE_RSS_MB (one second later: the
# resident set, then in brackets its anonymous part; the rest is shared library pages mapped from files).
start() {
    local name=$1 ready=$2
    shift 2
    local begin deadline
    begin=$(now_ms)
    "$@" >>"$WORK/$name.log" 2>&1 &
    STARTED_PID=$!
    STARTED_PIDS+=("$STARTED_PID")
    deadline=$((begin + 30000))
    until curl -fs -o /dev/null --max-time 1 "$ready"; do
        kill -0 "$STARTED_PID" 2>/dev/null || fail "$name exited during start-up (see $WORK/$name.log)"
        (($(now_ms) < deadline)) || fail "$name was not ready within 30 s (see $WORK/$name.log)"
        sleep 0.01
    done
    STARTUP_MS=$(($(now_ms) - begin))
    sleep 1
    IDLE_RSS_MB="$(memory_mb "$STARTED_PID" VmRSS) ($(memory_mb "$STARTED_PID" RssAnon))"
}

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }

record() { local IFS=$'\t'; echo "$*" >>"$RESULTS"; }

start_postgres() {
    local bin=/usr/lib/postgresql/15/bin dir
    [[ -x $bin/initdb ]] || bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | tail -1)")
    # A directory of its own: the postgres user cannot enter WORK (mode 0700, owned by us).
    dir=$(mktemp -d /tmp/exposure-bench-pg.XXXXXX)
    PG_DIR=$dir
    local run=() user
    user=$(id -un)
    if [[ $(id -u) -eq 0 ]]; then
        # PostgreSQL refuses to run as root: the server runs as the postgres user, in a directory it owns.
        chown postgres "$dir"
        run=(runuser -u postgres --)
        user=postgres
    fi
    log "starting a throwaway PostgreSQL on port $PG_PORT"
    "${run[@]}" "$bin/initdb" -D "$dir/data" --auth=trust --username="$user" --encoding=UTF8 --no-instructions >/dev/null
    PG_STOP=("${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop)
    "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
        -o "-p $PG_PORT -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400" >/dev/null
    PG_URL="postgres://$user@127.0.0.1:$PG_PORT/postgres"
    PG_POSTMASTER=$(head -n 1 "$dir/data/postmaster.pid")
}

# A fresh database on the server; prints its URL.
new_database() {
    local name="bench_$$_$1"
    psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" >/dev/null
    [[ -z ${BENCH_POSTGRES_URL:-} ]] || EXTERNAL_DATABASES+=("$name")
    # Replace the database of PG_URL (its last path component).
    echo "${PG_URL%/*}/$name"
}

# split_pool <file> <n> <first> <rest>: the first n lines of a pool for one scenario, the others for the next.
split_pool() {
    head -n "$2" "$1" >"$3"
    tail -n +"$(($2 + 1))" "$1" >"$4"
}
