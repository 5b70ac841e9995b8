"""oncely.adapters.strands against the real Strands Agents SDK, driven by a scripted model
(scripted.py, no network): the tool's spec, sync and async tools, identity from the agent's
session (``FileSessionManager``), the core's answers as Strands' error tool results, a model
re-asking after a lost response (story 1), a process killed mid-tool and resumed from its
session (story 2, strands_crash.py), a caller's timeout, and approval through Strands'
interrupts. Each story also runs without oncely, to show what it costs."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
import stories
from compat import record
from payments import REFUND_POLICY, Payments, counted
from scripted import ScriptedModel, Turn, text_of, tool_results, use
from strands import Agent, tool
from strands.hooks import AfterToolCallEvent
from strands.session import FileSessionManager
from strands.types.interrupt import InterruptResponseContent
from strands.types.tools import AgentTool, ToolContext

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.strands import INTERRUPT, OncelyAgentTool, oncely_tool

SESSION = "conversation-7"

# The README's compatibility table (scripts/compat): what the stories below found.
STRANDS: dict[str, str] = {
    "framework": "Strands Agents",
    "package": "strands-agents",
    "run": "the session id (session_manager.session_id)",
}
RESUMED = "SIGKILL, resumed from its FileSessionManager session"


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> OncelyAgentTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme", **kw)


class Exceptions:
    """A hook that keeps what Strands gives ``AfterToolCallEvent`` of each call."""

    def __init__(self) -> None:
        self.seen: list[BaseException | None] = []

    def __call__(self, event: AfterToolCallEvent) -> None:
        self.seen.append(event.exception)


def make_agent(
    tool_: AgentTool, turns: list[Turn], tmp: Path | None, session: str = SESSION, **kw: Any
) -> tuple[Agent, ScriptedModel, Exceptions]:
    """An agent on a scripted model; with ``tmp``, its session persisted there (the run)."""
    model = ScriptedModel(turns)
    manager = None
    if tmp is not None:
        manager = FileSessionManager(session_id=session, storage_dir=str(tmp / "sessions"))
    agent = Agent(model=model, tools=[tool_], session_manager=manager, callback_handler=None, **kw)
    exceptions = Exceptions()
    agent.hooks.add_callback(AfterToolCallEvent, exceptions)
    return agent, model, exceptions


def refund_call(call_id: str, arguments: str | dict[str, Any] | None = None) -> Turn:
    return [use("refund", call_id, arguments or {"charge_id": "ch_1", "amount": 500})]


# --- the spec -------------------------------------------------------------------------------


def test_the_spec_is_the_tool_decorator_spec_without_the_key(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)

    @tool
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return {}

    assert t.tool_name == "refund" and t.tool_type == "function"
    assert t.tool_spec == refund.tool_spec
    assert "idempotency_key" not in t.tool_spec["inputSchema"]["json"]["properties"]

    # Without the adapter, @tool over the bare function asks the model for the key.
    @ledger.tool(policy=REFUND_POLICY)
    def refund2(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return {}

    assert "idempotency_key" in tool(refund2.fn).tool_spec["inputSchema"]["json"]["properties"]
    renamed = oncely_tool(refund2, name="give_back", description="Give money back.")
    assert renamed.tool_spec["name"] == "give_back" and renamed.guard.name == "refund2"
    assert renamed.tool_spec["description"] == "Give money back."


# --- sync and async tools -------------------------------------------------------------------


def test_a_sync_tool_runs_once_per_intent_in_a_session(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    t = refund_tool(ledger, payments)
    agent, model, _ = make_agent(
        t, [refund_call("call_1"), refund_call("call_2"), "Done."], tmp_path
    )
    assert str(agent("refund $5 of ch_1")).strip() == "Done."
    model.assert_complete()
    first, second = tool_results(agent.messages)
    assert first["status"] == second["status"] == "success"
    assert text_of(first) == text_of(second) and '"refund_id": "re_1"' in text_of(first)
    assert len(payments.refunds) == 1


def test_an_async_tool_runs_once_per_intent_and_gets_the_tool_context(
    ledger: oncely.Ledger, tmp_path: Path
) -> None:
    sent: list[tuple[str, str]] = []

    async def send_email(to: str, body: str, tool_context: ToolContext[Any]) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        assert oncely.current_call() is not None
        sent.append((to, tool_context.tool_use["toolUseId"]))
        return f"sent to {to}"

    t = oncely_tool(
        send_email,
        ledger=ledger,
        policy={"class": "irreversible-external", "reconcile": "manual"},
        scope="acme",
        context=True,
    )
    assert set(t.tool_spec["inputSchema"]["json"]["properties"]) == {"to", "body"}
    turns: list[Turn] = [
        [use("send_email", "call_1", {"to": "a@example.com", "body": "hi"})],
        [use("send_email", "call_2", '{"body": "hi",   "to": "a@example.com"}')],
        "Sent.",
    ]
    agent, model, _ = make_agent(t, turns, tmp_path)
    asyncio.run(agent.invoke_async("email a@example.com"))
    model.assert_complete()
    assert [text_of(r) for r in tool_results(agent.messages)] == ["sent to a@example.com"] * 2
    assert sent == [("a@example.com", "call_1")]


def test_a_strands_tool_function_is_wrapped_with_its_name_and_description(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    @tool(name="give_refund", description="Give a refund.")
    async def refund(charge_id: str, amount: int) -> dict[str, Any]:
        call = oncely.current_call()
        assert call is not None
        return payments.refund(charge_id, amount, call.key)

    t = oncely_tool(refund, ledger=ledger, policy=REFUND_POLICY, scope="acme")
    assert t.tool_spec == refund.tool_spec and t.guard.name == "give_refund"
    turns: list[Turn] = [
        [use("give_refund", "call_1", {"charge_id": "ch_1", "amount": 500})],
        [use("give_refund", "call_2", {"amount": 500, "charge_id": "ch_1"})],
        "Done.",
    ]
    agent, _, _ = make_agent(t, turns, tmp_path)
    agent("refund $5 of ch_1")
    assert [r["status"] for r in tool_results(agent.messages)] == ["success", "success"]
    assert len(payments.refunds) == 1 and payments.refunds[0]["idempotency_key"]


# --- identity: the run is the agent's session -------------------------------------------------


def test_the_run_is_the_session_and_a_new_agent_on_it_is_the_same_run(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, audit=records.append)
    agent, _, _ = make_agent(t, [refund_call("call_1"), "Done."], tmp_path)
    agent("refund $5 of ch_1")
    # A new Agent on the same session (another process, a restart): the same run, replayed.
    again, _, _ = make_agent(t, [refund_call("call_9"), "Done."], tmp_path)
    again("refund $5 of ch_1 again")
    # Another session is another run.
    other, _, _ = make_agent(t, [refund_call("call_3"), "Done."], tmp_path, session="c8")
    other("refund $5 of ch_1")
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]
    assert [(r.tool_call_id, r.run, r.step, r.outcome) for r in records] == [
        ("call_1", SESSION, None, "executed"),
        ("call_9", SESSION, None, "replayed"),
        ("call_3", "c8", None, "executed"),
    ]


def test_no_session_is_refused_with_the_core_s_sentence_unless_the_run_is_given(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    # No session manager: the agent's id is its own instance's, not a conversation.
    agent, _, exceptions = make_agent(t, [refund_call("call_1"), "Done."], None)
    agent("refund $5 of ch_1")
    [result] = tool_results(agent.messages)
    assert result["status"] == "error"
    # The core's sentence (agent.identify), the same for every host, as Strands' own error.
    assert "needs a run: give the conversation, thread" in text_of(result)
    [error] = exceptions.seen
    assert isinstance(error, oncely.IdentityError) and isinstance(error, LookupError)
    assert payments.refunds == []
    # The run given: oncely.context, or run= from the invocation state the caller passes.
    with oncely.context(run=SESSION):
        agent, _, _ = make_agent(t, [refund_call("call_2"), "Done."], None)
        agent("refund $5 of ch_1")
    by_state = refund_tool(ledger, payments, run=lambda ctx: ctx.invocation_state["conversation"])
    agent, _, _ = make_agent(by_state, [refund_call("call_3"), "Done."], None)
    agent("refund $5 of ch_1", invocation_state={"conversation": SESSION})
    [given] = tool_results(agent.messages)
    assert '"refund_id": "re_1"' in text_of(given)
    assert len(payments.refunds) == 1


# --- the core's answers reach the model as Strands' error tool results -------------------------


def test_the_core_s_answers_are_strands_error_results(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    turns: list[Turn] = [
        refund_call("call_1", {"charge_id": "ch_9", "amount": 5000}),
        refund_call("call_2"),
        refund_call("call_3", {"charge_id": "ch_1", "amount": 700}),
        "Done.",
    ]
    agent, model, exceptions = make_agent(oncely_tool(refund, scope="acme"), turns, tmp_path)
    agent("refund")
    failed, paid, conflict = tool_results(agent.messages)
    assert failed["status"] == "error"
    assert text_of(failed).startswith("oncely: the tool failed, and did not happen: amount exceeds")
    assert paid["status"] == "success"
    assert conflict["status"] == "error" and text_of(conflict).startswith("oncely: ")
    assert "already ran with different arguments" in text_of(conflict)
    assert "/amount" in text_of(conflict)
    # What the model read next, and what hooks see: the oncely errors themselves.
    said = str(model.seen[1])
    assert "oncely: the tool failed, and did not happen" in said
    assert isinstance(exceptions.seen[0], oncely.OncelyError) and exceptions.seen[1] is None
    assert len(payments.refunds) == 1


def test_a_storage_error_is_raised_as_any_tool_s_not_answered(
    tmp_path: Path, payments: Payments
) -> None:
    broken = oncely.Ledger.sqlite(tmp_path / "other.db")
    t = refund_tool(broken, payments)
    with sqlite3.connect(tmp_path / "other.db") as db:  # the ledger's table is gone
        db.execute("ALTER TABLE oncely_effects RENAME TO gone")
    agent, _, exceptions = make_agent(t, [refund_call("call_1"), "Done."], tmp_path)
    agent("refund $5 of ch_1")
    [result] = tool_results(agent.messages)
    assert result["status"] == "error" and text_of(result).startswith("Error: ")
    assert "oncely: " not in text_of(result)
    [error] = exceptions.seen
    assert isinstance(error, oncely.StorageError), repr(error)
    assert payments.refunds == []
    broken.close()


# --- story 1: the model re-asks after a lost response ------------------------------------------


def reask(t: AgentTool, payments: Payments, tmp: Path) -> list[dict[str, Any]]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    turns: list[Turn] = [
        refund_call("call_1"),
        # A new toolUseId, the arguments in another order, 500 spelled 5e2, extra whitespace.
        refund_call("call_2", '{  "amount" :5e2,\n  "charge_id":   "ch_1" }'),
        "Refunded.",
    ]
    agent, model, _ = make_agent(t, turns, tmp)
    assert str(agent("refund $5 of ch_1")).strip() == "Refunded."
    model.assert_complete()
    return tool_results(agent.messages)


def test_story_1_a_model_re_asking_after_a_lost_response_pays_once(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    records: list[CallRecord] = []
    first, second = reask(refund_tool(ledger, payments, audit=records.append), payments, tmp_path)
    counted(f"strands re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)")
    record(**STRANDS, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    assert first["status"] == "error"
    text = text_of(first)
    assert text.startswith("oncely: the outcome of this call is unknown")
    assert "will not be run again" in text and "safe" not in text.lower()
    assert second["status"] == "success" and '"refund_id": "re_1"' in text_of(second)
    # The toolUseIds are recorded, not keyed: one key, two calls.
    assert [(r.tool_call_id, r.outcome, r.run, r.step) for r in records] == [
        ("call_1", "InDoubtError", SESSION, None),
        ("call_2", "reconciled", SESSION, None),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_story_1_keyed_by_the_tool_use_id_the_re_ask_pays_twice(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    reask(refund_tool(ledger, payments, step=lambda ctx, call_id: call_id), payments, tmp_path)
    counted(f"strands re-ask, step = toolUseId: the provider paid {len(payments.refunds)} time(s)")
    assert len(payments.refunds) == 2


def test_story_1_without_oncely_the_re_ask_pays_twice(payments: Payments, tmp_path: Path) -> None:
    @tool
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, None)

    first, _ = reask(refund, payments, tmp_path)
    counted(f"strands re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**STRANDS, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2
    assert text_of(first) == "Error: TimeoutError - read timed out"  # nothing says it was paid


# --- story 2: killed inside the tool, resumed from the session ----------------------------------


def killed_and_resumed(work: Path, *flags: str) -> str:
    return stories.killed_and_resumed(Path(__file__).with_name("strands_crash.py"), work, *flags)


def test_story_2_an_agent_killed_mid_tool_and_resumed_from_its_session_pays_once(
    tmp_path: Path,
) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"strands killed mid-tool and resumed, oncely adapter: paid {len(refunds)} time(s)")
    record(**STRANDS, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out and "last message: Refunded." in out
    # The resumed agent ran the same tool use again and got the first refund back.
    assert 'tool result call_1 success: {"refund_id": "re_1"' in out
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_story_2_without_oncely_the_resumed_agent_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"strands killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**STRANDS, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- a caller's timeout: the claimed call runs to its record -----------------------------------


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_caller_s_timeout_leaves_the_claimed_call_running_and_the_re_ask_gets_its_result(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path, kind: str
) -> None:
    """``asyncio.wait_for`` around ``invoke_async`` cancels the agent while the tool is at the
    provider: the claimed call is not cancelled (an async tool is shielded by the ledger, a sync
    one goes on in its worker thread), runs to its result and is recorded; the re-ask gets it."""
    records: list[CallRecord] = []
    cancelled: list[str] = []
    release = threading.Event()  # the provider answers after the caller's timeout

    @ledger.tool(policy=REFUND_POLICY)
    async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        try:
            while not release.is_set():
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            cancelled.append(idempotency_key)
            raise
        return payments.refund(charge_id, amount, idempotency_key)

    @ledger.tool("refund", policy=REFUND_POLICY)
    def sync_refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        release.wait(30)
        return payments.refund(charge_id, amount, idempotency_key)

    async def main() -> Agent:
        turns: list[Turn] = [
            refund_call("call_1"),
            refund_call("call_2", '{"amount": 5e2, "charge_id": "ch_1"}'),
            "Refunded.",
        ]
        guarded = refund if kind == "async" else sync_refund
        t = oncely_tool(guarded, scope="acme", audit=records.append)
        agent, _, _ = make_agent(t, turns, tmp_path)
        # asyncio.TimeoutError: TimeoutError itself from Python 3.11 on, its own class on 3.10.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(agent.invoke_async("refund $5 of ch_1"), 1.0)
        release.set()  # the provider answers now: the claimed call records it
        for _ in range(250):
            if ledger.list("acme", state=oncely.EntryState.DONE):
                break
            await asyncio.sleep(0.02)
        await agent.invoke_async("did the refund go through?")
        return agent

    agent = asyncio.run(main())
    paid = len(payments.refunds)
    counted(f"strands caller timeout, {kind} tool: the provider paid {paid} time(s)")
    assert cancelled == []
    assert len(payments.refunds) == 1
    # Strands answers the cut-off call itself ("Tool was interrupted."); the re-ask (a new
    # toolUseId, respelled arguments) gets the refund the claimed call recorded.
    interrupted, second = tool_results(agent.messages)
    assert interrupted["toolUseId"] == "call_1" and interrupted["status"] == "error"
    assert second["status"] == "success" and '"refund_id": "re_1"' in text_of(second)
    # The audit: a sync call's worker thread records its own end; a cancelled await does not.
    ran = [("call_1", "executed")] if kind == "sync" else []
    assert [(r.tool_call_id, r.outcome) for r in records] == [*ran, ("call_2", "replayed")]


# --- approval: Strands' interrupt is the ledger's one request, one decision --------------------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def approval_tool(ledger: oncely.Ledger, payments: Payments) -> OncelyAgentTool:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme")


def asking(t: AgentTool, charge: str, amount: int, call_id: str, tmp: Path) -> tuple[Agent, Any]:
    """An agent whose model asks for one refund, then ends; and its first result."""
    turns: list[Turn] = [refund_call(call_id, {"charge_id": charge, "amount": amount}), "Done."]
    agent, _, _ = make_agent(t, turns, tmp)
    return agent, agent(f"refund {charge}")


def answer(agent: Agent, result: Any, response: Any) -> Any:
    [interrupt] = result.interrupts
    assert interrupt.name == INTERRUPT
    reply: InterruptResponseContent = {
        "interruptResponse": {"interruptId": interrupt.id, "response": response}
    }
    return agent([reply])


def test_approved_through_the_interrupt_the_refund_is_paid_once_and_the_ledger_says_who(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    t = approval_tool(ledger, payments)
    agent, result = asking(t, "ch_1", 500, "call_1", tmp_path)
    # The agent stops with Strands' interrupt; the ledger holds the one request (the inbox
    # lists it); nothing is paid.
    assert result.stop_reason == "interrupt"
    [interrupt] = result.interrupts
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    assert interrupt.reason["key"] == asked.key and interrupt.reason["oncely"] == "approval"
    assert asked.args_canonical == '{"amount":500,"charge_id":"ch_1"}' and payments.refunds == []
    resumed = answer(agent, result, {"type": "approve", "by": "alice", "message": "verified"})
    assert str(resumed).strip() == "Done." and len(payments.refunds) == 1
    entry = ledger.get("acme", asked.key)
    assert entry is not None and entry.state.value == "done"
    assert [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)][:2] == [
        ("awaiting-approval", None),
        ("approved", "alice"),
    ]
    # The same refund asked again in the session: replayed, nobody asked.
    again, result = asking(t, "ch_1", 500, "call_9", tmp_path)
    assert result.stop_reason != "interrupt" and len(payments.refunds) == 1
    assert '"refund_id": "re_1"' in text_of(tool_results(again.messages)[-1])
    # A small amount needs nobody.
    _, small = asking(t, "ch_2", 50, "call_3", tmp_path)
    assert small.stop_reason != "interrupt" and len(payments.refunds) == 2


def test_rejected_through_the_interrupt_the_model_reads_the_denial_and_is_never_asked_again(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    t = approval_tool(ledger, payments)
    _, result = asking(t, "ch_7", 700, "call_1", tmp_path)
    # Answered from another process: a new Agent on the session (Strands persists the interrupt).
    agent, _, _ = make_agent(t, ["Done."], tmp_path)
    answer(agent, result, {"type": "reject", "by": "bob", "message": "over the monthly limit"})
    said = text_of(tool_results(agent.messages)[-1])
    assert said.startswith("oncely: ") and "denied" in said and "over the monthly limit" in said
    [entry] = ledger.list("acme")
    assert ("denied", "bob") in [
        (h.state.value, h.resolved_by) for h in ledger.history("acme", entry.key)
    ]
    # Asked again in the session: the ledger's denial, no second question, nothing paid.
    again, result = asking(t, "ch_7", 700, "call_2", tmp_path)
    assert result.stop_reason != "interrupt"
    assert "over the monthly limit" in text_of(tool_results(again.messages)[-1])
    assert payments.refunds == []


def test_a_decision_made_in_the_inbox_stands_over_the_interrupt_s_answer(
    ledger: oncely.Ledger, payments: Payments, tmp_path: Path
) -> None:
    t = approval_tool(ledger, payments)
    agent, result = asking(t, "ch_3", 300, "call_1", tmp_path)
    assert result.stop_reason == "interrupt"
    # While the agent waits, a person approves the ledger's request in the inbox.
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    ledger.approve("acme", asked.key, by="carol", version=asked.version, note="ok")
    # The interrupt answered later, otherwise: the first decision recorded stands.
    resumed = answer(agent, result, {"type": "reject", "by": "dave", "message": "no"})
    assert str(resumed).strip() == "Done." and len(payments.refunds) == 1
    history = [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)]
    assert ("approved", "carol") in history and "dave" not in str(history)
    assert '"refund_id": "re_1"' in text_of(tool_results(agent.messages)[-1])
