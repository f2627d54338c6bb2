#!/usr/bin/env bash
# The Python MCP client (PyPI `mcp`) for the MCP door's interop test, in a venv under
# ~/.cache/toolhub; prints the venv's python. Fails loudly when it cannot be installed.
set -euo pipefail
MCP_PY_VERSION="${MCP_PY_VERSION:-2.3.0}"
VENV="${TOOLHUB_CACHE:-$HOME/.cache/toolhub}/mcp-python-${MCP_PY_VERSION}"
if ! "$VENV/bin/python" -c 'import mcp.client.streamable_http' >/dev/null 2>&1; then
  python3 -m venv "$VENV" >&2 || { echo "mcp-python: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==${MCP_PY_VERSION}" >&2 || { echo "mcp-python: pip install mcp==${MCP_PY_VERSION} failed" >&2; exit 1; }
fi
echo "$VENV/bin/python"
