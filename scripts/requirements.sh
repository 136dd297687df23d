#!/usr/bin/env bash
# What the tests need from the system, checked before anything is built: sourced by scripts/test.sh and
# scripts/browser-test.sh. Each missing piece is named with its Debian package in one line; nothing is installed unless
# asked (`scripts/test.sh --install`, as root), so that a run on a developer's machine never changes the machine.
#
#   require_packages NEEDS...   # each NEED is one of the names in the case below
#   REQUIREMENTS_INSTALL=1      # install what is missing with apt-get (root only)

# The Debian package a need is met by, and a check that it is met.
requirement_package() {
    case "$1" in
        postgresql) echo postgresql ;; nginx) echo nginx ;; promtool) echo prometheus ;; zbarimg) echo zbar-tools ;;
        protoc) echo protobuf-compiler ;; python-protobuf) echo python3-protobuf ;; python-yaml) echo python3-yaml ;;
        python-venv) echo python3-venv ;; openssl) echo openssl ;; libsodium) echo "libsodium-dev pkg-config" ;;
        chromium) echo chromium ;; chromedriver) echo chromium-driver ;; selenium) echo python3-selenium ;;
        *) echo "$1" ;;
    esac
}

requirement_met() {
    # Debian's python3 packages live in the system interpreter (a pyenv or venv python3 on PATH would not see them).
    local python=${PYTHON:-$( [[ -x /usr/bin/python3 ]] && echo /usr/bin/python3 || command -v python3 )}
    case "$1" in
        postgresql) compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null ;;
        nginx) command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] ;;
        python-protobuf) "$python" -c 'import google.protobuf' 2>/dev/null ;;
        python-yaml) "$python" -c 'import yaml' 2>/dev/null ;;
        python-venv) "$python" -c 'import ensurepip, venv' 2>/dev/null ;;
        selenium) "$python" -c 'import selenium' 2>/dev/null ;;
        libsodium) pkg-config --exists libsodium 2>/dev/null ;;
        *) command -v "$1" >/dev/null ;;
    esac
}

require_packages() {
    local need missing=()
    for need in "$@"; do requirement_met "$need" || missing+=($(requirement_package "$need")); done
    ((${#missing[@]})) || return 0
    if [[ "${REQUIREMENTS_INSTALL:-0}" == 1 && $(id -u) -eq 0 ]]; then
        printf '\033[1m[requirements]\033[0m installing %s\n' "${missing[*]}" >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
        return 0
    fi
    printf '\033[1m[requirements]\033[0m missing: %s. Install them (Debian/Ubuntu: sudo apt-get install %s), or run scripts/test.sh --install as root; docs/testing.md lists what each is for\n' \
        "${missing[*]}" "${missing[*]}" >&2
    exit 1
}
