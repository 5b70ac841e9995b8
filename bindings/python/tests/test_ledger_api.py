"""The ledger's operations (heartbeat, sweep, resolve, purge, wait, list) through real stores,
sync and async, with the host's clock under the test's control."""

from __future__ import annotations

import asyncio

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
    ledger.resolve("ops", claim.key, oncely.NotHappened(), by="ops@acme", note="not in the outbox")
    entry2 = ledger.get("ops", claim.key)
    assert entry2 is not None and entry2.state is oncely.EntryState.FAILED
    assert entry2.resolved_by == "ops@acme"
    again = ledger.begin(claim)
    assert isinstance(again, oncely.Execute) and again.token.attempt == 2


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
        aio = (
            await oncely.AsyncLedger.sqlite(ledger_location)
            if not ledger_location.startswith("postgres")
            else await oncely.AsyncLedger.postgres(ledger_location)
        )
        aio.sync.clock = clock
        claim = await aio.prepare(
            scope="ops", run="r", step="s", tool="send", args={"n": 1}, policy=POLICY
        )
        o = await aio.begin(claim)
        assert isinstance(o, oncely.Execute)
        assert isinstance(await aio.heartbeat("ops", claim.key, o.token), oncely.Recorded)
        r = await aio.fail_ambiguous("ops", claim.key, o.token, "timeout")
        assert isinstance(r, oncely.Escalation)  # manual: straight to a human
        await aio.resolve("ops", claim.key, oncely.happened({"id": 1}), by="me")
        assert (await aio.get("ops", claim.key)).state is oncely.EntryState.DONE  # type: ignore[union-attr]
        settled = await aio.wait_settled("ops", claim.key, timeout=1)
        assert settled is not None and settled.result_json == '{"id":1}'
        clock.now += 10_001
        assert await aio.purge_expired() == 1
        assert await aio.list("ops") == []
        await aio.close()

    asyncio.run(main())
