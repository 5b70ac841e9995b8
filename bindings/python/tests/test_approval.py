"""Approval before an irreversible effect (issue 27), through real stores: one request per
intended effect whatever asks again (another worker, a process killed and started again), an
approval that holds for exactly the arguments a person saw, one that runs out and is asked
again, and two workers racing on an approved entry that pay once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import oncely

SCOPE = "acme"
ALWAYS = {"class": "irreversible-external", "key": {}, "reconcile": "provider-idempotent",
          "approval": "always"}  # fmt: skip
# Keyed by the charge alone: a call with another amount has the same key.
BY_CHARGE = {"class": "irreversible-external", "key": {"only": ["/charge_id"]},
             "reconcile": "provider-idempotent",
             "approval": {"when": {"/amount": {">": 100}}, "expiresAfterMs": 60_000}}  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def _ask(
    ledger: oncely.Ledger, args: dict[str, Any], policy: dict[str, Any], paid: list[Any]
) -> Any:
    def pay(key: str) -> dict[str, Any]:
        paid.append((key, args))
        return {"paid": args["amount"]}

    return ledger.run(pay, scope=SCOPE, run="r", tool="refund", args=args, policy=policy)


def test_an_approval_for_500_does_not_let_700_through(ledger_location: str) -> None:
    ledger = oncely.Ledger.open(ledger_location, owner="w1")
    paid: list[Any] = []
    with pytest.raises(oncely.AwaitingApprovalError) as asked:
        _ask(ledger, {"charge_id": "ch_1", "amount": 500}, BY_CHARGE, paid)
    assert asked.value.args_canonical == '{"amount":500,"charge_id":"ch_1"}'
    ledger.approve(SCOPE, asked.value.key, by="alice", version=asked.value.version)
    # The same key with 700: a conflict, not the approved call.
    with pytest.raises(oncely.ConflictError) as other:
        _ask(ledger, {"charge_id": "ch_1", "amount": 700}, BY_CHARGE, paid)
    assert other.value.pointer == "/amount"
    assert paid == []
    # The approved call runs once; asked again, it is replayed.
    assert _ask(ledger, {"charge_id": "ch_1", "amount": 500}, BY_CHARGE, paid).value == {
        "paid": 500
    }
    assert _ask(ledger, {"charge_id": "ch_1", "amount": 500}, BY_CHARGE, paid).replayed
    assert [a for _, a in paid] == [{"charge_id": "ch_1", "amount": 500}]
    # Under a key of every argument, 700 is another request, not covered by the approval of 500.
    with pytest.raises(oncely.AwaitingApprovalError) as first:
        _ask(ledger, {"charge_id": "ch_2", "amount": 500}, ALWAYS, paid)
    ledger.approve(SCOPE, first.value.key, by="alice", version=first.value.version)
    with pytest.raises(oncely.AwaitingApprovalError) as second:
        _ask(ledger, {"charge_id": "ch_2", "amount": 700}, ALWAYS, paid)
    assert second.value.key != first.value.key
    assert len(paid) == 1
    ledger.close()


def test_a_small_amount_runs_without_a_person(sqlite_path: str) -> None:
    ledger = oncely.Ledger.open(sqlite_path, owner="w1")
    paid: list[Any] = []
    assert _ask(ledger, {"charge_id": "ch_9", "amount": 50}, BY_CHARGE, paid).value == {"paid": 50}
    assert len(paid) == 1
    ledger.close()


def test_an_approval_that_ran_out_is_asked_again(sqlite_path: str) -> None:
    clock = Clock()
    ledger = oncely.Ledger.open(sqlite_path, owner="w1", clock=clock)
    paid: list[Any] = []
    args = {"charge_id": "ch_1", "amount": 500}
    with pytest.raises(oncely.AwaitingApprovalError) as asked:
        _ask(ledger, args, BY_CHARGE, paid)
    ledger.approve(SCOPE, asked.value.key, by="alice", version=asked.value.version)
    clock.now += 60_000  # the policy's expiresAfterMs
    with pytest.raises(oncely.AwaitingApprovalError) as again:
        _ask(ledger, args, BY_CHARGE, paid)
    assert again.value.key == asked.value.key and again.value.version == 3
    entry = ledger.get(SCOPE, asked.value.key)
    assert entry is not None and entry.state is oncely.EntryState.AWAITING_APPROVAL
    assert "ran out" in (entry.reason or "")
    ledger.approve(SCOPE, asked.value.key, by="bob", version=again.value.version)
    assert _ask(ledger, args, BY_CHARGE, paid).value == {"paid": 500}
    states = [r.state for r in ledger.history(SCOPE, asked.value.key)]
    assert states == [
        oncely.EntryState.AWAITING_APPROVAL,
        oncely.EntryState.APPROVED,
        oncely.EntryState.AWAITING_APPROVAL,
        oncely.EntryState.APPROVED,
        oncely.EntryState.PENDING,
        oncely.EntryState.DONE,
    ]
    ledger.close()


def test_a_denial_is_the_answer_from_then_on(ledger_location: str) -> None:
    ledger = oncely.Ledger.open(ledger_location, owner="w1")
    paid: list[Any] = []
    args = {"charge_id": "ch_1", "amount": 500}
    with pytest.raises(oncely.AwaitingApprovalError) as asked:
        _ask(ledger, args, ALWAYS, paid)
    with pytest.raises(oncely.LedgerError) as stale:
        ledger.deny(SCOPE, asked.value.key, by="bob", version=asked.value.version + 1, note="no")
    assert stale.value.kind.value == "changed"
    did = ledger.deny(
        SCOPE, asked.value.key, by="bob", version=asked.value.version, note="over limit"
    )
    for _ in range(2):
        with pytest.raises(oncely.DeniedError) as denied:
            _ask(ledger, args, ALWAYS, paid)
        assert (denied.value.by, denied.value.settlement) == ("bob", did)
        assert "over limit" in str(denied.value)
    assert paid == []
    ledger.close()


def test_two_workers_racing_on_an_approved_entry_pay_once(ledger_location: str) -> None:
    setup = oncely.Ledger.open(ledger_location, owner="setup")
    args = {"charge_id": "ch_1", "amount": 500}
    with pytest.raises(oncely.AwaitingApprovalError) as asked:
        _ask(setup, args, ALWAYS, [])
    setup.approve(SCOPE, asked.value.key, by="alice", version=asked.value.version)
    setup.close()
    paid: list[Any] = []
    results: list[Any] = []
    start = threading.Barrier(4)

    def worker(n: int) -> None:
        ledger = oncely.Ledger.open(ledger_location, owner=f"w{n}")
        start.wait()
        try:
            results.append(_ask(ledger, args, ALWAYS, paid))
        except oncely.OncelyError as e:  # a loser that saw the claim live past its wait
            results.append(e)
        finally:
            ledger.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(paid) == 1, paid
    done = [r for r in results if isinstance(r, oncely.EffectResult)]
    assert len(done) == 4, results
    assert sum(not r.replayed for r in done) == 1


ASK_THEN_DIE = """
import os, signal, sys
import oncely
ledger = oncely.Ledger.open(sys.argv[1], owner="doomed")
try:
    ledger.run(lambda key: {"paid": 500}, scope="acme", run="r", tool="refund",
               args={"charge_id": "ch_1", "amount": 500}, policy=sys.argv[2])
