"""A Pydantic AI agent whose process is killed inside the refund tool, after the provider paid,
and a second process that resumes the conversation from its saved messages.

    python pydantic_ai_crash.py first|resume WORKDIR [--naive]

``first``: the scripted model asks for a refund; the run saves its messages after every step
(``agent.iter``, ``ModelMessagesTypeAdapter`` to ``messages.json``: Pydantic AI's own form of a
conversation, carrying its ``conversation_id``), the tool pays and the process is killed
(SIGKILL: no cleanup, the ledger's claim stays pending). ``resume``: a new process runs the agent
again with the saved ``message_history`` (no ``conversation_id`` given: the messages carry it).
Their last message is the model's tool call with no result, and Pydantic AI runs that call again
(the same tool-call id, the same conversation). Prints the provider's refunds. ``--naive``: the
same agent with a plain tool.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from payments import REFUND_POLICY, Payments, register_lookup
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import oncely
from oncely.adapters.pydantic_ai import oncely_tool


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")
    saved = work / "messages.json"

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the answer is never recorded
        return refund

    tool: Tool[Any]
    if naive:

        def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, None)

        tool = Tool(refund)
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

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        answered = any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
        if answered:
            return ModelResponse(parts=[TextPart("Refunded.")])
        call = {"charge_id": "ch_1", "amount": 500}
        return ModelResponse(parts=[ToolCallPart("refund", call, tool_call_id="call_1")])

    agent = Agent(FunctionModel(model), tools=[tool])

    async def first() -> None:
        async with agent.iter("refund $5 of ch_1", conversation_id="conversation-7") as run:
            async for _ in run:
                saved.write_bytes(ModelMessagesTypeAdapter.dump_json(run.all_messages()))

    if mode == "first":
        asyncio.run(first())
        return 3  # not reached: killed in the tool
    history = ModelMessagesTypeAdapter.validate_json(saved.read_bytes())
    result = agent.run_sync(None, message_history=history)
    print("conversation:", result.conversation_id)
    print("last message:", result.output)
    for m in result.new_messages():
        for p in m.parts:
            if isinstance(p, ToolReturnPart):
                print("tool result:", p.tool_call_id, p.model_response_str())
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
