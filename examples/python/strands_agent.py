"""A Strands agent with a refund tool, a scripted model (a Strands ``Model`` that streams what
it is told: no network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the error, and — as models do — asks again with a NEW
``toolUseId``, the arguments in another order and 500 written as 5e2. Run twice:

1. with a plain Strands ``@tool``: the provider pays twice;
2. with the same function through ``oncely.adapters.strands.oncely_tool``: the first call is
   recorded as "outcome unknown", the re-ask (same session, same intent) finds the refund by
   looking it up and returns it. Paid ONCE.

    pip install ./bindings/python strands-agents
    python examples/python/strands_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from strands import Agent, tool
from strands.models import Model
from strands.session import FileSessionManager
from strands.types.tools import AgentTool

import oncely
from oncely.adapters.strands import oncely_tool


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


class ScriptedModel(Model):
    """Asks for a refund, asks again (respelled) after the tool's answer, then is done."""

    turns = (
        ("call_1", '{"charge_id": "ch_1", "amount": 500}'),
        ("call_2", '{ "amount": 5e2,  "charge_id": "ch_1" }'),
        None,
    )

    def __init__(self) -> None:
        self.asked = 0

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        turn = self.turns[self.asked]
        self.asked += 1
        yield {"messageStart": {"role": "assistant"}}
        if turn is None:
            yield {"contentBlockDelta": {"delta": {"text": "Refunded."}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        call_id, arguments = turn
        yield {
            "contentBlockStart": {"start": {"toolUse": {"name": "refund", "toolUseId": call_id}}}
        }
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": arguments}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def run_agent(refund: AgentTool, sessions: Path) -> None:
    # The session is the run: a resumed or re-asked call in this session is the same intent.
    session = FileSessionManager(session_id="conversation-7", storage_dir=str(sessions))
    agent = Agent(
        model=ScriptedModel(), tools=[refund], session_manager=session, callback_handler=None
    )
    agent("refund $5 of ch_1")
    for m in agent.messages:
        for block in m["content"]:
            if "toolResult" in block:
                r = block["toolResult"]
                text = " ".join(c.get("text", "") for c in r["content"]).replace("\n", " ")
                print(f"  {r['toolUseId']} ({r['status']}): {text[:110]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        print("plain Strands tool:")
        p1 = Payments()

        @tool
        def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge (amount in cents)."""
            return p1.refund(charge_id, amount, None)

        run_agent(refund, Path(tmp) / "plain")
        print(f"  => the provider paid {len(p1.refunds)} time(s)\n")

        print("the same tool through oncely:")
        p2 = Payments()
        ledger = oncely.Ledger.sqlite(args.db or Path(tmp) / "ledger.db")
        policy = {
            "class": "irreversible-external",
            "reconcile": {"lookup": "find_refund"},  # the provider does not deduplicate
            "reconcileAfterMs": 0,
        }

        @ledger.tool("refund", policy=policy)
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

        guarded = oncely_tool(guarded_refund, scope="acme")
        shown = guarded.tool_spec["inputSchema"]["json"]["properties"]
        print(f"  the model sees: {', '.join(shown)} (no key)")
        run_agent(guarded, Path(tmp) / "oncely")
        ledger.close()
    print(f"  => the provider paid {len(p2.refunds)} time(s)")
    return 0 if len(p2.refunds) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
