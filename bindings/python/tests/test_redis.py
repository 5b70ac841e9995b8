"""What only the Redis store has (the rest of its contract is the conformance suite every store
passes, ``test_ledger_conformance.py`` and the tests on ``ledger_location``): the Rust host's key
layout and bytes, the server's persistence read at open, a claim that waits for replicas
(``?wait_replicas=N``, ``WAIT``) and fails when they do not acknowledge, scripts loaded again
after the server forgot them, ``rediss://`` with an authority of its own, and a three-master
cluster with replicas (``tests/redis/cluster.sh``): every key of a scope in one slot, and the
reads across scopes.

Tests that change a server's configuration or need replicas start servers of their own
(``tests/redis/start.sh``, stopped when this process exits). Without redis-server they are
skipped loudly, except under ``CI`` or ``ONCELY_REQUIRE_REDIS`` where they fail.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from helpers import run, start_server

import oncely
from oncely.store import ListFilter

POLICY = {"class": "irreversible-external", "key": {}, "reconcile": "manual"}


def _start(repo: Path, *args: str, script: str = "start.sh") -> str:
    """A server (or cluster) of this test process's own, or a loud skip (a failure where Redis
    is required)."""
    return start_server("Redis", "ONCELY_REQUIRE_REDIS", repo / "tests" / "redis" / script, *args)


def _port(url: str) -> int:
    return int(url.partition("?")[0].rsplit(":", 1)[1].strip("/"))


def _refund(ledger: oncely.Ledger, scope: str, n: int, calls: list[int] | None = None) -> Any:
    def tool(_key: str) -> dict[str, int]:
        if calls is not None:
            calls.append(n)
        return {"refund": n}

    return ledger.run(tool, scope=scope, run="r", step=f"s{n}", tool="refund",
                      args={"charge": f"ch_{n}"}, policy=POLICY)  # fmt: skip


def test_the_layout_is_the_rust_hosts(redis_url: str) -> None:
    """The keys, the hash's fields, the row's JSON (the SQL columns' names, in the Rust host's
    order, no spaces), the history records, the indexes and the scope set: what
    host/src/store/redis.rs and docs/operations.md describe."""
    prefix = redis_url.split("prefix=")[1]
    scope = "a}b{c%"  # its tag: a%7Db{c%25
    with oncely.Ledger.open(redis_url, owner="w1") as ledger:
        key = _refund(ledger, scope, 1).key
        entry = ledger.get(scope, key)
    assert entry is not None and entry.state is oncely.EntryState.DONE
    r = redis.Redis.from_url(redis_url.partition("?")[0], decode_responses=True)
    tag = "a%7Db{c%25"
    base = f"{prefix}:{{{tag}}}"
    got = r.hgetall(f"{base}:e:{key}")
    assert set(got) == {"row", "v", "s", "t", "f", "r"}
    assert (got["v"], got["s"], got["t"], got["f"]) == (
        str(entry.version), "done", "refund", entry.fingerprint,
    )  # fmt: skip
    assert json.loads(got["r"]) == {"refund": 1}
    row = json.loads(got["row"])
    assert list(row)[:6] == ["scope", "key", "tool", "fingerprint", "args_canonical", "state"]
    assert list(row)[-3:] == ["settlement", "run_id", "step_id"]
    assert ", " not in got["row"] and ": " not in got["row"]
    assert (row["scope"], row["state"], row["reconcile_kind"]) == (scope, "done", "manual")
    history = [json.loads(h) for h in r.lrange(f"{base}:h:{key}", 0, -1)]
    assert [h[2] for h in history] == ["pending", "done"]
    assert [h[0] for h in history] == [1, entry.version]
    assert r.hgetall(f"{base}:n") == {"pending": "0", "done": "1"}
    assert r.zscore(f"{base}:upd", key) == entry.updated_at
    assert r.zscore(f"{base}:due", key) == entry.due_at
    assert r.smembers(f"{prefix}:scopes") == {scope}
    r.close()


def test_the_servers_persistence_is_read_at_open_and_said(
    repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = _start(repo)
    # tests/redis/start.sh: an append-only file, fsync'd once a second (Redis's default).
    with caplog.at_level("INFO", logger="oncely"), oncely.Ledger.open(url) as ledger:
        d = ledger.store.durability
    assert (d.appendonly, d.appendfsync, d.wait_replicas, d.cluster) == (
        "yes", "everysec", 0, False,
    )  # fmt: skip
    assert not d.claims_survive_a_crash()
    said = [r for r in caplog.records if "redis ledger at" in r.getMessage()]
    assert [r.levelname for r in said] == ["WARNING"]
    assert "power loss or kernel crash may lose the last second" in said[0].getMessage()

    r = redis.Redis.from_url(url)
    r.config_set("appendfsync", "always")
    r.close()
    caplog.clear()
    with caplog.at_level("INFO", logger="oncely"), oncely.Ledger.open(url) as ledger:
        d = ledger.store.durability
    assert d.appendfsync == "always" and d.claims_survive_a_crash()
    said = [r for r in caplog.records if "redis ledger at" in r.getMessage()]
    assert [r.levelname for r in said] == ["INFO"]
    assert "survives a crash or power loss" in said[0].getMessage()


def test_bad_options_are_refused_by_name() -> None:
    for bad in ("wait_replicas=x", "wait_timeout_ms=-1", "prefix={x}", "prefix="):
        with pytest.raises(ValueError, match=bad.split("=")[0]):
            oncely.Ledger.open(f"redis://127.0.0.1:1/0?{bad}")


def test_an_unreachable_server_is_a_storage_error() -> None:
    with pytest.raises(oncely.StorageError, match=r"127\.0\.0\.1:1"):
        oncely.Ledger.open("redis://u:secret@127.0.0.1:1/0")


def test_a_claim_waits_for_the_replicas_it_asks_for(repo: Path) -> None:
    primary = _start(repo)
    calls: list[int] = []
    # No replica required: a claim returns at once.
    with oncely.Ledger.open(f"{primary}?prefix=w0&wait_replicas=0") as ledger:
        _refund(ledger, "acme", 1, calls)
    assert calls == [1]

    # One required, none there: the claim fails as a storage failure, the tool is not called.
    one = f"{primary}?prefix=w1&wait_replicas=1&wait_timeout_ms=800"
    with oncely.Ledger.open(one) as ledger:
        started = time.monotonic()
        with pytest.raises(oncely.StorageError, match="0 of 1 replica"):
            _refund(ledger, "acme", 2, calls)
        assert time.monotonic() - started >= 0.8
        assert calls == [1], "the tool was called on an unreplicated claim"
        # The claim was written on the primary: it is held (pending).
        held = ledger.store.list("acme", ListFilter(None, None, 10))
        assert [e.state for e in held] == [oncely.EntryState.PENDING]

    # With a replica in sync the same option lets claims through, and the replica has them.
    replica = _start(repo, "--replica-of", str(_port(primary)))
    with oncely.Ledger.open(one) as ledger:
        key = _refund(ledger, "acme", 3, calls).key
        # The server forgot the scripts: loaded again, on the claim's own connection too.
        r = redis.Redis.from_url(primary)
        r.script_flush()
        r.close()
        _refund(ledger, "acme", 4, calls)
    assert calls == [1, 3, 4]
    r = redis.Redis.from_url(replica, decode_responses=True)
    for _ in range(100):  # the end (not a claim) is not waited for
        if r.hget(f"w1:{{acme}}:e:{key}", "s") == "done":
            break
        time.sleep(0.02)
    assert r.hget(f"w1:{{acme}}:e:{key}", "s") == "done", "the replica holds the claim and end"
    r.close()


def test_scripts_are_loaded_again_when_the_server_forgot_them(redis_url: str) -> None:
    with oncely.Ledger.open(redis_url) as ledger:
        _refund(ledger, "acme", 1)
        r = redis.Redis.from_url(redis_url.partition("?")[0])
        r.script_flush()
        r.close()
        again = _refund(ledger, "acme", 1)
        assert again.replayed
        assert _refund(ledger, "acme", 2).replayed is False


def test_a_tls_server_is_reached_by_rediss_and_its_authority(repo: Path) -> None:
    url = _start(repo, "--tls")
    assert url.startswith("rediss://") and "?tls_ca=" in url, url
    with oncely.Ledger.open(f"{url}&prefix=tls") as ledger:
        first = _refund(ledger, "acme", 1)
        assert _refund(ledger, "acme", 1).replayed
        entry = ledger.get("acme", first.key)
        assert entry is not None and entry.state is oncely.EntryState.DONE
    # Without the authority, the system's roots do not know the test's: refused.
    with pytest.raises(oncely.StorageError):
        oncely.Ledger.open(url.partition("?")[0])


@pytest.fixture(scope="module")
def redis_cluster(repo: Path) -> str:
    """A three-master cluster with a replica each, of this module's own."""
    return _start(repo, script="cluster.sh")


