#!/usr/bin/env bash
# Browser test of the portal: headless Chromium against the real portal-service and verification-service.
#
#   scripts/browser-test.sh                     # installs what is missing (as root), builds, runs the test
#   SCREENSHOT=docs/images/portal-teletan.png scripts/browser-test.sh   # refresh the README screenshot
#   SKIP_BUILD=1 scripts/browser-test.sh        # use the executables already in .build/debug
#
# Needs Debian's chromium, chromium-driver and python3-selenium; as root they are installed when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /opt/swift/usr/bin ]]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

log() { printf '\033[1m[browser-test]\033[0m %s\n' "$*" >&2; }

# Debian's python3-selenium lives in the system interpreter (a pyenv or venv python3 on PATH would not see it).
PYTHON=${PYTHON:-$( [[ -x /usr/bin/python3 ]] && echo /usr/bin/python3 || command -v python3 )}
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
"$PYTHON" -c 'import selenium' 2>/dev/null || missing+=(python3-selenium)
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        log "missing: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
        exit 1
    fi
    log "installing ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    log "building portal-service and verification-service"
    swift build --product portal-service
    swift build --product verification-service
fi
log "running Tests/browser/test_portal.py"
exec "$PYTHON" Tests/browser/test_portal.py
