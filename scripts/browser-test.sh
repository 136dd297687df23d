#!/usr/bin/env bash
# Browser test of the portal: headless Chromium against the real portal-service and verification-service.
#
#   scripts/browser-test.sh                     # builds, runs the test
#   SCREENSHOT=docs/images/portal-teletan.png scripts/browser-test.sh   # refresh the README screenshot
#   SKIP_BUILD=1 scripts/browser-test.sh        # use the executables already in .build/debug
#
# Needs Debian's chromium, chromium-driver and python3-selenium (REQUIREMENTS_INSTALL=1 as root installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /opt/swift/usr/bin ]]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

log() { printf '\033[1m[browser-test]\033[0m %s\n' "$*" >&2; }

# Debian's python3-selenium lives in the system interpreter (a pyenv or venv python3 on PATH would not see it).
PYTHON=${PYTHON:-$( [[ -x /usr/bin/python3 ]] && echo /usr/bin/python3 || command -v python3 )}
source scripts/requirements.sh
require_packages chromium chromedriver selenium

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    log "building portal-service and verification-service"
    swift build --product portal-service
    swift build --product verification-service
    swift build --product testresult-service
    # The development keys the portal serves with (no service makes one).
    swift build --product exposure-suite
fi
# axe-core, the accessibility audit of every page the test shows, comes from PyPI's axe-core-python (which ships it)
# in a virtual environment of its own that still sees Debian's Selenium (.axe-venv, made on first use; --no-deps keeps
# PyPI's packages out).
venv=.axe-venv
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import importlib.util, selenium; assert importlib.util.find_spec("axe_core_python")' 2>/dev/null; then
    log "installing axe-core-python into $venv"
    rm -rf "$venv"
    "$PYTHON" -m venv --system-site-packages "$venv"
    "$venv/bin/pip" install -q --no-deps 'axe-core-python==0.1.0'
fi
log "running Tests/browser/test_portal.py"
exec "$venv/bin/python" Tests/browser/test_portal.py
