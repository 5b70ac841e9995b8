"""oncely.adapters.langchain against the real langchain-core and langgraph: the tool's schema,
sync and async invocation, identity from the LangGraph thread, a scripted model that re-asks
after a timeout, and the three reproductions of issue 13 (each shown failing the naive way)."""

from __future__ import annotations

import asyncio
import gc
import signal
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from compat import record
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools import tool as lc_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from payments import REFUND_POLICY, Payments, counted, register_lookup

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.langchain import OncelyTool, oncely_tool

THREAD = {"configurable": {"thread_id": "conversation-7"}}


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
LANGGRAPH: dict[str, str] = {
    "framework": "LangGraph",
    "package": "langgraph",
    "run": "the thread id (configurable.thread_id)",
}


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> OncelyTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    return oncely_tool(refund, scope="acme", **kw)


def call(id_: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": id_, "name": "refund", "args": args}


# --- the tool's schema: the model never sees the key (reproduction 1) --------------------------


def schema_has_no_key(tool: BaseTool) -> None:
    props = tool.tool_call_schema.model_json_schema()["properties"]  # type: ignore[union-attr]
    assert "idempotency_key" not in props, props
    assert set(props) == {"charge_id", "amount"}


def test_reproduction_1_the_schema_has_no_key_parameter(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    schema_has_no_key(oncely_tool(refund, scope="acme"))
    renamed = oncely_tool(refund, scope="acme", name="refund_charge")
    assert (renamed.name, renamed.guard.name) == ("refund_charge", "refund")  # ledger: its own
    # Without the adapter: LangChain's own @tool over the decorated function reads the oncely
    # tool's signature, which has no key either (it asked the model for one before); but it
    # knows no thread, so a call needs oncely.context — the adapter is the way.
    naive = lc_tool(refund)
    schema_has_no_key(naive)
    with pytest.raises(LookupError, match=r"oncely\.context"):
        naive.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)
    assert payments.refunds == []


def test_an_existing_langchain_tool_is_wrapped_and_loses_its_key_parameter(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    @lc_tool
    def refund(charge_id: str, amount: int, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    with pytest.raises(AssertionError):
        schema_has_no_key(refund)
    t = oncely_tool(refund, ledger=ledger, policy=REFUND_POLICY, scope="acme")
    schema_has_no_key(t)
    first = t.invoke(call("call_1", charge_id="ch_1", amount=500), THREAD)
    again = t.invoke(call("call_2", amount=500, charge_id="ch_1"), THREAD)
    assert isinstance(first, ToolMessage)
    assert first.content == again.content
    [paid] = payments.refunds
    # The inner tool got the ledger's key in its own key parameter.
    assert paid["idempotency_key"].startswith("oncely1:")
    assert ledger.get("acme", paid["idempotency_key"]) is not None


def test_a_tool_without_a_key_parameter_reads_the_current_call(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        call_now = oncely.current_call()
        assert call_now is not None
        return payments.refund(charge_id, amount, call_now.key)

    t = oncely_tool(refund, ledger=ledger, policy=REFUND_POLICY, scope="acme")
    schema_has_no_key(t)
    assert t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)["refund_id"] == "re_1"
    assert t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)["refund_id"] == "re_1"
    assert len(payments.refunds) == 1


# --- sync and async (reproduction 2) -----------------------------------------------------------


# The naive half reproduces the bug: the ledger's coroutine is dropped un-awaited.
@pytest.mark.filterwarnings("ignore:coroutine 'AsyncLedger.run' was never awaited")
def test_reproduction_2_ainvoke_of_an_async_tool_runs_it(ledger: oncely.Ledger) -> None:
    sent: list[str] = []

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "manual"})
    async def send_email(to: str, body: str, *, idempotency_key: str) -> str:
        """Send an email."""
        await asyncio.sleep(0)
        sent.append(to)
        return f"sent to {to}"

    t = oncely_tool(send_email, scope="acme")
    assert asyncio.run(t.ainvoke({"to": "a@example.com", "body": "hi"}, THREAD)) == (
        "sent to a@example.com"
    )
    assert sent == ["a@example.com"]
    # The same intent again, through the sync API outside a loop: replayed, not sent.
    assert t.invoke({"body": "hi", "to": "a@example.com"}, THREAD) == "sent to a@example.com"
    assert sent == ["a@example.com"]

    # Without the adapter: LangChain's @tool over the decorated async function returns an
    # un-awaited coroutine, and the email is never sent.
    naive = lc_tool(send_email)
    args = {"to": "b@example.com", "body": "hi", "idempotency_key": "k"}
    with (
        warnings.catch_warnings(record=True) as caught,
        oncely.context(scope="acme", run="r", step="s"),
    ):
        warnings.simplefilter("always")
        out = asyncio.run(naive.ainvoke(args))
        assert asyncio.iscoroutine(out)
        del out
        gc.collect()
        gc.collect()  # the ledger's coroutine inside it, too
    assert any("was never awaited" in str(w.message) for w in caught)
    assert sent == ["a@example.com"]


