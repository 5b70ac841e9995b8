"""oncely.adapters.crewai against the real CrewAI: the tool's schema, sync and async tools,
identity from the crew and the flow, the core's answers as CrewAI's ToolFailure, a scripted
model (a ``crewai.BaseLLM``) that re-asks after a lost response, a caller's timeout, and a flow
killed mid-tool and resumed from its ``@persist`` state (each shown failing the naive way)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import stories
from compat import record
from crewai import Agent, Crew, Task
from crewai.flow.flow import Flow, start
from crewai.tools import BaseTool, tool
from crewai.tools.tool_failure import ToolFailure
from payments import REFUND_POLICY, Payments, counted
from scripted import ScriptedLLM, raw_call, tool_call

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.crewai import CrewCall, OncelyTool, oncely_tool

HERE = Path(__file__).resolve().parent


# The README's compatibility table (scripts/compat): what the stories below found.
CREWAI: dict[str, str] = {
    "framework": "CrewAI",
    "package": "crewai",
    "run": "the outermost Flow's state.id, else the Crew's id",
}
RESUMED = "SIGKILL, the Flow resumed from @persist (SQLite)"


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> OncelyTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme", **kw)


def crew_of(tool_: BaseTool, llm: ScriptedLLM, **agent_kw: Any) -> Crew:
    agent = Agent(role="support", goal="refunds", backstory="-", llm=llm, tools=[tool_], **agent_kw)
    task = Task(description="refund $5 of ch_1", expected_output="the refund", agent=agent)
    return Crew(agents=[agent], tasks=[task])


def once(*calls: dict[str, Any]) -> ScriptedLLM:
    """A model that makes each of ``calls`` in its own turn, then says it is done."""
    return ScriptedLLM([*[[c] for c in calls], "Refunded."])


# --- the schema: the model never sees the key ---------------------------------------------------


def test_the_schema_the_model_sees_has_no_key_parameter(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    assert set(t.args_schema.model_json_schema()["properties"]) == {"charge_id", "amount"}
    llm = once(tool_call("call_1", "refund", charge_id="ch_1", amount=500))
    crew_of(t, llm).kickoff()
    [sent] = llm.tools
    assert sent["function"]["name"] == "refund"
    assert set(sent["function"]["parameters"]["properties"]) == {"charge_id", "amount"}
    renamed = refund_tool(ledger, payments, name="refund_charge")
    assert (renamed.name, renamed.guard.name) == ("refund_charge", "refund")  # ledger: its own
    # Without the adapter: CrewAI's own @tool over a function taking the key asks the model for it.

    @tool("refund")
    def plain(charge_id: str, amount: int, idempotency_key: str) -> str:
        """Refund part of a charge."""
        return "ok"

    assert "idempotency_key" in plain.args_schema.model_json_schema()["properties"]


def test_a_plain_function_without_a_key_parameter_reads_the_current_call(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        now = oncely.current_call()
        assert now is not None
        return payments.refund(charge_id, amount, now.key)

    t = oncely_tool(refund, ledger=ledger, policy=REFUND_POLICY, scope="acme")
    assert set(t.args_schema.model_json_schema()["properties"]) == {"charge_id", "amount"}
    llm = once(
        tool_call("call_1", "refund", charge_id="ch_1", amount=500),
        tool_call("call_2", "refund", charge_id="ch_1", amount=500),
    )
    crew_of(t, llm).kickoff()
    [paid] = payments.refunds
    assert paid["idempotency_key"].startswith("oncely1:")


# --- sync and async tools -----------------------------------------------------------------------


def test_sync_and_async_tools_run_the_effect_once_per_crew(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    sent: list[str] = []

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "manual"})
    async def send_email(to: str, body: str, *, idempotency_key: str) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        sent.append(to)
        return f"sent to {to}"

    mail = oncely_tool(send_email, scope="acme")
    llm = ScriptedLLM(
        [
            [tool_call("call_1", "send_email", to="a@example.com", body="hi")],
            [tool_call("call_2", "send_email", body="hi", to="a@example.com")],
            "Sent.",
        ]
    )
    crew_of(mail, llm).kickoff()
    assert sent == ["a@example.com"]
    assert llm.tool_messages() == ["sent to a@example.com", "sent to a@example.com"]

    refund = refund_tool(ledger, payments)
    llm = once(
        tool_call("call_1", "refund", charge_id="ch_1", amount=500),
        tool_call("call_2", "refund", amount=500, charge_id="ch_1"),
    )
    crew = crew_of(refund, llm)
    asyncio.run(crew.akickoff())  # CrewAI's native async kickoff
    assert len(payments.refunds) == 1
    assert [json.loads(m.replace("'", '"'))["refund_id"] for m in llm.tool_messages()] == [
        "re_1",
        "re_1",
    ]

    # The tool's own run/arun (what CrewAI calls) outside a crew, with the run given.
    with oncely.context(run="conversation-7"):
        assert mail.run(to="b@example.com", body="hi") == "sent to b@example.com"
        assert asyncio.run(mail.arun(body="hi", to="b@example.com")) == "sent to b@example.com"
        assert refund.run(charge_id="ch_2", amount=100)["refund_id"] == "re_2"
        assert asyncio.run(refund.arun(charge_id="ch_2", amount=100))["refund_id"] == "re_2"

        async def in_a_loop() -> Any:  # run() from code on a running loop
            return mail.run(to="c@example.com", body="hi")

        assert asyncio.run(in_a_loop()) == "sent to c@example.com"
    assert sent == ["a@example.com", "b@example.com", "c@example.com"]
    assert len(payments.refunds) == 2


# --- identity -----------------------------------------------------------------------------------


def test_run_is_the_crew_and_inside_a_flow_the_flow(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, audit=records.append)

    def ask() -> ScriptedLLM:
        return once(tool_call("call_1", "refund", charge_id="ch_1", amount=500))

    crew = crew_of(t, ask())
    crew.kickoff()
    assert records[-1].run == str(crew.id) and records[-1].step is None
    assert records[-1].tool_call_id is None  # CrewAI gives a tool no call id: never keyed
    crew.agents[0].llm = ask()
    crew.kickoff()  # the same crew again (a retried kickoff): the same run, replayed
    assert records[-1].outcome == "replayed" and len(payments.refunds) == 1
    crew_of(t, ask()).kickoff()  # another crew: its own run, its own effect
    assert len(payments.refunds) == 2

    seen: list[CrewCall] = []

    class RefundFlow(Flow[Any]):
        @start()
        def refund(self) -> str:
            # A new Crew every time the flow runs this step: the flow is the run.
            return str(crew_of(t, ask()).kickoff().raw)

    flow = RefundFlow()
    flow.kickoff()
    assert records[-1].run == flow.state["id"] and len(payments.refunds) == 3
    again = RefundFlow()
    again.kickoff(inputs={"id": flow.state["id"]})
    assert records[-1].outcome == "replayed" and len(payments.refunds) == 3

    # A run given here or in oncely.context wins.
    fixed = refund_tool(ledger, payments, run=lambda c: seen.append(c) or "conversation-7")
    crew_of(fixed, ask()).kickoff()
    crew_of(fixed, ask()).kickoff()
    assert len(payments.refunds) == 4 and seen[0].crew_id and seen[0].task_id
    with oncely.context(run="conversation-7"):
        crew_of(t, ask()).kickoff()
    assert len(payments.refunds) == 4


def test_no_run_is_refused_with_the_cores_sentence(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    # Outside a crew or a flow nothing names a run (an agent's own executor never does).
    with pytest.raises(oncely.IdentityError, match="needs a run: give the conversation, thread"):
        t.run(charge_id="ch_1", amount=500)
    llm = once(tool_call("call_1", "refund", charge_id="ch_1", amount=500))
    Agent(role="support", goal="refunds", backstory="-", llm=llm, tools=[t]).kickoff("refund")
    assert "needs a run" in llm.tool_messages()[0]  # CrewAI's own error text, to the model
    assert payments.refunds == []


# --- the core's answers: CrewAI's ToolFailure ----------------------------------------------------


def test_the_ledgers_answers_reach_the_model_as_tool_failures(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    llm = once(
        tool_call("call_1", "refund", charge_id="ch_9", amount=5000),
        tool_call("call_2", "refund", charge_id="ch_1", amount=500),
        tool_call("call_3", "refund", charge_id="ch_1", amount=700),
    )
    out = crew_of(oncely_tool(refund, scope="acme"), llm).kickoff()
    refused, paid, conflict = llm.tool_messages()
    assert refused.startswith("oncely: the tool failed, and did not happen")
    assert "re_1" in paid
    assert conflict.startswith("oncely:") and "already ran with different arguments" in conflict
    assert "/amount" in conflict
    assert len(payments.refunds) == 1
    # CrewAI knows these calls failed (its ToolFailure, on the task's output).
    failures = out.tasks_output[0].tool_failures
    assert [f.failure.details["oncely"] for f in failures] == ["tool-failed", "conflict"]
    assert all(f.failure.message.startswith("oncely: ") for f in failures)


def test_an_unknown_outcome_is_not_a_safe_retry_and_is_not_cached(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    payments.lose_responses, payments.outage = 1, 1
    t = refund_tool(ledger, payments)
    with oncely.context(run="conversation-7"):
        failure = t.run(charge_id="ch_1", amount=500)
    assert isinstance(failure, ToolFailure)
    assert failure.as_agent_message().startswith("oncely: the outcome of this call is unknown")
    assert "try again" not in failure.message
    assert failure.details["oncely"] == "in-doubt"
    assert t.cache_function({}, failure) is False and t.cache_function({}, {"ok": 1}) is True
    # Storage errors are not the model's: raised (CrewAI's agent decides what the model reads).
    with sqlite3.connect(tmp_path / "ledger.db") as db:
        for (table,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
        ).fetchall():
            db.execute(f'DROP TABLE "{table}"')
    with pytest.raises(Exception) as raised, oncely.context(run="conversation-7"):
        t.run(charge_id="ch_2", amount=100)
    assert not isinstance(raised.value, LookupError), raised.value
    assert len(payments.refunds) == 1


# --- story 1: the model re-asks after a lost response --------------------------------------------


def reask(tool_: BaseTool, payments: Payments) -> list[str]:
    """The first refund is paid and its answer lost, and the provider cannot be asked right
    away; the model re-asks with a NEW call id, the arguments in another order, 500 spelled
    500.0 and other whitespace."""
    payments.lose_responses, payments.outage = 1, 1
    llm = once(
        tool_call("call_1", "refund", charge_id="ch_1", amount=500),
        raw_call("call_2", "refund", '{ "amount" : 500.0 ,\n  "charge_id":"ch_1" }'),
    )
    crew_of(tool_, llm).kickoff()
    return llm.tool_messages()


def test_story_1_a_model_re_asking_after_a_lost_response_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    first, second = reask(refund_tool(ledger, payments, audit=records.append), payments)
    counted(f"crewai re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)")
    record(**CREWAI, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    assert first.startswith("oncely: the outcome of this call is unknown")
    assert "'refund_id': 're_1'" in second
    assert [r.outcome for r in records] == ["InDoubtError", "reconciled"]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_story_1_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    @tool("refund")
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, None)

    first, second = reask(refund, payments)
    counted(f"crewai re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**CREWAI, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2
    assert "read timed out" in first and "'refund_id': 're_2'" in second


# --- a caller's timeout --------------------------------------------------------------------------


def test_an_agents_timeout_leaves_the_claimed_call_running_and_the_crew_asked_again_gets_it(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    """The agent's ``max_execution_time`` gives up while the tool is at the provider (under
    CrewAI's async kickoff: ``asyncio.wait_for`` cancels the task). The claimed call is not
    stopped: it runs to its result, recorded; the same crew kicked off again gets that result
    without paying again."""

    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        time.sleep(2)  # the provider answers after the agent's time is up
        return payments.refund(charge_id, amount, idempotency_key)

    llm = ScriptedLLM(
        [[tool_call(f"call_{n}", "refund", charge_id="ch_1", amount=500)] for n in range(1, 4)]
    )
    crew = crew_of(oncely_tool(refund, scope="acme"), llm, max_execution_time=1, max_retry_limit=0)
    with pytest.raises(Exception, match="timed out"):
        asyncio.run(crew.akickoff())
    deadline = time.monotonic() + 10
    while not payments.refunds and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)
    [paid] = payments.refunds
    entry = ledger.get("acme", paid["idempotency_key"])
    assert entry is not None and entry.state == oncely.EntryState.DONE
    crew.agents[0].max_execution_time = None
    llm2 = once(tool_call("call_9", "refund", amount=500, charge_id="ch_1"))
    crew.agents[0].llm = llm2
    crew.kickoff()  # the same crew: the same run
    counted(
        f"crewai agent timeout, then asked again: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 1
    assert "'refund_id': 're_1'" in llm2.tool_messages()[0]


# --- story 2: a flow killed mid-tool, resumed from its @persist state ---------------------------


def killed_and_resumed(work: Path, *flags: str) -> str:
    return stories.killed_and_resumed(Path(__file__).with_name("crewai_crash.py"), work, *flags)


def test_story_2_a_flow_killed_mid_tool_and_resumed_pays_once(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"crewai flow killed mid-tool and resumed, oncely adapter: paid {len(refunds)} time(s)")
    record(**CREWAI, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out and "last message: Refunded." in out
    assert "'refund_id': 're_1'" in out  # the resumed call got the first refund back
    assert f"flow: {(tmp_path / 'flow_id').read_text()}" in out  # resumed: the same flow
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_story_2_without_oncely_the_resumed_flow_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"crewai flow killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**CREWAI, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- the example ---------------------------------------------------------------------------------


def test_the_example(repo: Path, tmp_path: Path) -> None:
    script = repo / "examples" / "python" / "crewai_agent.py"
    p = subprocess.run(
        [sys.executable, str(script), "--db", str(tmp_path / "ledger.db")],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    paid = [int(n) for n in __import__("re").findall(r"the provider paid (\d+) time", p.stdout)]
    assert paid == [2, 1], p.stdout
    counted(f"crewai_agent.py: paid {paid[0]}x without oncely, {paid[1]}x with")


# --- approval: CrewAI has no tool-call confirmation; the call meets the ledger's request --------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def test_a_gated_call_reads_awaiting_approval_and_runs_once_when_approved_in_the_ledger(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    t = oncely_tool(refund, scope="acme")

    def ask(charge: str) -> ScriptedLLM:
        return once(tool_call("call_1", "refund", charge_id=charge, amount=500))

    crew = crew_of(t, llm := ask("ch_1"))
    crew.kickoff()
    [waiting] = llm.tool_messages()
    assert waiting.startswith("oncely:") and "approv" in waiting, waiting
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    assert payments.refunds == []
    ledger.approve("acme", asked.key, by="alice", version=asked.version)  # the inbox, say
    crew.agents[0].llm = llm = ask("ch_1")
    crew.kickoff()  # the same crew asks again: approved, it runs once
    assert len(payments.refunds) == 1 and "'refund_id': 're_1'" in llm.tool_messages()[0]

    denied = crew_of(t, ask("ch_7"))
    denied.kickoff()
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    ledger.deny("acme", asked.key, by="bob", version=asked.version, note="over the limit")
    denied.agents[0].llm = llm = ask("ch_7")
    denied.kickoff()
    [said] = llm.tool_messages()
    assert said.startswith("oncely:") and "over the limit" in said
    assert len(payments.refunds) == 1
