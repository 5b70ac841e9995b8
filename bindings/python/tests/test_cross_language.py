"""A Rust worker and a Python worker on ONE ledger: same keys, one execution.

The Rust side is the test-only binary ``oncely-test-worker``
(tests/support/src/bin/oncely-test-worker.rs, in the unpublished crate ``oncely-test-support``):
it runs one effect whose "tool" appends ``"<key> <owner>"`` to a marker file and prints
``{"key", "replayed", "reconciled", "value"}``; ``tests/workers/exec_worker.py`` does the same
through the Python package. The shipped CLI has no such command."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
from pathlib import Path

import pytest
from helpers import python_worker, run

import oncely

POLICY = {"class": "irreversible-external", "key": {"only": ["/charge_id"]},
          "reconcile": "provider-idempotent"}  # fmt: skip
INTENT = {"scope": "acme", "run": "run-1", "step": "step-1", "tool": "charge",
          "args": '{"charge_id":"ch_1","amount":500}'}  # fmt: skip


def _exec_args(
    location: str, marker: Path, owner: str, policy: dict[str, object], args: str = INTENT["args"]
) -> list[str]:
    return ["--db", location, "--scope", INTENT["scope"], "--run", INTENT["run"],
            "--step", INTENT["step"], "--tool", INTENT["tool"], "--args", args,
            "--policy", json.dumps(policy), "--owner", owner, "--marker", str(marker)]  # fmt: skip


def _rust(oncely_test_worker: Path, *args: str) -> list[str]:
    return [str(oncely_test_worker), *args]


def test_the_shipped_cli_has_no_test_hook(oncely_cli: Path) -> None:
    """The test worker is a binary of its own: ``oncely ledger exec`` is not a command."""
    for args in (["ledger", "exec", "--help"], ["ledger", "exec", "--crash-after-call"]):
        p = subprocess.run([str(oncely_cli), *args], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and "unrecognized subcommand 'exec'" in p.stderr, p
    assert "exec" not in run([str(oncely_cli), "ledger", "--help"]).stdout


def test_rust_and_python_workers_racing_execute_once(
    oncely_test_worker: Path, ledger_location: str, tmp_path: Path
) -> None:
    for r in range(3):  # three races, each on a fresh intent
        args = json.dumps({"charge_id": f"ch_{r}", "amount": 500})
        key = oncely.derive_key(**{**INTENT, "args": args}, policy=POLICY)
        marker = tmp_path / f"marker-{r}.txt"
        procs = []
        for i in range(3):
            common = _exec_args(ledger_location, marker, f"rust{i}", POLICY, args)
            procs.append(("rust", subprocess.Popen(
                _rust(oncely_test_worker, *common, "--sleep-ms", "200"),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )))  # fmt: skip
            common = _exec_args(ledger_location, marker, f"py{i}", POLICY, args)
            procs.append(("python", subprocess.Popen(
                python_worker("exec_worker.py", *common, "--sleep-ms", "200"),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )))  # fmt: skip
        outs = []
        for lang, p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, f"{lang}: {err}"
            outs.append(json.loads(out))
        lines = marker.read_text().splitlines()
        assert len(lines) == 1, lines  # ONE execution, whoever won
        k, winner = lines[0].split()
        assert k == key  # Rust and Python derive the same key
        assert all(o["key"] == key for o in outs)
        assert sum(not o["replayed"] for o in outs) == 1
        assert all(o["value"] == {"by": winner} for o in outs)


def test_keys_agree_with_the_rust_ledger(
    oncely_test_worker: Path, sqlite_path: str, tmp_path: Path
) -> None:
    marker = tmp_path / "m.txt"
    for policy in (POLICY, {"class": "accumulating-write"},
                   {"class": "irreversible-external", "key": {"identity": "scope"},
                    "reconcile": "manual"}):  # fmt: skip
        out = run(_rust(oncely_test_worker, *_exec_args(sqlite_path, marker, "rust", policy)))
        assert json.loads(out.stdout)["key"] == oncely.derive_key(**INTENT, policy=policy)


def test_a_crashed_rust_worker_is_reconciled_by_a_python_sweep(
    oncely_test_worker: Path, ledger_location: str, tmp_path: Path
) -> None:
    policy = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "find"},
              "leaseMs": 1500, "reconcileAfterMs": 0}  # fmt: skip
    marker = tmp_path / "marker.txt"
    crashed = subprocess.run(
        _rust(oncely_test_worker, *_exec_args(ledger_location, marker, "rust", policy),
              "--crash-after-call"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert crashed.returncode == 137, crashed.stderr
    [line] = marker.read_text().splitlines()
    key = line.split()[0]

    ledger = oncely.Ledger.open(ledger_location, owner="py-sweeper")

    @ledger.reconciler("charge")
    def find(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        found = [
            ln.split()[1] for ln in marker.read_text().splitlines() if ln.split()[0] == req.key
        ]
        return oncely.happened({"by": found[0]}) if found else oncely.NotHappened()

    entry = ledger.get("acme", key)
    assert entry is not None and entry.state is oncely.EntryState.PENDING and entry.owner == "rust"
    time.sleep(max(0.0, (entry.lease_until - oncely.system_clock()) / 1000) + 0.05)
    report = ledger.sweep()
    assert (report.leases_expired, report.happened) == (1, 1), report
    # The Rust worker, asked again, replays what Python reconciled; nothing ran twice.
    again = json.loads(
        run(_rust(oncely_test_worker, *_exec_args(ledger_location, marker, "rust2", policy))).stdout
    )
    assert again == {"key": key, "replayed": True, "reconciled": False, "value": {"by": "rust"}}
    assert len(marker.read_text().splitlines()) == 1
    ledger.close()


def test_a_python_holder_makes_rust_wait_then_replay(
    oncely_test_worker: Path, ledger_location: str, tmp_path: Path
) -> None:
    marker = tmp_path / "marker.txt"
    holder = subprocess.Popen(
        python_worker("exec_worker.py", *_exec_args(ledger_location, marker, "py", POLICY),
                      "--sleep-ms", "1500"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists()
    waiter = json.loads(
        run(_rust(oncely_test_worker, *_exec_args(ledger_location, marker, "rust", POLICY))).stdout
    )
    out, err = holder.communicate(timeout=60)
    assert holder.returncode == 0, err
    assert waiter["replayed"] and waiter["value"] == {"by": "py"}
    assert json.loads(out)["replayed"] is False
    assert len(marker.read_text().splitlines()) == 1


def test_rust_settles_what_python_escalated_on_one_history(
    oncely_cli: Path, ledger_location: str
) -> None:
    """A person settles, with the Rust CLI, an entry a Python worker left escalated: a stale
    ``--version`` is refused; the settlement id the CLI prints is the one Python reads; the
    history (appended by each write the core marks, whoever writes) reads the same in both."""
    policy = {"class": "irreversible-external", "key": {}, "reconcile": "manual"}
    ledger = oncely.Ledger.open(ledger_location, owner="py")
    claim = ledger.prepare(scope="acme", run="r", step="s", tool="send_email",
                           args={"to": "a@example.com"}, policy=policy)  # fmt: skip
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    assert isinstance(
        ledger.fail_ambiguous("acme", claim.key, o.token, "timeout"), oncely.Escalation
    )
    seen = ledger.get("acme", claim.key)
    assert seen is not None and seen.state is oncely.EntryState.ESCALATED
    cli = [str(oncely_cli), "ledger", "--db", ledger_location, "--json"]
    resolve = [*cli, "resolve", "--scope", "acme", claim.key, "--happened", '{"sent":true}',
               "--by", "ops@acme", "--note", "in the log", "--version"]  # fmt: skip
    stale = subprocess.run(
        [*resolve, str(seen.version - 1)], capture_output=True, text=True, timeout=60
    )
    assert stale.returncode != 0 and "changed" in stale.stderr, stale
    assert ledger.get("acme", claim.key) == seen
    out = json.loads(run([*resolve, str(seen.version)]).stdout)
    settled = ledger.get("acme", claim.key)
    assert settled is not None and settled.settlement is not None
    assert out == {"key": claim.key, "state": "done", "settlement": settled.settlement}
    history = ledger.history("acme", claim.key)
    assert [(h.version, h.state.value) for h in history] == [
        (1, "pending"), (seen.version, "escalated"), (settled.version, "done"),
    ]  # fmt: skip
    shown = json.loads(run([*cli, "show", "--scope", "acme", claim.key]).stdout)
    assert shown["settlement"] == settled.settlement
    fields = [f.name for f in dataclasses.fields(oncely.HistoryRecord)]
    assert [{k: r[k] for k in fields} for r in shown["history"]] == [
        {**dataclasses.asdict(h), "state": h.state.value} for h in history
    ]
    # The Python worker asked again replays what the person recorded; nothing runs.
    r = ledger.run(lambda key: pytest.fail("ran again"), scope="acme", run="r", step="s",
                   tool="send_email", args={"to": "a@example.com"}, policy=policy)  # fmt: skip
    assert r.replayed and r.value == {"sent": True}
    ledger.close()
