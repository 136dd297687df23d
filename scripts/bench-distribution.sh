#!/usr/bin/env bash
# Distribution benchmark: wall time and peak memory of `submission-service distribute` over N stored keys.
#
#   scripts/bench-distribution.sh                 # 10,000, 100,000 and 1,000,000 keys, release build, SQLite
#   BUILD=debug scripts/bench-distribution.sh 100000
#   BENCH_BIN=/some/dir scripts/bench-distribution.sh  # that directory's submission-service, not built here
#
# Keys are random, spread over the last 9 days of submissions with risk levels 3..8, inserted straight into a
# SQLite database migrated by the service itself. Two runs are timed: the first, which places every key, and the
# next hour's, which reads them all but plans one hour. Results are printed as a markdown table for
# docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-release}
COUNTS=("$@")
((${#COUNTS[@]})) || COUNTS=(10000 100000 1000000)

# Built as the Dockerfile (and scripts/bench) build it, so all three share one build directory's products;
# BENCH_BIN names a directory of executables built already (scripts/bench passes its own).
if [[ -n ${BENCH_BIN:-} ]]; then
    BUILD=release
    BIN=$BENCH_BIN/submission-service
else
    build=(swift build -c debug --static-swift-stdlib)
    [[ $BUILD == release ]] && build=(scripts/release-build)
    "${build[@]}" --product submission-service >&2
    BIN=$("${build[@]}" --show-bin-path)/submission-service
fi

printf '| keys | build | wall time (s) | peak RSS (MB) | files written | next hour: wall time (s) | next hour: peak RSS (MB) |\n|---:|---|---:|---:|---:|---:|---:|\n'
for count in "${COUNTS[@]}"; do
    work=$(mktemp -d /tmp/bench-distribution.XXXXXX)
    export DATABASE_URL="sqlite://$work/submission.db" DATA_DIR="$work" EXPORT_DIR="$work/exports" LOG_LEVEL=error
    "$BIN" migrate
    python3 - "$work/submission.db" "$count" <<'PY'
import os, random, sqlite3, sys, time
path, count = sys.argv[1], int(sys.argv[2])
now_hour = int(time.time()) // 3600
today_interval = int(time.time()) // 600 // 144 * 144
db = sqlite3.connect(path)
rows = []
for i in range(count):
    age_hours = random.randrange(2, 9 * 24)
    rows.append((os.urandom(16), today_interval - 144 * random.randrange(1, 14), 144, random.randrange(3, 9), 2, 1,
                 "DE", "DE", 0, 0, now_hour - age_hours))
db.executemany("""INSERT INTO diagnosis_keys (key_data, rolling_start_interval_number, rolling_period,
    transmission_risk_level, days_since_onset_of_symptoms, report_type, origin_country, visited_countries,
    consent_to_federation, submission_type, submission_timestamp) VALUES (?,?,?,?,?,?,?,?,?,?,?)""", rows)
db.commit()
PY
    # The first run places every key: the whole window is new to it.
    output=$( { /usr/bin/time -f 'TIME %e %M' "$BIN" distribute; } 2>&1 )
    read -r seconds kilobytes < <(grep '^TIME' <<<"$output" | awk '{print $2, $3}')
    files=$(grep -o '[0-9]* new file' <<<"$output" | awk '{print $1}')
    # The hourly run of a service in operation: all keys read, one hour to plan, record and write. The last hour
    # is handed back to the job (its keys unplaced, the planned hour one earlier), as if the clock had moved on.
    python3 - "$work/submission.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(last,) = db.execute("SELECT planned_through_hour FROM distribution_progress").fetchone()
db.execute("UPDATE diagnosis_keys SET published_hour = NULL WHERE published_hour = ?", (last,))
db.execute("UPDATE distribution_progress SET planned_through_hour = ?", (last - 1,))
db.commit()
PY
    output=$( { /usr/bin/time -f 'TIME %e %M' "$BIN" distribute; } 2>&1 )
    read -r next_seconds next_kilobytes < <(grep '^TIME' <<<"$output" | awk '{print $2, $3}')
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$count" "$BUILD" "$seconds" "$((kilobytes / 1024))" "$files" \
        "$next_seconds" "$((next_kilobytes / 1024))"
    rm -rf "$work"
done
