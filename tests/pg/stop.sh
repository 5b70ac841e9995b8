#!/usr/bin/env bash
# Stop a cluster started by tests/pg/start.sh --with-dir (DIR is the second line it printed) with
# `pg_ctl -m immediate` (every server process quits at once), for tests that take a server away
# for good (host/tests/pg_failover.rs, bindings/js/test/pg-failover.test.mjs).
#
#   tests/pg/stop.sh DIR
set -euo pipefail
dir=${1:?usage: tests/pg/stop.sh DIR}
bin=$(cat "$dir/bin")
run() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
run "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 60 stop >/dev/null