def test_a_three_master_cluster_keeps_each_scope_in_one_slot(redis_cluster: str) -> None:
    url = redis_cluster
    short = {**POLICY, "leaseMs": 1}
    # Every claim waits for its master's replica.
    ledger = oncely.Ledger.open(f"{url}?wait_replicas=1&wait_timeout_ms=2000&prefix=py")
    try:
        assert ledger.store.durability.cluster
        scopes = [f"tenant-{i}" for i in range(24)]
        keys = []
        for i, scope in enumerate(scopes):
            keys.append(_refund(ledger, scope, i).key)
            # And one claim left held: its worker died.
            claim = ledger.prepare(scope=scope, run="r", step=f"s{1000 + i}", tool="refund",
                                   args={"charge": f"ch_{1000 + i}"}, policy=short)  # fmt: skip
            assert isinstance(ledger.begin(claim), oncely.Execute)
        node = redis.Redis.from_url(url)
        slots = set()
        for scope, key in zip(scopes, keys, strict=True):
            names = [f"e:{key}", f"h:{key}", "due", "upd", "n", "ap:refund"]
            s = {node.cluster("KEYSLOT", f"py:{{{scope}}}:{n}") for n in names}
            assert len(s) == 1, (scope, s)
            slots |= s
        node.close()
        assert len(slots) > 3, slots
        # Reads across scopes gather every scope.
        everything = ledger.store.list(None, ListFilter(None, None, 1000))
        assert len(everything) == 48
        time.sleep(0.005)
        due = ledger.store.due(None, ledger.now(), 1000)
        assert sum(e.state is oncely.EntryState.PENDING for e in due) == 24
        report = ledger.sweep()
        assert report.leases_expired == 24, report
        states = [e.state for e in ledger.store.list(None, ListFilter(None, None, 1000))]
        assert states.count(oncely.EntryState.DONE) == 24
        assert states.count(oncely.EntryState.ESCALATED) == 24
    finally:
        ledger.close()


