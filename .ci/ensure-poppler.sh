#!/usr/bin/env bash
# The report PDF test turns the PDF's first page into a PNG with pdftoppm (poppler-utils). This
# makes sure it is there: on Debian, as root, it installs poppler-utils; elsewhere it says what is
# missing (the test then skips that one assertion and says why).
set -euo pipefail
if command -v pdftoppm >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing pdftoppm (Debian package poppler-utils)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null
  exit 0
fi
echo "pdftoppm not found: install poppler-utils" >&2
exit 1
