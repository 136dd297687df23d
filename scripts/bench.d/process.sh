# Process and machine readings shared by scripts/bench and scripts/bench-tan-verify.sh (sourced, after each has
# defined its own log and fail).

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The resident set of a process in MB: VmRSS (now) or VmHWM (the peak so far).
memory_mb() { awk -v field="$2:" '$1 == field { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }

# The CPU time a process has used so far, in clock ticks (user + system).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# The machine's CPU time so far, in clock ticks: "<stolen> <total>". Stolen time is time the hypervisor gave this
# VM's virtual CPUs to other guests: while a virtual CPU waits for the host, nothing on it runs, which lengthens
# tails and moves figures between runs however fast our code is. Every row reports it, so runs can be compared.
cpu_steal_ticks() { awk '$1 == "cpu" { total = 0; for (i = 2; i <= 9; i++) total += $i; print $9, total; exit }' /proc/stat; }

# steal_percent <before> <after>: the share of the CPU time between two readings of cpu_steal_ticks that was stolen.
steal_percent() {
    awk -v before="$1" -v after="$2" 'BEGIN {
        split(before, b, " "); split(after, a, " ")
        printf "%.0f", (a[2] > b[2]) ? 100 * (a[1] - b[1]) / (a[2] - b[2]) : 0
    }'
}

# settle <pid>: waits (at most 15 s) until the process uses less than 5 % of a core over 200 ms. wrk stops sending
# when its time is up, but requests it already sent (64 lab batches of 1000 results, about a second of work) are
# still being served; without the wait they land in the next scenario's tail.
settle() {
    local pid=$1 ticks before after
    ticks=$(getconf CLK_TCK)
    for _ in $(seq 75); do
        before=$(cpu_ticks "$pid") || return 0
        sleep 0.2
        after=$(cpu_ticks "$pid") || return 0
        # 5 % of one core over 0.2 s is ticks / 100.
        (( (after - before) * 100 < ticks )) && return 0
    done
    log "pid $pid still busy 15 s after the load ($((after - before)) ticks in 0.2 s); going on"
}

# stop <pid>: ends a process started in the background and waits for it.
stop() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
