"""oncely.adapters.google_adk against the real Google ADK: the declaration the model sees, sync
and async tools through ADK's ``FunctionTool.run_async``, identity from the ADK session, the
core's answers as ADK's tool-error response, a scripted model re-asking after a lost response,
a caller's timeout, ADK's tool confirmation, and a process killed mid-tool and resumed from
ADK's SQLite session service."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import stories
from adk_script import ScriptedLlm, call, final_text, responses, run_turn, say
from compat import record
from google.adk.agents import LlmAgent, RunConfig
from google.adk.agents.invocation_context import InvocationContext
from google.adk.agents.run_config import ToolThreadPoolConfig
from google.adk.apps import App
from google.adk.plugins import ReflectAndRetryToolPlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService, Session
from google.adk.tools import BaseTool, FunctionTool, ToolContext
from google.genai import types
from payments import REFUND_POLICY, Payments, counted

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.google_adk import OncelyFunctionTool, oncely_function_tool

SESSION = "conversation-7"


# The README's compatibility table (scripts/compat): what the stories below found.
ADK: dict[str, str] = {
    "framework": "Google ADK",
    "package": "google-adk",
    "run": "the session id (tool_context.session.id)",
}
RESUMED = "SIGKILL, resumed from its SQLite session service"


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> OncelyFunctionTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_function_tool(refund, scope="acme", **kw)


def tool_context(
    tool: BaseTool, call_id: str, session: str = SESSION, user: str = "u1"
) -> ToolContext:
    """The ToolContext ADK's flow gives a tool: an invocation of ``session``."""
    agent = LlmAgent(name="support", model=ScriptedLlm(), tools=[tool])
    ic = InvocationContext(
        session_service=InMemorySessionService(),
        invocation_id="e-1",
        agent=agent,
        session=Session(id=session, app_name="shop", user_id=user),
    )
    return ToolContext(ic, function_call_id=call_id)


def invoke(
    tool: BaseTool, call_id: str, args: dict[str, Any], session: str = SESSION, user: str = "u1"
) -> Any:
    """ADK's tool-invocation API, as the flow calls it."""
    ctx = tool_context(tool, call_id, session, user)
    return asyncio.run(tool.run_async(args=args, tool_context=ctx))


# --- the declaration ------------------------------------------------------------------------


