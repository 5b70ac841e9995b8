"""A Google ADK agent with a refund tool, a scripted model (a ``BaseLlm`` answering from a list,
no network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the error, and — as models do — asks again with a NEW
function-call id, the arguments in another order and 500 written as 500.0. Run twice:

1. with a plain ``FunctionTool`` (and ADK's ``ReflectAndRetryToolPlugin``, which tells the model
   to retry a tool that raised): the provider pays twice;
2. with the same function through ``oncely.adapters.google_adk.oncely_function_tool``: the
   first call is recorded as "outcome unknown" (the model reads ``{"error": "oncely: …"}``),
   the re-ask (same session, same intent) finds the refund by looking it up and returns it.
   Paid ONCE.

    pip install ./bindings/python google-adk
    python examples/python/google_adk_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins import ReflectAndRetryToolPlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import BaseTool, FunctionTool
from google.genai import types
from pydantic import Field

import oncely
from oncely.adapters.google_adk import oncely_function_tool


class Payments:
    """Pays every refund it is asked for (no deduplication); the first answer is lost, and the
    first lookup cannot connect."""

    def __init__(self) -> None:
        self.refunds: list[dict[str, Any]] = []
        self.lose_answers, self.outage = 1, 1

    def refund(self, charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        r = {"refund_id": f"re_{len(self.refunds) + 1}", "charge_id": charge_id, "amount": amount}
        self.refunds.append({**r, "key": key})  # the money moves…
        if self.lose_answers:
            self.lose_answers -= 1
            raise TimeoutError("read timed out")  # …and the answer is lost
        return r

    def find(self, key: str) -> dict[str, Any] | None:
        if self.outage:
            self.outage -= 1
            raise ConnectionError("provider unreachable")
        return next(({**r} for r in self.refunds if r["key"] == key), None)


class ScriptedModel(BaseLlm):
    """Answers each request with the next scripted turn."""

    model: str = "scripted"
    turns: list[types.Content] = Field(default_factory=list)
    asked: int = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.asked += 1
        yield LlmResponse(content=self.turns[self.asked - 1])


def call(id_: str, args: dict[str, Any]) -> types.Content:
    fc = types.FunctionCall(id=id_, name="refund", args=args)
    return types.Content(role="model", parts=[types.Part(function_call=fc)])


async def run_agent(tool: BaseTool) -> None:
    model = ScriptedModel(
        turns=[
            call("call_1", {"charge_id": "ch_1", "amount": 500}),
            call("call_2", {"amount": 500.0, "charge_id": "ch_1"}),
            types.Content(role="model", parts=[types.Part(text="Refunded.")]),
        ]
    )
    sessions = InMemorySessionService()
    # The session id is the run: a re-asked or resumed call in this session is the same intent.
    await sessions.create_session(app_name="shop", user_id="u1", session_id="conversation-7")
    agent = LlmAgent(name="support", model=model, tools=[tool])
    app = App(name="shop", root_agent=agent, plugins=[ReflectAndRetryToolPlugin()])
    runner = Runner(app=app, session_service=sessions)
    ask = types.Content(role="user", parts=[types.Part(text="refund $5 of ch_1")])
    async for event in runner.run_async(user_id="u1", session_id="conversation-7", new_message=ask):
        for r in event.get_function_responses():
            print(f"  {r.id}: {str(r.response).replace(chr(10), ' ')[:110]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()
    logging.getLogger("google_adk").setLevel(logging.ERROR)  # the scripted model counts no tokens

    print("plain ADK FunctionTool:")
    p1 = Payments()

    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge (amount in cents)."""
        return p1.refund(charge_id, amount, None)

    asyncio.run(run_agent(FunctionTool(refund)))
    print(f"  => the provider paid {len(p1.refunds)} time(s)\n")

    print("the same tool through oncely:")
    p2 = Payments()
    with tempfile.TemporaryDirectory() as tmp:
        ledger = oncely.Ledger.sqlite(args.db or Path(tmp) / "ledger.db")

        policy = {
            "class": "irreversible-external",
            "reconcile": {"lookup": "find_refund"},  # the provider does not deduplicate
            "reconcileAfterMs": 0,
        }

        @ledger.tool(policy=policy)
        def guarded_refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge (amount in cents)."""
            return p2.refund(charge_id, amount, idempotency_key)

        @guarded_refund.reconciler
        def find_refund(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
            try:
                found = p2.find(req.key)
            except ConnectionError as e:
                return oncely.Unknown(str(e))
            return oncely.happened(found) if found else oncely.NotHappened()

        # The declaration the model sees has charge_id and amount: no key.
        asyncio.run(run_agent(oncely_function_tool(guarded_refund, name="refund", scope="acme")))
        ledger.close()
    print(f"  => the provider paid {len(p2.refunds)} time(s)")
    return 0 if len(p2.refunds) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
