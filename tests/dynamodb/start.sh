#!/usr/bin/env bash
# Start a throwaway DynamoDB-compatible server (moto's server mode, tests/dynamodb/server.py) for
# tests and print its endpoint (http://127.0.0.1:PORT) on stdout.
#
#   tests/dynamodb/start.sh [WATCH_PID]
#
# The server listens on a free 127.0.0.1 port, keeps everything in memory, and is stopped when
# WATCH_PID exits (default: the caller's parent). Its Python is $ONCELY_DYNAMODB_VENV (default
# target/dynamodb-venv, made by scripts/setup --all from tests/dynamodb/requirements.txt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
watch=${1:-$PPID}
venv=${ONCELY_DYNAMODB_VENV:-$repo/target/dynamodb-venv}
if ! "$venv/bin/python" -c 'import moto.server' 2>/dev/null; then
    echo "tests/dynamodb/start.sh: moto is not installed in $venv (scripts/setup --all)" >&2
    exit 3
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp "${TMPDIR:-/tmp}/oncely-dynamodb.XXXXXX")
nohup "$venv/bin/python" "$here/server.py" "$port" >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; then
        break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
if ! python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; then
    echo "tests/dynamodb/start.sh: the server did not answer" >&2
    cat "$log" >&2
    kill "$pid" 2>/dev/null || true
    exit 3
fi
# Stop the server when the watched process is gone.
nohup bash -c "while kill -0 $watch 2>/dev/null; do sleep 1; done; kill $pid 2>/dev/null; rm -f '$log'" \
    >/dev/null 2>&1 &
echo "http://127.0.0.1:$port"