def test_the_declaration_is_the_function_tool_s_without_the_key(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)

    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return {}

    ours, plain = t._get_declaration(), FunctionTool(refund)._get_declaration()
    assert ours is not None and plain is not None
    assert ours.model_dump() == plain.model_dump()
    assert t.name == "refund"
    assert "idempotency_key" not in json.dumps(ours.model_dump())

    # Without the adapter, FunctionTool over the bare function asks the model for the key.
    @ledger.tool(policy=REFUND_POLICY)
    def refund2(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return {}

    bare = FunctionTool(refund2.fn)._get_declaration()
    assert bare is not None and "idempotency_key" in json.dumps(bare.model_dump())
    # A name for the model only: the ledger keeps the tool's own.
    renamed = oncely_function_tool(refund2, name="give_refund", description="Give money back.")
    shown = renamed._get_declaration()
    assert shown is not None and (shown.name, shown.description) == (
        "give_refund",
        "Give money back.",
    )
    assert renamed.guard.name == "refund2"


# --- direct invocation ----------------------------------------------------------------------


def test_direct_invocation_runs_once_per_intent(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    first = invoke(t, "call_1", {"charge_id": "ch_1", "amount": 500})
    # A new call id, the keys in another order, 500.0, and a key the model made up: one intent.
    again = invoke(t, "call_2", {"amount": 500.0, "charge_id": "ch_1", "idempotency_key": "x"})
    assert first == again
    assert first["refund_id"] == "re_1"
    assert len(payments.refunds) == 1
    # Another session is another run.
    other = invoke(t, "call_3", {"charge_id": "ch_1", "amount": 500}, session="c8")
    assert other["refund_id"] == "re_2"


def test_no_run_is_an_error_that_says_where_to_give_one(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    # The core's sentence (agent.identify), the same for every host; a LookupError still.
    with pytest.raises(oncely.IdentityError, match="needs a run: give the conversation, thread"):
        invoke(t, "call_1", {"charge_id": "ch_1", "amount": 500}, session="")
    with oncely.context(run=SESSION):
        assert (
            invoke(t, "call_1", {"charge_id": "ch_1", "amount": 500}, session="")["amount"] == 500
        )
    fixed = refund_tool(ledger, payments, run=lambda ctx: SESSION)
    assert (
        invoke(fixed, "call_2", {"charge_id": "ch_1", "amount": 500}, session="")["refund_id"]
        == "re_1"
    )
    assert len(payments.refunds) == 1


def test_session_ids_shared_by_users_are_told_apart_with_run(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    # ADK keeps a session id unique within its app and user only: by default two users naming
    # their sessions alike share the run; the module's docstring says how to tell them apart.
    shared = refund_tool(ledger, payments)
    invoke(shared, "call_1", {"charge_id": "ch_1", "amount": 500}, user="u1")
    invoke(shared, "call_2", {"charge_id": "ch_1", "amount": 500}, user="u2")
    assert len(payments.refunds) == 1
    per_user = refund_tool(ledger, payments, run=lambda ctx: f"{ctx.user_id}/{ctx.session.id}")
    invoke(per_user, "call_3", {"charge_id": "ch_1", "amount": 500}, user="u1")
    invoke(per_user, "call_4", {"charge_id": "ch_1", "amount": 500}, user="u2")
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2", "re_3"]


def test_async_tools_and_the_tool_context(ledger: oncely.Ledger) -> None:
    sent: list[tuple[str, str | None]] = []

    async def send_email(to: str, body: str, tool_context: ToolContext) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        assert oncely.current_call() is not None
        sent.append((to, tool_context.function_call_id))
        return f"sent to {to}"

    t = oncely_function_tool(
        send_email,
        ledger=ledger,
        policy={"class": "irreversible-external", "reconcile": "manual"},
        scope="acme",
    )
    declared = t._get_declaration()
    assert declared is not None
    assert set(declared.parameters_json_schema["properties"]) == {"to", "body"}  # no context
    assert invoke(t, "call_1", {"to": "a@example.com", "body": "hi"}) == "sent to a@example.com"
    assert invoke(t, "call_2", {"body": "hi", "to": "a@example.com"}) == "sent to a@example.com"
    assert sent == [("a@example.com", "call_1")]


def test_the_core_s_answers_are_adk_s_tool_error_response(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    t = oncely_function_tool(refund, scope="acme")
    out = invoke(t, "call_1", {"charge_id": "ch_9", "amount": 5000})
    assert set(out) == {"error"}
    assert out["error"].startswith("oncely: the tool failed, and did not happen: amount exceeds")
    assert invoke(t, "call_2", {"charge_id": "ch_1", "amount": 500})["refund_id"] == "re_1"
    conflict = invoke(t, "call_3", {"charge_id": "ch_1", "amount": 700})["error"]
    assert "already ran with different arguments" in conflict and "/amount" in conflict
    assert len(payments.refunds) == 1
    # ADK's own answers come first: a missing argument never reaches the ledger.
    missing = invoke(t, "call_4", {"charge_id": "ch_2"})
    assert "mandatory input parameters are not present" in missing["error"]


def test_storage_errors_propagate(
    ledger: oncely.Ledger, payments: Payments, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = refund_tool(ledger, payments)

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ledger, "run", unreachable)  # the ledger's storage fails
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        invoke(t, "call_1", {"charge_id": "ch_1", "amount": 500})
    assert payments.refunds == []


def test_a_legitimate_repeat_is_a_distinct_step(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    invoke(t, "call_1", {"charge_id": "ch_1", "amount": 500})
    with oncely.context(step="second-installment"):
        invoke(t, "call_2", {"charge_id": "ch_1", "amount": 500})
        invoke(t, "call_3", {"charge_id": "ch_1", "amount": 500})
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]


# --- story 1: the scripted model re-asks after a lost response ------------------------------


def runner_for(tool: BaseTool, model: ScriptedLlm, *plugins: Any) -> tuple[Runner, Any]:
    agent = LlmAgent(name="support", model=model, tools=[tool])
    sessions = InMemorySessionService()
    app = App(name="shop", root_agent=agent, plugins=list(plugins))
    runner = Runner(app=app, session_service=sessions)
    asyncio.run(sessions.create_session(app_name="shop", user_id="u1", session_id=SESSION))
    return runner, sessions


def reask(tool: BaseTool, payments: Payments, *plugins: Any) -> list[Any]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    model = ScriptedLlm(
        turns=[
            call("call_1", {"charge_id": "ch_1", "amount": 500}),
            # A new call id, the arguments in another order, 500 spelled 500.0.
            call("call_2", {"amount": 500.0, "charge_id": "ch_1"}),
            say("Refunded."),
        ]
    )
    runner, _ = runner_for(tool, model, *plugins)
    events = asyncio.run(run_turn(runner, SESSION, "refund $5 of ch_1"))
    assert model.complete() and final_text(events) == "Refunded."
    return [response for _, response in responses(events)]


def test_a_model_re_asking_after_a_lost_response_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    first, second = reask(refund_tool(ledger, payments, audit=records.append), payments)
    counted(f"adk re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)")
    record(**ADK, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    # The model reads the core's answer in ADK's tool-error form: unknown, and not "retry".
    assert set(first) == {"error"}
    assert first["error"].startswith("oncely: the outcome of this call is unknown")
    assert "It will not be run again" in first["error"] and "try again" not in first["error"]
    assert second["refund_id"] == "re_1"
    assert [(r.tool_call_id, r.outcome, r.run, r.step) for r in records] == [
        ("call_1", "InDoubtError", SESSION, None),
        ("call_2", "reconciled", SESSION, None),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_with_adk_s_reflect_and_retry_plugin_too_it_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    first, second = reask(refund_tool(ledger, payments), payments, ReflectAndRetryToolPlugin())
    counted(
        f"adk re-ask, oncely + reflect-retry: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 1
    assert first["error"].startswith("oncely: the outcome of this call is unknown")
    assert second["refund_id"] == "re_1"


def test_an_async_tool_re_asked_pays_once(ledger: oncely.Ledger, payments: Payments) -> None:
    @ledger.tool(policy=REFUND_POLICY)
    async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        await asyncio.sleep(0)
        return payments.refund(charge_id, amount, idempotency_key)

    first, second = reask(oncely_function_tool(refund, scope="acme"), payments)
    counted(f"adk re-ask, async tool: the provider paid {len(payments.refunds)} time(s)")
    assert len(payments.refunds) == 1
    assert "the outcome of this call is unknown" in first["error"]
    assert second["refund_id"] == "re_1"


def test_keyed_by_the_call_id_the_re_ask_pays_twice(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    reask(refund_tool(ledger, payments, step=lambda ctx, call_id: call_id), payments)
    counted(f"adk re-ask, step = call id: the provider paid {len(payments.refunds)} time(s)")
    assert len(payments.refunds) == 2


def test_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, None)

    # ADK's answer to a tool that raises: its reflect-and-retry plugin tells the model to retry.
    first, second = reask(FunctionTool(refund), payments, ReflectAndRetryToolPlugin())
    counted(f"adk re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**ADK, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2
    assert "TimeoutError" in json.dumps(first) and second["refund_id"] == "re_2"


# --- a caller's timeout cancels the invocation: the claimed call still runs to its record ---


def test_a_cancelled_invocation_leaves_the_claimed_call_running_and_the_re_ask_gets_it(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    cancelled: list[str] = []

    async def main() -> list[Any]:
        release = asyncio.Event()

        @ledger.tool(policy=REFUND_POLICY)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            try:
                await release.wait()  # the provider answers after the caller gave up
            except asyncio.CancelledError:
                cancelled.append(idempotency_key)
                raise
            return payments.refund(charge_id, amount, idempotency_key)

        model = ScriptedLlm(
            turns=[
                call("call_1", {"charge_id": "ch_1", "amount": 500}),
                call("call_2", {"amount": 500.0, "charge_id": "ch_1"}),  # the next turn
                say("Refunded."),
            ]
        )
        tool = oncely_function_tool(refund, scope="acme", audit=records.append)
        agent = LlmAgent(name="support", model=model, tools=[tool])
        sessions = InMemorySessionService()
        await sessions.create_session(app_name="shop", user_id="u1", session_id=SESSION)
        runner = Runner(app_name="shop", agent=agent, session_service=sessions)
        # asyncio.TimeoutError: TimeoutError itself from Python 3.11 on, its own class on 3.10.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(run_turn(runner, SESSION, "refund $5 of ch_1"), 1.0)
        release.set()  # the provider answers now
        for _ in range(200):  # the claimed call runs on, to its record
            await asyncio.sleep(0.01)
            done = ledger.list("acme", state=oncely.EntryState.DONE)
            if done:
                break
        return await run_turn(runner, SESSION, "did it go through?")

    events = asyncio.run(main())
    counted(
        f"adk cancelled invocation, async tool: the provider paid {len(payments.refunds)} time(s)"
    )
    assert cancelled == []
    assert len(payments.refunds) == 1
    [(call_id, second)] = responses(events)
    assert call_id == "call_2" and second["refund_id"] == "re_1"
    entry = ledger.get("acme", payments.refunds[0]["idempotency_key"])
    assert entry is not None and entry.state == oncely.EntryState.DONE
    # The cancelled caller records nothing; the re-ask, a new call id, replays the record.
    assert [(r.tool_call_id, r.outcome) for r in records] == [("call_2", "replayed")]


def test_a_sync_tool_on_adk_s_thread_pool_runs_to_its_record_when_cancelled(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    """ADK's tool thread pool (``RunConfig.tool_thread_pool_config``) runs a sync tool on a
    worker thread; the caller's timeout cancels the invocation, not the thread: the claimed
    call records its result, and the next turn's re-ask replays it."""
    release = threading.Event()

    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        release.wait(10)  # the provider answers after the caller gave up
        return payments.refund(charge_id, amount, idempotency_key)

    model = ScriptedLlm(
        turns=[
            call("call_1", {"charge_id": "ch_1", "amount": 500}),
            call("call_2", {"amount": 500.0, "charge_id": "ch_1"}),
            say("Refunded."),
        ]
    )
    runner, _ = runner_for(oncely_function_tool(refund, scope="acme"), model)
    pool = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))

    async def main() -> list[Any]:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(run_turn(runner, SESSION, "refund", run_config=pool), 1.0)
        release.set()
        for _ in range(200):
            await asyncio.sleep(0.01)
            if ledger.list("acme", state=oncely.EntryState.DONE):
                break
        return await run_turn(runner, SESSION, "did it go through?", run_config=pool)

    events = asyncio.run(main())
    counted(
        f"adk cancelled invocation, sync tool: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 1
    assert responses(events) == [("call_2", payments.refunds[0])]


# --- story 2: a process killed mid-tool, resumed from ADK's SQLite session service ----------


def killed_and_resumed(work: Path, *flags: str) -> str:
    return stories.killed_and_resumed(Path(__file__).with_name("adk_crash.py"), work, *flags)


def test_an_invocation_killed_mid_tool_and_resumed_pays_once(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"adk killed mid-tool and resumed, oncely adapter: paid {len(refunds)} time(s)")
    record(**ADK, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out and "last message: Refunded." in out
    assert "function response: call_1 {'refund_id': 're_1'" in out  # the first refund, back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE


def test_without_oncely_the_resumed_invocation_pays_twice(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"adk killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**ADK, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2 and "refunds: 2" in out


# --- approval: ADK's tool confirmation is the ledger's one request, one decision -------------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


class Desk:
    """An agent whose model asks for refunds, in one ADK session kept across turns."""

    def __init__(self, ledger: oncely.Ledger, payments: Payments, **kw: Any) -> None:
        @ledger.tool(policy=APPROVAL_POLICY)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return payments.refund(charge_id, amount, idempotency_key)

        self.model = ScriptedLlm()
        tool = oncely_function_tool(refund, scope="acme", **kw)
        self.runner, _ = runner_for(tool, self.model)

    def ask(self, charge: str, amount: int, call_id: str) -> list[Any]:
        """A user turn in which the model asks for one refund (then says "Done.")."""
        asked = [call(call_id, {"charge_id": charge, "amount": amount}), say("Done.")]
        self.model.turns = self.model.turns[: len(self.model.requests)] + asked  # unused: gone
        return asyncio.run(run_turn(self.runner, SESSION, f"refund {charge}"))

    def answer(self, asked: list[Any], confirmed: bool, payload: Any = None) -> list[Any]:
        """The person's answer to ADK's confirmation request in ``asked``."""
        [request] = confirmations(asked)
        reply = types.FunctionResponse(
            id=request.id,
            name="adk_request_confirmation",
            response={"confirmed": confirmed, "payload": payload},
        )
        message = types.Content(role="user", parts=[types.Part(function_response=reply)])

        async def resume() -> list[Any]:
            events = []
            async for e in self.runner.run_async(
                user_id="u1", session_id=SESSION, new_message=message
            ):
                events.append(e)
            return events

        return asyncio.run(resume())


def confirmations(events: list[Any]) -> list[Any]:
    return [
        fc for e in events for fc in e.get_function_calls() if fc.name == "adk_request_confirmation"
    ]


def test_confirmed_in_adk_the_refund_is_paid_once_and_the_ledger_says_who(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    desk = Desk(ledger, payments)
    asked = desk.ask("ch_1", 500, "call_1")
    # ADK asks its person; the ledger holds the one request (the inbox lists it); nothing paid.
    assert len(confirmations(asked)) == 1
    [request] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    assert request.args_canonical == '{"amount":500,"charge_id":"ch_1"}'
    assert payments.refunds == []
    done = desk.answer(asked, True, {"by": "alice", "note": "customer verified"})
    assert len(payments.refunds) == 1 and final_text(done) == "Done."
    [(_, paid)] = responses(done)
    assert paid["refund_id"] == "re_1"
    assert [(h.state.value, h.resolved_by) for h in ledger.history("acme", request.key)][:2] == [
        ("awaiting-approval", None),
        ("approved", "alice"),
    ]
    # The same refund asked again in a later turn of the session: replayed, nobody asked.
    again = desk.ask("ch_1", 500, "call_9")
    assert confirmations(again) == [] and responses(again)[0][1]["refund_id"] == "re_1"
    # A small amount needs nobody.
    small = desk.ask("ch_2", 50, "call_3")
    assert confirmations(small) == [] and len(payments.refunds) == 2


def test_rejected_in_adk_the_model_reads_the_denial_and_is_never_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    desk = Desk(ledger, payments, approved_by="support-desk")
    asked = desk.ask("ch_7", 700, "call_1")
    denied = desk.answer(asked, False, {"note": "over the monthly limit"})
    [(_, said)] = responses(denied)
    assert said["error"].startswith("oncely: ") and "over the monthly limit" in said["error"]
    [entry] = ledger.list("acme", tool="refund")
    assert ("denied", "support-desk") in [
        (h.state.value, h.resolved_by) for h in ledger.history("acme", entry.key)
    ]
    # A later turn asking the same refund: the ledger's denial, no second question, nothing paid.
    again = desk.ask("ch_7", 700, "call_2")
    assert confirmations(again) == []
    assert "over the monthly limit" in responses(again)[0][1]["error"] and payments.refunds == []


def test_a_decision_made_in_the_inbox_is_not_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    desk = Desk(ledger, payments)
    desk.ask("ch_4", 400, "call_1")  # asked, and nobody answers in ADK
    [request] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    ledger.approve("acme", request.key, by="dana", version=request.version)
    later = desk.ask("ch_4", 400, "call_2")
    assert confirmations(later) == [] and len(payments.refunds) == 1
    assert responses(later)[-1][1]["refund_id"] == "re_1"


# --- the example ----------------------------------------------------------------------------


def test_the_example_pays_twice_bare_and_once_with_oncely(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[5] / "examples" / "python" / "google_adk_agent.py"
    p = subprocess.run(
        [sys.executable, str(script), "--db", str(tmp_path / "ledger.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    paid = [int(n) for n in re.findall(r"the provider paid (\d+) time", p.stdout)]
    assert paid == [2, 1], p.stdout
    assert "call_1: {'error': 'oncely: the outcome of this call is unknown" in p.stdout
    counted(f"google_adk_agent.py: paid {paid[0]}x without oncely, {paid[1]}x with")
