"""A LlamaIndex agent whose process is killed inside the refund tool, after the provider paid,
and a second process that resumes the run from the workflow's serialized ``Context``.

    python llama_index_crash.py first|resume WORKDIR [--naive]

``first``: the scripted model asks for a refund; while the agent's ``ToolCall`` is in flight the
handler saves ``ctx.to_dict(serializer=PickleSerializer())`` to WORKDIR/context.json
(LlamaIndex's own persistence of a run; pickled, so that the memory comes along: a
``ChatMemoryBuffer`` whose ``chat_store_key`` is the conversation, the adapter's run); the tool
waits for that file, pays, and the process is killed (SIGKILL: no cleanup, the ledger's claim
stays pending). ``resume``: a new process restores the run with ``Context.from_dict`` and runs it
(``agent.run(ctx=...)``), which runs the in-flight tool call again. Prints the provider's
refunds. ``--naive``: a plain ``FunctionTool``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent, ToolCall, ToolCallResult
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.tools import BaseTool, FunctionTool
from llama_index.core.workflow import Context
from payments import REFUND_POLICY, Payments, register_lookup
from scripted import Script, call, say
from workflows.context.serializers import PickleSerializer

import oncely
from oncely.adapters.llama_index import oncely_tool

SESSION = "conversation-7"


async def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")
    saved = work / "context.json"

    async def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        if mode == "first":
            while not saved.exists():  # the run's context is saved with this call in flight
                await asyncio.sleep(0.01)
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the answer is never recorded
        return refund

    tool: BaseTool
    if naive:

        async def refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge."""
            return await pay(charge_id, amount, None)

        tool = FunctionTool.from_defaults(refund)
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the resumed run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return await pay(charge_id, amount, idempotency_key)

        tool = oncely_tool(refund, scope="acme")

    replies = [say("Refunded.")]
    if mode == "first":
        replies.insert(0, call("call_1", {"charge_id": "ch_1", "amount": 500}))
    agent = FunctionAgent(tools=[tool], llm=Script(*replies).llm())
    memory = ChatMemoryBuffer.from_defaults(chat_store_key=SESSION)

    if mode == "first":
        ctx = Context(agent)
        handler = agent.run(user_msg="refund $5 of ch_1", ctx=ctx, memory=memory)
        async for ev in handler.stream_events():
            if isinstance(ev, ToolCall) and not isinstance(ev, ToolCallResult):
                # Saved as the run stands with the tool call in flight, once the step that
                # asked for it has finished (a step saved mid-way runs again on resume).
                while True:
                    state = ctx.to_dict(serializer=PickleSerializer())
                    busy = [n for n, w in state["workers"].items() if w["in_progress"]]
                    if busy == ["call_tool"]:
                        break
                    await asyncio.sleep(0.01)
                saved.write_text(json.dumps(state))
        return 3  # not reached: killed in the tool
    ctx = Context.from_dict(agent, json.loads(saved.read_text()), serializer=PickleSerializer())
    handler = agent.run(ctx=ctx)
    tool_outputs = [
        str(ev.tool_output.content)
        async for ev in handler.stream_events()
        if isinstance(ev, ToolCallResult)
    ]
    out = await handler
    print("last message:", out.response.content)
    for content in tool_outputs:
        print("tool message:", content)
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
