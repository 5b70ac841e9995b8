"""A LangGraph agent whose process is killed inside the refund tool, after the provider paid,
and a second process that resumes the thread from its SQLite checkpoint.

    python langgraph_crash.py first|resume WORKDIR [--naive]

``first``: the scripted model asks for a refund; the tool pays and the process is killed
(SIGKILL: no cleanup, the ledger's claim stays pending). ``resume``: a new process resumes the
same thread from the checkpoint (``graph.invoke(None, config)``), which runs the tool call
again. Prints the provider's refunds. ``--naive``: the same graph with a plain tool.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from payments import REFUND_POLICY, Payments, register_lookup

import oncely
from oncely.adapters.langchain import oncely_tool

CONFIG = {"configurable": {"thread_id": "conversation-7"}}


def main() -> int:
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

        tool = StructuredTool.from_function(refund)
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the resumed run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, idempotency_key)

        tool = oncely_tool(refund, scope="acme")

    call = {"type": "tool_call", "id": "call_1", "name": "refund"}
    responses = [AIMessage("Refunded.")]
    if mode == "first":
        responses.insert(
            0, AIMessage("", tool_calls=[{**call, "args": {"charge_id": "ch_1", "amount": 500}}])
        )
    model = FakeMessagesListChatModel(responses=responses)

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([tool]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    conn = sqlite3.connect(work / "checkpoints.db", check_same_thread=False)
    graph = g.compile(checkpointer=SqliteSaver(conn))

    if mode == "first":
        graph.invoke({"messages": [("user", "refund $5 of ch_1")]}, CONFIG, durability="sync")
        return 3  # not reached: killed in the tool
    out = graph.invoke(None, CONFIG, durability="sync")
    print("last message:", out["messages"][-1].content)
    for m in out["messages"]:
        if m.type == "tool":
            print("tool message:", m.content)
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
