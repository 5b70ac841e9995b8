#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for tests and print its URL on stdout.
#
#   tests/pg/start.sh [--with-dir] [WATCH_PID]
#
# The cluster lives in a fresh temporary directory, listens on a free 127.0.0.1 port with its
# socket in that directory, and is stopped (and the directory removed) when WATCH_PID exits
# (default: the caller's parent). Binaries: Debian's /usr/lib/postgresql/*/bin. As root the
# server runs as the `postgres` user (initdb refuses root).
#
# With --with-dir, a second line gives the cluster's directory, for tests that restart the
# server themselves with tests/pg/restart.sh (its settings live in the data directory's
# postgresql.conf, so a plain `pg_ctl start` brings it back on the same port).
set -euo pipefail
with_dir=0
if [ "${1:-}" = --with-dir ]; then
    with_dir=1
    shift
fi
watch=${1:-$PPID}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "tests/pg/start.sh: PostgreSQL server binaries not found (apt-get install -y postgresql)" >&2
    exit 3
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/oncely-pg.XXXXXX")
chmod 755 "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" = 0 ] && chown postgres "$dir"
run "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2; exit 3; }
echo "$bin" >"$dir/bin"
run tee -a "$dir/data/postgresql.conf" >/dev/null <<CONF
# tests/pg/start.sh
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
max_connections = 300
CONF
run "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null || {
    cat "$dir/server.log" >&2; exit 3; }
# Stop the cluster when the watched process is gone.
nohup bash -c "while kill -0 $watch 2>/dev/null; do sleep 1; done
    $( [ "$(id -u)" = 0 ] && echo 'runuser -u postgres --' ) '$bin/pg_ctl' -D '$dir/data' -m immediate stop >/dev/null 2>&1
    rm -rf '$dir'" >/dev/null 2>&1 &
echo "postgres://postgres@127.0.0.1:$port/postgres"
[ "$with_dir" = 1 ] && echo "$dir"
exit 0
