"""A CrewAI crew with a refund tool, a scripted model (a ``crewai.BaseLLM`` that makes the
tool calls it is given: no network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the error, and — as models do — asks again with a NEW
tool-call id, the arguments in another order and 500 written as 500.0. Run twice:

1. with CrewAI's own ``@tool``: the provider pays twice;
2. with the same function through ``oncely.adapters.crewai.oncely_tool``: the first call is
   recorded as "outcome unknown" (the model reads the core's answer as CrewAI's ToolFailure),
   the re-ask (same crew, same intent) finds the refund by looking it up and returns it. Paid
   ONCE.

    pip install ./bindings/python crewai
    python examples/python/crewai_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")  # no network
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

import oncely
from crewai import Agent, BaseLLM, Crew, Task
from crewai.tools import BaseTool, tool
from oncely.adapters.crewai import oncely_tool


class ScriptedLLM(BaseLLM):
    """Answers each call with the next reply: native tool calls, then the final text."""

    def __init__(self, replies: list[Any]) -> None:
        super().__init__(model="scripted")
        self.replies = list(replies)
        self.last: list[Any] = []

    def call(self, messages: Any, tools: Any = None, *args: Any, **kw: Any) -> Any:
        self.last = list(messages)
        return self.replies.pop(0) if self.replies else "Done."

    def supports_function_calling(self) -> bool:
        return True


class Payments:
    """Pays every refund it is asked for (no deduplication); the first answer is lost, and the
    first lookup cannot connect."""

    def __init__(self) -> None:
        self.refunds: list[dict[str, Any]] = []
        self.lose_answers, self.outage = 1, 1

    def refund(self, charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        r = {
            "refund_id": f"re_{len(self.refunds) + 1}",
            "charge_id": charge_id,
            "amount": amount,
        }
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


def run_crew(refund: BaseTool) -> None:
    def call(id_: str, arguments: str) -> list[dict[str, Any]]:
        return [{"id": id_, "function": {"name": "refund", "arguments": arguments}}]

    llm = ScriptedLLM(
        [
            call("call_1", '{"charge_id": "ch_1", "amount": 500}'),
            call("call_2", '{"amount": 500.0, "charge_id": "ch_1"}'),
            "Refunded.",
        ]
    )
    agent = Agent(
        role="support", goal="refunds", backstory="-", llm=llm, tools=[refund]
    )
    task = Task(
        description="refund $5 of ch_1", expected_output="the refund", agent=agent
    )
    # The crew is the run: a re-asked call in this crew is the same intent.
    Crew(agents=[agent], tasks=[task]).kickoff()
    for m in llm.last:
        if m.get("role") == "tool":
            print(f"  {m['tool_call_id']}: {str(m['content'])[:110]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("CrewAI's own @tool:")
    p1 = Payments()

    @tool("refund")
    def plain_refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge (amount in cents)."""
        return p1.refund(charge_id, amount, None)

    run_crew(plain_refund)
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
        def refund(
            charge_id: str, amount: int, *, idempotency_key: str
        ) -> dict[str, Any]:
            """Refund part of a charge (amount in cents)."""
            return p2.refund(charge_id, amount, idempotency_key)

        @refund.reconciler
        def find_refund(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
            try:
                found = p2.find(req.key)
            except ConnectionError as e:
                return oncely.Unknown(str(e))
            return oncely.happened(found) if found else oncely.NotHappened()

        # The schema the model sees has charge_id and amount: no key.
        run_crew(oncely_tool(refund, scope="acme"))
        ledger.close()
    print(f"  => the provider paid {len(p2.refunds)} time(s)")
    return 0 if len(p2.refunds) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
