"""A smolagents ToolCallingAgent with a refund tool, a scripted model (a smolagents ``Model``
that returns what it is told: no network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the error, and — as models do — asks again with a NEW call id,
the arguments in another order and 500 written as 500.0. Run twice:

1. with a plain smolagents ``@tool``: the provider pays twice;
2. with the same function through ``oncely.adapters.smolagents.oncely_tool``: the first call is
   recorded as "outcome unknown", the re-ask (same run, same intent) finds the refund by looking
   it up and returns it. Paid ONCE.

smolagents names no conversation, so the run is given: ``oncely.context(run=...)``.

    pip install ./bindings/python smolagents
    python examples/python/smolagents_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from smolagents import LogLevel, Model, Tool, ToolCallingAgent, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction

import oncely
from oncely.adapters.smolagents import oncely_tool


class Payments:
    """Pays every refund it is asked for (no deduplication); the first answer is lost, and the
    first lookup cannot connect."""

    def __init__(self) -> None:
        self.refunds: list[dict[str, Any]] = []
        self.lose_answers, self.outage = 1, 1

    def refund(self, charge_id: str, amount: float, key: str | None) -> dict[str, Any]:
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


class ScriptedModel(Model):
    """Asks for a refund, asks again (respelled) after the tool's answer, then is done."""

    turns = (
        ("refund", "call_1", '{"charge_id": "ch_1", "amount": 500}'),
        ("refund", "call_2", '{ "amount": 500.0,  "charge_id": "ch_1" }'),
        ("final_answer", "call_3", '{"answer": "Refunded."}'),
    )

    def __init__(self) -> None:
        super().__init__(model_id="scripted")
        self.asked = 0

    def generate(self, messages: list[Any], **kwargs: Any) -> ChatMessage:
        name, call_id, arguments = self.turns[self.asked]
        self.asked += 1
        function = ChatMessageToolCallFunction(name=name, arguments=arguments)
        call = ChatMessageToolCall(id=call_id, type="function", function=function)
        return ChatMessage(role="assistant", content="", tool_calls=[call])


def run_agent(refund: Tool) -> None:
    agent = ToolCallingAgent(tools=[refund], model=ScriptedModel(), verbosity_level=LogLevel.OFF)
    # The run: a re-asked call in this conversation is the same intent.
    with oncely.context(run="conversation-7"):
        agent.run("refund $5 of ch_1")
    for step in agent.memory.steps[1:-1]:  # the task, then the tool calls, then the answer
        # What the model read: smolagents' tool error ("Error executing tool 'refund' with
        # arguments {...}: Type: message"), or the tool's result.
        seen = str(step.error).split("}: ", 1)[-1] if step.error else step.observations
        kind = "error" if step.error else "result"
        print(f"  step {step.step_number} ({kind}): {seen.replace(chr(10), ' ')[:105]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("plain smolagents tool:")
    p1 = Payments()

    @tool
    def refund(charge_id: str, amount: float) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return p1.refund(charge_id, amount, None)

    run_agent(refund)
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

        @ledger.tool("refund", policy=policy)
        def guarded_refund(
            charge_id: str, amount: float, *, idempotency_key: str
        ) -> dict[str, Any]:
            """Refund part of a charge.

            Args:
                charge_id: The charge to refund.
                amount: How much, in cents.
            """
            return p2.refund(charge_id, amount, idempotency_key)

        @guarded_refund.reconciler
        def find_refund(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
            try:
                found = p2.find(req.key)
            except ConnectionError as e:
                return oncely.Unknown(str(e))
            return oncely.happened(found) if found else oncely.NotHappened()

        guarded = oncely_tool(guarded_refund, scope="acme")
        print(f"  the model sees: {', '.join(guarded.inputs)} (no key)")
        run_agent(guarded)
        ledger.close()
    print(f"  => the provider paid {len(p2.refunds)} time(s)")
    return 0 if len(p2.refunds) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
