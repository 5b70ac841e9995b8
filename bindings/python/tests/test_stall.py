"""A worker that stalls while it holds a claim (a GC pause, a stopped VM, a slow connect), on a
SQLite file and on PostgreSQL, with two workers in two threads on separate connections and a
real clock: the twin of ``host/tests/stall.rs``. The rules (docs/reliability.md, "A stalled
worker"): a call never starts once its claim's lease has run out; a lookup's "did not happen" is
believed only once the stalled attempt can no longer be in flight (its lease's end plus
``maxCallMs``); a call longer than the lease keeps its claim by heartbeats; past the grace, a
lookup cannot see a call that lands later (the residual case, pinned as it is) unless the
provider deduplicates by the key.

A stall is modelled as a paused process would be: everything worker A does waits — its tool and
every storage operation, its heartbeats' included. Timings: lease 500 ms, maxCallMs 1,500 ms (the
grace ends 2,000 ms after the claim); worker B arrives at 700 ms.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import oncely

LEASE_MS, MAX_CALL_MS, B_AT = 500, 1_500, 0.7
INTENT = {"scope": "acme", "run": "run-1", "step": "refund-1", "tool": "refund"}
ARGS = {"charge_id": "ch_1", "amount": 500}


class Paused:
    """A store whose every operation waits while its worker is paused."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.until = 0.0
        self.after_insert = 0.0

    def pause(self, seconds: float) -> None:
        self.until = time.monotonic() + seconds

    def _wait(self) -> None:
        left = self.until - time.monotonic()
        if left > 0:
            time.sleep(left)

    def get(self, scope: str, key: str) -> Any:
        self._wait()
        return self.inner.get(scope, key)

    def insert(self, e: Any, *, claims: bool = False) -> bool:
        self._wait()
        applied = self.inner.insert(e, claims=claims)
        if self.after_insert:
            # The worker stalls right after its claim.
            self.pause(self.after_insert)
            self.after_insert = 0.0
            self._wait()
        return applied

    def update(
        self, expected_version: int, e: Any, *, history: bool = False, claims: bool = False
    ) -> bool:
        self._wait()
        return self.inner.update(expected_version, e, history=history, claims=claims)

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        self._wait()
        return self.inner.delete(scope, key, expected_version)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class Provider:
    """What the provider executed, by key; a deduplicating one executes a key once."""

    def __init__(self, dedupes: bool) -> None:
        self.dedupes = dedupes
        self.executed: list[str] = []
        self.by_key: dict[str, dict[str, str]] = {}
        self.lock = threading.Lock()

    def refund(self, key: str) -> dict[str, str]:
        with self.lock:
            if self.dedupes and key in self.by_key:
                return self.by_key[key]
            self.executed.append(key)
            r = {"refund_id": f"re_{len(self.executed)}"}
            self.by_key[key] = r
            return r


def _policy(
    reconcile: str, lease_ms: int = LEASE_MS, max_call_ms: int = MAX_CALL_MS
) -> dict[str, Any]:
    return {
        "class": "irreversible-external",
        "key": {},
        "reconcile": {"lookup": "find_refund"} if reconcile == "lookup" else "provider-idempotent",
        "leaseMs": lease_ms,
        "maxCallMs": max_call_ms,
        "reconcileAfterMs": 100,
        "escalateAfterMs": 60_000,
    }


def _worker(location: str, owner: str, provider: Provider, reconcile: str) -> oncely.Ledger:
    store = Paused(oncely.Ledger.open(location).store)
    ledger = oncely.Ledger(store, owner=owner)
    if reconcile == "lookup":
        ledger.reconciler(
            "refund",
            lambda req: (
                oncely.Happened(provider.by_key[req.key])
                if req.key in provider.by_key
                else oncely.NotHappened()
            ),
        )
    return ledger


