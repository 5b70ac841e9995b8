"""oncely.adapters.llama_index against the real llama-index-core (its agent workflow, its own
scripted test model ``MockFunctionCallingLLM``): the tool's schema, sync and async tools, the run
from the agent's memory session, the core's answers as LlamaIndex's error ``ToolOutput``, a
model re-asking after a lost response, a run killed mid-tool and resumed from its serialized
``Context``, a workflow timeout, and approval through the workflow's human-in-the-loop events
(each shown failing the naive way where there is one)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import stories
from compat import record
from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.memory import ChatMemoryBuffer, Memory
from llama_index.core.tools import BaseTool, FunctionTool, ToolOutput
from llama_index.core.workflow import Context
from payments import REFUND_POLICY, Payments, counted
from scripted import Script, call, say
from workflows.errors import WorkflowTimeoutError
from workflows.events import HumanResponseEvent, InputRequiredEvent

import oncely
from oncely.adapters import CallRecord, reply_for
from oncely.adapters.llama_index import OncelyTool, oncely_tool

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[4]
SESSION = "conversation-7"


# The README's compatibility table (scripts/compat): what the stories below found.
LLAMA_INDEX: dict[str, str] = {
    "framework": "LlamaIndex",
    "package": "llama-index-core",
    "run": "the memory's session (Memory.session_id, ChatMemoryBuffer.chat_store_key)",
}
RESUMED = "SIGKILL, resumed from its serialized workflow Context"


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> OncelyTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme", **kw)


def memory(session: str = SESSION) -> Memory:
    return Memory.from_defaults(session_id=session, token_limit=4000)


def run_agent(
    tool: BaseTool, script: Script, mem: Any = None, **kw: Any
) -> tuple[Any, list[ToolOutput]]:
    """One agent turn: its answer and the tool outputs of the turn, in order."""
    agent = FunctionAgent(tools=[tool], llm=script.llm(), **kw)

    async def main() -> tuple[Any, list[ToolOutput]]:
        handler = agent.run(user_msg="refund $5 of ch_1", memory=mem or memory())
        outputs = [
            ev.tool_output async for ev in handler.stream_events() if isinstance(ev, ToolCallResult)
        ]
        return await handler, outputs

    return asyncio.run(main())


# --- the tool's schema: the model never sees the key -------------------------------------------


def test_the_schema_and_the_description_have_no_key(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    assert isinstance(t, FunctionTool)
    params = t.metadata.get_parameters_dict()
    assert set(params["properties"]) == {"charge_id", "amount"}, params
    assert params["required"] == ["charge_id", "amount"]
    assert "idempotency_key" not in t.metadata.description
    assert re.match(r"refund\(charge_id: .?str.?, amount: .?int.?\)", t.metadata.description)
    tool_schema = json.dumps(t.metadata.to_openai_tool())
    assert "idempotency_key" not in tool_schema
    renamed = refund_tool(ledger, payments, name="refund_charge")
    assert (renamed.metadata.name, renamed.guard.name) == ("refund_charge", "refund")


def test_a_function_without_a_key_parameter_reads_the_current_call_and_gets_the_context(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    got: list[Any] = []

    def refund(ctx: Context, charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        got.append(ctx)
        now = oncely.current_call()
        assert now is not None
        return payments.refund(charge_id, amount, now.key)

    t = oncely_tool(refund, ledger=ledger, policy=REFUND_POLICY, scope="acme")
    assert set(t.metadata.get_parameters_dict()["properties"]) == {"charge_id", "amount"}
    script = Script(call("call_1", {"charge_id": "ch_1", "amount": 500}), say("Refunded."))
    _, [result] = run_agent(t, script)
    assert not result.is_error and result.raw_output["refund_id"] == "re_1"
    assert isinstance(got[0], Context)
    assert len(payments.refunds) == 1


# --- sync and async tools, in an agent and called directly ------------------------------------


def test_sync_and_async_tools_both_run_the_effect(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    sync_tool = refund_tool(ledger, payments)
    script = Script(call("call_1", {"charge_id": "ch_1", "amount": 500}), say("Refunded."))
    out, [result] = run_agent(sync_tool, script)
    assert str(out.response.content) == "Refunded."
    assert result.raw_output["refund_id"] == "re_1" and len(payments.refunds) == 1

    sent: list[str] = []

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "manual"})
    async def send_email(to: str, body: str, *, idempotency_key: str) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        sent.append(to)
        return f"sent to {to}"

    async_tool = oncely_tool(send_email, scope="acme")
    script = Script(
        call("call_1", {"to": "a@example.com", "body": "hi"}, tool="send_email"),
        call("call_2", {"body": "hi", "to": "a@example.com"}, tool="send_email"),
        say("Sent."),
    )
    _, results = run_agent(async_tool, script)
    assert [r.content for r in results] == ["sent to a@example.com"] * 2
    assert sent == ["a@example.com"]
    # Called directly: acall, and call outside an event loop (the async tool in a loop of its
    # own); the run given with oncely.context, as there is no agent.
    with oncely.context(run=SESSION):
        assert asyncio.run(async_tool.acall(to="a@example.com", body="hi")).content == (
            "sent to a@example.com"
        )
        assert async_tool.call(to="b@example.com", body="hi").content == "sent to b@example.com"
        assert sync_tool.call("ch_1", 500).raw_output["refund_id"] == "re_1"
    assert sent == ["a@example.com", "b@example.com"] and len(payments.refunds) == 1

    async def inside_a_loop() -> None:
        with pytest.raises(RuntimeError, match="acall"):
            async_tool.call(to="c@example.com", body="hi")

    asyncio.run(inside_a_loop())


# --- identity: the run is the agent's memory session --------------------------------------------


def test_run_is_the_memory_session(ledger: oncely.Ledger, payments: Payments) -> None:
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, audit=records.append)

    def turn(mem: Any) -> None:
        run_agent(t, Script(call("c", {"charge_id": "ch_1", "amount": 500}), say("ok")), mem)

    turn(memory())
    turn(memory())  # the same session, a new turn (a new workflow run id): the same effect
    assert len(payments.refunds) == 1
    turn(memory("conversation-8"))  # another conversation: its own effect
    assert len(payments.refunds) == 2
    turn(ChatMemoryBuffer.from_defaults(chat_store_key=SESSION))  # a chat store key, too
    assert len(payments.refunds) == 2
    assert [r.run for r in records] == [SESSION, SESSION, "conversation-8", SESSION]
    # A run given here or in oncely.context wins over the session.
    with oncely.context(run="conversation-8"):
        turn(memory("conversation-9"))
    fixed = refund_tool(ledger, payments, run=lambda ctx: SESSION)
    run_agent(fixed, Script(call("c", {"charge_id": "ch_1", "amount": 500}), say("ok")))
    assert len(payments.refunds) == 2


def test_no_run_is_refused_with_the_cores_sentence(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    # The core's sentence (agent.identify), the same for every host; a LookupError still.
    with pytest.raises(oncely.IdentityError, match="needs a run: give the conversation, thread"):
        t.call(charge_id="ch_1", amount=500)
    # In an agent whose memory names no conversation (the default ChatMemoryBuffer's key is
    # shared by all): refused too; the agent makes the error its error ToolOutput.
    script = Script(call("call_1", {"charge_id": "ch_1", "amount": 500}), say("ok"))
    _, [result] = run_agent(t, script, ChatMemoryBuffer.from_defaults())
    assert result.is_error and isinstance(result.exception, oncely.IdentityError)
    assert payments.refunds == []


def test_a_legitimate_repeat_is_a_distinct_step(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    with oncely.context(run=SESSION):
        t.call(charge_id="ch_1", amount=500)
        with oncely.context(step="second-installment"):
            t.call(charge_id="ch_1", amount=500)
            t.call(charge_id="ch_1", amount=500)  # that step, repeated
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]


# --- the core's answers reach the model as LlamaIndex's error ToolOutput ------------------------


def test_the_cores_answers_are_error_tool_outputs(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    t = oncely_tool(refund, scope="acme")
    script = Script(
        call("call_1", {"charge_id": "ch_9", "amount": 5000}),
        call("call_2", {"charge_id": "ch_1", "amount": 500}),
        call("call_3", {"charge_id": "ch_1", "amount": 700}),
        say("Done."),
    )
    _, [refused, paid, conflict] = run_agent(t, script)
    assert refused.is_error and refused.content.startswith(
        "oncely: the tool failed, and did not happen"
    )
    assert not paid.is_error
    assert conflict.is_error and "already ran with different arguments" in conflict.content
    assert "/amount" in conflict.content
    # What the model read: the same sentences, in the tool messages.
    assert [str(m.content) for m in script.read][2] == conflict.content
    assert len(payments.refunds) == 1


def test_an_unknown_outcome_is_read_by_the_model_and_not_called_safe_to_retry(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    payments.lose_responses, payments.outage = 1, 1  # paid, the answer lost; no lookup yet
    script = Script(call("call_1", {"charge_id": "ch_1", "amount": 500}), say("Checking."))
    _, [result] = run_agent(refund_tool(ledger, payments), script)
    assert result.is_error
    [read] = script.read
    assert str(read.content) == result.content
    assert result.content.startswith("oncely: the outcome of this call is unknown")
    assert "try again" not in result.content
    reply = reply_for(result.exception)  # type: ignore[arg-type]
    assert reply is not None and reply.code.value == "in-doubt"
    assert len(payments.refunds) == 1


# --- story 1: the model re-asks with a new call id and respelled arguments ---------------------


def reask_script() -> Script:
    """Calls refund; after the error, re-asks with a NEW call id, the arguments as JSON text in
    another order, spaced otherwise, and 500 spelled 5e2 (LlamaIndex parses it); then says it is
    done."""
    return Script(
        call("call_1", {"charge_id": "ch_1", "amount": 500}),
        call("call_2", '{ "amount" : 5e2 ,\n  "charge_id":"ch_1" }'),
        say("Refunded."),
    )


def reask(tool: BaseTool, payments: Payments) -> list[ToolOutput]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    return run_agent(tool, reask_script())[1]


def test_story_1_a_model_re_asking_after_a_lost_response_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    first, second = reask(refund_tool(ledger, payments, audit=records.append), payments)
    counted(f"llama-index re-ask, oncely adapter: paid {len(payments.refunds)} time(s)")
    record(**LLAMA_INDEX, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    assert first.is_error and "the outcome of this call is unknown" in first.content
    assert not second.is_error and second.raw_output["refund_id"] == "re_1"
    # The tool-call ids are recorded, not keyed: one key, two calls.
    assert [(r.tool_call_id, r.outcome, r.run, r.step) for r in records] == [
        ("call_1", "InDoubtError", SESSION, None),
        ("call_2", "reconciled", SESSION, None),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_story_1_an_async_tool_pays_once(ledger: oncely.Ledger, payments: Payments) -> None:
    @ledger.tool(policy=REFUND_POLICY)
    async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        await asyncio.sleep(0)
        return payments.refund(charge_id, amount, idempotency_key)

    first, second = reask(oncely_tool(refund, scope="acme"), payments)
    counted(f"llama-index re-ask, async tool: paid {len(payments.refunds)} time(s)")
    assert len(payments.refunds) == 1
    assert "the outcome of this call is unknown" in first.content
    assert second.raw_output["refund_id"] == "re_1"


def test_story_1_keyed_by_the_tool_call_id_it_pays_twice(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    # The old advice — the model's tool-call id as the step — is what fails: a new id, a new key.
    by_call_id = refund_tool(ledger, payments, step=lambda ctx, call_id: call_id)
    reask(by_call_id, payments)
    counted(f"llama-index re-ask, step = tool-call id: paid {len(payments.refunds)} time(s)")
    assert len(payments.refunds) == 2


def test_story_1_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, None)

    first, _ = reask(FunctionTool.from_defaults(refund), payments)
    counted(f"llama-index re-ask, no oncely: paid {len(payments.refunds)} time(s)")
    record(**LLAMA_INDEX, story="re-ask", paid=len(payments.refunds), bare=True)
    assert first.is_error and str(first.content) == "read timed out"
    assert len(payments.refunds) == 2


# --- a workflow timeout: the claimed call runs on and is recorded ------------------------------


def test_a_workflow_timeout_leaves_the_claimed_call_running_and_the_next_turn_gets_it(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    """The workflow's ``timeout`` cancels the run while an async tool is at the provider; the
    claimed call is not cancelled: it runs to its result and is recorded, and the next turn of
    the conversation (the model asking the same) gets that result without paying again."""
    cancelled: list[str] = []

    async def main() -> tuple[Any, list[ToolOutput]]:
        release = asyncio.Event()

        @ledger.tool(policy=REFUND_POLICY)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            try:
                await release.wait()  # the provider answers after the workflow's timeout
            except asyncio.CancelledError:
                cancelled.append(idempotency_key)
                raise
            return payments.refund(charge_id, amount, idempotency_key)

        t = oncely_tool(refund, scope="acme")
        ask = call("call_1", {"charge_id": "ch_1", "amount": 500})
        agent = FunctionAgent(tools=[t], llm=Script(ask, say("Refunded.")).llm(), timeout=1.0)
        with pytest.raises(WorkflowTimeoutError):
            await agent.run(user_msg="refund $5 of ch_1", memory=memory())
        release.set()  # the provider answers now; the claimed call records it
        for _ in range(200):
            if ledger.list("acme", state=oncely.EntryState.DONE):
                break
            await asyncio.sleep(0.05)
        again = Script(call("call_2", {"amount": 500, "charge_id": "ch_1"}), say("Refunded."))
        agent = FunctionAgent(tools=[t], llm=again.llm())
        handler = agent.run(user_msg="did the refund go through?", memory=memory())
        outputs = [
            e.tool_output async for e in handler.stream_events() if isinstance(e, ToolCallResult)
        ]
        return await handler, outputs

    out, [result] = asyncio.run(main())
    counted(f"llama-index workflow timeout, async tool: paid {len(payments.refunds)} time(s)")
    assert cancelled == []
    assert len(payments.refunds) == 1
    assert not result.is_error and result.raw_output["refund_id"] == "re_1"
    assert str(out.response.content) == "Refunded."
    entry = ledger.get("acme", payments.refunds[0]["idempotency_key"])
    assert entry is not None and entry.state == oncely.EntryState.DONE


# --- story 2: killed mid-tool, resumed from the serialized Context -----------------------------


def killed_and_resumed(work: Path, *flags: str) -> str:
    return stories.killed_and_resumed(
        Path(__file__).with_name("llama_index_crash.py"), work, *flags
    )


def test_story_2_killed_mid_tool_and_resumed_from_the_context_pays_once(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"llama-index killed mid-tool and resumed, oncely adapter: paid {len(refunds)} time(s)")
    record(**LLAMA_INDEX, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out
    assert "last message: Refunded." in out
    assert "'refund_id': 're_1'" in out  # the resumed tool call got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_story_2_without_oncely_the_resumed_run_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"llama-index killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**LLAMA_INDEX, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- approval: the workflow's human-in-the-loop events are the ledger's request -----------------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def approval_tool(ledger: oncely.Ledger, payments: Payments) -> OncelyTool:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme")


def approval_turn(
    tool: OncelyTool, charge: str, amount: int, answer: dict[str, Any] | None,
    before: Any = None,
) -> tuple[Any, list[ToolOutput], list[InputRequiredEvent]]:  # fmt: skip
    """One turn asking for a refund; each InputRequiredEvent is answered with ``answer`` (and
    the request's key), after ``before(event)``."""
    script = Script(call("call_1", {"charge_id": charge, "amount": amount}), say("Done."))
    agent = FunctionAgent(tools=[tool], llm=script.llm())

    async def main() -> tuple[Any, list[ToolOutput], list[InputRequiredEvent]]:
        handler = agent.run(user_msg=f"refund {charge}", memory=memory())
        outputs, asked = [], []
        async for ev in handler.stream_events():
            if isinstance(ev, InputRequiredEvent):
                asked.append(ev)
                if before is not None:
                    before(ev)
                assert answer is not None and handler.ctx is not None
                handler.ctx.send_event(HumanResponseEvent(key=ev.key, **answer))
            elif isinstance(ev, ToolCallResult):
                outputs.append(ev.tool_output)
        return await handler, outputs, asked

    return asyncio.run(main())


def test_approval_asked_in_the_workflow_then_approved_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = approval_tool(ledger, payments)
    seen: list[str] = []

    def check(ev: InputRequiredEvent) -> None:
        [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
        assert asked.key == ev.key and payments.refunds == []  # the ledger's one request
        seen.append(ev.key)

    _, [result], [asked] = approval_turn(
        t, "ch_1", 500, {"response": "approve", "by": "alice"}, check
    )
    assert (asked.oncely, asked.tool, asked.args) == (
        "approval", "refund", {"charge_id": "ch_1", "amount": 500},
    )  # fmt: skip
    assert not result.is_error and len(payments.refunds) == 1 and seen == [asked.key]
    history = [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)]
    assert history[:2] == [("awaiting-approval", None), ("approved", "alice")]
    # A small amount needs nobody.
    _, [small], none = approval_turn(t, "ch_2", 50, None)
    assert none == [] and not small.is_error and len(payments.refunds) == 2


def test_approval_rejected_the_model_reads_the_denial_and_is_not_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = approval_tool(ledger, payments)
    answer = {"response": "reject", "message": "over the monthly limit", "by": "bob"}
    _, [result], [_] = approval_turn(t, "ch_7", 700, answer)
    assert result.is_error and "over the monthly limit" in result.content, result
    assert result.content.startswith("oncely: ")
    assert payments.refunds == []
    # The same call in a new turn: the ledger's denial, no question.
    _, [again], asked = approval_turn(t, "ch_7", 700, None)
    assert asked == [] and again.is_error and "over the monthly limit" in again.content
    assert payments.refunds == []


def test_a_decision_in_the_inbox_stands_over_the_workflows_answer(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = approval_tool(ledger, payments)

    def inbox(ev: InputRequiredEvent) -> None:
        entry = ledger.get("acme", ev.key)
        assert entry is not None
        ledger.approve("acme", ev.key, by="dana", version=entry.version)  # meanwhile

    _, [result], [asked] = approval_turn(t, "ch_4", 400, {"response": "reject"}, inbox)
    assert not result.is_error and len(payments.refunds) == 1
    history = [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)]
    assert ("approved", "dana") in history


# --- the example --------------------------------------------------------------------------------


def test_the_example_pays_twice_without_oncely_and_once_with(tmp_path: Path) -> None:
    script = REPO / "examples" / "python" / "llama_index_agent.py"
    p = subprocess.run(
        [sys.executable, str(script), "--db", str(tmp_path / "ledger.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    paid = [int(n) for n in re.findall(r"the provider paid (\d+) time", p.stdout)]
    assert paid == [2, 1], p.stdout
    assert "oncely: the outcome of this call is unknown" in p.stdout
    counted(f"llama_index_agent.py: paid {paid[0]}x without oncely, {paid[1]}x with")


def test_the_tools_functions_go_through_the_ledger_too(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    with oncely.context(run=SESSION):
        assert t.fn(charge_id="ch_1", amount=500)["refund_id"] == "re_1"
        assert asyncio.run(t.async_fn(amount=500, charge_id="ch_1"))["refund_id"] == "re_1"
    assert len(payments.refunds) == 1
