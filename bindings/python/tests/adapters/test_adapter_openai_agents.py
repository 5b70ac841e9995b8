"""oncely.adapters.openai_agents against the real openai-agents SDK: the tool's JSON schema,
direct invocation through ``on_invoke_tool``, sync and async tools, identity from
``RunConfig.group_id``, and the SDK's own ScriptedModel re-asking after a timeout."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, UserError, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext
from compat import record
from payments import REFUND_POLICY, Payments, counted, register_lookup

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.openai_agents import approve, oncely_function_tool, reject

CONVERSATION = RunConfig(group_id="conversation-7", tracing_disabled=True)


@pytest.fixture
def ledger(tmp_path: Path) -> Any:
    with oncely.Ledger.sqlite(tmp_path / "ledger.db", owner="w1") as ledger:
        yield ledger


@pytest.fixture
def payments(ledger: oncely.Ledger) -> Payments:
    p = Payments()
    register_lookup(ledger, p)
    return p


# The README's compatibility table (scripts/compat): what the stories below found.
AGENTS: dict[str, str] = {
    "framework": "OpenAI Agents SDK",
    "package": "openai-agents",
    "run": "RunConfig.group_id",
}


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> FunctionTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_function_tool(refund, scope="acme", **kw)


def invoke(tool: FunctionTool, call_id: str, arguments: str, run_config: Any = CONVERSATION) -> Any:
    """The SDK's tool-invocation API, as the runner calls it."""
    ctx = ToolContext(
        context=None,
        tool_name=tool.name,
        tool_call_id=call_id,
        tool_arguments=arguments,
        run_config=run_config,
    )
    return asyncio.run(tool.on_invoke_tool(ctx, arguments))


# --- the schema -----------------------------------------------------------------------------


