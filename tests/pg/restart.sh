#!/usr/bin/env bash
# Restart a cluster started by tests/pg/start.sh --with-dir (DIR is the second line it printed):
#
#   tests/pg/restart.sh DIR MODE [DOWN_SECONDS]
#
# MODE is pg_ctl's shutdown mode: `fast` (sessions are terminated, a checkpoint is written) or
# `immediate` (every server process quits at once; crash recovery on start). The server stays
# down DOWN_SECONDS (default 0, a plain restart), then starts on the same port, and the script
# returns once it accepts connections. The tests that use it start a cluster of their own.
set -euo pipefail
dir=${1:?usage: tests/pg/restart.sh DIR fast|immediate [DOWN_SECONDS]}
mode=${2:?usage: tests/pg/restart.sh DIR fast|immediate [DOWN_SECONDS]}
down=${3:-0}
case "$mode" in fast | immediate) ;; *) echo "tests/pg/restart.sh: mode must be fast or immediate, not $mode" >&2; exit 2 ;; esac
bin=$(cat "$dir/bin")
run() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
run "$bin/pg_ctl" -D "$dir/data" -m "$mode" -w -t 60 stop >/dev/null
sleep "$down"
# -l: the server's output goes to its log, never to this script's (the caller's) stdout.
run "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null || {
    tail -n 20 "$dir/server.log" >&2; exit 3; }
