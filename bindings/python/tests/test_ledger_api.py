"""The ledger's operations (heartbeat, sweep, resolve, purge, wait, list) through real stores,
sync and async, with the host's clock under the test's control."""

from __future__ import annotations

import asyncio
import itertools
import re

import pytest

import oncely

POLICY = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": "manual",
    "leaseMs": 1000,
    "reconcileAfterMs": 100,
    "escalateAfterMs": 5000,
    "retentionMs": 10000,
}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now

    def sleep(self, seconds: float) -> None:
        """The core's pacing is by the ledger's clock: sleeping advances this one."""
        self.now += round(seconds * 1000)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ledger(ledger_location: str, clock: Clock) -> oncely.Ledger:
    return oncely.Ledger.open(ledger_location, owner="w1", clock=clock, sleep=clock.sleep)


def _claim(ledger: oncely.Ledger, n: int = 1, policy: dict[str, object] = POLICY) -> oncely.Claim:
    return ledger.prepare(
        scope="ops", run="r", step=f"s{n}", tool="send", args={"n": n}, policy=policy
    )


def test_heartbeat_extends_the_lease(ledger: oncely.Ledger, clock: Clock) -> None:
    claim = _claim(ledger)
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    clock.now += 900
    assert isinstance(ledger.heartbeat("ops", claim.key, o.token), oncely.Recorded)
    clock.now += 900  # past the first lease, within the extended one
    assert ledger.sweep().leases_expired == 0
    stale = oncely.ClaimToken(o.token.attempt, "someone-else")
    with pytest.raises(oncely.LedgerError) as e:
        ledger.heartbeat("ops", claim.key, stale)
    assert e.value.kind is oncely.LedgerErrorKind.STALE_TOKEN
    assert e.value.state is oncely.EntryState.PENDING


def test_sweep_escalates_manual_paths_and_a_human_settles(
    ledger: oncely.Ledger, clock: Clock
) -> None:
    claim = _claim(ledger)
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    clock.now += 2000  # lease expired, nobody completed
    report = ledger.sweep("ops")
    assert report.leases_expired == 1 and len(report.escalated) == 1
    assert claim.key in report.escalated[0]
    [entry] = ledger.list("ops", state="escalated")
    assert entry.key == claim.key
    sid = ledger.resolve("ops", claim.key, oncely.NotHappened(), by="ops@acme",
                        version=entry.version, note="not in the outbox")  # fmt: skip
    entry2 = ledger.get("ops", claim.key)
    assert entry2 is not None and entry2.state is oncely.EntryState.FAILED
    assert entry2.resolved_by == "ops@acme" and entry2.settlement == sid
    again = ledger.begin(claim)
    assert isinstance(again, oncely.Execute) and again.token.attempt == 2
    retried = ledger.get("ops", claim.key)
    assert retried is not None and retried.settlement is None  # a new attempt clears it


def _escalated(ledger: oncely.Ledger, clock: Clock) -> tuple[oncely.Claim, oncely.Entry]:
    """An entry claimed, heartbeaten once, then left by its worker: the sweep escalates it
    (manual reconciliation). Returns the claim and the entry as a person sees it."""
    claim = _claim(ledger)
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    clock.now += 100
    assert isinstance(ledger.heartbeat("ops", claim.key, o.token), oncely.Recorded)
    clock.now += 5000  # the lease is long over
    assert len(ledger.sweep("ops").escalated) == 1
    seen = ledger.get("ops", claim.key)
    assert seen is not None and seen.state is oncely.EntryState.ESCALATED
    return claim, seen


def test_a_settlement_needs_the_version_it_was_decided_on(
    ledger: oncely.Ledger, clock: Clock
) -> None:
    claim, seen = _escalated(ledger, clock)
    history = ledger.history("ops", claim.key)
    verdict = oncely.happened({"refund": "re_1"})
    # A person who looked at an earlier version is refused, and nothing is written.
    for stale in (seen.version - 1, seen.version + 1, 0):
        with pytest.raises(oncely.LedgerError) as e:
            ledger.resolve("ops", claim.key, verdict, by="ops@acme", version=stale)
        assert e.value.kind is oncely.LedgerErrorKind.CHANGED, e.value
        assert e.value.state is oncely.EntryState.ESCALATED
        assert ledger.get("ops", claim.key) == seen
        assert ledger.history("ops", claim.key) == history
    clock.now += 10
    sid = ledger.resolve(
        "ops", claim.key, verdict, by="ops@acme", version=seen.version, note="in the dashboard"
    )
    assert re.fullmatch(r"stl-[0-9a-f]{16}", sid), sid
    settled = ledger.get("ops", claim.key)
    assert settled is not None and settled.state is oncely.EntryState.DONE
    assert (settled.settlement, settled.resolved_by) == (sid, "ops@acme")
    assert settled.version == seen.version + 1
    # The same verdict sent twice (a form submitted again) is refused, as is one naming the
    # settled version: the entry is settled. Nothing is written.
    for version in (seen.version, settled.version):
        with pytest.raises(oncely.LedgerError) as e:
            ledger.resolve("ops", claim.key, verdict, by="ops@acme", version=version)
        assert e.value.kind is oncely.LedgerErrorKind.INVALID_STATE, e.value
        assert ledger.get("ops", claim.key) == settled


