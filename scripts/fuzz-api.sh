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
swift build --product verification-service >&2
data=$(mktemp -d /tmp/fuzz-api.XXXXXX)
# Every listener on a free port, so that a suite running on the default ports (or another run) is left alone.
read -r -a ports <<<"$(python3 - <<'PYTHON'
import socket
sockets = [socket.socket() for _ in range(11)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
PYTHON
)"
VERIFICATION=${ports[0]} VERIFICATION_INTERNAL=${ports[1]} TESTRESULT=${ports[2]} TESTRESULT_INTERNAL=${ports[3]}
SUBMISSION=${ports[4]} PORTAL=${ports[5]} VERIFICATION_ISSUER=${ports[10]}
# The LEMON API is on in the suite, with the development keys it makes on first start in the data directory.
DATA_DIR="$data" LOG_LEVEL=error \
    VERIFICATION_PORT=$VERIFICATION VERIFICATION_INTERNAL_PORT=$VERIFICATION_INTERNAL VERIFICATION_MANAGEMENT_PORT=${ports[6]} \
    VERIFICATION_ISSUER_PORT=$VERIFICATION_ISSUER \
    TESTRESULT_PORT=$TESTRESULT TESTRESULT_INTERNAL_PORT=$TESTRESULT_INTERNAL TESTRESULT_MANAGEMENT_PORT=${ports[7]} \
    SUBMISSION_PORT=$SUBMISSION SUBMISSION_MANAGEMENT_PORT=${ports[8]} PORTAL_PORT=$PORTAL PORTAL_MANAGEMENT_PORT=${ports[9]} \
    "$(swift build --show-bin-path)/exposure-suite" >"$data/suite.log" 2>&1 &
suite=$!
trap 'kill $suite 2>/dev/null; wait $suite 2>/dev/null; rm -rf "$data"' EXIT
# Ready when the last listener to start answers; a suite that never gets there fails the run, with its log.
ready=0
for _ in $(seq 1 300); do
    if curl -fs "http://127.0.0.1:$PORTAL/health/live" >/dev/null && curl -fs "http://127.0.0.1:$SUBMISSION/health/live" >/dev/null; then
        ready=1
        break
    fi
    kill -0 $suite 2>/dev/null || break
    sleep 0.2
done
if ((ready == 0)); then
    echo "fuzz-api: the suite did not become ready; its log:" >&2
    cat "$data/suite.log" >&2
    exit 1
fi

checks=not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance,response_headers_conformance
status=0
run() {
    local spec=$1 port=$2; shift 2
    echo "== openapi/$spec on port $port"
    timeout "${FUZZ_TIMEOUT:-300}" "$venv/bin/schemathesis" run "openapi/$spec" --url "http://127.0.0.1:$port" --checks "$checks" --max-examples "$EXAMPLES" --seed 1 "$@" || status=1
}
run verification.yaml "$VERIFICATION" --include-tag app
# Internal listeners answer only services that present their token, on the routes that service may call
# (docs/architecture.md, "Who may call what"): the fuzzer presents the suite's token of the service that calls each.
credential() { grep "^$1=" "$data/credentials.txt" | cut -d= -f2; }
portal_operations=(--include-operation-id createTeleTan --include-operation-id issueOneTimeCode)
run verification.yaml "$VERIFICATION_INTERNAL" --include-tag internal --exclude-operation-id createTeleTan --exclude-operation-id issueOneTimeCode \
    -H "X-Service-Token: $(credential SUBMISSION_TO_VERIFICATION_TOKEN)"
run verification.yaml "$VERIFICATION_INTERNAL" "${portal_operations[@]}" -H "X-Service-Token: $(credential PORTAL_TO_VERIFICATION_TOKEN)"
# The lab endpoints with the suite's development lab key, so that the fuzzer gets past authentication.
lab_key=$(credential LAB_API_KEY)
run testresult.yaml "$TESTRESULT" --include-tag lab -H "Authorization: Bearer $lab_key"
run testresult.yaml "$TESTRESULT_INTERNAL" --include-operation-id getAppResult --include-operation-id getAppResults \
    -H "X-Service-Token: $(credential VERIFICATION_TO_TESTRESULT_TOKEN)"
run testresult.yaml "$TESTRESULT_INTERNAL" --include-operation-id listLabCredentials --include-operation-id createLabCredential \
    --include-operation-id revokeLabCredential -H "X-Service-Token: $(credential PORTAL_TO_TESTRESULT_TOKEN)"
# schemathesis cannot generate protobuf bodies: submission gets the coverage phase (headers, sizes, missing and
# malformed bodies); its payload rules are covered by the Swift tests.
run submission.yaml "$SUBMISSION" --phases coverage
# The CovidShield adapter on the same listener: its protobuf bodies get the coverage phase, as above; its retrieval
# and configuration paths (no body) are fuzzed in full.
run covidshield.yaml "$SUBMISSION" --phases coverage
run covidshield.yaml "$SUBMISSION" --include-method GET
# The ProteGO Safe adapter's JSON endpoints, in full.
run protego.yaml "$SUBMISSION"
# The LEMON API: without a device's token most operations answer 401, which the fuzzer checks as documented.
run lemon.yaml "$SUBMISSION"
# The issuer listener with one issuer of each kind, made in the suite's database as an operator makes them, so that
# the fuzzer gets past authentication (each request carries both tokens; each endpoint reads its own).
issuer() {
    DATABASE_URL="sqlite://$data/verification.db" TELETAN_HASH_KEYS_FILE="$data/teletan-hash-keys" LOG_LEVEL=error \
        "$(swift build --show-bin-path)/verification-service" issuers add --name "$1" --kind "$2" | grep -o 'iss_[A-Za-z0-9_-]*'
}
run verification.yaml "$VERIFICATION_ISSUER" --include-tag issuer \
    -H "Authorization: Bearer $(issuer fuzz-covidshield covidshield)" -H "api-token: $(issuer fuzz-protego protego)"
# ENX (docs/enx.md): the device endpoints with the suite's device key, the issuer endpoints with its admin key, both
# made at the suite's first start. Wrong codes soon meet the guess allowance (429), which is documented too.
run enx.yaml "$VERIFICATION" --include-tag device -H "X-API-Key: $(credential ENX_DEVICE_KEY)"
run enx.yaml "$VERIFICATION_ISSUER" --include-tag issuer -H "X-API-Key: $(credential ENX_ADMIN_KEY)"
# The statistics API on each counting service's management listener, with the suite's reader token (the portal's).
for management in "${ports[6]}" "${ports[7]}" "${ports[8]}"; do
    run statistics.yaml "$management" -H "Authorization: Bearer $(credential PORTAL_STATISTICS_TOKEN)"
done
exit $status
