"""A Python worker with the command line of the Rust host's test worker ``oncely-test-worker``
(tests/support/src/bin/oncely-test-worker.rs): run ONE effect through the ledger whose "tool"
appends ``"<key> <owner>"`` to MARKER (so tests can count executions across processes and
languages), then print ``{"key", "replayed", "reconciled", "value"}``.

    exec_worker.py --db DB [--scope S --run R --step T --tool N --args JSON --policy JSON]
                   --owner O --marker FILE [--sleep-ms N] [--crash-after-call] [--wait-ms N]
                   [--steps-file FILE] [--reconcile-from-marker]
                   [--stall-before-call-ms N] [--stall-after-claim-ms N] [--approval-wait-ms N]

The options of the chaos harness (``scripts/chaos``), all off by default, are those of the Rust
worker: ``--steps-file`` runs one effect per line (the step id) and prints one line each,
``{"step", "key", "replayed", "reconciled", "value"}`` or ``{"step", "error", "message"}``;
``--reconcile-from-marker`` registers a reconciler that looks the key up in MARKER;
``--stall-before-call-ms`` makes the tool sleep before it appends; ``--stall-after-claim-ms``
sleeps right after a claim (the insert of a new entry) is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import oncely

DEFAULT_POLICY = json.dumps(
    {"class": "irreversible-external", "key": {}, "reconcile": "provider-idempotent"}
)

# The error codes the three workers print (those of the JavaScript package's errors).
CODES: list[tuple[type[BaseException], str]] = [
    (oncely.InProgressError, "in-progress"),
    (oncely.InDoubtError, "in-doubt"),
    (oncely.EscalatedError, "escalated"),
    (oncely.ConflictError, "conflict"),
    (oncely.ToolFailedError, "tool-failed"),
    (oncely.ResultNotRecordedError, "result-not-recorded"),
    (oncely.StorageError, "storage"),
    (oncely.LedgerError, "ledger"),
    (oncely.ContentionError, "contention"),
    (oncely.AwaitingApprovalError, "awaiting-approval"),
    (oncely.DeniedError, "denied"),
]


def code(e: BaseException) -> str:
    return next((c for cls, c in CODES if isinstance(e, cls)), "other")


class Stalling:
    """The ledger's store, sleeping right after a claim (an insert) is written."""

    def __init__(self, inner: Any, ms: int) -> None:
        self._inner = inner
        self._ms = ms

    def insert(self, entry: Any, *, claims: bool = False) -> bool:
        claimed = bool(self._inner.insert(entry, claims=claims))
        if claimed:
            time.sleep(self._ms / 1000)
        return claimed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def marker_owner(marker: str, key: str) -> str | None:
    """The owner on the first line of MARKER that records ``key``."""
    try:
        with open(marker, encoding="utf-8") as f:
            for line in f:
                if line.startswith(key + " "):
                    return line[len(key) + 1 :].rstrip("\n")
    except FileNotFoundError:
        return None
    return None


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
    p.add_argument("--approval-wait-ms", type=int, default=0)
    p.add_argument("--steps-file")
    p.add_argument("--reconcile-from-marker", action="store_true")
    p.add_argument("--stall-before-call-ms", type=int, default=0)
    p.add_argument("--stall-after-claim-ms", type=int, default=0)
    a = p.parse_args()

    ledger = oncely.Ledger.open(a.db, owner=a.owner)
    if a.stall_after_claim_ms:
        ledger.store = Stalling(ledger.store, a.stall_after_claim_ms)
    if a.reconcile_from_marker:

        def reconcile(req: Any) -> Any:
            try:
                owner = marker_owner(a.marker, req.key)
            except OSError as e:
                return oncely.Unknown(f"reading the marker: {e}")
            return oncely.NotHappened() if owner is None else oncely.happened({"by": owner})

        ledger.reconciler(a.tool, reconcile)

    def tool(key: str) -> dict[str, str]:
        if a.stall_before_call_ms:
            time.sleep(a.stall_before_call_ms / 1000)
        with open(a.marker, "a", encoding="utf-8") as f:
            f.write(f"{key} {a.owner}\n")
            f.flush()
            os.fsync(f.fileno())
        if a.sleep_ms:
            time.sleep(a.sleep_ms / 1000)
        if a.crash_after_call:
            os._exit(137)  # die after the effect, before its result is recorded
        return {"by": a.owner}

    def effect(step: str) -> Any:
        return ledger.run(
            tool,
            scope=a.scope,
            run=a.run,
            step=step,
            tool=a.tool,
            args=a.args,
            policy=a.policy,
            wait=a.wait_ms / 1000,
            approval_wait=a.approval_wait_ms / 1000,
        )

    if a.steps_file is None:
        r = effect(a.step)
        out = {"key": r.key, "replayed": r.replayed, "reconciled": r.reconciled, "value": r.value}
        print(json.dumps(out))
        ledger.close()
        return 0

    with open(a.steps_file, encoding="utf-8") as f:
        steps = [line.rstrip("\n") for line in f if line.strip()]
    for step in steps:
        try:
            r = effect(step)
            line: dict[str, Any] = {
                "step": step,
                "key": r.key,
                "replayed": r.replayed,
                "reconciled": r.reconciled,
                "value": r.value,
            }
        except Exception as e:  # noqa: BLE001 - every failure is reported on its line; the walk goes on
            line = {"step": step, "error": code(e), "message": str(e)}
        print(json.dumps(line), flush=True)
    ledger.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
