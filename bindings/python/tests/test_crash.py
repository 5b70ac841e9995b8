"""A Python process killed between claim and complete: its effect is reconciled by a sweep,
never run again."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from helpers import python_worker, run

import oncely

# A short lease so the test does not wait a minute; reconcile at once.
POLICY = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": {"lookup": "find_charge"},
    "leaseMs": 3000,
    "reconcileAfterMs": 0,
    "escalateAfterMs": 60000,
}


def _wait_past_lease(ledger: oncely.Ledger, scope: str, key: str) -> None:
    entry = ledger.get(scope, key)
    assert entry is not None
    time.sleep(max(0.0, (entry.lease_until - oncely.system_clock()) / 1000) + 0.05)


def _marker_lines(marker: Path) -> list[str]:
    return marker.read_text().splitlines() if marker.exists() else []


def test_killed_after_the_call_is_reconciled_not_rerun(
    ledger_location: str, tmp_path: Path
) -> None:
    marker = tmp_path / "marker.txt"
    args = ["--db", ledger_location, "--marker", str(marker), "--policy", json.dumps(POLICY)]
    crashed = subprocess.run(
        python_worker("exec_worker.py", *args, "--owner", "doomed", "--crash-after-call"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert crashed.returncode == 137, crashed.stderr
    [line] = _marker_lines(marker)
    key, owner = line.split()
    assert owner == "doomed"

    ledger = oncely.Ledger.open(ledger_location, owner="sweeper")
    entry = ledger.get("acme", key)
    assert entry is not None and entry.state is oncely.EntryState.PENDING

    # While the lease holds, another worker neither runs the tool nor steals the claim.
    busy = subprocess.run(
        python_worker("exec_worker.py", *args, "--owner", "impatient", "--wait-ms", "0"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert busy.returncode != 0 and "InProgressError" in busy.stderr
    assert len(_marker_lines(marker)) == 1

    # The provider's lookup: did the charge with this key happen? (It did: the marker.)
    def find_charge(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        for ln in _marker_lines(marker):
            k, who = ln.split()
            if k == req.key:
                return oncely.happened({"by": who})
        return oncely.NotHappened()

    ledger.reconciler("charge", find_charge)
    _wait_past_lease(ledger, "acme", key)
    report = ledger.sweep()
    assert (report.leases_expired, report.reconciled, report.happened) == (1, 1, 1), report
    entry = ledger.get("acme", key)
    assert entry is not None and entry.state is oncely.EntryState.DONE
    assert entry.attempt == 1

    # A new worker replays the reconciled result; the tool never ran a second time.
    again = run(python_worker("exec_worker.py", *args, "--owner", "late"))
    out = json.loads(again.stdout)
    assert out == {"key": key, "replayed": True, "reconciled": False, "value": {"by": "doomed"}}
    assert len(_marker_lines(marker)) == 1
    ledger.close()


def test_a_sweep_without_a_reconciler_leaves_it_in_doubt(
    ledger_location: str, tmp_path: Path
) -> None:
    marker = tmp_path / "marker.txt"
    args = ["--db", ledger_location, "--marker", str(marker), "--policy", json.dumps(POLICY)]
    crashed = subprocess.run(
        python_worker("exec_worker.py", *args, "--owner", "doomed", "--crash-after-call"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert crashed.returncode == 137
    [line] = _marker_lines(marker)
    with oncely.Ledger.open(ledger_location) as ledger:
        _wait_past_lease(ledger, "acme", line.split()[0])
        report = ledger.sweep()
        # No reconciler here: the entry goes in doubt, and its first reconciliation is left to
        # a process that has one (due at once; not attempted, no "unknown" recorded).
        assert (report.leases_expired, report.reconciled) == (1, 0), report
        [entry] = ledger.list("acme")
        assert entry.state is oncely.EntryState.IN_DOUBT
        assert entry.reconcile_attempts == 0
        assert ledger.sweep().reconciled == 0
        assert ledger.list("acme") == [entry], "a second sweep left it as it was"
    assert len(_marker_lines(marker)) == 1
