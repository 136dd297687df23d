#!/usr/bin/env bash
# Runs every test of ExposureSuite against SQLite and a real PostgreSQL.
#
#   scripts/test.sh                 # starts a throwaway PostgreSQL, runs all tests, stops it
#   scripts/test.sh --filter Verif  # extra arguments go to `swift test` (and leave out the browser test)
#   TEST_POSTGRES_URL=postgres://user@host:5432/postgres scripts/test.sh   # use your own server
#   BROWSER_TESTS=0 FUZZ_API=0 KUBERNETES_VALIDATE=0 scripts/test.sh   # Swift tests only
#   MOTO_SERVER=/path/to/moto_server scripts/test.sh   # the S3 stand-in of the object-store tests (default: .moto-venv)
#   scripts/test.sh --install       # as root: first install the Debian packages that are missing (CI does)
#
# The throwaway server lives in a temporary directory on a free port, with fsync off, and is removed afterwards.
# Nothing is installed on the machine unless --install says so: a missing package is named in one line
# (scripts/requirements.sh; docs/testing.md says what each is for). Python tools from PyPI (moto, schemathesis,
# kubernetes-validate) go into virtual environments inside the checkout (.moto-venv, .fuzz-venv, .k8s-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/requirements.sh
if [[ "${1:-}" == --install ]]; then export REQUIREMENTS_INSTALL=1; shift; fi

log() { printf '\033[1m[test]\033[0m %s\n' "$*" >&2; }

