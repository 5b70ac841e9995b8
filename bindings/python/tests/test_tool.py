"""The tool decorator and ``Ledger.run``: what each outcome does for the caller."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

import oncely

REFUND = {
    "class": "irreversible-external",
    "key": {"only": ["/charge_id"], "identity": "scope"},
    "reconcile": "provider-idempotent",
}


@pytest.fixture
def ledger(ledger_location: str) -> Any:
    with oncely.Ledger.open(ledger_location, owner="w1") as ledger:
        yield ledger


class Provider:
    """A payment provider that deduplicates by idempotency key, and can be told to fail."""

    def __init__(self) -> None:
        self.effects: dict[str, dict[str, Any]] = {}
        self.calls = 0
        self.fail_next: list[BaseException] = []
        self.lose_response = 0

    def refund(self, charge_id: str, amount: int, key: str) -> dict[str, Any]:
        self.calls += 1
        if self.fail_next:
            raise self.fail_next.pop(0)
        if key not in self.effects:
            self.effects[key] = {"refund_id": f"re_{len(self.effects) + 1}", "amount": amount}
        if self.lose_response:
            self.lose_response -= 1
            raise TimeoutError("read timed out")  # the effect happened; the answer was lost
        return self.effects[key]


def test_decorated_tool_runs_once_per_intent(ledger: oncely.Ledger) -> None:
    provider = Provider()

    @ledger.tool(policy=REFUND)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        return provider.refund(charge_id, amount, idempotency_key)

    with oncely.context(scope="acme", run="run-7", step="refund-1"):
        first = refund.effect("ch_1", 500)
        again = refund.effect(charge_id="ch_1", amount=500)
        key = refund.key("ch_1", 500)
    assert not first.replayed and again.replayed
    assert first.value == again.value == provider.effects[key]
    assert first.key == again.key == key
    assert provider.calls == 1
    # identity scope + only /charge_id: another run asking for the same refund replays too.
    with oncely.context(scope="acme", run="run-8", step="other"):
        assert refund("ch_1", 500) == first.value
    assert provider.calls == 1
    # Same charge, other amount: a conflict, reported with the pointer; nothing runs.
    with (
        oncely.context(scope="acme", run="run-9", step="x"),
        pytest.raises(oncely.ConflictError) as e,
    ):
        refund("ch_1", 700)
    assert e.value.pointer == "/amount"
    assert provider.calls == 1
    # Another tenant is another effect.
    with oncely.context(scope="globex", run="run-7", step="refund-1"):
        assert refund("ch_1", 500)["refund_id"] == "re_2"
    assert provider.calls == 2


def test_the_key_is_the_cores(ledger: oncely.Ledger) -> None:
    @ledger.tool(policy=REFUND)
    def refund(charge_id: str, amount: int = 100, *, idempotency_key: str) -> str:
        return idempotency_key

    with oncely.context(scope="acme", run="r", step="s"):
        got = refund("ch_9")
    want = oncely.derive_key(scope="acme", run="r", step="s", tool="refund",
                           args={"charge_id": "ch_9", "amount": 100}, policy=REFUND)  # fmt: skip
    assert got == want
    # What a caller (or a framework reading the signature) passes: no key, the ledger gives it.
    assert list(inspect.signature(refund).parameters) == ["charge_id", "amount"]
    assert refund.__name__ == "refund"


def test_a_lost_response_is_reconciled_not_repeated(ledger: oncely.Ledger) -> None:
    """The provider did the refund but the response was lost (timeout): the ledger records
    the doubt and reconciles by asking the provider again with the SAME key."""
    provider = Provider()
    provider.lose_response = 1

    @ledger.tool(policy=REFUND)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        return provider.refund(charge_id, amount, idempotency_key)

    with oncely.context(scope="acme", run="r", step="s"):
        r = refund.effect("ch_1", 500)
    # The recall (same key) produced the result in this run: reconciled, not a replay (the
    # core's rule: replayed means no tool call of this run produced it).
    assert r.reconciled and not r.replayed
    assert len(provider.effects) == 1
    assert r.value == next(iter(provider.effects.values()))


def test_definite_failure_then_a_new_attempt(ledger: oncely.Ledger) -> None:
    provider = Provider()
    provider.fail_next = [oncely.DefiniteFailure("card declined")]

    @ledger.tool(policy=REFUND)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        return provider.refund(charge_id, amount, idempotency_key)

    with oncely.context(scope="acme", run="r", step="s"):
        with pytest.raises(oncely.ToolFailedError, match="card declined"):
            refund("ch_1", 500)
        entry = ledger.get("acme", refund.key("ch_1", 500))
        assert entry is not None and entry.state is oncely.EntryState.FAILED
        r = refund.effect("ch_1", 500)
    assert not r.replayed and r.value["refund_id"] == "re_1"
    entry = ledger.get("acme", r.key)
    assert entry is not None and entry.attempt == 2 and entry.state is oncely.EntryState.DONE


def test_definite_exception_types(ledger: oncely.Ledger) -> None:
    class Declined(Exception):
        pass

    @ledger.tool(policy=REFUND, definite=(Declined,))
    def refund(charge_id: str, *, idempotency_key: str) -> None:
        raise Declined("no")

    with oncely.context(scope="acme", run="r", step="s"), pytest.raises(oncely.ToolFailedError):
        refund("ch_1")
    with oncely.context(scope="acme", run="r", step="s"):
        entry = ledger.get("acme", refund.key("ch_1"))
    assert entry is not None and entry.state is oncely.EntryState.FAILED


def test_an_unknown_outcome_without_a_reconciler_is_never_retried(ledger: oncely.Ledger) -> None:
    calls = []
    policy = {"class": "irreversible-external", "key": {}, "reconcile": "manual"}

    @ledger.tool(policy=policy)
    def send_email(to: str, *, idempotency_key: str) -> None:
        calls.append(to)
        raise oncely.AmbiguousFailure("SMTP connection dropped after DATA")

    with oncely.context(scope="acme", run="r", step="s"):
        with pytest.raises(oncely.EscalatedError):
            send_email("a@example.com")
        with pytest.raises(oncely.EscalatedError):
            send_email("a@example.com")
        key = send_email.key("a@example.com")
    assert calls == ["a@example.com"]
    # A human settles it, on the entry as they saw it; from then on the recorded result replays.
    seen = ledger.get("acme", key)
    assert seen is not None and seen.state is oncely.EntryState.ESCALATED
    ledger.resolve("acme", key, oncely.happened({"sent": True}), by="ops@acme",
                   version=seen.version, note="in the log")  # fmt: skip
    with oncely.context(scope="acme", run="r", step="s"):
        assert send_email("a@example.com") == {"sent": True}
    assert calls == ["a@example.com"]


def test_lookup_reconciler(ledger: oncely.Ledger) -> None:
    provider = Provider()
    provider.lose_response = 1
    policy = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "get_refund"}}
    asked: list[oncely.ReconcileRequest] = []

    @ledger.tool(policy=policy)
    def refund(charge_id: str, *, idempotency_key: str) -> dict[str, Any]:
        return provider.refund(charge_id, 1, idempotency_key)

    @refund.reconciler
    def get_refund(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        asked.append(req)
        found = provider.effects.get(req.key)
        return oncely.happened(found) if found else oncely.NotHappened()

    with oncely.context(scope="acme", run="r", step="s"):
        r = refund.effect("ch_1")
    assert r.reconciled and r.value == provider.effects[r.key]
    assert provider.calls == 1
    assert [a.key for a in asked] == [r.key]
    assert json.loads(asked[0].args_canonical) == {"charge_id": "ch_1"}


def test_not_happened_allows_a_retry_up_to_max_attempts(ledger: oncely.Ledger) -> None:
    # A lookup's "did not happen" is believed once the attempt can no longer be in flight:
    # maxCallMs after the failure; the run waits that long and asks again.
    policy = {
        "class": "irreversible-external",
        "key": {},
        "reconcile": {"lookup": "check"},
        "maxCallMs": 100,
    }
    calls = []

    @ledger.tool(policy=policy, max_attempts=2)
    def flaky(x: int, *, idempotency_key: str) -> int:
        calls.append(x)
        raise ConnectionError("reset by peer")

    ledger.reconciler("flaky", lambda req: oncely.NotHappened())
    with (
        oncely.context(scope="acme", run="r", step="s"),
        pytest.raises(oncely.ToolFailedError) as e,
    ):
        flaky(1)
    assert calls == [1, 1]
    assert isinstance(e.value.__cause__, ConnectionError)


def test_still_unknown_raises_in_doubt(ledger: oncely.Ledger) -> None:
    policy = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "check"}}

    @ledger.tool(policy=policy)
    def charge(x: int, *, idempotency_key: str) -> int:
        raise TimeoutError("gateway timeout")

    ledger.reconciler("charge", lambda req: oncely.Unknown("provider unreachable"))
    with oncely.context(scope="acme", run="r", step="s"), pytest.raises(oncely.InDoubtError) as e:
        charge(1)
    assert "provider unreachable" in str(e.value)
    with oncely.context(scope="acme", run="r", step="s"):
        entry = ledger.get("acme", charge.key(1))
    assert entry is not None and entry.state is oncely.EntryState.IN_DOUBT


def test_pass_through_classes_call_the_tool_every_time(ledger: oncely.Ledger) -> None:
    calls = []

    @ledger.tool(policy={"class": "read-only"})
    def lookup(q: str, *, idempotency_key: str) -> str:
        calls.append(q)
        return q.upper()

    with oncely.context(scope="acme", run="r", step="s"):
        assert lookup("a") == "A"
        assert lookup("a") == "A"
    assert calls == ["a", "a"]
    assert ledger.list("acme") == []


def test_replay_returns_the_json_round_trip_and_unserialisable_results_warn(
    ledger: oncely.Ledger,
) -> None:
    @ledger.tool(policy={"class": "accumulating-write"})
    def pair(x: int, *, idempotency_key: str) -> tuple[int, int]:
        return (x, x)

    with oncely.context(scope="acme", run="r", step="s"):
        assert pair(1) == (1, 1)
        assert pair(1) == [1, 1]  # a replay is the recorded JSON, decoded

    @dataclasses.dataclass
    class Receipt:
        n: int

    @ledger.tool(policy={"class": "accumulating-write"})
    def receipt(x: int, *, idempotency_key: str) -> Receipt:
        return Receipt(x)

    with oncely.context(scope="acme", run="r", step="s"):
        # The core records it done without a result: this call and every repeat raise, and
        # the tool is never called again.
        with pytest.raises(oncely.ResultNotRecordedError):
            receipt(2)
        with pytest.raises(oncely.ResultNotRecordedError):
            receipt(2)

    @ledger.tool(
        policy={"class": "accumulating-write"},
        encode=lambda r: json.dumps(dataclasses.asdict(r)),
        decode=lambda t: Receipt(**json.loads(t)),
    )
    def receipt2(x: int, *, idempotency_key: str) -> Receipt:
        return Receipt(x)

    with oncely.context(scope="acme", run="r", step="s"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert receipt2(3) == Receipt(3)
        assert receipt2(3) == Receipt(3)


def test_without_a_step_the_same_arguments_in_a_run_are_one_effect(ledger: oncely.Ledger) -> None:
    calls: list[str] = []
    policy = {"class": "irreversible-external", "reconcile": "manual"}

    @ledger.tool(policy=policy)
    def refund(charge_id: str, amount: float, *, idempotency_key: str) -> str:
        calls.append(idempotency_key)
        return f"re_{len(calls)}"

    with oncely.context(scope="acme", run="conversation-7"):
        first = refund.effect("ch_1", 500)
        # The model re-asks: another order, 500 spelled 5e2 — the same intent.
        again = refund.effect(amount=5e2, charge_id="ch_1")
        with oncely.context(step="second-installment"):  # a repeat meant as a new effect
            second = refund.effect("ch_1", 500)
            assert refund.effect("ch_1", 500).replayed
    assert (first.value, again.value, again.replayed, second.value) == (
        "re_1",
        "re_1",
        True,
        "re_2",
    )
    assert len(calls) == 2
    # Keyed by run: the key any host derives for identity "run" (the step does not count).
    run_policy = {**policy, "key": {"identity": "run"}}
    args = {"charge_id": "ch_1", "amount": 500}
    assert first.key == oncely.derive_key(
        scope="acme", run="conversation-7", step="x", tool="refund", args=args, policy=run_policy
    )
    assert second.key == oncely.derive_key(
        scope="acme", run="conversation-7", step="second-installment", tool="refund", args=args,
        policy=policy,
    )  # fmt: skip


def test_the_context_is_required_and_nests(ledger: oncely.Ledger) -> None:
    @ledger.tool(policy={"class": "accumulating-write"})
    def add(x: int, *, idempotency_key: str) -> int:
        return x

    # The core identifies the call (agent.identify): with no run it is refused, with a typed
    # error that is still a LookupError, naming oncely.context(run=...).
    with pytest.raises(oncely.IdentityError, match=r"oncely\.context\(run=") as refused:
        add(1)
    assert isinstance(refused.value, LookupError)
    assert (refused.value.kind, refused.value.at) == (oncely.IdentityErrorKind.NO_RUN, None)
    # A missing scope was refused (LookupError) before the core's rule; now it is "default".
    with oncely.context(run="r"):
        assert add.key(1) == oncely.derive_key(
            scope="default", run="r", tool="add", args={"x": 1},
            policy={"class": "accumulating-write"},
        )  # fmt: skip
    with oncely.context(scope="acme", run="r"):
        with oncely.context(step="s1"):
            k1 = add.key(1)
            assert oncely.current_context() == {"scope": "acme", "run": "r", "step": "s1"}
        with oncely.context(step="s2"):
            k2 = add.key(1)
    assert k1 != k2
    with pytest.raises(TypeError, match="idempotency_key"):

        @ledger.tool(policy={"class": "accumulating-write"})
        def no_key(x: int) -> int:
            return x


def test_threads_calling_one_tool_execute_once(ledger: oncely.Ledger, tmp_path: Path) -> None:
    calls = []
    gate = threading.Barrier(6)

    @ledger.tool(policy=REFUND)
    def refund(charge_id: str, *, idempotency_key: str) -> str:
        calls.append(idempotency_key)
        return "ok"

    results = []

    def worker() -> None:
        gate.wait()
        with oncely.context(scope="acme", run="r", step="s"):
            results.append(refund.effect("ch_1"))

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(results) == 6 and sum(not r.replayed for r in results) == 1


def test_async_tools_and_async_ledger(ledger: oncely.Ledger) -> None:
    calls = []

    @ledger.tool(policy=REFUND)
    async def refund(charge_id: str, *, idempotency_key: str) -> dict[str, str]:
        calls.append(charge_id)
        await asyncio.sleep(0.05)
        return {"id": charge_id}

    async def main() -> list[Any]:
        with oncely.context(scope="acme", run="r", step="s"):
            return await asyncio.gather(*[refund("ch_1") for _ in range(5)])

    assert asyncio.run(main()) == [{"id": "ch_1"}] * 5
    assert calls == ["ch_1"]

    async def sweep_and_list() -> tuple[oncely.SweepReport, list[oncely.Entry]]:
        aio = ledger.aio
        return await aio.sweep(), await aio.list("acme")

    report, entries = asyncio.run(sweep_and_list())
    assert report.examined == 0 and len(entries) == 1


def test_async_run_with_async_reconciler(ledger: oncely.Ledger) -> None:
    policy = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "check"}}
    done: dict[str, str] = {}

    async def tool(key: str) -> str:
        done[key] = "charged"
        raise TimeoutError("lost")

    async def check(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        await asyncio.sleep(0)
        return oncely.happened(done[req.key]) if req.key in done else oncely.NotHappened()

    ledger.reconciler("charge", check)

    async def main() -> oncely.EffectResult[str]:
        return await ledger.aio.run(tool, scope="acme", run="r", step="s", tool="charge",
                                    args={"n": 1}, policy=policy)  # fmt: skip

    r = asyncio.run(main())
    assert r.value == "charged" and r.reconciled