def test_the_history_of_an_entry(ledger: oncely.Ledger, clock: Clock) -> None:
    claim, seen = _escalated(ledger, clock)
    clock.now += 10
    sid = ledger.resolve("ops", claim.key, oncely.NotHappened(), by="ops@acme",
                         version=seen.version, note="not in the outbox")  # fmt: skip
    settled = ledger.get("ops", claim.key)
    assert settled is not None
    history = ledger.history("ops", claim.key)
    states = [(h.version, h.state.value) for h in history]
    # Oldest first: the claim (v1), no record for the heartbeat (v2), the lease over and the
    # escalation (the same sweep), then the settlement.
    assert all(isinstance(h, oncely.HistoryRecord) for h in history)
    assert states[0] == (1, "pending"), states
    assert 2 not in [v for v, _ in states], f"the heartbeat was kept: {states}"
    assert (seen.version, "escalated") in states, states
    assert all(a.version < b.version and a.at <= b.at for a, b in itertools.pairwise(history))
    first, last = history[0], history[-1]
    assert (first.attempt, first.owner, first.at) == (1, "w1", 1_000_000)
    assert (first.reconcile_attempts, first.settlement, first.resolved_by) == (0, None, None)
    assert last == oncely.HistoryRecord(
        version=settled.version, at=settled.updated_at, state=oncely.EntryState.FAILED,
        attempt=1, owner="w1", reconcile_attempts=settled.reconcile_attempts,
        reason=settled.reason, resolved_by="ops@acme", settlement=sid,
    )  # fmt: skip
    assert ledger.history("ops", "oncely1:absent") == []
    assert ledger.history("other-scope", claim.key) == []


def test_a_purge_removes_the_history(ledger: oncely.Ledger, clock: Clock) -> None:
    claim, seen = _escalated(ledger, clock)
    ledger.resolve("ops", claim.key, oncely.NotHappened(), by="ops@acme", version=seen.version)
    other = _claim(ledger, 2)
    o = ledger.begin(other)
    assert isinstance(o, oncely.Execute)
    assert ledger.history("ops", claim.key) and ledger.history("ops", other.key)
    clock.now += POLICY["retentionMs"] + 1  # type: ignore[operator]
    assert ledger.purge("ops", claim.key) == oncely.Purged()
    assert ledger.get("ops", claim.key) is None
    assert ledger.history("ops", claim.key) == []
    assert [h.version for h in ledger.history("ops", other.key)] == [1]  # the other one's kept


def test_purge_after_retention(ledger: oncely.Ledger, clock: Clock) -> None:
    for n in (1, 2):
        claim = _claim(ledger, n)
        o = ledger.begin(claim)
        assert isinstance(o, oncely.Execute)
        ledger.complete("ops", claim.key, o.token, '{"ok":true}')
    with pytest.raises(oncely.LedgerError) as e:
        ledger.purge("ops", claim.key)
    assert e.value.kind is oncely.LedgerErrorKind.RETENTION_NOT_REACHED
    assert ledger.purge_expired() == 0
    clock.now += 10_001
    assert ledger.purge_expired("other-scope") == 0
    assert ledger.purge_expired("ops") == 2
    assert ledger.list("ops") == []


def test_wait_settled(ledger: oncely.Ledger) -> None:
    claim = _claim(ledger)
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    pending = ledger.wait_settled("ops", claim.key, every=0.01, timeout=0.05)
    assert pending is not None and pending.state is oncely.EntryState.PENDING
    ledger.complete("ops", claim.key, o.token, "1")
    done = ledger.wait_settled("ops", claim.key, timeout=1)
    assert done is not None and done.state is oncely.EntryState.DONE
    assert ledger.wait_settled("ops", "oncely1:absent", timeout=1) is None


def test_list_filters_and_limits(ledger: oncely.Ledger) -> None:
    for n in range(5):
        o = ledger.begin(_claim(ledger, n))
        assert isinstance(o, oncely.Execute)
    assert len(ledger.list("ops")) == 5
    assert len(ledger.list("ops", limit=2)) == 2
    assert len(ledger.list("ops", tool="send", state=oncely.EntryState.PENDING)) == 5
    assert ledger.list("ops", tool="other") == []


