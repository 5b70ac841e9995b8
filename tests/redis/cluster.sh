#!/usr/bin/env bash
# Start a throwaway Redis Cluster for tests: three masters, each with one replica, on free
# 127.0.0.1 ports (tests/redis/start.sh --cluster, six times), joined with
# `redis-cli --cluster create`. Prints the first node's URL; a ledger opened there finds the
# others. Stopped when WATCH_PID exits (default: the caller's parent). --appendfsync MODE is
# passed to every node (start.sh; default everysec).
#
#   tests/redis/cluster.sh [--appendfsync MODE] [WATCH_PID]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fsync=()
if [ "${1:-}" = --appendfsync ]; then fsync=(--appendfsync "$2"); shift 2; fi
watch=${1:-$PPID}
cli=$(command -v redis-cli || command -v valkey-cli)
nodes=()
for _ in 1 2 3 4 5 6; do
    url=$("$here/start.sh" --cluster "${fsync[@]}" "$watch")
    nodes+=("${url#redis://}")
done
"$cli" --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >/dev/null
# Ready when every node sees the cluster as ok.
for n in "${nodes[@]}"; do
    for _ in $(seq 1 200); do
        "$cli" -h "${n%:*}" -p "${n#*:}" cluster info | grep -q 'cluster_state:ok' && break
        sleep 0.05
    done
    "$cli" -h "${n%:*}" -p "${n#*:}" cluster info | grep -q 'cluster_state:ok' || {
        echo "tests/redis/cluster.sh: $n did not see the cluster ok" >&2; exit 3; }
done
# And when the first node sees the three replicas.
first=${nodes[0]}
for _ in $(seq 1 200); do
    [ "$("$cli" -h "${first%:*}" -p "${first#*:}" cluster nodes | grep -c slave)" = 3 ] && break
    sleep 0.05
done
# And when every replica is in sync with its master.
for n in "${nodes[@]}"; do
    for _ in $(seq 1 200); do
        info=$("$cli" -h "${n%:*}" -p "${n#*:}" info replication)
        echo "$info" | grep -q 'role:master' && break
        echo "$info" | grep -q 'master_link_status:up' && break
        sleep 0.05
    done
done
echo "redis://$first"