def test_sync_tool_under_ainvoke_and_async_tool_under_invoke(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    first = asyncio.run(t.ainvoke(call("call_1", charge_id="ch_1", amount=500), THREAD))
    assert isinstance(first, ToolMessage) and first.status == "success"
    again = t.invoke(call("call_2", charge_id="ch_1", amount=500), THREAD)
    assert again.content == first.content
    assert len(payments.refunds) == 1

    ran: list[int] = []

    @ledger.tool(policy={"class": "accumulating-write"})
    async def add_points(user: str, points: int, *, idempotency_key: str) -> int:
        """Add loyalty points."""
        ran.append(points)
        return sum(ran)

    a = oncely_tool(add_points, scope="acme")
    assert a.invoke({"user": "u1", "points": 5}, THREAD) == 5
    assert a.invoke({"user": "u1", "points": 5}, THREAD) == 5
    assert ran == [5]

    async def inside_a_loop() -> None:
        with pytest.raises(RuntimeError, match="ainvoke"):
            a.invoke({"user": "u1", "points": 6}, THREAD)

    asyncio.run(inside_a_loop())
    assert ran == [5]


# --- identity ----------------------------------------------------------------------------------


def test_run_is_the_langgraph_thread(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    other = {"configurable": {"thread_id": "conversation-8"}}
    t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)
    t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)
    assert len(payments.refunds) == 1
    t.invoke({"charge_id": "ch_1", "amount": 500}, other)  # another conversation: its own effect
    assert len(payments.refunds) == 2
    # A run given here or in oncely.context wins over the thread.
    with oncely.context(run="conversation-8"):
        t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)
    assert len(payments.refunds) == 2
    fixed = refund_tool(ledger, payments, run="conversation-7")
    fixed.invoke({"charge_id": "ch_1", "amount": 500}, other)
    assert len(payments.refunds) == 2


def test_no_run_is_an_error_that_says_where_to_give_one(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)
    # The core's sentence (agent.identify), the same for every host; a LookupError still.
    with pytest.raises(oncely.IdentityError, match="needs a run: give the conversation, thread"):
        t.invoke({"charge_id": "ch_1", "amount": 500})
    assert payments.refunds == []


def test_a_legitimate_repeat_is_a_distinct_step(ledger: oncely.Ledger, payments: Payments) -> None:
    t = refund_tool(ledger, payments)
    t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)
    with oncely.context(step="second-installment"):
        t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)
        t.invoke({"charge_id": "ch_1", "amount": 500}, THREAD)  # that step, repeated
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]


def test_the_ledger_answers_reach_the_model_as_error_tool_messages(
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
    refused = t.invoke(call("call_1", charge_id="ch_9", amount=5000), THREAD)
    assert refused.status == "error"
    assert refused.content.startswith("oncely: the tool failed, and did not happen")
    assert t.invoke(call("call_2", charge_id="ch_1", amount=500), THREAD).status == "success"
    conflict = t.invoke(call("call_3", charge_id="ch_1", amount=700), THREAD)
    assert conflict.status == "error"
    assert "already ran with different arguments" in conflict.content
    assert "/amount" in conflict.content
    assert len(payments.refunds) == 1


# --- the model re-asks after a timeout (reproduction 3) ----------------------------------------


def scripted_model() -> FakeMessagesListChatModel:
    """Calls refund; after an error, re-asks with a NEW tool-call id, the arguments in another
    order and 500 spelled 5e2; then says it is done."""
    return FakeMessagesListChatModel(
        responses=[
            AIMessage("", tool_calls=[call("call_1", charge_id="ch_1", amount=500)]),
            AIMessage("", tool_calls=[call("call_2", amount=5e2, charge_id="ch_1")]),
            AIMessage("Refunded."),
        ]
    )


def agent_graph(tool: BaseTool, model: FakeMessagesListChatModel, checkpointer: Any) -> Any:
    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([tool], handle_tool_errors=True))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    return g.compile(checkpointer=checkpointer)


