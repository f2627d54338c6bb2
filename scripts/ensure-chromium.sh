#!/usr/bin/env bash
# Debian's chromium (driven by playwright-core; no browser download) and a CJK font for the
# console's browser tests and screenshots: installed with apt when missing; fails loudly otherwise.
set -euo pipefail
need=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || need+=(chromium)
fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk" || need+=(fonts-wqy-microhei)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} with apt"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y --no-install-recommends "${need[@]}" >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
fi
"${CHROMIUM_PATH:-/usr/bin/chromium}" --version
