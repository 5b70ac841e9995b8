"""A CrewAI Flow (state kept by ``@persist`` in SQLite) whose process is killed inside the refund
tool, after the provider paid, and a second process that resumes the same flow from its
persisted state.

    python crewai_crash.py first|resume WORKDIR [--naive]

``first``: the flow takes the request (persisted), then its crew's scripted model asks for a
refund; the tool pays and the process is killed (SIGKILL: no cleanup, the ledger's claim stays
pending). ``resume``: a new process kicks the flow off again with the persisted state's id
(``kickoff(inputs={"id": ...})``, CrewAI's resumption): the refund step, never completed, runs
again, and its agent asks for the refund again (a new tool-call id). Prints the provider's
refunds. ``--naive``: the same flow with CrewAI's own ``@tool``.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")  # no network
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import Agent, Crew, Task
from crewai.flow.flow import Flow, FlowState, listen, start
from crewai.flow.persistence import SQLiteFlowPersistence, persist
from crewai.tools import BaseTool, tool
from payments import REFUND_POLICY, Payments, register_lookup
from scripted import ScriptedLLM, tool_call

import oncely
from oncely.adapters.crewai import oncely_tool


class RefundState(FlowState):
    request: str = ""


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the answer is never recorded
        return refund

    refund_tool: BaseTool
    if naive:

        @tool("refund")
        def plain_refund(charge_id: str, amount: int) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, None)

        refund_tool = plain_refund
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the resumed run finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return pay(charge_id, amount, idempotency_key)

        refund_tool = oncely_tool(refund, scope="acme")

    call_id = "call_1" if mode == "first" else "call_2"  # the model asks again: a new id
    llm = ScriptedLLM([[tool_call(call_id, "refund", charge_id="ch_1", amount=500)], "Refunded."])

    @persist(SQLiteFlowPersistence(str(work / "flows.db")))
    class RefundFlow(Flow[RefundState]):
        @start()
        def take_request(self) -> None:
            if not self.state.request:
                self.state.request = "refund $5 of ch_1"
                (work / "flow_id").write_text(self.state.id)

        @listen(take_request)
        def refund(self) -> str:
            agent = Agent(
                role="support", goal="refunds", backstory="-", llm=llm, tools=[refund_tool]
            )
            task = Task(description=self.state.request, expected_output="the refund", agent=agent)
            return str(Crew(agents=[agent], tasks=[task]).kickoff().raw)

    if mode == "first":
        RefundFlow().kickoff()
        return 3  # not reached: killed in the tool
    flow = RefundFlow()
    out = flow.kickoff(inputs={"id": (work / "flow_id").read_text()})
    print("flow:", flow.state.id)
    print("last message:", out)
    for text in llm.tool_messages():
        print("tool message:", text)
    print("refunds:", len(payments.refunds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
