"""Restate: an oncely tool inside ``ctx.run``, keyed by the invocation id and the run's name
(oncely.engines.restate).

The kill-resume story, against a real Restate server (conftest.py): a service (the Python SDK on
hypercorn) whose handler refunds a charge inside ``ctx.run`` is killed after the provider paid,
before Restate journals the run's result; the service is started again on the same port, and
Restate retries the invocation there, executing the run again. Restate alone pays twice; through
oncely the retried run finds the dead attempt's claim and settles it by looking the refund up:
paid once. Then, in one process, the identity with a stand-in context.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from compat import record
from conftest import Restate, free_port
from payments import Payments, counted

import oncely
from oncely.engines import EngineContextError
from oncely.engines.restate import next_run_and_step, run_context

RESTATE_RUN = "the invocation id (step: the ctx.run's name and occurrence)"
RESUMED = "SIGKILL before the journal entry, retried by Restate"


def start_service(mode: str, work: Path, port: int, *flags: str) -> subprocess.Popen[str]:
    script = Path(__file__).with_name("restate_crash.py")
    argv = [sys.executable, str(script), mode, str(work), str(port), *flags]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, proc.communicate()[0]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            assert time.monotonic() < deadline, "the service did not listen in 60 s"
            time.sleep(0.05)


def killed_and_retried(server: Restate, work: Path, *flags: str) -> tuple[Any, str, str]:
    """(the invocation's result, its id, what the restarted service printed)."""
    service = "refunds_bare" if "--naive" in flags else "refunds_oncely"
    port = free_port()
    first = start_service("first", work, port, *flags)
    server.register(f"http://127.0.0.1:{port}")
    sent = server.post(
        f"{server.ingress}/{service}/refund/send",
        {"charge_id": "ch_1", "amount": 500},
        {"idempotency-key": f"refund-7-{service}"},
    )
    assert first.wait(timeout=60) == -9, first.communicate()[0]
    assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
    resumed = start_service("resume", work, port, *flags)
    try:
        out = server.get(f"{server.ingress}/restate/invocation/{sent['invocationId']}/attach")
    finally:
        resumed.kill()
    printed = resumed.communicate()[0]
    assert "handler: resume" in printed  # Restate, not the test, ran the handler again
    return out, sent["invocationId"], printed


def test_a_service_killed_in_its_run_and_retried_pays_once(
    restate_server: Restate, tmp_path: Path
) -> None:
    out, invocation, _ = killed_and_retried(restate_server, tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"restate killed in ctx.run and retried, oncely: paid {len(refunds)} time(s)")
    record(
        framework="Restate", package="restate-sdk", run=RESTATE_RUN, story="kill-resume",
        paid=len(refunds), bare=False, how=RESUMED, engine=True,
    )  # fmt: skip
    assert len(refunds) == 1
    assert out["refund"]["refund_id"] == "re_1"  # the retried run got the first refund back
    assert out["context"] == {"scope": "acme", "run": invocation, "step": "refund#1"}
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_without_oncely_the_retried_run_pays_again(restate_server: Restate, tmp_path: Path) -> None:
    out, _, _ = killed_and_retried(restate_server, tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"restate killed in ctx.run and retried, no oncely: paid {len(refunds)} time(s)")
    record(
        framework="Restate", package="restate-sdk", run=RESTATE_RUN, story="kill-resume",
        paid=len(refunds), bare=True, how=RESUMED, engine=True,
    )  # fmt: skip
    assert len(refunds) == 2
    assert out["refund"]["refund_id"] == "re_2"


# --- in one process: the identity, with a stand-in for Restate's context -------------------------


class Request:
    def __init__(self, id: str) -> None:
        self.id = id


class Context:
    """What run_context reads of ``restate.Context``."""

    def __init__(self, id: str) -> None:
        self._request = Request(id)

    def request(self) -> Request:
        return self._request


def test_each_run_of_a_name_is_a_step_of_its_own() -> None:
    ctx = Context("inv_1")
    assert next_run_and_step(ctx, "refund") == ("inv_1", "refund#1")
    assert next_run_and_step(ctx, "email") == ("inv_1", "email#1")
    assert next_run_and_step(ctx, "refund") == ("inv_1", "refund#2")
    # A retry of the invocation is a new context: the count starts again, the steps are the same.
    assert next_run_and_step(Context("inv_1"), "refund") == ("inv_1", "refund#1")


def test_the_identity_is_taken_when_called_and_entered_in_the_action() -> None:
    ctx = Context("inv_2")
    first = run_context(ctx, "refund", scope="acme")
    second = run_context(ctx, "refund", scope="acme")

    @first
    def action() -> dict[str, str]:
        return dict(oncely.current_context())

    @second
    async def async_action() -> dict[str, str]:
        return dict(oncely.current_context())

    assert action() == {"scope": "acme", "run": "inv_2", "step": "refund#1"}
    assert action() == {"scope": "acme", "run": "inv_2", "step": "refund#1"}  # the run's retry
    assert asyncio.run(async_action()) == {"scope": "acme", "run": "inv_2", "step": "refund#2"}
    with run_context(ctx, "email", by_step=False):
        assert dict(oncely.current_context()) == {"run": "inv_2"}


def test_outside_a_handler_the_identity_is_refused() -> None:
    with pytest.raises(EngineContextError, match="not a Restate handler's context"):
        run_context(object(), "refund")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the run's name is the step"):
        run_context(Context("inv_3"), "")