def reask_scenario(tool: BaseTool, payments: Payments) -> list[ToolMessage]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    graph = agent_graph(tool, scripted_model(), InMemorySaver())
    out = graph.invoke({"messages": [("user", "refund $5 of ch_1")]}, THREAD)
    return [m for m in out["messages"] if isinstance(m, ToolMessage)]


def test_reproduction_3_a_model_re_asking_after_a_timeout_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    first, second = reask_scenario(refund_tool(ledger, payments, audit=records.append), payments)
    counted(f"langgraph re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)")
    record(**LANGGRAPH, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    assert first.status == "error" and "the outcome of this call is unknown" in first.content
    assert second.status == "success" and '"refund_id": "re_1"' in second.content
    # The tool-call ids are recorded, not keyed: one key, two calls.
    assert [(r.tool_call_id, r.outcome, r.run, r.step) for r in records] == [
        ("call_1", "InDoubtError", "conversation-7", None),
        ("call_2", "reconciled", "conversation-7", None),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_an_async_tool_in_an_async_graph_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    @ledger.tool(policy=REFUND_POLICY)
    async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        await asyncio.sleep(0)
        return payments.refund(charge_id, amount, idempotency_key)

    payments.lose_responses, payments.outage = 1, 1
    graph = agent_graph(oncely_tool(refund, scope="acme"), scripted_model(), InMemorySaver())
    out = asyncio.run(graph.ainvoke({"messages": [("user", "refund $5 of ch_1")]}, THREAD))
    first, second = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    counted(
        f"langgraph ainvoke re-ask, async tool: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 1
    assert "the outcome of this call is unknown" in first.content
    assert '"refund_id": "re_1"' in second.content


def test_a_step_timeout_leaves_the_claimed_call_running_and_the_resumed_graph_gets_it(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    """LangGraph's ``step_timeout`` cancels the tools node while an async tool is at the
    provider; the claimed call is not cancelled: it runs to its result and is recorded, and the
    graph resumed from its checkpoint gets that result without paying again."""
    cancelled: list[str] = []

    async def main() -> tuple[Any, list[ToolMessage]]:
        release = asyncio.Event()

        @ledger.tool(policy=REFUND_POLICY)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            try:
                await release.wait()  # the provider answers after the step's timeout
            except asyncio.CancelledError:
                cancelled.append(idempotency_key)
                raise
            return payments.refund(charge_id, amount, idempotency_key)

        model = FakeMessagesListChatModel(
            responses=[
                AIMessage("", tool_calls=[call("call_1", charge_id="ch_1", amount=500)]),
                AIMessage("Refunded."),
            ]
        )
        graph = agent_graph(oncely_tool(refund, scope="acme"), model, InMemorySaver())
        graph.step_timeout = 1.0
        # asyncio.TimeoutError: TimeoutError itself from Python 3.11 on, its own class on 3.10.
        with pytest.raises(asyncio.TimeoutError):
            await graph.ainvoke({"messages": [("user", "refund $5 of ch_1")]}, THREAD)
        release.set()  # the provider answers now; the resumed run finds the call in flight
        graph.step_timeout = None
        out = await graph.ainvoke(None, THREAD)
        return out, [m for m in out["messages"] if isinstance(m, ToolMessage)]

    out, messages = asyncio.run(main())
    counted(
        f"langgraph step timeout, async tool: the provider paid {len(payments.refunds)} time(s)"
    )
    assert cancelled == []
    assert len(payments.refunds) == 1
    [message] = messages
    assert message.status == "success" and '"refund_id": "re_1"' in message.content
    assert out["messages"][-1].content == "Refunded."
    entry = ledger.get("acme", payments.refunds[0]["idempotency_key"])
    assert entry is not None and entry.state == oncely.EntryState.DONE


def test_reproduction_3_keyed_by_the_tool_call_id_it_pays_twice(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    # The old advice — the model's tool-call id as the step — is what fails: a new id, a new key.
    by_call_id = refund_tool(ledger, payments, step=lambda config, call_id: call_id)
    reask_scenario(by_call_id, payments)
    counted(
        f"langgraph re-ask, step = tool-call id: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 2


def test_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    def refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, None)

    reask_scenario(StructuredTool.from_function(refund), payments)
    counted(f"langgraph re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**LANGGRAPH, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2


# --- a LangGraph run killed mid-tool, resumed from its checkpoint ------------------------------


RESUMED = "SIGKILL, resumed from its SQLite checkpoint"


def killed_and_resumed(work: Path, *flags: str) -> str:
    script = Path(__file__).with_name("langgraph_crash.py")
    first = subprocess.run(
        [sys.executable, str(script), "first", str(work), *flags],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
    resumed = subprocess.run(
        [sys.executable, str(script), "resume", str(work), *flags],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    return resumed.stdout


def test_a_graph_killed_mid_tool_and_resumed_from_its_checkpoint_pays_once(
    tmp_path: Path,
) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"langgraph killed mid-tool and resumed, oncely adapter: paid {len(refunds)} time(s)")
    record(**LANGGRAPH, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out
    assert "last message: Refunded." in out
    assert '"refund_id": "re_1"' in out  # the resumed tool call got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_without_oncely_the_resumed_graph_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"langgraph killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**LANGGRAPH, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- approval: LangGraph's interrupt() is the ledger's request, the resume its decision ---------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def approval_graph(ledger: oncely.Ledger, payments: Payments, charge: str, amount: int) -> Any:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge."""
        return payments.refund(charge_id, amount, idempotency_key)

    model = FakeMessagesListChatModel(
        responses=[
            AIMessage("", tool_calls=[call("call_1", charge_id=charge, amount=amount)]),
            AIMessage("Done."),
        ]
    )
    return agent_graph(oncely_tool(refund, scope="acme"), model, InMemorySaver())


def test_interrupted_for_approval_then_resumed_the_refund_is_paid_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    from langgraph.types import Command

    graph = approval_graph(ledger, payments, "ch_1", 500)
    out = graph.invoke({"messages": [("user", "refund ch_1")]}, THREAD)
    [stop] = out["__interrupt__"]
    assert stop.value["oncely"] == "approval" and stop.value["args"] == {
        "charge_id": "ch_1",
        "amount": 500,
    }
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    assert asked.key == stop.value["key"] and payments.refunds == []
    # The checkpoint holds the interrupt with the ledger's request (what a resume answers).
    assert graph.get_state(THREAD).interrupts[0].value["key"] == asked.key
    out = graph.invoke(Command(resume={"type": "approve", "by": "alice"}), THREAD)
    assert out["messages"][-1].content == "Done." and len(payments.refunds) == 1
    history = [(h.state.value, h.resolved_by) for h in ledger.history("acme", asked.key)]
    assert history[:2] == [("awaiting-approval", None), ("approved", "alice")]
    # A small amount needs nobody.
    small = approval_graph(ledger, payments, "ch_2", 50)
    other_thread = {"configurable": {"thread_id": "t2"}}
    out = small.invoke({"messages": [("user", "refund ch_2")]}, other_thread)
    assert "__interrupt__" not in out and len(payments.refunds) == 2


def test_rejected_on_resume_the_model_reads_the_denial_and_a_new_thread_is_not_asked_again(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    from langgraph.types import Command

    graph = approval_graph(ledger, payments, "ch_7", 700)
    graph.invoke({"messages": [("user", "refund ch_7")]}, THREAD)
    out = graph.invoke(
        Command(resume={"type": "reject", "message": "over the monthly limit", "by": "bob"}), THREAD
    )
    said = [m for m in out["messages"] if isinstance(m, ToolMessage)][-1]
    assert said.status == "error" and "over the monthly limit" in str(said.content), said
    assert payments.refunds == []
    # The same call resumed from the checkpoint again: the ledger's denial, no interrupt.
    again = approval_graph(ledger, payments, "ch_7", 700)
    out = again.invoke({"messages": [("user", "refund ch_7")]}, THREAD)
    assert "__interrupt__" not in out and payments.refunds == []


def test_a_decision_in_the_inbox_stands_over_a_later_resume(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    from langgraph.types import Command

    graph = approval_graph(ledger, payments, "ch_4", 400)
    out = graph.invoke({"messages": [("user", "refund ch_4")]}, THREAD)
    key = out["__interrupt__"][0].value["key"]
    entry = ledger.get("acme", key)
    assert entry is not None
    ledger.approve("acme", key, by="dana", version=entry.version)  # the inbox, meanwhile
    out = graph.invoke(Command(resume=False), THREAD)
    assert out["messages"][-1].content == "Done." and len(payments.refunds) == 1
    from oncely.adapters.langchain import _decision

    with pytest.raises(TypeError, match="resume an oncely approval"):
        _decision({"ok": 1}, "x", "k1")
    with pytest.raises(TypeError, match="not for k1"):
        _decision({"type": "approve", "key": "k2"}, "x", "k1")
    assert _decision({"type": "approve", "key": "k1"}, "x", "k1") == (True, "x", "")
