"""A LangGraph functional-API workflow (``@entrypoint``) whose durable ``@task`` calls an oncely
tool: the process is killed inside the task after the provider paid, and resumed from its SQLite
checkpointer. LangGraph saves a task's result when the task returns, so the resumed entrypoint
runs the killed task again: bare it pays twice. Through ``oncely.adapters.langchain`` the tool's
run is the thread (``configurable.thread_id``, which the task runs under) and there is no step,
so the re-run task finds the dead worker's claim and settles it by the lookup: paid once.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from payments import REFUND_POLICY, Payments, counted, register_lookup

import oncely
from oncely.adapters.langchain import oncely_tool


def crash_script(mode: str, work: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).with_name("langgraph_task_crash.py")
    argv = [sys.executable, str(script), mode, str(work), *flags]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def killed_and_resumed(work: Path, *flags: str) -> str:
    first = crash_script("first", work, *flags)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
    resumed = crash_script("resume", work, *flags)
    assert resumed.returncode == 0, resumed.stderr
    assert 'pending: ["workflow"]' in resumed.stdout  # the checkpoint left the entrypoint to run
    return resumed.stdout


def test_a_task_killed_after_paying_and_resumed_from_its_checkpoint_pays_once(
    tmp_path: Path,
) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"langgraph @task killed and resumed, oncely adapter: paid {len(refunds)} time(s)")
    assert len(refunds) == 1
    assert "refunds: 1" in out
    assert '"refund_id": "re_1"' in out  # the re-run task got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]
    assert (entry.run_id, entry.step_id) == ("refund-thread-7", "")  # the thread, no step


def test_without_oncely_the_resumed_task_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"langgraph @task killed and resumed, no oncely: paid {len(refunds)} time(s)")
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- in one process: the identity inside a task, sync and async --------------------------------


def test_a_tool_in_a_task_is_keyed_by_the_thread_sync_and_async(tmp_path: Path) -> None:
    payments = Payments()
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        register_lookup(ledger, payments)

        @ledger.tool(policy=REFUND_POLICY)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return payments.refund(charge_id, amount, idempotency_key)

        tool = oncely_tool(refund, scope="acme")

        @task
        def sync_task(charge_id: str, amount: int) -> dict[str, Any]:
            result: dict[str, Any] = tool.invoke({"charge_id": charge_id, "amount": amount})
            return result

        @task
        async def async_task(charge_id: str, amount: int) -> dict[str, Any]:
            result: dict[str, Any] = await tool.ainvoke({"charge_id": charge_id, "amount": amount})
            return result

        @entrypoint(checkpointer=InMemorySaver())
        def sync_flow(req: dict[str, Any]) -> dict[str, Any]:
            return sync_task(req["charge_id"], req["amount"]).result()

        @entrypoint(checkpointer=InMemorySaver())
        async def async_flow(req: dict[str, Any]) -> dict[str, Any]:
            return await async_task(req["charge_id"], req["amount"])

        def thread(name: str) -> RunnableConfig:
            return {"configurable": {"thread_id": name}}

        req = {"charge_id": "ch_1", "amount": 500}
        first = sync_flow.invoke(req, thread("t-1"))
        # The same thread again (a new invocation of the workflow): the same effect, replayed.
        assert sync_flow.invoke(req, thread("t-1")) == first
        assert asyncio.run(async_flow.ainvoke(req, thread("t-1"))) == first
        # Another thread: another effect.
        assert asyncio.run(async_flow.ainvoke(req, thread("t-2")))["refund_id"] == "re_2"
        assert len(payments.refunds) == 2
        runs = sorted((e.run_id, e.step_id) for e in ledger.list("acme"))
        assert runs == [("t-1", ""), ("t-2", "")]  # the thread, no step
