#!/usr/bin/env bash
# Distribution benchmark: wall time and peak memory of `submission-service distribute` over N stored keys.
#
#   scripts/bench-distribution.sh                 # 10,000, 100,000 and 1,000,000 keys, release build, SQLite
#   BUILD=debug scripts/bench-distribution.sh 100000
#   BENCH_BIN=/some/dir scripts/bench-distribution.sh  # that directory's submission-service, not built here
#   BENCH_POSTGRES_URL=postgres://user@127.0.0.1:5432/postgres scripts/bench-distribution.sh  # on PostgreSQL:
#                                                 # a database per count on that server, dropped afterwards
#   BENCH_KEY_ORDER=arrival scripts/bench-distribution.sh 1000000  # keys stored as a service stores them (below)
#
# Keys are random, spread over the last 9 days of submissions with risk levels 3..8, inserted straight into a
# database migrated by the service itself, in random order of submission: an hour's keys lie all over the table,
# the dearest layout for the first run's placements. BENCH_KEY_ORDER=arrival stores them in order of their
# submission hour instead, as a service's own table holds them. Three runs are timed:
#   - the first, which places every key (the whole window is new to it) and writes every file;
#   - the next hour's, the run of a service in operation: the last hour is handed back to the job (its keys
#     unplaced, the planned hour one earlier), as if the clock had moved on;
#   - a day's first run: the same, and yesterday's daily file is gone, as it is in the first run after midnight,
#     which writes it from the keys of yesterday's hours.
# Results are printed as a markdown table for docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-release}
COUNTS=("$@")
((${#COUNTS[@]})) || COUNTS=(10000 100000 1000000)
PG_SERVER=${BENCH_POSTGRES_URL:-}
case ${BENCH_KEY_ORDER:-random} in
    random) KEY_ORDER=random ORDER_BY="" ORDER_LABEL="" ;;
    arrival) KEY_ORDER=arrival ORDER_BY="ORDER BY submission_timestamp" ORDER_LABEL=", keys in arrival order" ;;
    *) echo "BENCH_KEY_ORDER must be random or arrival, not '$BENCH_KEY_ORDER'" >&2; exit 64 ;;
esac

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

# Runs one SQL script against the benchmark's database.
sql() {
    if [[ -n $PG_SERVER ]]; then
        psql -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "$1" >/dev/null
    else
        python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript(sys.argv[2]); db.commit()' \
            "$WORK/submission.db" "$1"
    fi
}

# Times one `distribute`; prints seconds, peak RSS in MB and the number of files it wrote.
timed_run() {
    local output seconds kilobytes
    output=$( { /usr/bin/time -f 'TIME %e %M' "$BIN" distribute; } 2>&1 )
    read -r seconds kilobytes < <(grep '^TIME' <<<"$output" | awk '{print $2, $3}')
    echo "$seconds $((kilobytes / 1024)) $(grep -o '[0-9]* new file' <<<"$output" | awk '{print $1}')"
}

# The last hour planned goes back to the job, its keys unplaced.
HAND_BACK_LAST_HOUR="
UPDATE diagnosis_keys SET published_hour = NULL
    WHERE published_hour = (SELECT planned_through_hour FROM distribution_progress);
UPDATE distribution_progress SET planned_through_hour = planned_through_hour - 1;"

database=SQLite
[[ -z $PG_SERVER ]] || database=PostgreSQL
database+=$ORDER_LABEL
printf '| keys | build | database | first run (s) | first run: peak RSS (MB) | files written | next hour (s) | next hour: peak RSS (MB) | first run of a day (s) | first run of a day: peak RSS (MB) |\n'
printf '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
for count in "${COUNTS[@]}"; do
    WORK=$(mktemp -d /tmp/bench-distribution.XXXXXX)
    if [[ -n $PG_SERVER ]]; then
        name="bench_distribution_$$_$count"
        PGOPTIONS="-c client_min_messages=warning" psql -q "$PG_SERVER" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" >/dev/null
        # Replace the database of the server's URL (its last path component).
        export DATABASE_URL="${PG_SERVER%/*}/$name"
    else
        export DATABASE_URL="sqlite://$WORK/submission.db"
    fi
    export DATA_DIR="$WORK" EXPORT_DIR="$WORK/exports" LOG_LEVEL=error SIGNING_KEY_FILE="$WORK/export-signing-key.pem"
    # No service makes a key: the one `distribute` signs with, made here.
    [[ -f $SIGNING_KEY_FILE ]] || (umask 077 && openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$SIGNING_KEY_FILE")
    "$BIN" migrate
    now=$(date +%s)
    if [[ -n $PG_SERVER ]]; then
        sql "INSERT INTO diagnosis_keys (key_data, rolling_start_interval_number, rolling_period,
                transmission_risk_level, days_since_onset_of_symptoms, report_type, origin_country, visited_countries,
                consent_to_federation, submission_type, submission_timestamp)
            SELECT * FROM (
                SELECT decode(md5(random()::text || g::text), 'hex'), $((now / 600 / 144 * 144)) - 144 * (1 + floor(random() * 13)::int),
                    144, 3 + floor(random() * 6)::int, 2, 1, 'DE', 'DE', false, 0,
                    $((now / 3600)) - (2 + floor(random() * (9 * 24 - 2))::int) AS submission_timestamp
                FROM generate_series(1, $count) AS g
            ) AS generated $ORDER_BY;
            ANALYZE diagnosis_keys;"
    else
        python3 - "$WORK/submission.db" "$count" "$now" "$KEY_ORDER" <<'PY'
import os, random, sqlite3, sys
path, count, now, order = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
now_hour = now // 3600
today_interval = now // 600 // 144 * 144
db = sqlite3.connect(path)
rows = []
for i in range(count):
    age_hours = random.randrange(2, 9 * 24)
    rows.append((os.urandom(16), today_interval - 144 * random.randrange(1, 14), 144, random.randrange(3, 9), 2, 1,
                 "DE", "DE", 0, 0, now_hour - age_hours))
if order == "arrival":
    rows.sort(key=lambda row: row[10])
db.executemany("""INSERT INTO diagnosis_keys (key_data, rolling_start_interval_number, rolling_period,
    transmission_risk_level, days_since_onset_of_symptoms, report_type, origin_country, visited_countries,
    consent_to_federation, submission_type, submission_timestamp) VALUES (?,?,?,?,?,?,?,?,?,?,?)""", rows)
db.commit()
PY
    fi
    read -r first first_mb files < <(timed_run)
    sql "$HAND_BACK_LAST_HOUR"
    read -r next next_mb _ < <(timed_run)
    sql "$HAND_BACK_LAST_HOUR"
    yesterday=$(date -u -d "@$((now - 86400))" +%Y-%m-%d)
    rm "$WORK/exports/version/v1/diagnosis-keys/country/DE/date/$yesterday/index"
    read -r day day_mb _ < <(timed_run)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$count" "$BUILD" "$database" "$first" "$first_mb" "$files" \
        "$next" "$next_mb" "$day" "$day_mb"
    [[ -z $PG_SERVER ]] || psql -q "$PG_SERVER" -c "DROP DATABASE IF EXISTS $name" >/dev/null
    rm -rf "$WORK"
done