def _race(
    location: str,
    reconcile: str,
    dedupes: bool,
    *,
    after_claim: float = 0,
    stall: float = 0,
    slow: float = 0,
    lease_ms: int = LEASE_MS,
    max_call_ms: int = MAX_CALL_MS,
    b_at: float = B_AT,
) -> Any:
    """Worker A runs the intent (stalling ``after_claim`` s after its claim, or ``stall`` s in its
    tool, or calling slowly for ``slow`` s while alive); worker B runs it at 700 ms."""
    provider = Provider(dedupes)
    a = _worker(location, "a", provider, reconcile)
    b = _worker(location, "b", provider, reconcile)
    a.store.after_insert = after_claim
    results: dict[str, Any] = {}

    def tool_a(key: str) -> dict[str, str]:
        if stall:
            a.store.pause(stall)
            time.sleep(stall)
        if slow:
            time.sleep(slow)
        return provider.refund(key)

    def run(name: str, ledger: oncely.Ledger, tool: Any) -> None:
        try:
            results[name] = ledger.run(
                tool, **INTENT, args=ARGS, policy=_policy(reconcile, lease_ms, max_call_ms), wait=10
            )
        except Exception as e:  # noqa: BLE001 - the test looks at what each worker got
            results[name] = e

    ta = threading.Thread(target=run, args=("a", a, tool_a))
    ta.start()
    time.sleep(b_at)
    run("b", b, provider.refund)
    ta.join()
    key = results["b"].key if isinstance(results["b"], oncely.EffectResult) else None
    entry = b.get("acme", key) if key else None
    return results["a"], results["b"], provider, entry


def test_a_worker_stalled_between_claim_and_call_never_calls(ledger_location: str) -> None:
    # A stalls 1,000 ms right after its claim: past its lease (500), within the grace (2,000).
    a, b, provider, entry = _race(ledger_location, "lookup", False, after_claim=1.0)
    assert len(provider.executed) == 1, "the stalled worker must not call on its expired lease"
    assert a.value == b.value
    assert entry.state is oncely.EntryState.DONE and entry.attempt >= 2


def test_a_stall_inside_the_call_within_the_grace_executes_once(ledger_location: str) -> None:
    # A passed its pre-call check, then stalls 1,100 ms: B's lookup at 700 finds nothing, which
    # is not believed before 2,000; A's call lands at 1,100, and B gets its result.
    a, b, provider, _ = _race(ledger_location, "lookup", False, stall=1.1)
    assert len(provider.executed) == 1, "a stall within the grace must not execute twice"
    assert a.value == b.value and not a.replayed and b.replayed


def test_a_stall_past_the_grace_is_the_residual_case(ledger_location: str) -> None:
    # Past the grace (4,000 ms > 2,000): B's lookup is believed and B executes; A's call lands
    # too — two executions, as documented — and A's late completion is refused loudly.
    a, b, provider, _ = _race(ledger_location, "lookup", False, stall=4.0)
    assert len(provider.executed) == 2, "the residual case, as documented"
    assert isinstance(a, oncely.LedgerError), a
    assert not b.replayed and b.reconciled


def test_provider_idempotent_fences_a_stall_of_any_length(ledger_location: str) -> None:
    a, b, provider, _ = _race(ledger_location, "provider-idempotent", True, stall=4.0)
    assert len(provider.executed) == 1, "the provider's key fences the late call"
    assert b.reconciled and a.value == b.value


def test_a_long_call_keeps_its_claim_by_heartbeats(ledger_location: str) -> None:
    # Lease 1,500 ms (a heartbeat every 500); A's call takes 2,500 ms, but A lives: heartbeats
    # keep the claim, so B, arriving at 1,800 (after the first lease's end), waits and replays.
    _, b, provider, entry = _race(
        ledger_location, "lookup", False, slow=2.5, lease_ms=1_500, max_call_ms=3_000, b_at=1.8
    )
    assert len(provider.executed) == 1
    assert b.replayed and not b.reconciled
    assert entry.attempt == 1 and entry.version >= 4, "heartbeats were written"


