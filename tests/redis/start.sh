#!/usr/bin/env bash
# Start a throwaway Redis server for tests and print its URL on stdout.
#
#   tests/redis/start.sh [--replica-of PORT] [--cluster] [--tls] [--appendfsync MODE] [WATCH_PID]
#
# The server lives in a fresh temporary directory, listens on a free 127.0.0.1 port, keeps no
# snapshot (`--save ''`) and an append-only file (`--appendonly yes`), and is stopped (and the
# directory removed) when WATCH_PID exits (default: the caller's parent). Binary: Debian's
# redis-server (apt-get install -y redis-server), or valkey-server.
#
# --replica-of PORT: a replica of the server on 127.0.0.1:PORT (returns once it is in sync).
# --cluster: a node with cluster mode on (`--cluster-enabled yes`), not yet in a cluster:
#            tests/redis/cluster.sh joins them.
# --appendfsync MODE: always, everysec (Redis's default) or no — what a claim survives depends on
#            it (docs/reliability.md); the chaos harness runs its servers with `always`.
# --tls: TLS only (no plain port), with a certificate authority made here for 127.0.0.1; prints
#        `rediss://127.0.0.1:PORT?tls_ca=<the authority's PEM file>`.
set -euo pipefail
replica_of=""
cluster=no
tls=no
appendfsync=everysec
while [ $# -gt 0 ]; do
    case "$1" in
        --replica-of) replica_of=$2; shift 2 ;;
        --cluster) cluster=yes; shift ;;
        --tls) tls=yes; shift ;;
        --appendfsync) appendfsync=$2; shift 2 ;;
        *) break ;;
    esac
done
watch=${1:-$PPID}
server=$(command -v redis-server || command -v valkey-server || true)
cli=$(command -v redis-cli || command -v valkey-cli || true)
if [ -z "$server" ] || [ -z "$cli" ]; then
    echo "tests/redis/start.sh: redis-server not found (apt-get install -y redis-server)" >&2
    exit 3
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/oncely-redis.XXXXXX")
# A free port; a cluster node also needs its bus port (port + 10000) free, so at most 55535.
port=$(python3 - "$cluster" <<'PY'
import socket, sys
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        return s.getsockname()[1]
    finally:
        s.close()
while True:
    p = free(0)
    if sys.argv[1] != "yes":
        break
    if p <= 55535:
        try:
            free(p + 10000)
            break
        except OSError:
            pass
print(p)
PY
)
plain=$port
[ "$tls" = yes ] && plain=0   # TLS only
args=(--port "$plain" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly yes
      --appendfsync "$appendfsync" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/server.log")
[ -n "$replica_of" ] && args+=(--replicaof 127.0.0.1 "$replica_of")
if [ "$tls" = yes ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=oncely-test-ca -keyout "$dir/ca.key" -out "$dir/ca.pem" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$dir/server.key" -out "$dir/server.csr" >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1\n' >"$dir/san.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
        -extfile "$dir/san.ext" -out "$dir/server.pem" >/dev/null 2>&1
    args+=(--tls-port "$port" --tls-cert-file "$dir/server.pem" --tls-key-file "$dir/server.key"
           --tls-ca-cert-file "$dir/ca.pem" --tls-auth-clients no)
    cli_tls=(--tls --cacert "$dir/ca.pem")
else
    cli_tls=()
fi
[ "$cluster" = yes ] && args+=(--cluster-enabled yes --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 5000)
"$server" "${args[@]}" || { cat "$dir/server.log" >&2 2>/dev/null; exit 3; }
for _ in $(seq 1 100); do
    "$cli" "${cli_tls[@]}" -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.05
done
"$cli" "${cli_tls[@]}" -p "$port" ping >/dev/null 2>&1 || { echo "tests/redis/start.sh: the server did not answer" >&2; cat "$dir/server.log" >&2; exit 3; }
if [ -n "$replica_of" ]; then
    for _ in $(seq 1 200); do
        "$cli" "${cli_tls[@]}" -p "$port" info replication | grep -q 'master_link_status:up' && break
        sleep 0.05
    done
fi
# Stop the server when the watched process is gone.
nohup bash -c "while kill -0 $watch 2>/dev/null; do sleep 1; done
    '$cli' ${cli_tls[*]} -p $port shutdown nosave >/dev/null 2>&1 || kill \$(cat '$dir/redis.pid') 2>/dev/null
    sleep 0.2; rm -rf '$dir'" >/dev/null 2>&1 &
if [ "$tls" = yes ]; then
    echo "rediss://127.0.0.1:$port?tls_ca=$dir/ca.pem"
else
    echo "redis://127.0.0.1:$port"
fi