def test_the_schema_is_the_function_tool_schema_without_the_key(
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

    plain = function_tool(refund)
    assert t.name == "refund"
    assert t.params_json_schema == plain.params_json_schema
    assert t.description == plain.description
    assert "idempotency_key" not in t.params_json_schema["properties"]
    assert t.params_json_schema["additionalProperties"] is False  # strict, as function_tool

    # Without the adapter: function_tool refuses the decorated tool, and over the bare function
    # it asks the model for the key.
    @ledger.tool(policy=REFUND_POLICY)
    def refund2(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return {}

    with pytest.raises(UserError):
        function_tool(refund2)  # type: ignore[arg-type]
    assert "idempotency_key" in function_tool(refund2.fn).params_json_schema["properties"]


# --- direct invocation ----------------------------------------------------------------------


def test_direct_invocation_runs_once_per_intent(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    first = invoke(t, "call_1", '{"charge_id": "ch_1", "amount": 500}')
    again = invoke(t, "call_2", '{"amount": 5e2, "charge_id": "ch_1"}')
    assert first == again
    assert first["refund_id"] == "re_1"
    assert len(payments.refunds) == 1
    # Another conversation is another run.
    other = invoke(t, "call_3", '{"charge_id": "ch_1", "amount": 500}', RunConfig(group_id="c8"))
    assert other["refund_id"] == "re_2"


def test_no_run_is_an_error_that_says_where_to_give_one(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    # The core's sentence (agent.identify), the same for every host; a LookupError still.
    with pytest.raises(oncely.IdentityError, match="needs a run: give the conversation, thread"):
        invoke(t, "call_1", '{"charge_id": "ch_1", "amount": 500}', None)
    with oncely.context(run="conversation-7"):
        assert invoke(t, "call_1", '{"charge_id": "ch_1", "amount": 500}', None)["amount"] == 500
    fixed = refund_tool(ledger, payments, run=lambda ctx: "conversation-7")
    assert invoke(fixed, "call_2", '{"charge_id": "ch_1", "amount": 500}', None)["refund_id"] == (
        "re_1"
    )
    assert len(payments.refunds) == 1


def test_async_tools_and_the_tool_context(ledger: oncely.Ledger) -> None:
    sent: list[tuple[str, str]] = []

    async def send_email(ctx: ToolContext[Any], to: str, body: str) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        call = oncely.current_call()
        assert call is not None
        sent.append((to, ctx.tool_call_id))
        return f"sent to {to}"

    t = oncely_function_tool(
        send_email,
        ledger=ledger,
        policy={"class": "irreversible-external", "reconcile": "manual"},
        scope="acme",
    )
    assert set(t.params_json_schema["properties"]) == {"to", "body"}
    assert invoke(t, "call_1", '{"to": "a@example.com", "body": "hi"}') == "sent to a@example.com"
    assert invoke(t, "call_2", '{"body": "hi", "to": "a@example.com"}') == "sent to a@example.com"
    assert sent == [("a@example.com", "call_1")]


def test_the_ledger_answers_are_the_tool_output(ledger: oncely.Ledger, payments: Payments) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    t = oncely_function_tool(refund, scope="acme")
    out = invoke(t, "call_1", '{"charge_id": "ch_9", "amount": 5000}')
    assert out.startswith("oncely: the tool failed, and did not happen: amount exceeds")
    assert invoke(t, "call_2", '{"charge_id": "ch_1", "amount": 500}')["refund_id"] == "re_1"
    conflict = invoke(t, "call_3", '{"charge_id": "ch_1", "amount": 700}')
    assert "already ran with different arguments" in conflict and "/amount" in conflict
    assert len(payments.refunds) == 1


def test_a_legitimate_repeat_is_a_distinct_step(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    invoke(t, "call_1", '{"charge_id": "ch_1", "amount": 500}')
    with oncely.context(step="second-installment"):
        invoke(t, "call_2", '{"charge_id": "ch_1", "amount": 500}')
        invoke(t, "call_3", '{"charge_id": "ch_1", "amount": 500}')
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]


# --- the SDK's scripted model re-asks after a timeout ---------------------------------------


def reask(tool: FunctionTool, payments: Payments) -> list[Any]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    model = ScriptedModel(
        [
            [function_call("refund", {"charge_id": "ch_1", "amount": 500}, call_id="call_1")],
            # A new call id, the arguments in another order, 500 spelled 5e2.
            [function_call("refund", '{"amount": 5e2, "charge_id": "ch_1"}', call_id="call_2")],
            [assistant_message("Refunded.")],
        ]
    )
    agent = Agent(name="support", model=model, tools=[tool])
    result = Runner.run_sync(agent, "refund $5 of ch_1", run_config=CONVERSATION)
    model.assert_complete()
    assert result.final_output == "Refunded."
    return [item.output for item in result.new_items if item.type == "tool_call_output_item"]


def test_a_model_re_asking_after_a_timeout_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    first, second = reask(refund_tool(ledger, payments, audit=records.append), payments)
    counted(f"agents re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)")
    record(**AGENTS, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    assert first.startswith("oncely: the outcome of this call is unknown")
    assert second["refund_id"] == "re_1"
    assert [(r.tool_call_id, r.outcome, r.run) for r in records] == [
        ("call_1", "InDoubtError", "conversation-7"),
        ("call_2", "reconciled", "conversation-7"),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_keyed_by_the_call_id_the_re_ask_pays_twice(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    reask(refund_tool(ledger, payments, step=lambda ctx, call_id: call_id), payments)
    counted(f"agents re-ask, step = call id: the provider paid {len(payments.refunds)} time(s)")
    assert len(payments.refunds) == 2


def test_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    @function_tool
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, None)

    outputs = reask(refund, payments)
    counted(f"agents re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**AGENTS, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2
    # The SDK's own answer to the timeout tells the model to do exactly that.
    assert "Please try again" in json.dumps(outputs[0])


# --- the SDK's tool timeout cancels an async tool: the claimed call still runs to its record ---


class ReleasingModel(ScriptedModel):
    """A ScriptedModel that, when it is asked for its second turn (after the SDK answered the
    first tool call with its timeout), lets the slow provider finish the first call."""

    def __init__(self, steps: list[Any], release: asyncio.Event) -> None:
        super().__init__(steps)
        self.release = release
        self.turns = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        self.turns += 1
        if self.turns == 2:
            self.release.set()
        return await super().get_response(*args, **kwargs)


def test_a_tool_timeout_leaves_the_claimed_call_running_and_the_re_ask_gets_its_result(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    release = asyncio.Event()
    records: list[CallRecord] = []
    cancelled: list[str] = []

    @ledger.tool(policy=REFUND_POLICY)
    async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        try:
            await release.wait()  # the provider is slow: it answers after the SDK's timeout
        except asyncio.CancelledError:
            cancelled.append(idempotency_key)
            raise
        return payments.refund(charge_id, amount, idempotency_key)

    tool = oncely_function_tool(
        refund, scope="acme", audit=records.append, tool_options={"timeout_seconds": 1.0}
    )
    model = ReleasingModel(
        [
            [function_call("refund", {"charge_id": "ch_1", "amount": 500}, call_id="call_1")],
            [function_call("refund", '{"amount": 5e2, "charge_id": "ch_1"}', call_id="call_2")],
            [assistant_message("Refunded.")],
        ],
        release,
    )
    agent = Agent(name="support", model=model, tools=[tool])

    async def main() -> Any:
        return await Runner.run(agent, "refund $5 of ch_1", run_config=CONVERSATION)

    result = asyncio.run(main())
    model.assert_complete()
    first, second = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    paid = len(payments.refunds)
    counted(f"agents tool timeout, oncely adapter: the provider paid {paid} time(s)")
    # The SDK answered the first call with its timeout; the call itself was not cancelled: it
    # ran to its result, was recorded, and the re-ask (a new call id, respelled arguments) got it.
    assert "timed out" in str(first)
    assert cancelled == []
    assert len(payments.refunds) == 1
    assert second["refund_id"] == "re_1"
    key = payments.refunds[0]["idempotency_key"]
    entry = ledger.get("acme", key)
    assert entry is not None and entry.state == oncely.EntryState.DONE
    assert [(r.tool_call_id, r.outcome) for r in records] == [("call_2", "replayed")]


# --- approval: the SDK's interruption is the ledger's one request, one decision ---------------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def approval_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> FunctionTool:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    # The conversation, named where the SDK's approval step can see it (it gets no RunConfig).
    return oncely_function_tool(refund, scope="acme", run=lambda ctx: "conversation-7", **kw)


def asking(tool: FunctionTool, charge: str, amount: int, call_id: str) -> tuple[Agent[Any], Any]:
    """An agent whose model asks for one refund, then ends; and the run's result."""
    model = ScriptedModel(
        [
            [function_call("refund", {"charge_id": charge, "amount": amount}, call_id=call_id)],
            [assistant_message("Done.")],
        ]
    )
    agent = Agent(name="support", model=model, tools=[tool])
    return agent, asyncio.run(Runner.run(agent, f"refund {charge}", run_config=CONVERSATION))


def outputs(result: Any) -> list[Any]:
    return [item.output for item in result.new_items if item.type == "tool_call_output_item"]


def test_approved_in_the_run_the_refund_is_paid_once_and_the_ledger_says_who(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    tool = approval_tool(ledger, payments)
    agent, result = asking(tool, "ch_1", 500, "call_1")
    # The run stops with the SDK's interruption; the ledger holds the one request (the inbox
    # lists it); nothing is paid.
    [item] = result.interruptions
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    assert asked.args_canonical == '{"amount":500,"charge_id":"ch_1"}' and payments.refunds == []
    state = result.to_state()
    decided = asyncio.run(approve(state, item, by="alice", note="customer verified"))
    assert decided is not None and decided.startswith("stl-")
    resumed = asyncio.run(Runner.run(agent, state, run_config=CONVERSATION))
    assert resumed.final_output == "Done." and len(payments.refunds) == 1
    entry = ledger.get("acme", asked.key)
    assert entry is not None and entry.state.value == "done"
    assert [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)][:2] == [
        ("awaiting-approval", None),
        ("approved", "alice"),
    ]
    # The same refund asked again in a new run of the conversation: replayed, nobody asked.
    _, again = asking(tool, "ch_1", 500, "call_9")
    assert again.interruptions == [] and outputs(again)[0]["refund_id"] == "re_1"
    assert len(payments.refunds) == 1
    # A small amount needs nobody.
    _, small = asking(tool, "ch_2", 50, "call_3")
    assert small.interruptions == [] and len(payments.refunds) == 2


def test_rejected_in_the_run_the_model_reads_the_denial_and_is_never_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    tool = approval_tool(ledger, payments)
    agent, result = asking(tool, "ch_7", 700, "call_1")
    [item] = result.interruptions
    state = result.to_state()
    assert asyncio.run(reject(state, item, by="bob", note="over the monthly limit"))
    resumed = asyncio.run(Runner.run(agent, state, run_config=CONVERSATION))
    [said] = outputs(resumed)
    assert "denied" in said and "over the monthly limit" in said, said
    # A new run asking the same refund: the ledger's denial, no second question, nothing paid.
    _, again = asking(tool, "ch_7", 700, "call_2")
    assert again.interruptions == []
    assert "over the monthly limit" in outputs(again)[0] and payments.refunds == []


def test_the_sdk_s_own_approve_is_recorded_and_the_inbox_s_decision_is_not_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    tool = approval_tool(ledger, payments, approved_by="support-desk")
    agent, result = asking(tool, "ch_3", 300, "call_1")
    [item] = result.interruptions
    state = result.to_state()
    state.approve(item)  # the SDK's own call, not oncely's: the tool records it before it runs
    asyncio.run(Runner.run(agent, state, run_config=CONVERSATION))
    [asked] = ledger.list("acme", tool="refund")
    history = ledger.history("acme", asked.key)
    assert ("approved", "support-desk") in [(h.state.value, h.resolved_by) for h in history]
    assert len(payments.refunds) == 1
    # A call a person approved in the inbox (oncely serve, the CLI) while no run waited: the
    # next run does not interrupt, the refund runs once.
    asking(tool, "ch_4", 400, "call_2")
    [request] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    ledger.approve("acme", request.key, by="dana", version=request.version)
    _, later = asking(tool, "ch_4", 400, "call_3")
    assert later.interruptions == [] and len(payments.refunds) == 2
