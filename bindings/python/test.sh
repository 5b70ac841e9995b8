#!/usr/bin/env bash
# The Python package's tests, as a user gets the package: build the wheel (it carries the core
# component and the SQL migrations), install it into a CLEAN virtual environment, run pytest
# against the installed package, run the example agent loop.
#
# Needs, from `cargo build --release -p oncely`: target/wasm/oncely-core.wasm (packaged) and
# target/release/oncely (the Rust CLI the tests compare keys with and race against).
# PostgreSQL tests use $ONCELY_TEST_POSTGRES_URL (scripts/with-postgres sets it); with
# ONCELY_REQUIRE_POSTGRES=1 or CI set, its absence fails the run. Exits non-zero on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

python=${PYTHON:-python3}
for f in target/wasm/oncely-core.wasm target/release/oncely; do
    if [ ! -f "$f" ]; then
        echo "bindings/python/test.sh: $f is missing: run cargo build --release -p oncely" >&2
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/oncely-py.XXXXXX")
cleanup() {
    rm -rf "$tmp" "$here/build" "$here/src/oncely.egg-info"
}
trap cleanup EXIT
export ONCELY_CACHE_DIR="$tmp/cache"   # compiled-component cache, private to this run
export PIP_DISABLE_PIP_VERSION_CHECK=1

echo "== python: build the wheel"
"$python" -m venv "$tmp/build-venv"
"$tmp/build-venv/bin/pip" install --quiet "build>=1.2"
"$tmp/build-venv/bin/python" -m build --wheel --outdir "$tmp/dist" "$here" >"$tmp/build.log" 2>&1 || {
    cat "$tmp/build.log" >&2
    exit 1
}
wheel=$(ls "$tmp"/dist/oncely-*.whl)
echo "   $(basename "$wheel")"

echo "== python: install it into a clean virtual environment"
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet "$wheel" "wasmtime==50.*" "psycopg[binary]>=3.1,<4" \
    "pytest>=8" "rfc8785>=0.1.4"
"$tmp/venv/bin/python" -c 'import oncely, wasmtime; print("   oncely", oncely.__version__, "from", oncely.__file__)'

echo "== python: pytest (against the installed package)"
(cd "$here" && "$tmp/venv/bin/pytest" -p no:cacheprovider tests)

echo "== python: the example agent loop"
"$tmp/venv/bin/python" examples/python/agent_loop.py
