"""A LangGraph functional-API workflow (``@entrypoint``) whose ``@task`` calls the refund tool,
killed inside the task after the provider paid, and a second process that resumes the thread
from its SQLite checkpoint.

    python langgraph_task_crash.py first|resume WORKDIR [--naive]

``first``: the entrypoint runs the task; the tool pays and the process is killed (SIGKILL: the
task's result is never written, the ledger's claim stays pending). ``resume``: a new process
resumes the same thread (``workflow.invoke(None, config)``): LangGraph runs the entrypoint again
from its checkpointed input and re-runs the task, whose result it never saved. Prints the result
and the provider's refunds. ``--naive``: the same task calling the provider directly.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.func import entrypoint, task
from payments import REFUND_POLICY, Payments, register_lookup

import oncely
from oncely.adapters.langchain import oncely_tool

CONFIG: RunnableConfig = {"configurable": {"thread_id": "refund-thread-7"}}


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the task dies: LangGraph never saves its result
        return refund

    if naive:

        @task
        def refund_task(charge_id: str, amount: int) -> dict[str, Any]:
            return pay(charge_id, amount, None)

    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the re-run task finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, idempotency_key)

        # The LangChain tool: its run is the thread of the config the task runs under.
        refund_tool = oncely_tool(refund, scope="acme")

        @task
        def refund_task(charge_id: str, amount: int) -> dict[str, Any]:
            result: dict[str, Any] = refund_tool.invoke({"charge_id": charge_id, "amount": amount})
            return result

    conn = sqlite3.connect(work / "checkpoints.db", check_same_thread=False)

    @entrypoint(checkpointer=SqliteSaver(conn))
    def workflow(request: dict[str, Any]) -> dict[str, Any]:
        refund = refund_task(request["charge_id"], request["amount"]).result()
        return {"refund": refund}

    if mode == "first":
        workflow.invoke({"charge_id": "ch_1", "amount": 500}, CONFIG, durability="sync")
        return 3  # not reached: killed in the task
    pending = workflow.get_state(CONFIG).next
    print("pending:", json.dumps(list(pending)))
    out = workflow.invoke(None, CONFIG, durability="sync")
    print("result:", json.dumps(out, sort_keys=True))
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
