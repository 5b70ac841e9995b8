"""An OpenAI Agents SDK agent with a refund tool, the SDK's own scripted model
(``agents.testing.ScriptedModel``, no network) and a payment provider whose first answer times
out.

The model calls ``refund``, reads the error, and asks again with a NEW call id, the arguments
in another order and 500 written as 5e2. Run twice:

1. with ``function_tool``: the SDK tells the model "Please try again", and the provider pays
   twice;
2. with ``oncely.adapters.openai_agents.oncely_function_tool``: the first call is recorded as
   "outcome unknown"; the re-ask (same conversation: ``RunConfig.group_id``, same intent) finds
   the refund by looking it up and returns it. Paid ONCE.

    pip install './bindings/python[openai-agents]'
    python examples/python/openai_agents_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents import Agent, FunctionTool, RunConfig, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

import oncely
from oncely.adapters.openai_agents import oncely_function_tool


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


def run_agent(tool: FunctionTool) -> None:
    model = ScriptedModel(
        [
            [function_call("refund", {"charge_id": "ch_1", "amount": 500}, call_id="call_1")],
            [function_call("refund", '{"amount": 5e2, "charge_id": "ch_1"}', call_id="call_2")],
            [assistant_message("Refunded.")],
        ]
    )
    agent = Agent(name="support", model=model, tools=[tool])
    # The group id names the conversation: it is the run.
    config = RunConfig(group_id="conversation-7", tracing_disabled=True)
    result = Runner.run_sync(agent, "refund $5 of ch_1", run_config=config)
    for item in result.new_items:
        if item.type == "tool_call_output_item":
            print(f"  {item.raw_item['call_id']}: {str(item.output)[:110]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("function_tool:")
    p1 = Payments()

    @function_tool
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge (amount in cents)."""
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
        run_agent(oncely_function_tool(guarded_refund, name="refund", scope="acme"))
        ledger.close()
    print(f"  => the provider paid {len(p2.refunds)} time(s)")
    return 0 if len(p2.refunds) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
