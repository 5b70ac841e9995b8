"""oncely.adapters.smolagents against the real smolagents, driven by a scripted model
(scripted.py, no network): the tool's inputs, sync and async tools, identity (the run given:
smolagents names no conversation), the core's answers as smolagents' tool errors, a model
re-asking after a lost response (story 1), a process killed mid-tool and the conversation run
again (story 2, smolagents_crash.py), a caller's timeout and ``agent.interrupt()``, and approval
through the ledger. Each story also runs without oncely, to show what it costs."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
import stories
from compat import record
from payments import REFUND_POLICY, Payments, counted
from scripted import Turn, make_agent, observations, use
from smolagents import AgentError, CodeAgent, LogLevel, Tool, tool
from smolagents.models import ChatMessage, MessageRole, Model, get_tool_json_schema
from smolagents.utils import AgentToolExecutionError

import oncely
from oncely.adapters import CallRecord
from oncely.adapters.smolagents import OncelyAnswer, OncelyTool, SmolCall, oncely_tool

RUN = "conversation-7"

# The README's compatibility table (scripts/compat): what the stories below found.
SMOLAGENTS: dict[str, str] = {
    "framework": "smolagents",
    "package": "smolagents",
    "run": "given (run= or oncely.context): smolagents has no conversation id",
}
RESUMED = "SIGKILL, the same turn run again in a new process (nothing to resume from)"


def refund_tool(ledger: oncely.Ledger, payments: Payments, **kw: Any) -> OncelyTool:
    @ledger.tool(policy=REFUND_POLICY)
    def refund(charge_id: str, amount: float, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, int(amount), idempotency_key)

    return oncely_tool(refund, scope="acme", **{"run": RUN, **kw})


def refund_call(call_id: str, arguments: str | dict[str, Any] | None = None) -> Turn:
    return [use("refund", call_id, arguments or {"charge_id": "ch_1", "amount": 500})]


def errors(agent: Any) -> list[BaseException]:
    """The tool errors smolagents kept in the agent's steps."""
    return [s.error for s in agent.memory.steps if getattr(s, "error", None) is not None]


# --- the inputs the model sees ----------------------------------------------------------------


def test_the_inputs_are_the_tool_decorator_s_without_the_key(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments)

    @tool
    def refund(charge_id: str, amount: float) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return {}

    assert t.name == "refund" and t.guard.name == "refund"
    assert t.inputs == refund.inputs and t.output_type == refund.output_type
    assert get_tool_json_schema(t) == get_tool_json_schema(refund)
    assert "idempotency_key" not in get_tool_json_schema(t)["function"]["parameters"]["properties"]

    # Without the adapter, @tool over the oncely function asks the model for the key.
    @ledger.tool(policy=REFUND_POLICY)
    def refund2(charge_id: str, *, idempotency_key: str) -> dict[str, Any]:
        """Refund a charge.

        Args:
            charge_id: The charge to refund.
            idempotency_key: The key.
        """
        return {}

    assert "idempotency_key" in tool(refund2.fn).inputs
    renamed = oncely_tool(refund2, name="give_back", description="Give money back.")
    assert renamed.name == "give_back" and renamed.guard.name == "refund2"
    assert renamed.description == "Give money back." and set(renamed.inputs) == {"charge_id"}


# --- sync and async tools -------------------------------------------------------------------


def test_a_sync_tool_runs_once_per_intent_in_a_run(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, audit=records.append)
    agent, model = make_agent([t], [refund_call("call_1"), refund_call("call_2"), "Done."])
    assert agent.run("refund $5 of ch_1") == "Done."
    model.assert_complete()
    first, second = observations(agent)
    assert first == second and "'refund_id': 're_1'" in first
    assert len(payments.refunds) == 1
    assert [(r.tool_call_id, r.outcome) for r in records] == [
        ("call_1", "executed"),
        ("call_2", "replayed"),
    ]


