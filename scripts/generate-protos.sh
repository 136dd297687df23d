#!/usr/bin/env bash
# Regenerates the Swift sources of the ExposureProtocol target from Shared/Protocol/proto/*.proto.
#
#   scripts/generate-protos.sh
#
# Environment:
#   PROTOC_GEN_SWIFT   path to a protoc-gen-swift binary (otherwise PATH, otherwise built from source)
#   PROTOC             path to protoc (otherwise PATH; installed with apt-get when missing and run as root)
#   SWIFT_PROTOBUF_SRC where to clone swift-protobuf for building the plugin (default /tmp/swift-protobuf)
#   SWIFT_PROTOBUF_GIT the repository to clone (default: the local mirror /opt/swift-packages/apple/swift-protobuf.git)
#   SWIFT_PROTOBUF_TAG the tag to build; keep it equal to the SwiftProtobuf version in Package.swift (1.39.0)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROTO_DIR="$ROOT/Shared/Protocol/proto"
OUT_DIR="$ROOT/Shared/Protocol/Generated"
SWIFT_PROTOBUF_SRC="${SWIFT_PROTOBUF_SRC:-/tmp/swift-protobuf}"
SWIFT_PROTOBUF_GIT="${SWIFT_PROTOBUF_GIT:-/opt/swift-packages/apple/swift-protobuf.git}"
SWIFT_PROTOBUF_TAG="${SWIFT_PROTOBUF_TAG:-1.39.0}"

log() { printf 'generate-protos: %s\n' "$*" >&2; }

# --- protoc -----------------------------------------------------------------------------------------
PROTOC="${PROTOC:-$(command -v protoc || true)}"
if [[ -z "$PROTOC" ]]; then
    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
        log "protoc not found; installing protobuf-compiler with apt-get"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends protobuf-compiler
        PROTOC="$(command -v protoc)"
    else
        log "protoc not found; install protobuf-compiler (or set PROTOC) and run again"
        exit 1
    fi
fi

# --- protoc-gen-swift -------------------------------------------------------------------------------
PLUGIN="${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}"
if [[ -z "$PLUGIN" ]]; then
    if [[ ! -d "$SWIFT_PROTOBUF_SRC/.git" ]]; then
        log "cloning $SWIFT_PROTOBUF_GIT into $SWIFT_PROTOBUF_SRC"
        git clone --quiet "$SWIFT_PROTOBUF_GIT" "$SWIFT_PROTOBUF_SRC"
    fi
    if ! git -C "$SWIFT_PROTOBUF_SRC" rev-parse --verify --quiet "refs/tags/$SWIFT_PROTOBUF_TAG" >/dev/null; then
        log "tag $SWIFT_PROTOBUF_TAG not found in $SWIFT_PROTOBUF_SRC (available: $(git -C "$SWIFT_PROTOBUF_SRC" tag | tail -3 | tr '\n' ' '))"
        exit 1
    fi
    git -C "$SWIFT_PROTOBUF_SRC" -c advice.detachedHead=false checkout --quiet "$SWIFT_PROTOBUF_TAG"
    log "building protoc-gen-swift $SWIFT_PROTOBUF_TAG"
    swift build -c release --package-path "$SWIFT_PROTOBUF_SRC" --product protoc-gen-swift >&2
    PLUGIN="$(swift build -c release --package-path "$SWIFT_PROTOBUF_SRC" --show-bin-path)/protoc-gen-swift"
fi
[[ -x "$PLUGIN" ]] || { log "protoc-gen-swift at '$PLUGIN' is not executable"; exit 1; }

log "using $("$PROTOC" --version) and $("$PLUGIN" --version 2>/dev/null || echo '?') ($PLUGIN)"

# --- generate ---------------------------------------------------------------------------------------
shopt -s nullglob
protos=("$PROTO_DIR"/*.proto)
if (( ${#protos[@]} == 0 )); then
    log "no .proto files in $PROTO_DIR"
    exit 1
fi

mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR"/*.pb.swift
"$PROTOC" \
    --plugin="protoc-gen-swift=$PLUGIN" \
    --proto_path="$PROTO_DIR" \
    --swift_out="$OUT_DIR" \
    --swift_opt=Visibility=Public \
    "${protos[@]}"

log "wrote: $(cd "$OUT_DIR" && ls *.pb.swift | tr '\n' ' ')"
