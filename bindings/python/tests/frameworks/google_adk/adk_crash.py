"""An ADK agent whose process is killed inside the refund tool, after the provider paid, and a
second process that resumes the interrupted invocation from ADK's own persistence: the
session (its events: the model's function call) in a ``SqliteSessionService``, a resumable app
(``ResumabilityConfig(is_resumable=True)``: ADK promises at-least-once for the resumed tool),
and a new ``Runner`` given the invocation id.

    python adk_crash.py first|resume WORKDIR [--naive]

``first``: the scripted model asks for a refund; the tool pays and the process is killed
(SIGKILL: no cleanup, the ledger's claim stays pending). ``resume``: a new process resumes the
same invocation of the same session, which runs the function call again. Prints the provider's
refunds. ``--naive``: the same agent with a plain ``FunctionTool``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from adk_script import ScriptedLlm, call, final_text, responses, run_turn, say
from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.runners import Runner
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools import BaseTool, FunctionTool
from payments import REFUND_POLICY, Payments, register_lookup

import oncely
from oncely.adapters.google_adk import oncely_function_tool

SESSION = "conversation-7"


async def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the answer is never recorded
        return refund

    tool: BaseTool
    if naive:

        def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, None)

        tool = FunctionTool(refund)
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the resumed run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, idempotency_key)

        tool = oncely_function_tool(refund, scope="acme")

    turns = [say("Refunded.")]
    if mode == "first":
        turns.insert(0, call("call_1", {"charge_id": "ch_1", "amount": 500}))
    agent = LlmAgent(name="support", model=ScriptedLlm(turns=turns), tools=[tool])
    app = App(
        name="shop", root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True)
    )
    sessions = SqliteSessionService(str(work / "sessions.db"))
    runner = Runner(app=app, session_service=sessions)

    if mode == "first":
        await sessions.create_session(app_name="shop", user_id="u1", session_id=SESSION)
        await run_turn(runner, SESSION, "refund $5 of ch_1")
        return 3  # not reached: killed in the tool
    session = await sessions.get_session(app_name="shop", user_id="u1", session_id=SESSION)
    assert session is not None
    invocation = session.events[-1].invocation_id  # the interrupted one
    events = await run_turn(runner, SESSION, None, invocation_id=invocation)
    print("last message:", final_text(events))
    for call_id, response in responses(events):
        print("function response:", call_id, response)
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