def test_an_async_tool_runs_once_per_intent_on_a_loop_of_its_own(ledger: oncely.Ledger) -> None:
    sent: list[tuple[str, str]] = []

    async def send_email(to: str, body: str) -> str:
        """Send an email.

        Args:
            to: The address.
            body: What to say.
        """
        await asyncio.sleep(0)
        call = oncely.current_call()
        assert call is not None
        sent.append((to, call.key))
        return f"sent to {to}"

    t = oncely_tool(
        send_email,
        ledger=ledger,
        policy={"class": "irreversible-external", "reconcile": "manual"},
        scope="acme",
    )
    assert set(t.inputs) == {"to", "body"} and t.output_type == "string"
    turns: list[Turn] = [
        [use("send_email", "call_1", {"to": "a@example.com", "body": "hi"})],
        [use("send_email", "call_2", '{"body": "hi",   "to": "a@example.com"}')],
        "Sent.",
    ]
    agent, model = make_agent([t], turns)
    with oncely.context(run=RUN):
        agent.run("email a@example.com")
    model.assert_complete()
    assert observations(agent) == ["sent to a@example.com"] * 2
    assert len(sent) == 1

    # agent.run called from a coroutine (its thread runs a loop): a worker thread's loop.
    async def main() -> Any:
        again, _ = make_agent(
            [t], [[use("send_email", "call_3", {"to": "b@x", "body": "yo"})], "ok"]
        )
        with oncely.context(run=RUN):
            return again.run("email b@x"), observations(again)

    answer, seen = asyncio.run(main())
    assert answer == "ok" and seen == ["sent to b@x"] and len(sent) == 2