def test_a_row_the_rust_host_wrote_is_the_bytes_python_writes(
    oncely_test_worker: Path, redis_url: str, tmp_path: Path
) -> None:
    """The Rust test worker runs one effect (a claim, then its end, each with a history record);
    the row and the records Python would write for the entry it reads back are those bytes."""
    from oncely.store.redis import RedisStore

    out = run([str(oncely_test_worker), "--db", redis_url, "--scope", "acme é", "--run", "r",
               "--step", "s", "--tool", "charge", "--args", '{"charge_id":"ch_1","note":"ü\\n"}',
               "--policy", json.dumps({**POLICY, "reconcile": "provider-idempotent"}),
               "--owner", "rust", "--marker", str(tmp_path / "marker")]).stdout  # fmt: skip
    key = json.loads(out.splitlines()[-1])["key"]
    prefix = redis_url.split("prefix=")[1]
    r = redis.Redis.from_url(redis_url.partition("?")[0], decode_responses=True)
    raw = r.hget(f"{prefix}:{{acme é}}:e:{key}", "row")
    records = r.lrange(f"{prefix}:{{acme é}}:h:{key}", 0, -1)
    r.close()
    store = RedisStore(redis_url)
    try:
        entry = store.get("acme é", key)
        assert entry is not None and entry.state is oncely.EntryState.DONE
        args = store._write_args(entry)
        assert args[3] == raw
        assert args[4] == records[-1]
        assert [h.state for h in store.history("acme é", key)] == [
            oncely.EntryState.PENDING, oncely.EntryState.DONE,
        ]  # fmt: skip
    finally:
        store.close()
