"""A Strands agent whose process is killed inside the refund tool, after the provider paid,
and a second process that resumes the agent from its session (``FileSessionManager``).

    python strands_crash.py first|resume WORKDIR [--naive]

``first``: the scripted model asks for a refund; the tool pays and the process is killed
(SIGKILL: no cleanup, the ledger's claim stays pending). ``resume``: a new process makes a new
Agent with the same session id; Strands restores the conversation, whose last message is the
model's tool use without a result, and ``agent()`` runs that tool use again (same toolUseId)
before asking the model. Prints the provider's refunds. ``--naive``: a plain ``@tool``.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from payments import REFUND_POLICY, Payments, register_lookup
from scripted import ScriptedModel, Turn, text_of, tool_results, use
from strands import Agent, tool
from strands.session import FileSessionManager
from strands.types.tools import AgentTool

import oncely
from oncely.adapters.strands import oncely_tool


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the answer is never recorded
        return refund

    t: AgentTool
    if naive:

        @tool
        def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, None)

        t = refund
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the resumed run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool("refund", policy=policy)
        def guarded(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, idempotency_key)

        t = oncely_tool(guarded, scope="acme")

    turns: list[Turn] = ["Refunded."]
    if mode == "first":
        turns.insert(0, [use("refund", "call_1", {"charge_id": "ch_1", "amount": 500})])
    session = FileSessionManager(session_id="conversation-7", storage_dir=str(work / "sessions"))
    agent = Agent(
        model=ScriptedModel(turns), tools=[t], session_manager=session, callback_handler=None
    )

    if mode == "first":
        agent("refund $5 of ch_1")
        return 3  # not reached: killed in the tool
    result = agent()  # the restored conversation ends with the tool use: Strands runs it again
    print("last message:", str(result).strip())
    for r in tool_results(agent.messages):
        print(f"tool result {r['toolUseId']} {r['status']}: {text_of(r)}")
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
