"""The background sweeper (``Ledger.start_sweeper``, ``AsyncLedger.start_sweeper``): what a dead
worker left is settled without anyone calling ``sweep`` — reconciled by the registered
reconciler, or escalated on time — a failed pass does not end the loop, and ``stop()`` waits for
a pass in flight. Real stores, the real clock."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import oncely

LOOKUP = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": {"lookup": "find"},
    "leaseMs": 1,
    "reconcileAfterMs": 0,
}
MANUAL = {"class": "irreversible-external", "key": {}, "reconcile": "manual", "leaseMs": 1}


def until(pred: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := pred()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)
    return got


def dead_claim(ledger: oncely.Ledger, tool: str, policy: dict[str, Any]) -> str:
    """A claim whose worker died: begun, never completed."""
    claim = ledger.prepare(scope="ops", run="r", step="s", tool=tool, args={}, policy=policy)
    assert isinstance(ledger.begin(claim), oncely.Execute)
    return claim.key


def state(ledger: oncely.Ledger, key: str) -> oncely.EntryState:
    e = ledger.get("ops", key)
    assert e is not None
    return e.state


def test_a_sweeper_settles_what_a_dead_worker_left(ledger_location: str) -> None:
    with oncely.Ledger.open(ledger_location, owner="w1") as ledger:
        ledger.reconciler("refund", lambda req: oncely.happened({"refund": "re_1"}))
        refund = dead_claim(ledger, "refund", LOOKUP)
        email = dead_claim(ledger, "send_email", MANUAL)
        reports: list[oncely.SweepReport] = []
        with ledger.start_sweeper(0.02, scope="ops", on_report=reports.append) as sweeper:
            assert sweeper.running
            until(lambda: state(ledger, refund) is oncely.EntryState.DONE, "the reconciliation")
            until(lambda: state(ledger, email) is oncely.EntryState.ESCALATED, "the escalation")
        assert not sweeper.running
        entry = ledger.get("ops", refund)
        assert entry is not None and entry.result_json == '{"refund":"re_1"}'
        assert sum(r.reconciled for r in reports) >= 1
        assert any(email in x for r in reports for x in r.escalated)
        n = len(reports)
        time.sleep(0.1)
        assert len(reports) == n, "a pass ran after stop()"


def test_a_failed_pass_goes_to_on_error_and_the_loop_goes_on(
    sqlite_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    with oncely.Ledger.open(sqlite_path) as ledger:
        errors: list[BaseException] = []
        calls = {"n": 0}

        def flaky(scope: str | None = None) -> oncely.SweepReport:
            calls["n"] += 1
            raise oncely.StorageError("the database is down")

        ledger.sweep = flaky  # type: ignore[method-assign]
        sweeper = ledger.start_sweeper(0.01, on_error=errors.append)
        until(lambda: len(errors) >= 2, "two failed passes")
        sweeper.stop()
        assert all(isinstance(e, oncely.StorageError) for e in errors)
        # No on_error: logged on the `oncely` logger, and the loop goes on.
        with caplog.at_level(logging.ERROR, logger="oncely"):
            sweeper = ledger.start_sweeper(0.01)
            until(lambda: len(caplog.records) >= 2, "two logged failures")
            sweeper.stop()
        assert "sweep failed: the database is down" in caplog.records[0].getMessage()


def test_stop_waits_for_a_pass_in_flight(sqlite_path: str) -> None:
    with oncely.Ledger.open(sqlite_path) as ledger:
        started, finished = threading.Event(), threading.Event()

        def slow(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
            started.set()
            time.sleep(0.2)
            finished.set()
            return oncely.NotHappened()

        ledger.reconciler("refund", slow)
        dead_claim(ledger, "refund", LOOKUP)
        sweeper = ledger.start_sweeper(0.01)
        assert started.wait(10)
        sweeper.stop()
        assert finished.is_set() and not sweeper.running
        sweeper.stop()  # again: nothing


def test_every_is_checked(sqlite_path: str) -> None:
    with oncely.Ledger.open(sqlite_path) as ledger:
        for bad in (0, -1, float("inf"), float("nan"), "5", True):
            with pytest.raises(TypeError, match="every"):
                ledger.start_sweeper(bad)  # type: ignore[arg-type]


def test_the_async_sweeper_awaits_async_reconcilers(ledger_location: str) -> None:
    async def main() -> None:
        sync = oncely.Ledger.open(ledger_location)
        ledger = sync.aio
        try:

            async def find(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
                await asyncio.sleep(0)
                return oncely.happened({"refund": "re_2"})

            ledger.reconciler("refund", find)
            key = dead_claim(sync, "refund", LOOKUP)
            reports: list[oncely.SweepReport] = []

            async def on_report(r: oncely.SweepReport) -> None:  # an async hook is awaited
                await asyncio.sleep(0)
                reports.append(r)

            async with ledger.start_sweeper(0.02, on_report=on_report) as sweeper:
                deadline = time.monotonic() + 10
                while (e := await ledger.get("ops", key)) is None or e.state is not (
                    oncely.EntryState.DONE
                ):
                    assert time.monotonic() < deadline, "not reconciled"
                    await asyncio.sleep(0.01)
            assert not sweeper.running
            assert e.result_json == '{"refund":"re_2"}'
            assert sum(r.reconciled for r in reports) >= 1
            n = len(reports)
            await asyncio.sleep(0.1)
            assert len(reports) == n
        finally:
            sync.close()

    asyncio.run(main())
