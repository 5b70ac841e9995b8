#!/usr/bin/env bash
# The Python package's tests, as a user gets the package, with no Rust toolchain on the PATH
# (scripts/without-rust): build the sdist and, from it, the wheel (both carry the committed core
# component bindings/oncely-core.wasm and the SQL migrations); check the wheel is py3-none-any;
# install it into a CLEAN virtual environment, with the framework packages the adapters are tested
# against and the OpenTelemetry SDK the events are read with (tests/adapters/requirements.txt,
# pinned), and the frameworks of the provider middlewares (tests/provider/requirements.txt: uvicorn,
# Starlette, FastAPI, the MCP SDK), and run pytest against the installed package; run
# the example agent loop; install straight from the checkout (`pip install bindings/python`) and,
# in a git checkout, from git (`pip install "git+file://…#subdirectory=bindings/python"`).
# Ruff and mypy --strict are scripts/lint's (the fast tier scripts/test runs first).
#
# The tests compare keys with the Rust CLI and race the Rust host's ledger: target/release/oncely
# (from `cargo build --release -p oncely-cli`) and the test-only worker
# target/release/oncely-test-worker (from `cargo build --release -p oncely-test-support
# --bin oncely-test-worker`) must exist — binaries, not a toolchain.
# PostgreSQL tests use $ONCELY_TEST_POSTGRES_URL (scripts/with-postgres sets it); with
# ONCELY_REQUIRE_POSTGRES=1 or CI set, its absence fails the run. Exits non-zero on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

python=${PYTHON:-python3}
if [ ! -f target/release/oncely ]; then
    echo "bindings/python/test.sh: target/release/oncely is missing: run cargo build --release -p oncely-cli" >&2
    exit 1
fi
if [ ! -f target/release/oncely-test-worker ]; then
    echo "bindings/python/test.sh: target/release/oncely-test-worker (the Rust test worker) is missing:" \
        "run cargo build --release -p oncely-test-support --bin oncely-test-worker" >&2
    exit 1
fi
norust=$repo/scripts/without-rust

tmp=$(mktemp -d "${TMPDIR:-/tmp}/oncely-py.XXXXXX")
cleanup() {
    rm -rf "$tmp"
}
trap cleanup EXIT
export ONCELY_CACHE_DIR="$tmp/cache"   # compiled-component cache, private to this run
export PIP_DISABLE_PIP_VERSION_CHECK=1

echo "== python: oncely/types.py is what the committed component gives (scripts/mirrors --check)"
"$repo/scripts/mirrors" --check

echo "== python: build the sdist, and the wheel from it (no Rust on the PATH)"
"$python" -m venv "$tmp/build-venv"
"$tmp/build-venv/bin/pip" install --quiet "build==1.6.1"   # the backend: pyproject.toml's hatchling
"$norust" "$tmp/build-venv/bin/python" -m build --outdir "$tmp/dist" "$here" >"$tmp/build.log" 2>&1 || {
    cat "$tmp/build.log" >&2
    exit 1
}
wheel=$(ls "$tmp"/dist/oncely-*.whl)
echo "   $(basename "$wheel") $(basename "$(ls "$tmp"/dist/oncely-*.tar.gz)")"
case "$(basename "$wheel")" in
    *-py3-none-any.whl) ;;
    *) echo "the wheel must be pure Python (py3-none-any): $(basename "$wheel")" >&2; exit 1 ;;
esac

echo "== python: install it into a clean virtual environment (no Rust on the PATH)"
"$python" -m venv "$tmp/venv"
"$norust" "$tmp/venv/bin/pip" install --quiet "$wheel" "wasmtime==50.*" "psycopg[binary]>=3.1,<4" \
    "pytest>=8" "rfc8785>=0.1.4" "boto3>=1.34,<2" -r "$here/tests/adapters/requirements.txt" \
    -r "$here/tests/provider/requirements.txt"
"$tmp/venv/bin/python" -c 'import oncely, wasmtime; print("   oncely", oncely.__version__, "from", oncely.__file__)'

echo "== python: pytest (against the installed package, no Rust on the PATH)"
(cd "$here" && "$norust" "$tmp/venv/bin/pytest" -p no:cacheprovider tests)

# The adapters of frameworks whose pins need not agree with each other's: each folder of
# tests/frameworks/ in a clean environment of its own, with the wheel and the folder's
# requirements.txt (tests/frameworks/run.sh runs one against the sources while working on it).
# The environments are installed side by side (mostly downloads), then tested one by one.
frameworks=()
for dir in "$here"/tests/frameworks/*/; do
    [ -f "$dir/requirements.txt" ] && frameworks+=("$(basename "$dir")")
done
echo "== python: the framework adapters' environments: ${frameworks[*]}"
pids=()
for name in "${frameworks[@]}"; do
    (
        "$python" -m venv "$tmp/venv-$name"
        # mypy follows oncely's own imports: psycopg and the OpenTelemetry API (optional at run time).
        "$norust" "$tmp/venv-$name/bin/pip" install --quiet "$wheel" "wasmtime==50.*" "pytest>=8" "mypy==2.4.1" \
            "psycopg[binary]>=3.1,<4" "opentelemetry-api>=1.20,<2" -r "$here/tests/frameworks/$name/requirements.txt"
    ) >"$tmp/install-$name.log" 2>&1 &
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || {
        cat "$tmp/install-${frameworks[$i]}.log" >&2
        echo "bindings/python/test.sh: installing the ${frameworks[$i]} environment failed" >&2
        exit 1
    }
done
for name in "${frameworks[@]}"; do
    dir=$here/tests/frameworks/$name
    echo "== python: the $name adapter, in a clean environment of its own (tests/frameworks/$name)"
    # Its module, type-checked where its framework is installed (scripts/lint's mypy leaves it out).
    for module in src/oncely/adapters/$name.py src/oncely/engines/$name.py; do
        if [ -f "$here/$module" ]; then
            (cd "$here" && "$norust" "$tmp/venv-$name/bin/mypy" --cache-dir "$tmp/mypy-$name" "$module")
        fi
    done
    (cd "$dir" && PYTHONPATH="$here/tests/adapters" "$norust" "$tmp/venv-$name/bin/pytest" -p no:cacheprovider .)
done

echo "== python: the example agent loop"
"$norust" "$tmp/venv/bin/python" examples/python/agent_loop.py

# What a user types, from a checkout and from git: each into its own clean environment, then the
# first golden key vector through the installed package.
smoke() {
    "$norust" "$1/bin/python" - "$repo/tests/vectors/keys.json" <<'PY'
import json, sys
import oncely
case = json.load(open(sys.argv[1]))["cases"][0]
i = case["intent"]
got = oncely.derive_key(scope=i["scope"], run=i["run"], step=i["step"], tool=i["tool"],
                        args=i["args"], policy=case["policy"])
assert got == case["key"], (got, case["key"])
print("   ", oncely.__file__, got[:24] + "…")
PY
}
echo "== python: pip install bindings/python (from the checkout, no Rust on the PATH)"
"$python" -m venv "$tmp/venv-dir"
"$norust" "$tmp/venv-dir/bin/pip" install --quiet "$here"
smoke "$tmp/venv-dir"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    echo "== python: pip install git+file://…#subdirectory=bindings/python (the committed HEAD, no Rust on the PATH)"
    "$python" -m venv "$tmp/venv-git"
    "$norust" "$tmp/venv-git/bin/pip" install --quiet "git+file://$repo#subdirectory=bindings/python"
    smoke "$tmp/venv-git"
fi
