"""oncely.adapters.pydantic_ai against the real Pydantic AI (``pydantic-ai-slim``): the tool's
JSON schema, sync and async tools, identity from the run's ``conversation_id``, the core's
answers as failed tool results, Pydantic AI's own scripted model (``FunctionModel``) re-asking
after a lost response and after a tool timeout, a process killed mid-tool and resumed from its
saved messages, and approval through deferred tools."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import stories
from compat import record
from payments import REFUND_POLICY, Payments, counted
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.exceptions import ModelRetry, RunCancelled
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults
from pydantic_ai.usage import RunUsage

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.pydantic_ai import approve, oncely_tool, reject
from oncely.errors import StorageError

CONVERSATION = "conversation-7"


# The README's compatibility table (scripts/compat): what the stories below found.
PYDANTIC_AI: dict[str, str] = {
    "framework": "Pydantic AI",
    "package": "pydantic-ai-slim",
    "run": "RunContext.conversation_id",
}
RESUMED = "SIGKILL, resumed from its saved message history"


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> Tool[Any]:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme", **kw)


class Scripted:
    """Pydantic AI's FunctionModel answering each model request with the next scripted parts,
    and keeping what each tool call got back (the parts the model reads)."""

    def __init__(self, *turns: list[ModelResponsePart]) -> None:
        self.turns = list(turns)
        self.returns: list[ToolReturnPart] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        self.returns += [p for p in last.parts if isinstance(p, ToolReturnPart)]
        return ModelResponse(parts=self.turns.pop(0))

    def agent(self, *tools: Tool[Any], **kw: Any) -> Agent[Any, Any]:
        return Agent(FunctionModel(self), tools=list(tools), **kw)

    def assert_complete(self) -> None:
        assert self.turns == [], f"{len(self.turns)} scripted turn(s) not asked for"


def refund_call(args: dict[str, Any] | str, call_id: str) -> list[ModelResponsePart]:
    return [ToolCallPart("refund", args, tool_call_id=call_id)]


def run(agent: Agent[Any, Any], **kw: Any) -> Any:
    kw.setdefault("conversation_id", CONVERSATION)
    return agent.run_sync("refund $5 of ch_1", **kw)


# --- the schema -----------------------------------------------------------------------------


def test_the_schema_is_the_tool_schema_without_the_key(
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

    plain = Tool(refund)
    assert t.name == "refund"
    assert t.tool_def.parameters_json_schema == plain.tool_def.parameters_json_schema
    assert t.tool_def.description == plain.tool_def.description == "Refund part of a charge."
    assert "idempotency_key" not in json.dumps(t.tool_def.parameters_json_schema)
    # The model is handed that schema (TestModel reads what the agent sends it).
    seen: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(info.function_tools)
        return ModelResponse(parts=[TextPart("ok")])

    Agent(FunctionModel(model), tools=[t]).run_sync("hi")
    assert [d.parameters_json_schema for d in seen] == [plain.tool_def.parameters_json_schema]
    # Without the adapter, Pydantic AI asks the model for the key.
    assert (
        "idempotency_key"
        in Tool(t.function.__wrapped__).tool_def.parameters_json_schema["properties"]
    )


# --- sync and async tools, the run ----------------------------------------------------------


def test_a_sync_tool_runs_once_per_intent_in_a_conversation(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, audit=records.append)
    model = Scripted(
        refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"),
        refund_call('{"amount": 5e2, "charge_id": "ch_1"}', "call_2"),
        [TextPart("Refunded.")],
    )
    assert run(model.agent(t)).output == "Refunded."
    first, again = (r.content for r in model.returns)
    assert first == again and first["refund_id"] == "re_1"
    assert len(payments.refunds) == 1
    assert [(r.tool_call_id, r.outcome, r.run, r.step) for r in records] == [
        ("call_1", "executed", CONVERSATION, None),
        ("call_2", "replayed", CONVERSATION, None),
    ]
    # Another conversation is another run.
    other = Scripted(refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"), [TextPart(".")])
    run(other.agent(t), conversation_id="conversation-8")
    assert other.returns[0].content["refund_id"] == "re_2"


def test_an_async_tool_with_the_run_context_runs_once(ledger: oncely.Ledger) -> None:
    sent: list[tuple[str, str | None, str]] = []

    async def send_email(ctx: RunContext[str], to: str, body: str) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        call = oncely.current_call()
        assert call is not None
        sent.append((to, ctx.tool_call_id, ctx.deps))
        return f"sent to {to}"

    t = oncely_tool(
        send_email,
        ledger=ledger,
        policy={"class": "irreversible-external", "reconcile": "manual"},
        scope="acme",
    )
    assert set(t.tool_def.parameters_json_schema["properties"]) == {"to", "body"}
    model = Scripted(
        [ToolCallPart("send_email", {"to": "a@example.com", "body": "hi"}, tool_call_id="c1")],
        [ToolCallPart("send_email", '{"body": "hi",  "to": "a@example.com"}', tool_call_id="c2")],
        [TextPart("Sent.")],
    )
    agent = model.agent(t, deps_type=str)

    async def main() -> Any:
        return await agent.run("mail a", deps="the deps", conversation_id=CONVERSATION)

    assert asyncio.run(main()).output == "Sent."
    assert [r.content for r in model.returns] == ["sent to a@example.com"] * 2
    assert sent == [("a@example.com", "c1", "the deps")]


def direct(
    tool: Tool[Any], args: dict[str, Any], conversation: str | None, deps: Any = None
) -> Any:
    """Pydantic AI's own call of a function tool, with a RunContext made by hand (an agent run
    always has a conversation id)."""
    ctx = RunContext(
        deps=deps,
        model=TestModel(),
        usage=RunUsage(),
        tool_call_id="call_1",
        tool_name=tool.name,
        conversation_id=conversation,
    )
    return asyncio.run(tool.function_schema.call(args, ctx))


def test_no_run_is_refused_with_the_core_s_sentence(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    args = {"charge_id": "ch_1", "amount": 500}
    with pytest.raises(oncely.IdentityError, match="needs a run: give the conversation, thread"):
        direct(t, args, None)
    assert payments.refunds == []
    with oncely.context(run=CONVERSATION):
        assert direct(t, args, None)["refund_id"] == "re_1"
    # run= a function of the RunContext (e.g. of its deps): the same run, the first refund.
    by_deps = refund_tool(ledger, payments, run=lambda ctx: ctx.deps["session"])
    assert direct(by_deps, args, None, {"session": CONVERSATION})["refund_id"] == "re_1"
    # An agent run names its conversation: the messages carry it into the next run.
    model = Scripted(refund_call(args, "call_9"), [TextPart(".")])
    result = run(model.agent(t))
    assert model.returns[0].content["refund_id"] == "re_1"
    later = Scripted(refund_call(args, "call_10"), [TextPart(".")])
    later.agent(t).run_sync("again", message_history=result.all_messages())
    assert later.returns[0].content["refund_id"] == "re_1"
    assert len(payments.refunds) == 1


def test_a_legitimate_repeat_is_a_distinct_step(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    args = {"charge_id": "ch_1", "amount": 500}
    run(Scripted(refund_call(args, "call_1"), [TextPart(".")]).agent(t))
    with oncely.context(step="second-installment"):
        run(
            Scripted(refund_call(args, "call_2"), refund_call(args, "c3"), [TextPart(".")]).agent(t)
        )
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]


# --- the core's answers are failed tool results; other errors propagate ------------------------


def test_the_core_s_answers_reach_the_model_as_failed_tool_results(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    model = Scripted(
        refund_call({"charge_id": "ch_9", "amount": 5000}, "call_1"),
        refund_call({"charge_id": "ch_1", "amount": 500}, "call_2"),
        refund_call({"charge_id": "ch_1", "amount": 700}, "call_3"),
        [TextPart("Done.")],
    )
    # max_retries=0: an answer is not a retry prompt, and spends no retry budget.
    run(model.agent(oncely_tool(refund, scope="acme", tool_options={"max_retries": 0})))
    failed, paid, conflict = model.returns
    assert failed.outcome == "failed"
    said = failed.model_response_str()
    assert "oncely: the tool failed, and did not happen: amount exceeds" in said
    assert "try again" not in said
    assert paid.outcome == "success" and paid.content["refund_id"] == "re_1"
    assert conflict.outcome == "failed"
    assert "already ran with different arguments" in conflict.content
    assert "/amount" in conflict.content
    assert len(payments.refunds) == 1


def test_a_storage_error_propagates_out_of_the_run(
    ledger: oncely.Ledger, payments: Payments, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = refund_tool(ledger, payments)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise StorageError("disk I/O error")  # the ledger's storage, not the call

    monkeypatch.setattr(ledger, "run", broken)
    model = Scripted(refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"), [TextPart(".")])
    with pytest.raises(StorageError, match="disk I/O error"):
        run(model.agent(t))
    assert model.returns == [] and payments.refunds == []


# --- story 1: the model re-asks after a lost response --------------------------------------


def reask(tool: Tool[Any], payments: Payments) -> list[ToolReturnPart]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    model = Scripted(
        refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"),
        # A new call id, the arguments in another order, 500 spelled 5e2, other whitespace.
        refund_call('{ "amount" : 5e2,\n "charge_id":"ch_1" }', "call_2"),
        [TextPart("Refunded.")],
    )
    assert run(model.agent(tool)).output == "Refunded."
    model.assert_complete()
    return model.returns


def test_story_1_a_model_re_asking_after_a_lost_response_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    first, second = reask(refund_tool(ledger, payments, audit=records.append), payments)
    counted(
        f"pydantic-ai re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)"
    )
    record(**PYDANTIC_AI, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    # The unknown outcome is a failed result, never "try again".
    assert first.outcome == "failed"
    assert first.content.startswith("oncely: the outcome of this call is unknown")
    assert "try again" not in first.model_response_str()
    assert second.outcome == "success" and second.content["refund_id"] == "re_1"
    assert [(r.tool_call_id, r.outcome, r.run) for r in records] == [
        ("call_1", "InDoubtError", CONVERSATION),
        ("call_2", "reconciled", CONVERSATION),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_story_1_keyed_by_the_call_id_the_re_ask_pays_twice(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    reask(refund_tool(ledger, payments, step=lambda ctx, call_id: call_id), payments)
    counted(
        f"pydantic-ai re-ask, step = call id: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 2


def test_story_1_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        try:
            return payments.refund(charge_id, amount, None)
        except TimeoutError as e:
            raise ModelRetry(f"the provider did not answer: {e}") from e  # Pydantic AI's idiom

    first, _ = reask(Tool(refund), payments)
    counted(f"pydantic-ai re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**PYDANTIC_AI, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2
    # Pydantic AI hands the model its retry form: a call to make again, which it does.
    assert first.outcome == "retried" and first.retry is not None


# --- a tool timeout stops waiting, not the claimed call -----------------------------------


def test_a_tool_timeout_leaves_the_claimed_call_running_and_the_re_ask_gets_its_result(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    cancelled: list[str] = []

    async def main() -> tuple[Any, Scripted]:
        release = asyncio.Event()

        @ledger.tool(policy=REFUND_POLICY)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            try:
                await release.wait()  # the provider is slow: it answers after the timeout
            except asyncio.CancelledError:
                cancelled.append(idempotency_key)
                raise
            return payments.refund(charge_id, amount, idempotency_key)

        tool = oncely_tool(
            refund, scope="acme", audit=records.append, tool_options={"timeout": 1.0}
        )
        script = Scripted(
            refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"),
            refund_call('{"amount": 5e2, "charge_id": "ch_1"}', "call_2"),
            [TextPart("Refunded.")],
        )

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            if len(script.turns) == 2:  # asked again, after the timeout: the provider answers
                release.set()
            return script(messages, info)

        agent = Agent(FunctionModel(model), tools=[tool])
        return await agent.run("refund $5 of ch_1", conversation_id=CONVERSATION), script

    result, script = asyncio.run(main())
    script.assert_complete()
    first, second = script.returns
    paid = len(payments.refunds)
    counted(f"pydantic-ai tool timeout, oncely adapter: the provider paid {paid} time(s)")
    # Pydantic AI answered the first call with its timeout; the call itself was not cancelled:
    # it ran to its result, was recorded, and the re-ask got it.
    assert "Timed out" in first.model_response_str()
    assert cancelled == []
    assert len(payments.refunds) == 1
    assert second.content["refund_id"] == "re_1"
    entry = ledger.get("acme", payments.refunds[0]["idempotency_key"])
    assert entry is not None and entry.state == oncely.EntryState.DONE
    assert [(r.tool_call_id, r.outcome) for r in records] == [("call_2", "replayed")]
    assert result.output == "Refunded."


def test_a_sync_tool_s_timeout_leaves_its_thread_running_and_the_re_ask_gets_its_result(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    release = threading.Event()

    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        assert release.wait(30)  # the provider answers after the timeout
        return payments.refund(charge_id, amount, idempotency_key)

    script = Scripted(
        refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"),
        refund_call('{"amount": 5e2, "charge_id": "ch_1"}', "call_2"),
        [TextPart("Refunded.")],
    )

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(script.turns) == 2:  # asked again, after the timeout: the provider answers
            release.set()
        return script(messages, info)

    tool = oncely_tool(refund, scope="acme", tool_options={"timeout": 1.0})
    agent = Agent(FunctionModel(model), tools=[tool])
    assert run(agent).output == "Refunded."
    first, second = script.returns
    paid = len(payments.refunds)
    counted(f"pydantic-ai tool timeout, sync tool: the provider paid {paid} time(s)")
    assert "Timed out" in first.model_response_str()
    assert paid == 1 and second.content["refund_id"] == "re_1"


def test_a_run_cancelled_mid_call_resumed_from_its_messages_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    """The run's own ``timeout=`` cancels it while the tool is at the provider (RunTimedOut,
    Pydantic AI's cancellation). The claimed call is not cancelled: it runs to its result and is
    recorded. The conversation resumed from the messages the cancellation kept (the call closed
    as interrupted), the model re-asks with a new call id and gets that result."""
    cancelled: list[str] = []

    async def main() -> tuple[Any, Scripted]:
        release = asyncio.Event()

        @ledger.tool(policy=REFUND_POLICY)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            try:
                await release.wait()
            except asyncio.CancelledError:
                cancelled.append(idempotency_key)
                raise
            return payments.refund(charge_id, amount, idempotency_key)

        tool = oncely_tool(refund, scope="acme")
        first = Scripted(refund_call({"charge_id": "ch_1", "amount": 500}, "call_1"))
        with pytest.raises(RunCancelled) as stopped:
            await first.agent(tool).run("refund", conversation_id=CONVERSATION, timeout=0.5)
        release.set()  # the provider answers now
        await asyncio.sleep(0.1)
        again = Scripted(
            refund_call('{"amount": 5e2, "charge_id": "ch_1"}', "call_2"), [TextPart("Done.")]
        )
        history = stopped.value.all_messages()
        return await again.agent(tool).run("go on", message_history=history), again

    result, again = asyncio.run(main())
    paid = len(payments.refunds)
    counted(f"pydantic-ai run timeout, resumed: the provider paid {paid} time(s)")
    assert result.output == "Done." and result.conversation_id == CONVERSATION
    assert cancelled == [] and paid == 1
    assert again.returns[-1].content["refund_id"] == "re_1"


# --- story 2: killed mid-tool, resumed from the saved messages -----------------------------


def killed_and_resumed(work: Path, *flags: str) -> str:
    return stories.killed_and_resumed(
        Path(__file__).with_name("pydantic_ai_crash.py"), work, *flags
    )


def test_story_2_killed_mid_tool_and_resumed_from_the_saved_messages_pays_once(
    tmp_path: Path,
) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"pydantic-ai killed mid-tool and resumed, oncely adapter: paid {len(refunds)} time(s)")
    record(**PYDANTIC_AI, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out and "last message: Refunded." in out
    assert f"conversation: {CONVERSATION}" in out  # carried by the saved messages
    assert '"refund_id":"re_1"' in out  # the resumed tool call got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_story_2_without_oncely_the_resumed_run_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"pydantic-ai killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**PYDANTIC_AI, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- approval: deferred tools are the ledger's one request, one decision ------------------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def approval_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> Tool[Any]:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme", **kw)


def asking(
    tool: Tool[Any], charge: str, amount: int, call_id: str
) -> tuple[Callable[..., Any], Any, Scripted]:
    """A run whose model asks for one refund, then ends; a function resuming it with deferred
    tool results, and the first run's result."""
    model = Scripted(
        refund_call({"charge_id": charge, "amount": amount}, call_id), [TextPart("Done.")]
    )
    agent = model.agent(tool, output_type=[str, DeferredToolRequests])
    result = run(agent)

    def resume(results: DeferredToolResults) -> Any:
        return agent.run_sync(message_history=result.all_messages(), deferred_tool_results=results)

    return resume, result, model


