#!/usr/bin/env bash
# Renders the Kubernetes manifests (deploy/kubernetes: the base and every overlay) and validates them against the
# Kubernetes schemas, offline, with kubernetes-validate (PyPI), then checks them against each other
# (scripts/validate-kubernetes.py says what). scripts/test.sh runs it; exit code 1 on any problem.
#
#   scripts/validate-kubernetes.sh                                # Kubernetes 1.30.0 and the newest bundled
#   scripts/validate-kubernetes.sh --kubernetes-version 1.33.0
set -euo pipefail
cd "$(dirname "$0")/.."
# kubernetes-validate lives in a virtual environment of its own (.k8s-venv, made on first use), pinned to the version
# whose bundled schemas the manifests were checked with: no system Python is touched.
venv=.k8s-venv
version=1.37.0
if [[ ! -x $venv/bin/kubernetes-validate ]] || [[ $("$venv/bin/python" -c 'import kubernetes_validate; print(kubernetes_validate.version.__version__)' 2>/dev/null) != "$version" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "kubernetes-validate==$version"
fi
exec "$venv/bin/python" scripts/validate-kubernetes.py "$@"
