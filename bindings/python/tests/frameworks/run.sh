#!/usr/bin/env bash
# One framework adapter's tests while working on it, against the package's sources (no wheel):
#
#   bindings/python/tests/frameworks/run.sh NAME [PYTEST ARGS...]     e.g. run.sh pydantic_ai -k reask
#
# NAME is a folder here: its requirements.txt (the framework, pinned) is installed into
# NAME/.venv (ignored by git) beside wasmtime and pytest, and its tests run with the package from
# bindings/python/src and the shared payment provider (tests/adapters/payments.py) on the path.
# bindings/python/test.sh runs every folder here the way a user has it: the built wheel, in a
# clean environment of its own per framework (their pins need not agree with each other's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run.sh NAME [PYTEST ARGS...]}
shift
dir=$here/$name
[ -f "$dir/requirements.txt" ] || { echo "run.sh: $dir/requirements.txt not found" >&2; exit 2; }
python=${PYTHON:-python3}
if [ ! -x "$dir/.venv/bin/python" ]; then
    "$python" -m venv "$dir/.venv"
fi
"$dir/.venv/bin/pip" install --quiet --disable-pip-version-check "wasmtime==50.*" "pytest>=8" -r "$dir/requirements.txt"
cd "$dir"
PYTHONPATH="$here/../../src:$here/../adapters" exec "$dir/.venv/bin/python" -m pytest -p no:cacheprovider "$@" .
