"""PostgreSQL goes away in the middle of a stream of effects: a cluster of the test's own is
restarted with ``pg_ctl -m fast`` and then with ``-m immediate`` (kept down a second) while three
worker threads of this process run effects through one ledger (fresh keys, and repeats of
settled ones). What must hold:

- a call in flight fails with :class:`oncely.StorageError` that says what happened (connection
  refused, terminated, the server starting up, …), within a few seconds; or, if the tool already
  ran and its result could not be recorded, with :class:`oncely.InDoubtError`;
- nothing is executed twice (the test counts executions per key, as the provider would), and
  every effect that returned a result is ``done`` in the ledger with that result;
- an effect whose call failed is recoverable: a retry of the same intent once the server is back
  replays it, reconciles it, or (it never ran) runs it — once;
- the store is not poisoned: the process keeps running and, after each restart, every worker
  succeeds again within a bounded time (pooled connections the server dropped are replaced).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers import restart_postgres

import oncely
from oncely.store.postgres import PostgresStore

WORKERS = 3
# A claim left pending by a call that failed is taken over (in doubt, then reconciled) once its
# lease is over: short, so the retries do not wait long.
POLICY = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": {"lookup": "find_charge"},
    "leaseMs": 2000,
    "maxCallMs": 1000,
    "reconcileAfterMs": 0,
    "escalateAfterMs": 600000,
}
BACK_WITHIN = 10.0  # after a restart, every worker must have succeeded again within this
KNOWN = (
    "refused",
    "terminat",
    "shutting down",
    "starting up",
    "not yet accepting",
    "recovery",
    "closed",
    "reset",
    "lost",
    "eof",
    "end of file",
    "broken pipe",
)


@dataclass
class Call:
    worker: int
    start: float
    end: float
    failure: str | None


@dataclass
class Log:
    lock: threading.Lock = field(default_factory=threading.Lock)
    calls: list[Call] = field(default_factory=list)
    storage: list[tuple[str, float]] = field(default_factory=list)
    in_doubt: list[str] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    returned: list[tuple[dict[str, Any], str, Any]] = field(default_factory=list)
    replays: int = 0


class Provider:
    """What the "provider" saw: the result of every execution, per key."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.executions: dict[str, list[dict[str, Any]]] = {}
        self.serial = itertools.count()

    def charge(self, key: str) -> dict[str, Any]:
        with self.lock:
            value = {"charge_id": f"ch_{next(self.serial)}", "key": key}
            self.executions.setdefault(key, []).append(value)
        time.sleep(0.01)
        return value

    def find_charge(self, req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        with self.lock:
            found = self.executions.get(req.key)
        return oncely.happened(found[0]) if found else oncely.NotHappened()


def intent(w: int, n: int) -> dict[str, Any]:
    return {
        "scope": "acme",
        "run": f"run-{w}",
        "step": f"charge-{n}",
        "tool": "charge",
        "args": {"worker": w, "n": n, "cents": 100 + n},
    }


def run_once(ledger: oncely.Ledger, provider: Provider, it: dict[str, Any]) -> Any:
    return ledger.run(provider.charge, **it, policy=POLICY, wait=10.0)


def worker(
    w: int, ledger: oncely.Ledger, provider: Provider, stop: threading.Event, log: Log
) -> None:
    for n in itertools.count(1):
        if stop.is_set():
            return
        repeat = None
        if n % 4 == 0:  # every fourth call repeats an effect some worker already got a result for
            with log.lock:
                if log.returned:
                    repeat = log.returned[(n // 4) % len(log.returned)][0]
        it = repeat or intent(w, n)
        start = time.monotonic()
        failure: str | None = None
        try:
            res = run_once(ledger, provider, it)
        except oncely.StorageError as e:
            failure = str(e)
            with log.lock:
                log.storage.append((failure, time.monotonic() - start))
                log.failed.append(it)
        except oncely.InDoubtError as e:
            failure = str(e)
            with log.lock:
                log.in_doubt.append(failure)
                log.failed.append(it)
        else:
            with log.lock:
                if repeat is not None:
                    assert res.replayed, f"worker {w}: a repeat of a settled effect executed again"
                    log.replays += 1
                else:
                    log.returned.append((it, res.key, res.value))
        with log.lock:
            log.calls.append(Call(w, start, time.monotonic(), failure))
        if failure is not None:
            time.sleep(0.1)  # as a caller would, before its next call


def served_again(log: Log, back: float, until: float, what: str) -> None:
    """Once the server is back, every call succeeds (a connection it dropped is replaced, never
    handed out), and every worker has succeeded again within ``BACK_WITHIN``."""
    late = [c.failure for c in log.calls if back <= c.start and c.end <= until and c.failure]
    assert not late, f"{what}: calls started after the server was back failed: {late[:3]}"
    for w in range(WORKERS):
        ends = [c.end for c in log.calls if c.worker == w and c.start >= back and c.failure is None]
        assert ends, f"{what}: worker {w} never succeeded again after the server came back"
        assert min(ends) - back <= BACK_WITHIN, (
            f"{what}: worker {w} succeeded again only after {min(ends) - back:.1f} s"
        )


def test_pooled_connections_the_server_dropped_are_replaced(
    repo: Path, pg_own_cluster: tuple[str, Path]
) -> None:
    """Regression: after a restart, every pooled connection was dead and handed out once each,
    so the first calls after the server came back failed ("server closed the connection
    unexpectedly"), one per pooled connection."""
    url, cluster = pg_own_cluster
    store = PostgresStore(url, max_connections=4)
    try:
        barrier = threading.Barrier(4)

        def hold() -> None:  # four connections at once: four pooled afterwards
            with store._conn() as c:
                barrier.wait(10)
                c.execute("SELECT 1")

        threads = [threading.Thread(target=hold) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(store._pool) == 4
        for mode in ("fast", "immediate"):
            restart_postgres(repo, cluster, mode)
            for i in range(6):
                assert store.get("acme", f"k{i}") is None, mode  # no StorageError once back
    finally:
        store.close()


def _server_started(url: str) -> str:
    """When the server last started (a restart changes it)."""
    import psycopg

    with psycopg.connect(url) as c:
        row = c.execute("SELECT pg_postmaster_start_time()::text").fetchone()
    assert row is not None
    return str(row[0])


def test_effects_survive_postgres_restarts_fast_and_immediate(
    repo: Path, pg_own_cluster: tuple[str, Path]
) -> None:
    url, cluster = pg_own_cluster
    t0 = time.monotonic()
    provider = Provider()
    ledger = oncely.Ledger(PostgresStore(url), owner="stream")
    ledger.reconciler("charge", provider.find_charge)
    stop = threading.Event()
    log = Log()
    errors: list[BaseException] = []

    def guarded(w: int) -> None:
        try:
            worker(w, ledger, provider, stop, log)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(w,), daemon=True) for w in range(WORKERS)]
    try:
        for t in threads:
            t.start()
        time.sleep(1.5)
        started = [_server_started(url)]
        t = time.monotonic()
        restart_postgres(repo, cluster, "fast")
        started.append(_server_started(url))
        back_fast = time.monotonic()
        print(f"restart fast took {back_fast - t:.2f} s")
        time.sleep(2.5)
        t = down_immediate = time.monotonic()
        restart_postgres(repo, cluster, "immediate", 2)
        back_immediate = time.monotonic()
        started.append(_server_started(url))
        print(f"restart immediate took {back_immediate - t:.2f} s")
        time.sleep(2.5)
    finally:
        stop.set()
        for th in threads:
            th.join(60)
    assert not errors, errors
    served_again(log, back_fast, down_immediate, "after -m fast")
    served_again(log, back_immediate, time.monotonic(), "after -m immediate")

    # Retry every intent whose call failed, as its caller would, now that the server is back.
    outcomes = {"replayed": 0, "reconciled": 0, "ran": 0}
    retried: set[tuple[str, str]] = set()
    for it in log.failed:
        if (it["run"], it["step"]) in retried:
            continue
        retried.add((it["run"], it["step"]))
        deadline = time.monotonic() + 15
        while True:
            try:
                res = run_once(ledger, provider, it)
                break
            except (oncely.StorageError, oncely.InDoubtError, oncely.InProgressError) as e:
                if time.monotonic() > deadline:
                    raise
                print(f"retry of {it['step']}: {e}")
                time.sleep(0.2)
        outcomes["reconciled" if res.reconciled else "replayed" if res.replayed else "ran"] += 1
        if not any(k == res.key for _, k, _ in log.returned):
            log.returned.append((it, res.key, res.value))

    # Nothing executed twice; every result returned is the one executed, and is what the ledger
    # holds for its key, done.
    executions = dict(provider.executions)
    for key, results in executions.items():
        assert len(results) == 1, f"{key} was executed {len(results)} times"
    for it, key, value in log.returned:
        assert executions.get(key, [None])[0] == value, f"{it['step']}: not the result executed"
        entry = ledger.get("acme", key)
        assert entry is not None, it["step"]
        assert entry.state is oncely.EntryState.DONE, (it["step"], entry.state)
        assert json.loads(entry.result_json or "null") == value, it["step"]
    everything = ledger.list("acme", limit=100_000)
    assert len(everything) == len(log.returned), "every entry is one that returned"
    assert all(e.state is oncely.EntryState.DONE for e in everything)
    assert len(executions) == len(log.returned), "every execution's effect returned"

    # The server did go away twice (the test tested something): it started three times. Whether
    # a call failed depends on where each worker was; a call in its tool rides the outage out
    # (recording is retried for 7.55 s). The errors callers saw say what happened, and came
    # within a few seconds.
    assert started[0] != started[1] != started[2], f"the server was not restarted: {started}"
    print(
        f"calls that saw the outage: {len(log.storage)} storage errors, "
        f"{len(log.in_doubt)} in doubt"
    )
    for message, took in log.storage:
        assert any(k in message.lower() for k in KNOWN), (
            f"a storage error that does not say what happened: {message}"
        )
        assert took < 10, f"a call took {took:.1f} s to fail: {message}"

    kinds: dict[str, int] = {}
    for m, _ in log.storage:
        kinds[m[:110]] = kinds.get(m[:110], 0) + 1
    print(
        f"{len(log.calls)} calls ({log.replays} repeats replayed), "
        f"{len(log.returned)} effects done, {len(log.storage)} storage errors, "
        f"{len(log.in_doubt)} in doubt; retried {len(retried)}: "
        f"{outcomes}; {time.monotonic() - t0:.1f} s in all"
    )
    for k, n in kinds.items():
        print(f"  {n:>3} x {k}")
    for m in log.in_doubt:
        print(f"  {m}")
    ledger.close()
