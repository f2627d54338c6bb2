#!/usr/bin/env bash
# Tools the Helm chart checks need, installed once per machine into TOOLHUB_BIN_DIR (like FerretDB
# in services.sh): helm (built from the Go module proxy), grpcurl (the probe test calls health
# through reflection with it, as an operator would) and the PyPI package kubernetes-validate (in a
# virtualenv; it bundles the Kubernetes JSON schemas, so validation works offline).
#
# Usage: bash scripts/k8s-tools.sh install   # prints export lines: HELM, GRPCURL, KUBERNETES_VALIDATE
#        eval "$(bash scripts/k8s-tools.sh install)"
# Fails loudly (exit 1) when a tool cannot be installed: the chart checks are never skipped.
set -euo pipefail

BIN_DIR="${TOOLHUB_BIN_DIR:-$HOME/.cache/toolhub/bin}"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
GRPCURL_VERSION="${GRPCURL_VERSION:-v1.9.4}"
KUBERNETES_VALIDATE_VERSION="${KUBERNETES_VALIDATE_VERSION:-1.37.0}"
VENV="$BIN_DIR/kubernetes-validate-$KUBERNETES_VALIDATE_VERSION"
PYTHON="${PYTHON:-python3}"

log() { echo "k8s-tools: $*" >&2; }
die() {
  echo "k8s-tools: ERROR: $*" >&2
  exit 1
}

helm_ok() { [ -x "$BIN_DIR/helm" ] && "$BIN_DIR/helm" version --template '{{.Version}}' 2>/dev/null | grep -q "^${HELM_VERSION%.*}"; }
grpcurl_ok() { [ -x "$BIN_DIR/grpcurl" ] && "$BIN_DIR/grpcurl" -version 2>&1 | grep -q "${GRPCURL_VERSION#v}"; }
validate_ok() { [ -x "$VENV/bin/kubernetes-validate" ] && "$VENV/bin/kubernetes-validate" --help >/dev/null 2>&1; }

# go install into BIN_DIR, under a lock so two runs never build over each other.
go_install() {
  local module="$1" what="$2"
  command -v go >/dev/null || die "go not found: install Go (apt-get install -y golang-go) to build $what"
  mkdir -p "$BIN_DIR"
  (
    exec 9>"$BIN_DIR/.k8s-tools.lock"
    flock 9
    log "building $what ($module) with $(go version | cut -d' ' -f3), once per machine"
    # -ldflags keep helm's reported version (go install leaves it at the module's default otherwise).
    GOBIN="$BIN_DIR" GOFLAGS=-mod=mod go install ${3:+-ldflags "$3"} "$module" >&2 || die "go install $module failed (see above)"
  )
}

install_all() {
  helm_ok || go_install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "helm $HELM_VERSION" "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  helm_ok || die "$BIN_DIR/helm does not report $HELM_VERSION"
  grpcurl_ok || go_install "github.com/fullstorydev/grpcurl/cmd/grpcurl@$GRPCURL_VERSION" "grpcurl $GRPCURL_VERSION" "-X main.version=$GRPCURL_VERSION"
  grpcurl_ok || die "$BIN_DIR/grpcurl does not report $GRPCURL_VERSION"
  if ! validate_ok; then
    command -v "$PYTHON" >/dev/null || die "$PYTHON not found: kubernetes-validate needs Python 3"
    log "pip install kubernetes-validate==$KUBERNETES_VALIDATE_VERSION into $VENV"
    "$PYTHON" -m venv "$VENV" >&2 || die "python3 -m venv failed (apt-get install -y python3-venv)"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" >&2 || die "pip install kubernetes-validate failed"
    validate_ok || die "kubernetes-validate does not run from $VENV"
  fi
  echo "export HELM=$BIN_DIR/helm"
  echo "export GRPCURL=$BIN_DIR/grpcurl"
  echo "export KUBERNETES_VALIDATE=$VENV/bin/kubernetes-validate"
}

case "${1:-}" in
  install) install_all ;;
  *)
    echo "usage: bash scripts/k8s-tools.sh install" >&2
    exit 2
    ;;
esac
