"""The ledger conformance scenarios (``tests/vectors/ledger.json``) driven through REAL stores —
SQLite and PostgreSQL, the Rust host's schema — with the host's driver (read, ask the core,
compare-and-swap, retry), plus races between threads and processes on one key."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers import python_worker, run
from scenarios import check_error, check_outcome, claim_for, decision_json, event

import oncely

Vectors = Callable[[str], Any]


class FakeClock:
    """The host's clock, set by the test."""

    def __init__(self, now: int = 0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def test_scenarios_through_the_store(vectors: Vectors, ledger_location: str) -> None:
    scenarios = vectors("ledger.json")["scenarios"]
    for n, original in enumerate(scenarios):
        clock = FakeClock()
        # Each scenario in its own scope: they share the database but never see each other.
        sc = {
            **original,
            "intent": {**original["intent"], "scope": f"{original['intent']['scope']}-{n}"},
        }
        ledger = oncely.Ledger.open(ledger_location, clock=clock, owner="unused")
        try:
            key = claim_for(sc, "w0").key
            scope = sc["intent"]["scope"]
            for i, step in enumerate(sc["steps"]):
                where = f"{sc['name']} step {i}"
                want = step["expect"]
                clock.now = step["now"]
                ev, claim = event(sc, step)
                if claim is not None:
                    key = claim.key
                outcome: oncely.Outcome | None = None
                try:
                    if isinstance(ev, oncely.Ask):
                        outcome = asked(ledger, sc, step)
                    else:
                        outcome = ledger.drive(scope, key, ev)
                except oncely.LedgerError as e:
                    check_error(where, e, want)
                else:
                    # A settlement's id is derived from the scope, which differs here: it is
                    # checked against the stored entry instead (test_vectors.py checks the
                    # vector's own).
                    check_outcome(where, outcome, {k: v for k, v in want.items() if k != "id"})
                entry = ledger.get(scope, key)
                state = entry.state.value if entry is not None else "absent"
                assert state == want["state"], f"{where}: stored state"
                if isinstance(outcome, oncely.Settled):
                    assert re.fullmatch(r"stl-[0-9a-f]{16}", outcome.id), where
                    assert entry is not None and entry.settlement == outcome.id, where
                if "version" in want:
                    assert entry is not None and entry.version == want["version"], where
                if "decision" in want and entry is not None:
                    got = decision_json(ledger.decision_of(entry))
                    assert got == want["decision"], f"{where}: decision-of"
        finally:
            ledger.close()


def asked(ledger: oncely.Ledger, sc: dict[str, Any], step: dict[str, Any]) -> oncely.Outcome:
    """An ``ask`` step through the public call (``Ledger.request_approval``), as the outcome
    the vectors describe: the request, ``idle`` (nothing to ask), or the denial."""
    i = sc["intent"]
    try:
        r = ledger.request_approval(
            scope=i["scope"], run=i["run"], step=i["step"], tool=i["tool"],
            args=step["event"]["ask"].get("args", i["args"]), policy=sc["policy"],
        )  # fmt: skip
    except oncely.DeniedError as e:
        return oncely.Denied(oncely.Denial(e.key, e.by, e.reason, e.settlement))
    return oncely.Idle(None) if r is None else oncely.AwaitingApproval(r)


def test_a_row_round_trips_through_the_store(ledger_location: str) -> None:
    """Every field of an entry comes back from the store as it was written."""
    ledger = oncely.Ledger.open(ledger_location, owner="w1", clock=FakeClock(1_000))
    policy = {"class": "irreversible-external", "key": {"ignore": ["/ts"]},
              "reconcile": {"lookup": "get_refund"}, "leaseMs": 100}  # fmt: skip
    claim = ledger.prepare(scope="s", run="r", step="t", tool="refund",
                           args={"a": "é", "ts": 1}, policy=policy)  # fmt: skip
    outcome = ledger.begin(claim)
    assert isinstance(outcome, oncely.Execute)
    ledger.clock = FakeClock(2_000)  # type: ignore[assignment]
    o = ledger.fail_ambiguous("s", claim.key, outcome.token, "timeout")
    assert isinstance(o, oncely.ReconcileRequest)
    assert o.path == oncely.Lookup("get_refund")
    entry = ledger.get("s", claim.key)
    assert entry is not None
    assert entry.reconcile == oncely.Lookup("get_refund")
    assert entry.state is oncely.EntryState.IN_DOUBT
    assert entry.in_doubt_since == 2_000
    assert entry.args_canonical == claim.args_canonical
    assert ledger.list("s") == [entry]
    assert ledger.list("s", state="in-doubt", tool="refund") == [entry]
    assert ledger.list("s", state="done") == []
    assert ledger.list("other") == []
    ledger.close()


def test_an_entry_records_the_run_and_step_of_its_claim(
    ledger_location: str, oncely_cli: Path
) -> None:
    """The entry keeps the run and step of the claim that holds it, for the people who settle
    it; a new attempt after a definite failure takes the new claim's, a replay for another run
    changes nothing. The Rust CLI reads them from the row Python wrote."""
    import json

    # A natural key: every run asking to refund ch_1 shares the one entry.
    policy = {"class": "irreversible-external", "reconcile": "provider-idempotent",
              "key": {"only": ["/charge_id"], "identity": "scope"}}  # fmt: skip
    ledger = oncely.Ledger.open(ledger_location, owner="w1")
    try:
        first = ledger.prepare(scope="rs", run="conversation-7", step="refund-1", tool="refund",
                               args={"charge_id": "ch_1"}, policy=policy)  # fmt: skip
        assert (first.run_id, first.step_id) == ("conversation-7", "refund-1")
        o = ledger.begin(first)
        assert isinstance(o, oncely.Execute)
        entry = ledger.get("rs", first.key)
        assert entry is not None and entry.state is oncely.EntryState.PENDING
        assert (entry.run_id, entry.step_id) == ("conversation-7", "refund-1")
        ledger.fail_definite("rs", first.key, o.token, "card declined")
        failed = ledger.get("rs", first.key)
        assert failed is not None and failed.state is oncely.EntryState.FAILED
        assert (failed.run_id, failed.step_id) == ("conversation-7", "refund-1")

        second = ledger.prepare(scope="rs", run="job-9", step="retry", tool="refund",
                                args={"charge_id": "ch_1"}, policy=policy)  # fmt: skip
        assert second.key == first.key
        o = ledger.begin(second)
        assert isinstance(o, oncely.Execute) and o.token.attempt == 2
        entry = ledger.get("rs", first.key)
        assert entry is not None and entry.attempt == 2
        assert (entry.run_id, entry.step_id) == ("job-9", "retry")
        ledger.complete("rs", first.key, o.token, '{"refund_id":"re_1"}')

        third = ledger.prepare(scope="rs", run="conversation-8", step="", tool="refund",
                               args={"charge_id": "ch_1"}, policy=policy)  # fmt: skip
        assert isinstance(ledger.begin(third), oncely.Replay)
        done = ledger.get("rs", first.key)
        assert done is not None and done.state is oncely.EntryState.DONE
        assert (done.run_id, done.step_id) == ("job-9", "retry")
        assert ledger.list("rs") == [done]
    finally:
        ledger.close()
    if ledger_location.startswith("dynamodb://"):
        return  # the Rust CLI has no DynamoDB store (docs/operations.md)
    shown = json.loads(run([str(oncely_cli), "ledger", "--db", ledger_location, "--json", "show",
                            "--scope", "rs", first.key]).stdout)  # fmt: skip
    assert (shown["run"], shown["step"]) == ("job-9", "retry")


class _CountingReads:
    """A real store whose reads are counted: the whole row (``get``) and a replay's
    (``recorded``); every other method is the store's."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reads = {"get": 0, "recorded": 0}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get(self, scope: str, key: str) -> Any:
        self.reads["get"] += 1
        return self.inner.get(scope, key)

    def recorded(self, scope: str, key: str) -> Any:
        self.reads["recorded"] += 1
        return self.inner.recorded(scope, key)

    def seen(self) -> dict[str, int]:
        seen = dict(self.reads)
        self.reads = {"get": 0, "recorded": 0}
        return seen


def test_a_replay_reads_only_what_its_rule_compares(ledger_location: str) -> None:
    """A replay reads the four columns its rule compares, never the whole row; a row that is not
    the effect's record (the same key, other arguments: a conflict) is then read whole; a fresh
    effect's one read finds nothing and its claim follows. Sync and asyncio alike."""
    store = _CountingReads(oncely.Ledger.open(ledger_location).store)
    ledger = oncely.Ledger(store, owner="w")
    policy = {
        "class": "irreversible-external",
        "key": {"only": ["/charge"]},
        "reconcile": "provider-idempotent",
    }

    def pay(args: dict[str, Any], result: str) -> Any:
        intent = {"scope": "narrow", "run": "r", "step": "s", "tool": "refund", "args": args}
        return ledger.run(lambda _key: {"id": result}, **intent, policy=policy)

    first = pay({"charge": "ch_1", "amount": 500}, "re_1")
    assert not first.replayed
    assert store.seen() == {"get": 0, "recorded": 1}, "a fresh effect: one replay read"
    again = pay({"charge": "ch_1", "amount": 500}, "re_2")
    assert again.replayed
    assert again.value == {"id": "re_1"}
    assert store.seen() == {"get": 0, "recorded": 1}, "a replay reads the four columns only"
    whole = store.inner.get("narrow", first.key)
    narrow = store.inner.recorded("narrow", first.key)
    assert narrow == (whole.state.value, whole.fingerprint, whole.tool, whole.result_json)
    assert store.inner.recorded("narrow", "no-such-key") is None
    try:
        pay({"charge": "ch_1", "amount": 700}, "re_3")
    except oncely.ConflictError:
        pass
    else:
        raise AssertionError("other arguments under the same key must be a conflict")
    assert store.seen() == {"get": 1, "recorded": 1}, "not this effect's record: the whole row"

    async def replay_async() -> Any:
        intent = {"scope": "narrow", "run": "r", "step": "s", "tool": "refund"}
        args = {"charge": "ch_1", "amount": 500}

        async def tool(_key: str) -> Any:
            return {"id": "re_4"}

        return await ledger.aio.run(tool, **intent, args=args, policy=policy)

    assert asyncio.run(replay_async()).value == {"id": "re_1"}
    assert store.seen() == {"get": 0, "recorded": 1}, "the asyncio driver reads the same"
    ledger.close()


def _race_threads(location: str, n: int) -> tuple[list[oncely.Outcome], list[str]]:
    policy = {"class": "irreversible-external", "key": {}, "reconcile": "provider-idempotent"}
    barrier = threading.Barrier(n)
    outcomes: list[oncely.Outcome] = []
    owners: list[str] = []
    lock = threading.Lock()

    def worker(i: int) -> None:
        ledger = oncely.Ledger.open(location, owner=f"t{i}")
        claim = ledger.prepare(scope="race", run="r", step="s", tool="charge",
                               args={"amount": 1}, policy=policy)  # fmt: skip
        barrier.wait()
        o = ledger.begin(claim)
        with lock:
            outcomes.append(o)
            owners.append(ledger.owner)
        ledger.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes, owners


def test_threads_racing_on_one_key_claim_it_once(ledger_location: str) -> None:
    outcomes, _ = _race_threads(ledger_location, 8)
    executes = [o for o in outcomes if isinstance(o, oncely.Execute)]
    assert len(outcomes) == 8
    assert len(executes) == 1, outcomes
    winner = executes[0].token.owner
    for o in outcomes:
        if not isinstance(o, oncely.Execute):
            assert isinstance(o, oncely.InProgress), o
            assert o.owner == winner


def test_compare_and_swap_refuses_a_stale_version(ledger_location: str) -> None:
    """Two writers computed from the same version: only the first update applies, and the
    driver re-reads and asks the core again for the second."""
    ledger = oncely.Ledger.open(ledger_location, owner="w1")
    policy = {"class": "accumulating-write"}
    claim = ledger.prepare(scope="cas", run="r", step="s", tool="append", args=[1], policy=policy)
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    entry = ledger.get("cas", claim.key)
    assert entry is not None
    store = ledger.store
    from dataclasses import replace

    done = replace(entry, version=entry.version + 1, state=oncely.EntryState.DONE, result_json="1")
    assert store.update(entry.version, done, history=True) is True
    assert store.update(entry.version, done, history=True) is False  # stale

    # The history: the insert's record, then the marked update's (`at` its `updated_at`); an
    # unmarked update (a heartbeat's kind) keeps none.
    def kept() -> list[tuple[int, int, oncely.EntryState]]:
        return [(h.version, h.at, h.state) for h in store.history("cas", claim.key)]

    both = [
        (entry.version, entry.updated_at, entry.state),
        (done.version, done.updated_at, done.state),
    ]
    assert kept() == both
    quiet = replace(done, version=done.version + 1, updated_at=done.updated_at + 5)
    assert store.update(done.version, quiet) is True
    assert kept() == both
    done = quiet
    assert store.insert(entry) is False  # present
    assert store.delete("cas", claim.key, entry.version) is False  # stale
    assert store.delete("other-scope", claim.key, done.version) is False  # scope is named
    assert store.delete("cas", claim.key, done.version) is True
    assert store.get("cas", claim.key) is None
    ledger.close()


def test_processes_racing_execute_once(ledger_location: str, tmp_path: Path) -> None:
    """Python worker PROCESSES on one ledger and one intent: the tool runs once; the others
    replay (or wait and then replay)."""
    import subprocess

    marker = tmp_path / "marker.txt"
    procs = [
        subprocess.Popen(
            python_worker(
                "exec_worker.py",
                "--db",
                ledger_location,
                "--owner",
                f"p{i}",
                "--marker",
                str(marker),
                "--sleep-ms",
                "300",
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(4)
    ]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(out)
    lines = marker.read_text().splitlines()
    assert len(lines) == 1, lines
    import json

    parsed = [json.loads(r) for r in results]
    assert sum(not r["replayed"] for r in parsed) == 1
    assert len({r["key"] for r in parsed}) == 1
    assert all(r["value"] == parsed[0]["value"] for r in parsed)
    run(python_worker("exec_worker.py", "--db", ledger_location, "--owner", "late",
                      "--marker", str(marker)))  # fmt: skip
    assert len(marker.read_text().splitlines()) == 1


def test_opening_twice_is_idempotent(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    a = oncely.Ledger.sqlite(path)
    b = oncely.Ledger.sqlite(path)
    assert a.list("x") == b.list("x") == []
    a.close()
    b.close()
