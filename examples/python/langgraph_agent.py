"""A LangGraph agent with a refund tool, a scripted model (LangChain's fake chat model, no
network) and a payment provider whose first answer times out.

The model calls ``refund``, reads the error, and — as models do — asks again with a NEW
tool-call id, the arguments in another order and 500 written as 5e2. Run twice:

1. with a plain LangChain tool: the provider pays twice;
2. with the same function through ``oncely.adapters.langchain.oncely_tool``: the first call is
   recorded as "outcome unknown", the re-ask (same thread, same intent) finds the refund by
   looking it up and returns it. Paid ONCE.

    pip install './bindings/python[langgraph]'
    python examples/python/langgraph_agent.py [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

import oncely
from oncely.adapters.langchain import oncely_tool


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
    def call(id_: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool_call", "id": id_, "name": "refund", "args": args}

    model = FakeMessagesListChatModel(
        responses=[
            AIMessage("", tool_calls=[call("call_1", {"charge_id": "ch_1", "amount": 500})]),
            AIMessage("", tool_calls=[call("call_2", {"amount": 5e2, "charge_id": "ch_1"})]),
            AIMessage("Refunded."),
        ]
    )

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([tool], handle_tool_errors=True))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    graph = g.compile(checkpointer=InMemorySaver())
    # The thread id is the run: a resumed or re-asked call in this thread is the same intent.
    out = graph.invoke(
        {"messages": [("user", "refund $5 of ch_1")]},
        {"configurable": {"thread_id": "conversation-7"}},
    )
    for m in out["messages"]:
        if m.type == "tool":
            text = str(m.content).replace("\n", " ")
            print(f"  {m.tool_call_id}: {text[:110]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("plain LangChain tool:")
    p1 = Payments()

    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge (amount in cents)."""
        return p1.refund(charge_id, amount, None)

    run_agent(StructuredTool.from_function(refund))
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
