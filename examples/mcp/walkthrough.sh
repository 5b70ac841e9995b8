#!/usr/bin/env bash
# The payments walk-through: an agent calls `charge` on a flaky payments MCP server (it records
# every real charge, and answers the first one after the agent's timeout), retries on timeout,
# and then the model asks again with the arguments written differently. First against the bare
# server, then through `oncely mcp`; the charge counts are printed at the end.
#
#   examples/mcp/walkthrough.sh          (from a checkout; builds oncely, sets up tests/mcp's venv)
#
# The server and the agent are the ones the tests use: tests/mcp/payments_server.py (the Python
# `mcp` SDK) and tests/mcp/agent.py (the SDK's client, retrying on a read timeout).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --locked --release -p oncely-cli --quiet
tests/mcp/test.sh --setup-only >/dev/null
py=tests/mcp/.venv/bin/python
oncely=target/release/oncely
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oncely-mcp-walkthrough.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

args='{"customer": "cus_42", "amount_cents": 1000, "memo": "order 42"}'
agent() { "$py" tests/mcp/agent.py "$@" 2>&1 >/dev/null | sed 's/^/    /'; }
count() { grep -c '"kind": "charge"' "$1" 2>/dev/null || echo 0; }
server() { echo "$py tests/mcp/payments_server.py --charges $1 --late-ms 1500 --late-times 1"; }

echo "1. bare server: the first answer comes after the agent's 0.8 s timeout; the agent retries"
agent --timeout 0.8 --retries 3 charge "$args" -- $(server "$tmp/bare.jsonl")
echo "   the model asks again (members reordered, 1000 written as 1000.0):"
agent --reask charge "$args" -- $(server "$tmp/bare.jsonl")

echo
echo "2. the same through oncely mcp (ledger $tmp/ledger.db, one run for the whole walk-through)"
gateway=("$oncely" mcp --db "$tmp/ledger.db" --run walkthrough --policies examples/mcp/payments-policies.json --)
agent --timeout 0.8 --retries 3 charge "$args" -- "${gateway[@]}" $(server "$tmp/gateway.jsonl")
echo "   the model asks again:"
agent --reask charge "$args" -- "${gateway[@]}" $(server "$tmp/gateway.jsonl")

echo
echo "3. what the gateway recorded:"
"$oncely" ledger list --db "$tmp/ledger.db" --scope mcp | sed 's/^/    /'

echo
echo "real charges: bare server $(count "$tmp/bare.jsonl"), through oncely mcp $(count "$tmp/gateway.jsonl")"