def test_a_smolagents_tool_is_wrapped_with_its_name_inputs_and_description(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    @tool
    def give_refund(charge_id: str, amount: int) -> dict[str, Any]:
        """Give a refund.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        call = oncely.current_call()
        assert call is not None
        return payments.refund(charge_id, amount, call.key)

    class Refund(Tool):  # type: ignore[misc]
        name = "class_refund"
        description = "Refund, as a Tool subclass; the key in its inputs."
        inputs = {  # noqa: RUF012
            "charge_id": {"type": "string", "description": "The charge."},
            "idempotency_key": {"type": "string", "description": "The key."},
        }
        output_type = "object"

        def forward(self, charge_id: str, idempotency_key: str) -> dict[str, Any]:
            return payments.refund(charge_id, 100, idempotency_key)

    class AsyncRefund(Tool):  # type: ignore[misc]
        name = "async_refund"
        description = "Refund, as a Tool subclass whose forward is async (@tool refuses one)."
        inputs = {"charge_id": {"type": "string", "description": "The charge."}}  # noqa: RUF012
        output_type = "object"

        async def forward(self, charge_id: str) -> dict[str, Any]:
            await asyncio.sleep(0)
            call = oncely.current_call()
            assert call is not None
            return payments.refund(charge_id, 300, call.key)

    t = oncely_tool(give_refund, ledger=ledger, policy=REFUND_POLICY, scope="acme", run=RUN)
    a = oncely_tool(AsyncRefund(), ledger=ledger, policy=REFUND_POLICY, scope="acme", run=RUN)
    c = oncely_tool(Refund(), ledger=ledger, policy=REFUND_POLICY, scope="acme", run=RUN)
    assert t.name == "give_refund" and t.inputs == give_refund.inputs
    assert t.description == "Give a refund."
    assert set(c.inputs) == {"charge_id"} and c.output_type == "object"
    turns: list[Turn] = [
        [use("give_refund", "call_1", {"charge_id": "ch_1", "amount": 500})],
        [use("give_refund", "call_2", {"amount": 500, "charge_id": "ch_1"})],
        [use("class_refund", "call_3", {"charge_id": "ch_2"})],
        [use("class_refund", "call_4", {"charge_id": "ch_2"})],
        [use("async_refund", "call_5", {"charge_id": "ch_3"})],
        [use("async_refund", "call_6", {"charge_id": "ch_3"})],
        "Done.",
    ]
    agent, _ = make_agent([t, c, a], turns)
    agent.run("refund")
    assert errors(agent) == []
    assert [r["charge_id"] for r in payments.refunds] == ["ch_1", "ch_2", "ch_3"]
    assert "'refund_id': 're_3'" in observations(agent)[-1]
    assert all(r["idempotency_key"] for r in payments.refunds)


# --- identity: the run is given ----------------------------------------------------------------


def test_the_run_is_given_and_a_new_agent_in_it_is_the_same_run(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    # run= a function of the call: the conversation the caller passed in additional_args.
    t = refund_tool(ledger, payments, run=lambda c: c.state["conversation"], audit=records.append)
    agent, _ = make_agent([t], [refund_call("call_1"), "Done."])
    agent.run("refund $5 of ch_1", additional_args={"conversation": RUN})
    # A new agent (another process, a restart) in the same conversation: the same run, replayed.
    again, _ = make_agent([t], [refund_call("call_9"), "Done."])
    again.run("refund $5 of ch_1 again", additional_args={"conversation": RUN})
    # Another conversation is another run.
    other, _ = make_agent([t], [refund_call("call_3"), "Done."])
    other.run("refund $5 of ch_1", additional_args={"conversation": "c8"})
    assert [r["refund_id"] for r in payments.refunds] == ["re_1", "re_2"]
    assert [(r.tool_call_id, r.run, r.step, r.outcome) for r in records] == [
        ("call_1", RUN, None, "executed"),
        ("call_9", RUN, None, "replayed"),
        ("call_3", "c8", None, "executed"),
    ]


def test_no_run_is_refused_with_the_core_s_sentence_unless_it_is_given(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    t = refund_tool(ledger, payments, run=None)
    agent, model = make_agent([t], [refund_call("call_1"), "Done."])
    agent.run("refund $5 of ch_1")
    [error] = errors(agent)
    # The core's sentence (agent.identify), the same for every host, as smolagents' tool error.
    assert isinstance(error, AgentToolExecutionError)
    assert isinstance(error.__cause__, oncely.IdentityError)
    assert isinstance(error.__cause__, LookupError)
    assert "needs a run: give the conversation, thread" in str(error)
    assert "needs a run: give the conversation, thread" in model.seen[1]
    assert payments.refunds == []
    # The run given: oncely.context around agent.run.
    agent, _ = make_agent([t], [refund_call("call_2"), "Done."])
    with oncely.context(run=RUN):
        agent.run("refund $5 of ch_1")
    assert errors(agent) == [] and len(payments.refunds) == 1


class CodeModel(Model):
    """A scripted model for a ``CodeAgent``: each step, the Python code it says."""

    def __init__(self, codes: list[str]) -> None:
        super().__init__(model_id="scripted-code")
        self.codes = codes
        self.asked = 0

    def generate(self, messages: list[Any], **kwargs: Any) -> ChatMessage:
        self.asked += 1
        code = self.codes[self.asked - 1]
        return ChatMessage(
            role=MessageRole.ASSISTANT, content=f"Thought: ok\n<code>\n{code}\n</code>"
        )


def test_a_code_agent_s_calls_take_the_run_from_its_state_and_read_the_answers(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    """A ``CodeAgent`` runs its code in a thread of its own (no caller's context, no agent on
    the stack): the run comes from ``run=``, here of the state the code runs with."""
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, run=lambda c: c.state["conversation"], audit=records.append)
    payments.lose_responses, payments.outage = 1, 1
    model = CodeModel(
        [
            "r = refund(charge_id='ch_1', amount=500)",
            "r = refund(amount=500.0, charge_id='ch_1')\nfinal_answer(r['refund_id'])",
        ]
    )
    agent = CodeAgent(tools=[t], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("refund $5 of ch_1", additional_args={"conversation": RUN}) == "re_1"
    [error] = errors(agent)
    assert "due to: OncelyAnswer: oncely: the outcome of this call is unknown" in str(error)
    assert len(payments.refunds) == 1
    assert [(r.tool_call_id, r.run, r.outcome) for r in records] == [
        (None, RUN, "InDoubtError"),
        (None, RUN, "reconciled"),
    ]


def test_parallel_calls_of_one_step_each_record_their_own_call_id(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    t = refund_tool(ledger, payments, audit=records.append)
    # One step, three calls: smolagents runs them in threads (copying the context).
    step: Turn = [
        use("refund", "call_a", {"charge_id": "ch_1", "amount": 100}),
        use("refund", "call_b", {"charge_id": "ch_2", "amount": 200}),
        use("refund", "call_c", {"amount": 100, "charge_id": "ch_1"}),
    ]
    agent, _ = make_agent([t], [step, "Done."])
    agent.run("refund both")
    assert sorted(r["charge_id"] for r in payments.refunds) == ["ch_1", "ch_2"]
    seen = sorted((r.tool_call_id, r.outcome) for r in records)
    assert seen[1] == ("call_b", "executed")
    assert {seen[0][1], seen[2][1]} == {"executed", "replayed"}
    assert [s[0] for s in seen] == ["call_a", "call_b", "call_c"]


def test_smol_call_outside_an_agent_knows_nothing() -> None:
    from oncely.adapters.smolagents import smol_call

    assert smol_call() == SmolCall(None, None) and smol_call().state == {}


# --- the core's answers reach the model as smolagents' tool errors -------------------------------


def test_the_core_s_answers_are_smolagents_tool_errors(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    natural = {**REFUND_POLICY, "key": {"only": ["/charge_id"], "identity": "scope"}}

    @ledger.tool(policy=natural)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        if amount > 1000:
            raise oncely.DefiniteFailure("amount exceeds the charge")
        return payments.refund(charge_id, amount, idempotency_key)

    turns: list[Turn] = [
        refund_call("call_1", {"charge_id": "ch_9", "amount": 5000}),
        refund_call("call_2"),
        refund_call("call_3", {"charge_id": "ch_1", "amount": 700}),
        "Done.",
    ]
    # A natural key (identity: scope) needs no run.
    agent, model = make_agent([oncely_tool(refund, scope="acme")], turns)
    agent.run("refund")
    failed, paid, conflict = observations(agent)
    assert "OncelyAnswer: oncely: the tool failed, and did not happen: amount exceeds" in failed
    assert "'refund_id': 're_1'" in paid
    assert (
        "OncelyAnswer: oncely: " in conflict and "already ran with different arguments" in conflict
    )
    assert "/amount" in conflict
    # What the model read next: the answer, in smolagents' error message.
    assert "oncely: the tool failed, and did not happen" in model.seen[1]
    # The step's error: smolagents' own, caused by the answer, caused by the oncely error.
    first, second = errors(agent)
    for e in (first, second):
        assert isinstance(e, AgentToolExecutionError) and isinstance(e.__cause__, OncelyAnswer)
        assert isinstance(e.__cause__.__cause__, oncely.OncelyError)
    assert first.__cause__.reply.code.value == "tool-failed"
    assert len(payments.refunds) == 1


def test_a_storage_error_is_raised_as_any_tool_s_not_answered(
    tmp_path: Path, payments: Payments
) -> None:
    broken = oncely.Ledger.sqlite(tmp_path / "other.db")
    t = refund_tool(broken, payments)
    with sqlite3.connect(tmp_path / "other.db") as db:  # the ledger's table is gone
        db.execute("ALTER TABLE oncely_effects RENAME TO gone")
    agent, _ = make_agent([t], [refund_call("call_1"), "Done."])
    agent.run("refund $5 of ch_1")
    [error] = errors(agent)
    assert isinstance(error, AgentToolExecutionError) and "oncely: " not in str(error)
    assert isinstance(error.__cause__, oncely.StorageError), repr(error.__cause__)
    assert payments.refunds == []
    broken.close()


# --- story 1: the model re-asks after a lost response ------------------------------------------


def reask(t: Tool, payments: Payments) -> tuple[list[str], str]:
    payments.lose_responses = 1  # the first refund is paid, its answer times out
    payments.outage = 1  # and the provider cannot be asked right away
    turns: list[Turn] = [
        refund_call("call_1", {"charge_id": "ch_1", "amount": 1000}),
        # A new call id, the arguments in another order, 1000 spelled 1000.0, extra whitespace.
        refund_call("call_2", '{  "amount" :1000.0,\n  "charge_id":   "ch_1" }'),
        "Refunded.",
    ]
    agent, model = make_agent([t], turns)
    with oncely.context(run=RUN):
        assert agent.run("refund $10 of ch_1") == "Refunded."
    model.assert_complete()
    return observations(agent), model.seen[1]


def test_story_1_a_model_re_asking_after_a_lost_response_pays_once(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    records: list[CallRecord] = []
    (first, second), read = reask(refund_tool(ledger, payments, audit=records.append), payments)
    counted(f"smolagents re-ask, oncely adapter: the provider paid {len(payments.refunds)} time(s)")
    record(**SMOLAGENTS, story="re-ask", paid=len(payments.refunds), bare=False)
    assert len(payments.refunds) == 1
    assert first.startswith("Error:\nError executing tool 'refund'")
    assert "OncelyAnswer: oncely: the outcome of this call is unknown" in first
    assert "will not be run again" in first and "safe" not in first.lower()
    assert "oncely: the outcome of this call is unknown" in read  # what the model read
    assert "'refund_id': 're_1'" in second
    # The call ids are recorded, not keyed: one key, two calls.
    assert [(r.tool_call_id, r.outcome, r.run, r.step) for r in records] == [
        ("call_1", "InDoubtError", RUN, None),
        ("call_2", "reconciled", RUN, None),
    ]
    assert records[0].key == records[1].key == payments.refunds[0]["idempotency_key"]


def test_story_1_keyed_by_the_tool_call_id_the_re_ask_pays_twice(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    reask(refund_tool(ledger, payments, step=lambda c, call_id: call_id), payments)
    paid = len(payments.refunds)
    counted(f"smolagents re-ask, step = tool-call id: the provider paid {paid} time(s)")
    assert paid == 2


def test_story_1_without_oncely_the_re_ask_pays_twice(payments: Payments) -> None:
    @tool
    def refund(charge_id: str, amount: float) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, int(amount), None)

    (first, _), _ = reask(refund, payments)
    counted(f"smolagents re-ask, no oncely: the provider paid {len(payments.refunds)} time(s)")
    record(**SMOLAGENTS, story="re-ask", paid=len(payments.refunds), bare=True)
    assert len(payments.refunds) == 2
    assert "TimeoutError: read timed out" in first  # nothing says it was paid


# --- story 2: killed inside the tool, the turn run again ---------------------------------------


def killed_and_resumed(work: Path, *flags: str) -> str:
    return stories.killed_and_resumed(Path(__file__).with_name("smolagents_crash.py"), work, *flags)


def test_story_2_an_agent_killed_mid_tool_and_run_again_in_its_run_pays_once(
    tmp_path: Path,
) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(
        f"smolagents killed mid-tool and run again, oncely adapter: paid {len(refunds)} time(s)"
    )
    record(**SMOLAGENTS, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out and "final answer: Refunded." in out
    # The turn run again got the first refund back (the dead worker's claim reconciled).
    assert "observation: {'refund_id': 're_1'" in out
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_story_2_without_oncely_the_turn_run_again_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"smolagents killed mid-tool and run again, no oncely: paid {len(refunds)} time(s)")
    record(**SMOLAGENTS, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- a caller's timeout, agent.interrupt(): the claimed call runs to its record -----------------


def slow_refund(
    ledger: oncely.Ledger, payments: Payments, kind: str, entered: threading.Event,
    release: threading.Event, records: list[CallRecord],
) -> OncelyTool:  # fmt: skip
    """A refund tool whose provider answers when ``release`` is set."""

    @ledger.tool("refund", policy=REFUND_POLICY)
    async def async_refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        entered.set()
        while not release.is_set():
            await asyncio.sleep(0.01)
        return payments.refund(charge_id, amount, idempotency_key)

    @ledger.tool("refund", policy=REFUND_POLICY)
    def sync_refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        entered.set()
        release.wait(30)
        return payments.refund(charge_id, amount, idempotency_key)

    guarded = async_refund if kind == "async" else sync_refund
    return oncely_tool(guarded, scope="acme", run=RUN, audit=records.append)


def done(ledger: oncely.Ledger) -> None:
    for _ in range(250):
        if ledger.list("acme", state=oncely.EntryState.DONE):
            return
        threading.Event().wait(0.02)
    raise AssertionError("the claimed call was not recorded")


def asked_again(t: OncelyTool) -> list[str]:
    """The same run, a new agent: the model asks again (a new call id, respelled)."""
    again, _ = make_agent([t], [refund_call("call_2", '{"amount": 500, "charge_id":"ch_1"}'), "ok"])
    again.run("did the refund go through?")
    return observations(again)


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_caller_s_timeout_leaves_the_claimed_call_running_and_the_re_ask_gets_its_result(
    ledger: oncely.Ledger, payments: Payments, kind: str
) -> None:
    """``asyncio.wait_for`` around ``asyncio.to_thread(agent.run, ...)`` stops waiting while
    the tool is at the provider: smolagents cannot cancel the call, which runs to its result and
    is recorded; the same run asking again gets it."""
    records: list[CallRecord] = []
    entered, release = threading.Event(), threading.Event()
    t = slow_refund(ledger, payments, kind, entered, release, records)
    agent, _ = make_agent([t], [refund_call("call_1"), "Refunded."])

    async def main() -> None:
        # asyncio.TimeoutError: TimeoutError itself from Python 3.11 on, its own class on 3.10.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.to_thread(agent.run, "refund $5 of ch_1"), 0.5)
        assert entered.is_set() and payments.refunds == []
        release.set()  # the provider answers now: the claimed call records it

    asyncio.run(main())
    done(ledger)
    [second] = asked_again(t)
    counted(
        f"smolagents caller timeout, {kind} tool: the provider paid {len(payments.refunds)} time(s)"
    )
    assert len(payments.refunds) == 1 and "'refund_id': 're_1'" in second
    assert [(r.tool_call_id, r.outcome) for r in records] == [
        ("call_1", "executed"),
        ("call_2", "replayed"),
    ]


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_agent_interrupt_stops_after_the_claimed_call_has_run_to_its_record(
    ledger: oncely.Ledger, payments: Payments, kind: str
) -> None:
    """``agent.interrupt()`` while the tool is at the provider: smolagents lets the step finish
    (the call runs once and is recorded), then stops the run ("Agent interrupted.")."""
    records: list[CallRecord] = []
    entered, release = threading.Event(), threading.Event()
    t = slow_refund(ledger, payments, kind, entered, release, records)
    agent, model = make_agent([t], [refund_call("call_1"), "Refunded."])
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(agent.run, "refund $5 of ch_1")
        assert entered.wait(10)
        agent.interrupt()
        release.set()
        with pytest.raises(AgentError, match="Agent interrupted"):
            running.result(30)
    assert model.asked == 1 and len(payments.refunds) == 1
    assert "'refund_id': 're_1'" in observations(agent)[0]
    [second] = asked_again(t)
    assert len(payments.refunds) == 1 and "'refund_id': 're_1'" in second


# --- approval: smolagents has no confirmation step; the ledger's request stands -----------------

APPROVAL_POLICY = {**REFUND_POLICY, "approval": {"when": {"/amount": {">": 100}}}}


def test_a_gated_call_meets_the_ledger_s_request_and_runs_once_when_approved(
    ledger: oncely.Ledger, payments: Payments
) -> None:
    @ledger.tool(policy=APPROVAL_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        """Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        """
        return payments.refund(charge_id, amount, idempotency_key)

    t = oncely_tool(refund, scope="acme", run=RUN)
    agent, _ = make_agent([t], [refund_call("call_1"), "Waiting."])
    agent.run("refund $5 of ch_1")
    [waiting] = observations(agent)
    assert "OncelyAnswer: oncely: " in waiting and "approv" in waiting
    assert payments.refunds == []
    [asked] = ledger.list("acme", state=oncely.EntryState.AWAITING_APPROVAL)
    ledger.approve("acme", asked.key, by="alice", version=asked.version, note="ok")
    again, _ = make_agent([t], [refund_call("call_2"), refund_call("call_3"), "Done."])
    again.run("refund $5 of ch_1")
    assert len(payments.refunds) == 1
    assert all("'refund_id': 're_1'" in o for o in observations(again))