def test_approved_through_deferred_tools_the_refund_is_paid_once_and_the_ledger_says_who(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    tool = approval_tool(ledger, payments)
    resume, result, model = asking(tool, "ch_1", 500, "call_1")
    # The run ends with Pydantic AI's deferred requests; the ledger holds the one request (the
    # inbox lists it); nothing is paid.
    requests = result.output
    assert isinstance(requests, DeferredToolRequests)
    [call] = requests.approvals
    assert requests.metadata[call.tool_call_id]["oncely"] == "approval"
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    assert asked.args_canonical == '{"amount":500,"charge_id":"ch_1"}' and payments.refunds == []
    decision = approve(tool, requests, call.tool_call_id, by="alice", note="customer verified")
    resumed = resume(DeferredToolResults(approvals={call.tool_call_id: decision}))
    assert resumed.output == "Done." and len(payments.refunds) == 1
    entry = ledger.get("acme", asked.key)
    assert entry is not None and entry.state.value == "done"
    assert [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)][:2] == [
        ("awaiting-approval", None),
        ("approved", "alice"),
    ]
    # The same refund asked again in the conversation: replayed, nobody asked.
    _, again, model = asking(tool, "ch_1", 500, "call_9")
    assert again.output == "Done." and model.returns[0].content["refund_id"] == "re_1"
    # A small amount needs nobody.
    _, small, _ = asking(tool, "ch_2", 50, "call_3")
    assert small.output == "Done." and len(payments.refunds) == 2