except oncely.AwaitingApprovalError as e:
    print(e.key, e.version, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_process_killed_while_awaiting_approval_resumes_into_the_same_request(
    ledger_location: str, tmp_path: Path
) -> None:
    import json

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    policy = json.dumps(ALWAYS)
    died = subprocess.run(
        [sys.executable, "-c", ASK_THEN_DIE, ledger_location, policy],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert died.returncode == -signal.SIGKILL, died.stderr
    key, version = died.stdout.split()
    # Started again (another process, the same intent): the same request, nothing new to decide.
    ledger = oncely.Ledger.open(ledger_location, owner="resumed")
    events: list[oncely.LedgerEvent] = []
    ledger.on_event(events.append)
    paid: list[Any] = []
    with pytest.raises(oncely.AwaitingApprovalError) as again:
        _ask(ledger, {"charge_id": "ch_1", "amount": 500}, ALWAYS, paid)
    assert (again.value.key, again.value.version) == (key, int(version))
    assert events == []  # no second request, no second notice
    history = ledger.history(SCOPE, key)
    assert [r.state for r in history] == [oncely.EntryState.AWAITING_APPROVAL]
    ledger.approve(SCOPE, key, by="alice", version=int(version))
    assert _ask(ledger, {"charge_id": "ch_1", "amount": 500}, ALWAYS, paid).value == {"paid": 500}
    assert len(paid) == 1
    ledger.close()


def test_a_caller_that_waits_gets_the_decision_made_meanwhile(ledger_location: str) -> None:
    agent = oncely.Ledger.open(ledger_location, owner="agent")
    person = oncely.Ledger.open(ledger_location, owner="inbox")
    paid: list[Any] = []
    for charge, approve in [("ch_yes", True), ("ch_no", False)]:
        args = {"charge_id": charge, "amount": 500}
        got: list[Any] = []

        def wait(args: dict[str, Any] = args, got: list[Any] = got) -> None:
            def pay(key: str) -> dict[str, Any]:
                paid.append(args)
                return {"paid": args["amount"]}

            intent = {"scope": SCOPE, "run": "r", "tool": "refund", "args": args}
            try:
                got.append(agent.run(pay, **intent, policy=ALWAYS, approval_wait=20))
            except oncely.OncelyError as e:
                got.append(e)

        waiting = threading.Thread(target=wait)
        waiting.start()
        key = person.prepare(scope=SCOPE, run="r", tool="refund", args=args, policy=ALWAYS).key
        entry = None
        while entry is None or entry.state.value != "awaiting-approval":
            threading.Event().wait(0.02)
            entry = person.get(SCOPE, key)
        if approve:
            person.approve(SCOPE, key, by="dana", version=entry.version)
        else:
            person.deny(SCOPE, key, by="dana", note="no", version=entry.version)
        waiting.join(30)
        if approve:
            assert not got[0].replayed and got[0].value == {"paid": 500}
        else:
            assert isinstance(got[0], oncely.DeniedError) and got[0].by == "dana", got
    assert paid == [{"charge_id": "ch_yes", "amount": 500}]
    # Nobody decides: the wait ends at its limit with the request.
    started = time.monotonic()
    with pytest.raises(oncely.AwaitingApprovalError):
        agent.run(
            lambda key: {"paid": True}, scope=SCOPE, run="r", tool="refund",
            args={"charge_id": "ch_later", "amount": 500}, policy=ALWAYS, approval_wait=1.5,
        )  # fmt: skip
    assert time.monotonic() - started >= 1.5
    agent.close()
    person.close()


def test_an_async_caller_waits_too(sqlite_path: str) -> None:
    agent = oncely.Ledger.open(sqlite_path, owner="agent")
    args = {"charge_id": "ch_async", "amount": 500}
    key = agent.prepare(scope=SCOPE, run="r", tool="refund", args=args, policy=ALWAYS).key

    async def decide() -> None:
        while (e := await agent.aio.get(SCOPE, key)) is None:
            await asyncio.sleep(0.02)
        await agent.aio.approve(SCOPE, key, by="dana", version=e.version)

    async def pay(key: str) -> dict[str, Any]:
        return {"paid": 500}

    async def both() -> Any:
        deciding = asyncio.create_task(decide())
        r = await agent.aio.run(
            pay, scope=SCOPE, run="r", tool="refund", args=args, policy=ALWAYS, approval_wait=20
        )
        await deciding
        return r

    r = asyncio.run(both())
    assert r.value == {"paid": 500} and not r.replayed
    agent.close()


def test_asks_approval_says_what_the_next_ask_would_meet(ledger_location: str) -> None:
    ledger = oncely.Ledger.open(ledger_location, owner="w1")
    big = {"charge_id": "ch_a", "amount": 500}
    intent: dict[str, Any] = {"scope": SCOPE, "run": "r", "tool": "refund", "policy": BY_CHARGE}
    assert ledger.asks_approval(**intent, args=big)
    assert not ledger.asks_approval(**intent, args={"charge_id": "ch_b", "amount": 50})
    with pytest.raises(oncely.AwaitingApprovalError) as asked:
        _ask(ledger, big, BY_CHARGE, [])
    assert ledger.asks_approval(**intent, args=big), "still asked"
    ledger.approve(SCOPE, asked.value.key, by="alice", version=asked.value.version)
    assert not ledger.asks_approval(**intent, args=big), "approved"
    assert not asyncio.run(ledger.aio.asks_approval(**intent, args=big))
    ledger.close()
