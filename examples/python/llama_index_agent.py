"""A LlamaIndex agent with a refund tool, a scripted model (LlamaIndex's own
``MockFunctionCallingLLM``, no network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the error, and — as models do — asks again with a NEW
tool-call id, the arguments in another order and 500 written as 5e2. Run twice:

1. with a plain LlamaIndex ``FunctionTool``: the provider pays twice;
2. with the same function through ``oncely.adapters.llama_index.oncely_tool``: the first call is
   recorded as "outcome unknown", the re-ask (same memory session, same intent) finds the refund
   by looking it up and returns it. Paid ONCE.

    pip install ./bindings/python llama-index-core
    python examples/python/llama_index_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory
from llama_index.core.tools import BaseTool, FunctionTool

import oncely
from oncely.adapters.llama_index import oncely_tool


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


def run_agent(tool: BaseTool) -> None:
    def call(id_: str, args: dict[str, Any] | str) -> ChatMessage:
        block = ToolCallBlock(tool_call_id=id_, tool_name="refund", tool_kwargs=args)
        return ChatMessage(role="assistant", blocks=[block])

    replies = [
        call("call_1", {"charge_id": "ch_1", "amount": 500}),
        call("call_2", '{"amount": 5e2, "charge_id": "ch_1"}'),
        ChatMessage(role="assistant", content="Refunded."),
    ]
    llm = MockFunctionCallingLLM(response_generator=lambda messages, **kw: replies.pop(0))
    agent = FunctionAgent(tools=[tool], llm=llm)

    async def main() -> None:
        # The memory's session is the run: a re-asked call in this session is the same intent.
        memory = Memory.from_defaults(session_id="conversation-7", token_limit=4000)
        handler = agent.run(user_msg="refund $5 of ch_1", memory=memory)
        async for ev in handler.stream_events():
            if isinstance(ev, ToolCallResult):
                text = str(ev.tool_output.content).replace("\n", " ")
                print(f"  {ev.tool_id}: {text[:110]}")
        await handler

    asyncio.run(main())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("plain LlamaIndex tool:")
    p1 = Payments()

    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge (amount in cents)."""
        return p1.refund(charge_id, amount, None)

    run_agent(FunctionTool.from_defaults(refund))
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

        # The schema the model sees has charge_id and amount: no key.
        run_agent(oncely_tool(guarded_refund, name="refund", scope="acme"))
        ledger.close()
    print(f"  => the provider paid {len(p2.refunds)} time(s)")
    return 0 if len(p2.refunds) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
