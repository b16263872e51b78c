#!/usr/bin/env bash
# The storage suites also run on a real, throwaway PostgreSQL started by the tests themselves
# (test/support/postgres.ts). This makes sure the server binaries are there: on Debian, as root,
# it installs the postgresql package; elsewhere it says what is missing.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { [ -n "${PG_BIN_DIR:-}" ] && [ -x "$PG_BIN_DIR/initdb" ]; }; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing PostgreSQL server binaries (Debian package postgresql)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  exit 0
fi
echo "PostgreSQL server binaries not found: install postgresql (>= 14) or set PG_BIN_DIR" >&2
exit 1