def test_async_api(ledger_location: str, clock: Clock) -> None:
    async def main() -> None:
        aio = await oncely.AsyncLedger.open(ledger_location)
        aio.sync.clock = clock
        claim = await aio.prepare(
            scope="ops", run="r", step="s", tool="send", args={"n": 1}, policy=POLICY
        )
        o = await aio.begin(claim)
        assert isinstance(o, oncely.Execute)
        assert isinstance(await aio.heartbeat("ops", claim.key, o.token), oncely.Recorded)
        r = await aio.fail_ambiguous("ops", claim.key, o.token, "timeout")
        assert isinstance(r, oncely.Escalation)  # manual: straight to a human
        seen = await aio.get("ops", claim.key)
        assert seen is not None
        with pytest.raises(oncely.LedgerError) as e:
            await aio.resolve("ops", claim.key, oncely.happened({"id": 1}), by="me",
                              version=seen.version - 1)  # fmt: skip
        assert e.value.kind is oncely.LedgerErrorKind.CHANGED
        sid = await aio.resolve(
            "ops", claim.key, oncely.happened({"id": 1}), by="me", version=seen.version
        )
        done = await aio.get("ops", claim.key)
        assert done is not None and done.state is oncely.EntryState.DONE
        assert done.settlement == sid and sid.startswith("stl-")
        history = await aio.history("ops", claim.key)
        assert history[0].version == 1 and history[-1].settlement == sid
        settled = await aio.wait_settled("ops", claim.key, timeout=1)
        assert settled is not None and settled.result_json == '{"id":1}'
        clock.now += 10_001
        assert await aio.purge_expired() == 1
        assert await aio.list("ops") == []
        await aio.close()

    asyncio.run(main())


def test_a_cancelled_caller_leaves_its_claimed_call_running_to_its_record(
    ledger_location: str,
) -> None:
    """The rule of wit/effect.wit ("A caller that stops waiting"): once claimed, an async call
    runs to its result and is recorded whatever its caller does; the caller's next ask gets the
    record. Cancelled before its claim, nothing runs."""
    policy = {"class": "irreversible-external", "key": {}, "reconcile": "manual"}

    async def main() -> None:
        aio = await oncely.AsyncLedger.open(ledger_location)
        started, release = asyncio.Event(), asyncio.Event()
        calls: list[str] = []

        async def send(key: str) -> dict[str, str]:
            calls.append(key)
            started.set()
            await release.wait()
            return {"sent": key}

        intent = dict(scope="ops", run="r", step="s", tool="send", args={"n": 1}, policy=policy)
        first = asyncio.ensure_future(aio.run(send, **intent))
        await started.wait()
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        release.set()
        again = await aio.run(send, **intent)  # waits for the claimed call, then replays it
        assert again.replayed and again.value == {"sent": again.key}
        assert calls == [again.key]
        entry = await aio.get("ops", again.key)
        assert entry is not None and entry.state is oncely.EntryState.DONE

        # Cancelled before its claim (while the first storage read is on its way): nothing ran.
        other = dict(intent, step="t")
        early = asyncio.ensure_future(aio.run(send, **other))
        await asyncio.sleep(0)
        early.cancel()
        with pytest.raises(asyncio.CancelledError):
            await early
        await asyncio.sleep(0.2)
        assert len(calls) == 1
        await aio.close()

    asyncio.run(main())


def test_the_core_defaults_and_a_tool_given_no_policy(ledger: oncely.Ledger) -> None:
    d = oncely.core_defaults()
    assert (d.wait_ms, d.max_attempts, d.settle_every_ms, d.settle_timeout_ms) == (
        30_000,
        3,
        50,
        30_000,
    )
    assert (d.due_batch, d.in_doubt_after_ms, d.page_size) == (10_000, 900_000, 100)
    assert (d.provider_wait_ms, d.provider_max_body) == (0, 1 << 20)  # the provider middlewares'
    assert d.policy == oncely.parse_policy({"class": "irreversible-external"})
    assert d.policy.lease_ms == 3_000  # a crashed claim is found out within seconds
    calls: list[str] = []

    @ledger.tool()
    def send(to: str, idempotency_key: str) -> str:
        calls.append(idempotency_key)
        return f"sent to {to}"

    assert send.policy == d.policy
    ctx = {"scope": "ops", "run": "r1"}
    with oncely.context(**ctx):
        assert send(to="a") == "sent to a"
        assert send(to="a") == "sent to a"  # a repeat replays
    assert len(calls) == 1
