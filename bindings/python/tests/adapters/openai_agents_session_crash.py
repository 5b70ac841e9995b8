"""An OpenAI Agents SDK run with a ``SQLiteSession`` whose process is killed inside the refund
tool, after the provider paid, and a second process that goes on with the same session.

    python openai_agents_session_crash.py first|resume WORKDIR [--naive]

``first``: the scripted model asks for a refund; the tool pays and the process is killed
(SIGKILL: the call's output never reaches the session, the ledger's claim stays pending).
``resume``: a new process runs the agent again on the same session (``SQLiteSession`` in
WORKDIR/session.db): the model reads the conversation so far and asks for the refund again, with
a new call id and the arguments respelled. Prints the session's items before the run, the tool's
output and the provider's refunds. ``--naive``: the same agent with a plain ``function_tool``.
The run is the session: its ``session_id`` given to the tool as ``run=`` (docs/choosing-keys.md;
the other way, ``RunConfig(group_id=session.session_id)``, is test_openai_agents_session.py's).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from agents import Agent, FunctionTool, RunConfig, Runner, SQLiteSession, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from payments import REFUND_POLICY, Payments, register_lookup

import oncely
from oncely.adapters.openai_agents import oncely_function_tool

SESSION = "session-7"


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the output is never recorded
        return refund

    tool: FunctionTool
    if naive:

        @function_tool
        def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, None)

        tool = refund
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the second run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool("refund", policy=policy)
        def guarded(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, idempotency_key)

        tool = oncely_function_tool(guarded, name="refund", scope="acme", run=SESSION)

    if mode == "first":
        asked = function_call("refund", {"charge_id": "ch_1", "amount": 500}, call_id="call_1")
        said = "Refund $5 on charge ch_1."
    else:
        # A new call id, the arguments in another order, 500 spelled 5e2.
        asked = function_call("refund", '{"amount": 5e2, "charge_id": "ch_1"}', call_id="call_2")
        said = "Did my refund of $5 on ch_1 go through? If not, refund it."
    model = ScriptedModel([[asked], [assistant_message("Refunded.")]])
    agent = Agent(name="support", model=model, tools=[tool])
    session = SQLiteSession(SESSION, work / "session.db")
    before = asyncio.run(session.get_items())
    config = RunConfig(tracing_disabled=True)
    result = Runner.run_sync(agent, said, session=session, run_config=config)
    if mode == "first":
        return 3  # not reached: killed in the tool
    print("session before:", json.dumps([i.get("role", i.get("type")) for i in before]))
    print("final output:", result.final_output)
    for item in result.new_items:
        if item.type == "tool_call_output_item":
            print("tool output:", json.dumps(item.output, sort_keys=True))
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
