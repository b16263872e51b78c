#!/usr/bin/env bash
# The page tests (the /docs reference, the printable report) load pages in headless Chromium
# through puppeteer-core. This makes sure a Chromium binary is there: on Debian, as root, it
# installs the chromium package; elsewhere it says what is missing (or set CHROMIUM_PATH).
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then
  exit 0
fi
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing headless Chromium (Debian package chromium)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
echo "Chromium not found: install chromium or set CHROMIUM_PATH" >&2
exit 1
