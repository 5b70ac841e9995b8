"""A smolagents agent whose process is killed inside the refund tool, after the provider paid,
and a second process that runs the conversation again.

    python smolagents_crash.py first|resume WORKDIR [--naive]

smolagents persists nothing an agent could resume from: its memory (``agent.memory.steps``) can
be dumped (``get_full_steps()``) but not loaded into an agent, and a run's step numbers start
again at 1. So the resumed process does what an application does after a crash: it runs the same
agent turn again — the same task, in the same conversation (run ``conversation-7``, given to the
adapter as smolagents names none) — and the model asks for the refund again, with a new call id.

``first``: the scripted model asks for a refund; the tool pays and the process is killed
(SIGKILL: no cleanup, the ledger's claim stays pending). ``resume``: a new process, a new agent,
the same task and run. Prints the tool's observations and the provider's refunds. ``--naive``: a
plain smolagents ``@tool``.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from payments import REFUND_POLICY, Payments, register_lookup
from scripted import make_agent, observations, use
from smolagents import Tool, tool

import oncely
from oncely.adapters.smolagents import oncely_tool

RUN = "conversation-7"


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the answer is never recorded
        return refund

    t: Tool
    if naive:

        @tool
        def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge.

            Args:
                charge_id: The charge to refund.
                amount: How much, in cents.
            """
            return pay(charge_id, amount, None)

        t = refund
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the resumed run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool("refund", policy=policy)
        def guarded(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge.

            Args:
                charge_id: The charge to refund.
                amount: How much, in cents.
            """
            return pay(charge_id, amount, idempotency_key)

        t = oncely_tool(guarded, scope="acme", run=RUN)

    # The same turn, asked again: the model's new call has a new id.
    call_id = "call_1" if mode == "first" else "call_1_again"
    agent, _ = make_agent(
        [t], [[use("refund", call_id, {"charge_id": "ch_1", "amount": 500})], "Refunded."]
    )
    answer = agent.run("refund $5 of ch_1")
    if mode == "first":
        return 3  # not reached: killed in the tool
    print("final answer:", answer)
    for seen in observations(agent):
        print("observation:", seen.replace("\n", " "))
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
