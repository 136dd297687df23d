#!/usr/bin/env bash
# Property-based fuzzing of every HTTP API with schemathesis (PyPI), against a suite started for the run.
#
#   scripts/fuzz-api.sh              # 100 examples per operation (scripts/test.sh runs it this way in CI)
#   EXAMPLES=500 scripts/fuzz-api.sh
#
# Each listener is fuzzed with the operations it serves (by tag), and every response must be documented: no 5xx,
# documented status codes, bodies matching their schema, documented content types and headers.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /opt/swift/usr/bin ]]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
# schemathesis lives in a virtual environment of its own (.fuzz-venv, made on first use): no system Python is touched.
venv=.fuzz-venv
if [[ ! -x $venv/bin/schemathesis ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'schemathesis>=4.32,<5'
fi
EXAMPLES=${EXAMPLES:-100}

swift build --product exposure-suite >&2
data=$(mktemp -d /tmp/fuzz-api.XXXXXX)
DATA_DIR="$data" LOG_LEVEL=error "$(swift build --show-bin-path)/exposure-suite" >"$data/suite.log" 2>&1 &
suite=$!
trap 'kill $suite 2>/dev/null; wait $suite 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:8030/health/live >/dev/null && break; sleep 0.2; done

checks=not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance,response_headers_conformance
status=0
run() {
    local spec=$1 port=$2; shift 2
    echo "== openapi/$spec on port $port"
    timeout "${FUZZ_TIMEOUT:-300}" "$venv/bin/schemathesis" run "openapi/$spec" --url "http://127.0.0.1:$port" --checks "$checks" --max-examples "$EXAMPLES" --seed 1 "$@" || status=1
}
run verification.yaml 8010 --include-tag app
# Internal listeners answer only services that present their token: the fuzzer presents the suite's.
credential() { grep "^$1=" "$data/credentials.txt" | cut -d= -f2; }
run verification.yaml 8011 --include-tag internal -H "X-Service-Token: $(credential SUBMISSION_TO_VERIFICATION_TOKEN)"
# The lab endpoints with the suite's development lab key, so that the fuzzer gets past authentication.
lab_key=$(credential LAB_API_KEY)
run testresult.yaml 8020 --include-tag lab -H "Authorization: Bearer $lab_key"
run testresult.yaml 8021 --include-tag internal -H "X-Service-Token: $(credential VERIFICATION_TO_TESTRESULT_TOKEN)"
# schemathesis cannot generate protobuf bodies: submission gets the coverage phase (headers, sizes, missing and
# malformed bodies); its payload rules are covered by the Swift tests.
run submission.yaml 8030 --phases coverage
exit $status