def test_rejected_the_model_reads_the_denial_and_is_never_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    tool = approval_tool(ledger, payments)
    resume, result, _ = asking(tool, "ch_7", 700, "call_1")
    [call] = result.output.approvals
    denied = reject(tool, result.output, call.tool_call_id, by="bob", note="over the limit")
    resumed = resume(DeferredToolResults(approvals={call.tool_call_id: denied}))
    [said] = [
        p.model_response_str()
        for m in resumed.new_messages()
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]
    assert "denied" in said and "over the limit" in said, said
    # A new run asking the same refund: the ledger's denial, no second question, nothing paid.
    _, again, model = asking(tool, "ch_7", 700, "call_2")
    assert again.output == "Done."
    assert "over the limit" in model.returns[0].content and payments.refunds == []


def test_a_bare_true_is_recorded_and_the_inbox_s_decision_is_not_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    tool = approval_tool(ledger, payments, approved_by="support-desk")
    resume, result, _ = asking(tool, "ch_3", 300, "call_1")
    [call] = result.output.approvals
    resume(DeferredToolResults(approvals={call.tool_call_id: True}))  # Pydantic AI's own
    [asked] = ledger.list("acme", tool="refund")
    history = ledger.history("acme", asked.key)
    assert ("approved", "support-desk") in [(h.state.value, h.resolved_by) for h in history]
    assert len(payments.refunds) == 1
    # A call a person approved in the inbox (oncely serve, the CLI) while no run waited: the
    # next run of the conversation is not deferred, the refund runs once.
    _, waiting, _ = asking(tool, "ch_4", 400, "call_2")
    assert isinstance(waiting.output, DeferredToolRequests)
    [request] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    ledger.approve("acme", request.key, by="dana", version=request.version)
    _, later, model = asking(tool, "ch_4", 400, "call_3")
    assert later.output == "Done." and model.returns[0].content["refund_id"] == "re_2"
    assert len(payments.refunds) == 2


# --- the example -------------------------------------------------------------------------


def test_the_example_pays_twice_without_oncely_and_once_with(repo: Path, tmp_path: Path) -> None:
    script = repo / "examples" / "python" / "pydantic_ai_agent.py"
    p = subprocess.run(
        [sys.executable, str(script), "--db", str(tmp_path / "ledger.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    paid = [int(n) for n in re.findall(r"the provider paid (\d+) time", p.stdout)]
    assert paid == [2, 1], p.stdout
    counted(f"pydantic_ai_agent.py: paid {paid[0]}x without oncely, {paid[1]}x with")
