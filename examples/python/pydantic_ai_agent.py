"""A Pydantic AI agent with a refund tool, a scripted model (Pydantic AI's ``FunctionModel``, no
network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the failure, and — as models do — asks again with a NEW
tool-call id, the arguments in another order and 500 written as 5e2. Run twice:

1. with a plain Pydantic AI tool (the timeout raised as ``ModelRetry``): the provider pays twice;
2. with the same function through ``oncely.adapters.pydantic_ai.oncely_tool``: the first call is
   recorded as "outcome unknown", the re-ask (same conversation, same intent) finds the refund
   by looking it up and returns it. Paid ONCE.

    pip install ./bindings/python pydantic-ai-slim
    python examples/python/pydantic_ai_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, ModelRetry, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import oncely
from oncely.adapters.pydantic_ai import oncely_tool


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


def run_agent(tool: Tool[Any]) -> None:
    turns: list[list[ModelResponsePart]] = [
        [ToolCallPart("refund", {"charge_id": "ch_1", "amount": 500}, tool_call_id="call_1")],
        [ToolCallPart("refund", '{"amount": 5e2, "charge_id": "ch_1"}', tool_call_id="call_2")],
        [TextPart("Refunded.")],
    ]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=turns.pop(0))

    agent = Agent(FunctionModel(model), tools=[tool])
    # The conversation id is the run: a re-asked or resumed call in it is the same intent.
    result = agent.run_sync("refund $5 of ch_1", conversation_id="conversation-7")
    for m in result.all_messages():
        for p in m.parts:
            if isinstance(p, ToolReturnPart):
                print(f"  {p.tool_call_id} ({p.outcome}): {p.model_response_str()[:100]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("plain Pydantic AI tool:")
    p1 = Payments()

    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge (amount in cents)."""
        try:
            return p1.refund(charge_id, amount, None)
        except TimeoutError as e:
            raise ModelRetry(f"the provider did not answer: {e}") from e

    run_agent(Tool(refund))
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