@pytest.mark.parametrize("mode", ["sync", "asyncio"])
def test_the_tool_gets_its_call(sqlite_path: str, mode: str) -> None:
    ledger = oncely.Ledger.open(sqlite_path)
    seen: list[Any] = []
    policy = {**_policy("lookup"), "maxCallMs": 5_000}

    def tool(key: str) -> int:
        seen.append(oncely.current_call())
        return 1

    if mode == "sync":
        ledger.run(tool, **INTENT, args=ARGS, policy=policy)
    else:
        import asyncio

        asyncio.run(ledger.aio.run(tool, **INTENT, args={"charge_id": "ch_2"}, policy=policy))
    [call] = seen
    assert call.attempt == 1 and call.key.startswith("oncely1:")
    assert 0 < call.timeout() <= 5.0
    assert oncely.current_call() is None


def test_an_async_tool_is_abandoned_at_its_deadline(sqlite_path: str) -> None:
    import asyncio

    ledger = oncely.Ledger.open(sqlite_path)
    policy = {**_policy("lookup"), "maxCallMs": 200}

    async def hangs(key: str) -> int:
        await asyncio.sleep(30)
        return 1

    started = time.monotonic()
    with pytest.raises(oncely.InDoubtError) as e:
        asyncio.run(ledger.aio.run(hangs, **INTENT, args=ARGS, policy=policy, wait=0))
    assert time.monotonic() - started < 5
    assert isinstance(e.value.__cause__, oncely.AmbiguousFailure) and "deadline" in str(
        e.value.__cause__
    )


class FailingOnce:
    """A store whose first update while ``armed`` (the first heartbeat's write) raises."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.armed = False
        self.updates = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def update(
        self, expected_version: int, e: Any, *, history: bool = False, claims: bool = False
    ) -> bool:
        if self.armed:
            self.updates += 1
            if self.updates == 1:
                raise oncely.StorageError("the database is restarting")
        return bool(self.inner.update(expected_version, e, history=history, claims=claims))


def test_heartbeats_beat_on_through_a_storage_error(sqlite_path: str) -> None:
    # Lease 300 ms: a heartbeat every 100 ms through a 1 s call. The first beat's write fails;
    # the beats go on (wit/effect.wit, call-tool) instead of leaving the claim to run out.
    store = FailingOnce(oncely.Ledger.open(sqlite_path).store)
    ledger = oncely.Ledger(store)

    def tool(key: str) -> dict[str, bool]:
        store.armed = True
        time.sleep(1.0)
        store.armed = False
        return {"ok": True}

    policy = {**_policy("lookup"), "leaseMs": 300, "maxCallMs": 3_000}
    r = ledger.run(tool, **INTENT, args=ARGS, policy=policy)
    assert r.value == {"ok": True} and not r.replayed
    assert store.updates >= 3, f"{store.updates} heartbeat writes: the beats stopped at the failure"
    entry = ledger.get(INTENT["scope"], r.key)
    assert entry is not None and entry.state is oncely.EntryState.DONE and entry.attempt == 1


def test_a_lease_shorter_than_claim_to_call_ends_the_run(ledger_location: str) -> None:
    # Every read of this worker's clock is 5 ms later than the last, so by the call's check a
    # 1 ms lease has always run out: the core claims again at most three times, then the run
    # fails (nothing called) instead of claiming forever (a CLI test once hung 17,715 attempts).
    ticks = iter(range(1_000_000_000_000, 2_000_000_000_000, 5))
    ledger = oncely.Ledger(oncely.Ledger.open(ledger_location).store, clock=lambda: next(ticks))
    called: list[str] = []
    with pytest.raises(oncely.ToolFailedError, match=r"leaseMs 1 is shorter") as raised:
        ledger.run(called.append, **INTENT, args=ARGS, policy={**_policy("lookup"), "leaseMs": 1})
    assert called == [], "a call never starts on a lease that has run out"
    assert "3 times in this run" in str(raised.value)
    key = oncely.derive_key(**INTENT, args=ARGS)
    entry = ledger.get(INTENT["scope"], key)
    assert entry is not None and entry.state is oncely.EntryState.FAILED and entry.attempt == 3
