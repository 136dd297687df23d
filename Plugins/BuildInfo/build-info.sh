#!/bin/sh
# build-info.sh <package directory> <output file>: the Swift source of the commit this tree is built from, for the
# BuildInfo plugin. The commit is git's (with "-dirty" when tracked files have uncommitted changes); without git
# metadata (a Docker build context) the first line of BUILD_COMMIT in the package directory, else "unknown". The file
# is rewritten only when that commit changes, so its build date is when this commit was first built here.
set -eu
package=$1
output=$2
PATH=/usr/bin:/bin:/usr/local/bin
export PATH

commit=
if command -v git >/dev/null 2>&1 && git -C "$package" rev-parse --git-dir >/dev/null 2>&1; then
    commit=$(git -C "$package" rev-parse --short=12 HEAD 2>/dev/null || true)
    if [ -n "$commit" ] && [ -n "$(git -C "$package" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit-dirty"
    fi
fi
if [ -z "$commit" ] && [ -r "$package/BUILD_COMMIT" ]; then
    commit=$(head -n 1 "$package/BUILD_COMMIT" | tr -cd '0-9A-Za-z._-')
fi
[ -n "$commit" ] || commit=unknown

mkdir -p "$(dirname "$output")"
if [ -f "$output" ] && grep -q "^let generatedCommit = \"$commit\"$" "$output"; then
    exit 0
fi
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
temporary="$output.$$"
cat > "$temporary" <<SWIFT
// Written by Plugins/BuildInfo/build-info.sh before the build; not in the repository.
let generatedCommit = "$commit"
let generatedBuildDate = "$date"
SWIFT
mv "$temporary" "$output"