find_pg_bin() {
    local dir
    for dir in /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
        if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then echo "$dir"; return 0; fi
    done
    if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

start_throwaway_postgres() {
    local bin
    bin=$(find_pg_bin)
    PG_DIR=$(mktemp -d /tmp/exposure-pg.XXXXXX)
    PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    local run=()
    local user
    user=$(id -un)
    if [[ $(id -u) -eq 0 ]]; then
        # PostgreSQL refuses to run as root: the server runs as the postgres user, in a directory it owns.
        id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
        chown postgres "$PG_DIR"
        run=(runuser -u postgres --)
        user=postgres
    fi
    log "starting a throwaway PostgreSQL ($("$bin/postgres" --version | awk '{print $3}')) on port $PG_PORT"
    "${run[@]}" "$bin/initdb" -D "$PG_DIR/data" --auth=trust --username="$user" --encoding=UTF8 --no-instructions >/dev/null
    "${run[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start \
        -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" >/dev/null
    PG_STOP=("${run[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop)
    trap stop_throwaway_postgres EXIT
    export TEST_POSTGRES_URL="postgres://$user@127.0.0.1:$PG_PORT/postgres"
}

stop_throwaway_postgres() {
    "${PG_STOP[@]}" >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
}

# Everything the run needs from the system, before anything is built: one line names what is missing. The browser
# test needs Chromium, its driver and Selenium only when it runs (a full run without BROWSER_TESTS=0).
needs=(libsodium nginx promtool zbarimg protoc python-protobuf python-yaml python-venv openssl)
if [[ -z "${TEST_POSTGRES_URL:-}" ]]; then needs+=(postgresql); fi
if [[ $# -eq 0 && "${BROWSER_TESTS:-1}" != 0 ]]; then needs+=(chromium chromedriver selenium); fi
require_packages "${needs[@]}"

# Cheap, and before anything is built: a rule that imports HTTP or storage, or a service that imports another,
# fails at once (the build below also refuses an import a target does not declare).
log "checking the layers (scripts/check-layers.py)"
scripts/check-layers.py

# Also before the build: every setting and command the code reads is in docs/operations.md, every variable the compose
# file requires is in its header, every Secret key the Kubernetes manifests use is in their README.
log "checking that the settings, commands and secrets are documented (scripts/check-docs-drift.py)"
scripts/check-docs-drift.py

# The CDN origin (deploy/nginx-cdn.conf) serves every kind of file of the export tree with the content type and cache
# lifetime `serve` gives it: nginx runs on a loopback port over a small tree (a missing nginx fails with REQUIRE_NGINX=1).
log "checking the CDN origin configuration through nginx (scripts/check-cdn-config.py)"
REQUIRE_NGINX=${REQUIRE_NGINX:-1} scripts/check-cdn-config.py

# Also before the build: a documented status without a test fails at once.
log "checking that every documented status of every operation has a test (scripts/check-status-coverage.py)"
scripts/check-status-coverage.py --gaps

# The dashboard and the alert rules read only metrics the services publish, and each alert fires on its own unit test
# (promtool, from Debian's prometheus package).
log "checking the dashboard and the alert rules (scripts/check-monitoring.py)"
REQUIRE_PROMTOOL=${REQUIRE_PROMTOOL:-1} scripts/check-monitoring.py

if [[ -z "${TEST_POSTGRES_URL:-}" ]]; then
    start_throwaway_postgres
else
    log "using PostgreSQL at TEST_POSTGRES_URL"
fi
# Every PostgreSQL variant of a test must run: a missing server is a failure, not a skip.
export REQUIRE_POSTGRES=1

# The Kubernetes manifests against the Kubernetes schemas, first: it takes seconds and needs no build.
if [[ $# -eq 0 && "${KUBERNETES_VALIDATE:-1}" != 0 ]]; then
    log "validating the Kubernetes manifests (KUBERNETES_VALIDATE=0 leaves it out)"
    scripts/validate-kubernetes.sh
fi

# moto (PyPI), a real S3 API for the tests of publishing to an object store, lives in a virtual environment of its
# own (.moto-venv, made on first use), as schemathesis does in scripts/fuzz-api.sh; MOTO_SERVER tells the tests where
# it is (set it yourself to use another). Those tests must run: with REQUIRE_MOTO=1 a missing moto is a failure.
if [[ -z "${MOTO_SERVER:-}" ]]; then
    moto_venv=.moto-venv
    if [[ ! -x $moto_venv/bin/moto_server ]]; then
        log "installing moto into $moto_venv"
        python3 -m venv "$moto_venv"
        "$moto_venv/bin/pip" install -q 'moto[server]>=5.1,<6'
    fi
    export MOTO_SERVER="$PWD/$moto_venv/bin/moto_server"
fi
export REQUIRE_MOTO=1

# nginx, the load balancer in front of the replicas of the replica test (Debian's package, checked above). With
# REQUIRE_NGINX=1 a missing nginx is a failure.
export REQUIRE_NGINX=1

log "building"
swift build --build-tests --explicit-target-dependency-import-check error
if [[ $# -gt 0 ]]; then
    # The tests asked for may be timing tests: one at a time.
    log "running the tests asked for (SQLite and PostgreSQL)"
    swift test --skip-build --no-parallel "$@"
else
    # The tests whose verdict depends on time (the statistical comparisons of fake and real answers, and the
    # kill/restart faults) run as a step of their own after the others, one at a time, so that their output (every
    # round a comparison rejected, every fault's audit) stands apart and a failure there is told from one elsewhere.
    # MetricsPrivacyTests joins them: it compares the process's whole metric registry before and after one request,
    # which any other test running beside it moves; so does the teleTAN repeat test, which reads the process-wide
    # count of issued teleTANs.
    timing='FakeLatencyTests|DatabaseRestartTests|VerificationCrashTests|SubmissionCrashTests|SubmissionKillPointTests|DistributionCrashTests|ReplicasBehindNginxTests'
    alone='MetricsPrivacyTests|aRepeatedRequestIsAnsweredWithTheSameTeleTANForTenMinutes'
    # The others run in parallel inside one test process (Swift Testing; --num-workers applies to XCTest only, which
    # we do not use). Unbounded, all ~480 start at once on a two-core machine, and deadlines meant only to end hangs
    # (a health probe's 5 s, a database's 0.5 s in tests of giving up) ran out; a few at a time per core keeps the
    # machine busy without that. TEST_PARALLELISM overrides the width.
    width=${TEST_PARALLELISM:-$(( $(nproc) * 2 ))}
    log "running the tests (SQLite and PostgreSQL), $width at a time, the timing and fault tests apart"
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$width swift test --skip-build --parallel --skip "$timing|$alone"
    log "running the timing and fault tests one at a time: the fake/real latency comparisons, the kill/restart faults, the metrics comparison"
    swift test --skip-build --no-parallel --filter "$timing|$alone"
fi

# The portal in a real (headless) browser, and every OpenAPI document fuzzed against a running suite, unless only
# some tests were asked for.
if [[ $# -eq 0 && "${BROWSER_TESTS:-1}" != 0 ]]; then
    log "running the browser test (BROWSER_TESTS=0 leaves it out)"
    SKIP_BUILD=1 scripts/browser-test.sh
fi
if [[ $# -eq 0 && "${FUZZ_API:-1}" != 0 ]]; then
    log "fuzzing every API with schemathesis (FUZZ_API=0 leaves it out)"
    scripts/fuzz-api.sh
fi
