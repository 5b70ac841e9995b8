"""A Python worker with the command line of the Rust host's test worker ``oncely-test-worker``
(host/src/bin/oncely-test-worker.rs): run ONE effect through the ledger whose "tool" appends
``"<key> <owner>"`` to MARKER (so tests can count executions across processes and languages),
then print ``{"key", "replayed", "reconciled", "value"}``.

    exec_worker.py --db DB [--scope S --run R --step T --tool N --args JSON --policy JSON]
                   --owner O --marker FILE [--sleep-ms N] [--crash-after-call] [--wait-ms N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import oncely

DEFAULT_POLICY = json.dumps(
    {"class": "irreversible-external", "key": {}, "reconcile": "provider-idempotent"}
)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--scope", default="acme")
    p.add_argument("--run", default="run-1")
    p.add_argument("--step", default="step-1")
    p.add_argument("--tool", default="charge")
    p.add_argument("--args", default='{"amount":500,"charge_id":"ch_1"}')
    p.add_argument("--policy", default=DEFAULT_POLICY)
    p.add_argument("--owner", required=True)
    p.add_argument("--marker", required=True)
    p.add_argument("--sleep-ms", type=int, default=0)
    p.add_argument("--crash-after-call", action="store_true")
    p.add_argument("--wait-ms", type=int, default=30_000)
    a = p.parse_args()

    ledger = oncely.Ledger.open(a.db, owner=a.owner)

    def tool(key: str) -> dict[str, str]:
        with open(a.marker, "a", encoding="utf-8") as f:
            f.write(f"{key} {a.owner}\n")
            f.flush()
            os.fsync(f.fileno())
        if a.sleep_ms:
            time.sleep(a.sleep_ms / 1000)
        if a.crash_after_call:
            os._exit(137)  # die after the effect, before its result is recorded
        return {"by": a.owner}

    r = ledger.run(
        tool,
        scope=a.scope,
        run=a.run,
        step=a.step,
        tool=a.tool,
        args=a.args,
        policy=a.policy,
        wait=a.wait_ms / 1000,
    )
    out = {"key": r.key, "replayed": r.replayed, "reconciled": r.reconciled, "value": r.value}
    print(json.dumps(out))
    ledger.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
