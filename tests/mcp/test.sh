#!/usr/bin/env bash
# The MCP gateway's scenario tests: a flaky payments server and MCP's reference server, called
# by a real MCP client SDK directly and through `oncely mcp`.
#
#   tests/mcp/test.sh [PYTEST ARGS...]          e.g. -k gateway, -k "a_ or b_"
#   tests/mcp/test.sh --setup-only             only the venv and node_modules (scripts/bench)
#
# Needs: python3 (3.10+), node + npm, and the built binary ($ONCELY_BIN, default
# target/release/oncely: `cargo build --release -p oncely-cli`). Installs requirements.txt into
# tests/mcp/.venv (ignored by git) and the npm packages of package-lock.json into
# tests/mcp/node_modules. PostgreSQL: $ONCELY_TEST_POSTGRES_URL, else a throwaway server from
# tests/pg/start.sh when Debian's PostgreSQL binaries are installed; without either the PostgreSQL
# test is skipped, or fails under CI=1 / ONCELY_REQUIRE_POSTGRES=1.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$here"

venv=${ONCELY_MCP_VENV:-$here/.venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt
npm ci --no-audit --no-fund --loglevel=error
if [ "${1:-}" = --setup-only ]; then
    exit 0
fi

export ONCELY_BIN=${ONCELY_BIN:-$repo/target/release/oncely}
if [ ! -x "$ONCELY_BIN" ]; then
    echo "tests/mcp/test.sh: $ONCELY_BIN not found: cargo build --release -p oncely-cli (or set ONCELY_BIN)" >&2
    exit 2
fi

if [ -z "${ONCELY_TEST_POSTGRES_URL:-}" ] && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    # Stopped and removed when this script exits.
    if url=$("$repo/tests/pg/start.sh" $$); then
        export ONCELY_TEST_POSTGRES_URL=$url
    else
        echo "tests/mcp/test.sh: could not start a throwaway PostgreSQL" >&2
    fi
fi

"$venv/bin/python" -m pytest -s -v "$@"
