"""The ledger's decisions as events (``oncely.events``): every kind reaches a hook, the
``oncely.events`` logger and OpenTelemetry (the real SDK: an in-memory metric reader and span
exporter), from real effects over real stores (SQLite, and PostgreSQL when
``ONCELY_TEST_POSTGRES_URL`` is set), sync and async. The same scenario as the Rust host's
``host/tests/events.rs``."""

from __future__ import annotations

import asyncio
import logging
import secrets
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import oncely
from oncely import EventKind as K

PAY = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "find"}}
SHIP = {"class": "irreversible-external", "key": {"only": ["/order"]},
        "reconcile": {"lookup": "find"}}  # fmt: skip
MANUAL = {"class": "irreversible-external", "key": {}, "reconcile": "manual",
          "escalateAfterMs": 0}  # fmt: skip
REFUND = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "find"},
          "maxCallMs": 1}  # fmt: skip
APPROVED = {"class": "irreversible-external", "key": {}, "reconcile": {"lookup": "find"},
            "approval": "always"}  # fmt: skip
WARNINGS = {K.CONFLICT, K.IN_DOUBT, K.ESCALATED, K.AWAITING_APPROVAL}


class Otel:
    """The OpenTelemetry SDK, set as the global providers (as an application does)."""

    def __init__(self) -> None:
        self.reader = InMemoryMetricReader()
        self.spans = InMemorySpanExporter()
        meters = MeterProvider(metric_readers=[self.reader])
        tracers = TracerProvider()
        tracers.add_span_processor(SimpleSpanProcessor(self.spans))
        metrics.set_meter_provider(meters)
        trace.set_tracer_provider(tracers)
        assert metrics.get_meter_provider() is meters, "another test set a global MeterProvider"
        assert trace.get_tracer_provider() is tracers, "another test set a global TracerProvider"
        self.tracer = trace.get_tracer("oncely-tests")

    def counts(self, scope: str) -> dict[tuple[str, str], int]:
        """The counter ``oncely.ledger.events`` of one scope: (event, tool) -> count."""
        out: dict[tuple[str, str], int] = {}
        data = self.reader.get_metrics_data()
        assert data is not None
        for rm in data.resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name != "oncely.ledger.events":
                        continue
                    assert m.unit == "{event}" and sm.scope.name == "oncely"
                    for p in m.data.data_points:  # type: ignore[union-attr]
                        a = p.attributes or {}
                        if a.get("oncely.scope") == scope:
                            key = (str(a["oncely.event"]), str(a["oncely.tool"]))
                            out[key] = out.get(key, 0) + int(p.value)  # type: ignore[union-attr]
        return out

    def span_events(self, name: str) -> list[Any]:
        [span] = [s for s in self.spans.get_finished_spans() if s.name == name]
        return list(span.events)


@pytest.fixture(scope="module")
def otel() -> Otel:
    # Set once for the whole process (OpenTelemetry refuses a second global provider). Other
    # test modules may have emitted events before: the instruments oncely made then were the
    # API's proxies, which now pass to this SDK.
    return Otel()


@pytest.fixture
def events_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.INFO, logger="oncely")
    yield caplog


def _logged(caplog: pytest.LogCaptureFixture, scope: str) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "oncely.events" and getattr(r, "oncely_scope", None) == scope
    ]


def _timeout(_key: str) -> Any:
    raise oncely.AmbiguousFailure("timed out")


def _ok(_key: str) -> Any:
    return {"ok": True}


def test_every_decision_reaches_the_hook_logging_and_opentelemetry(
    ledger_location: str, otel: Otel, events_log: pytest.LogCaptureFixture
) -> None:
    scope = f"acme-{secrets.token_hex(4)}"  # the counter is the process's: this test's own
    ledger = oncely.Ledger.open(ledger_location, owner="w1")
    seen: list[oncely.LedgerEvent] = []
    assert ledger.on_event(seen.append) == seen.append

    def run(tool: str, args: dict[str, Any], policy: dict[str, Any], fn: Any) -> Any:
        return ledger.run(fn, scope=scope, run="r", step="s", tool=tool, args=args, policy=policy)

    @ledger.tool(name="ship", policy=SHIP)
    def ship(order: int, to: str, *, idempotency_key: str) -> dict[str, Any]:
        return {"shipped": order, "to": to}

    with otel.tracer.start_as_current_span(f"agent-turn {scope}"):
        # Fresh (claimed, executed), repeated (replayed), the same key with other arguments
        # (conflict), through Ledger.run and the tool decorator.
        run("pay", {"n": 1}, PAY, _ok)
        assert run("pay", {"n": 1}, PAY, _ok).replayed
        with oncely.context(scope=scope, run="r"):
            ship(1, "a")
            with pytest.raises(oncely.ConflictError):
                ship(1, "b")
        # A timeout with no way to reconcile: in doubt, escalated at once; a person settles it.
        with pytest.raises(oncely.EscalatedError):
            run("email", {}, MANUAL, _timeout)
        with pytest.raises(oncely.EscalatedError):  # found escalated: not in doubt again
            run("email", {}, MANUAL, _timeout)
        assert ledger.sweep(scope).examined == 0  # nothing left to tend: no more events
        [esc] = ledger.list(scope, tool="email")
        sid = ledger.resolve(scope, esc.key, oncely.NotHappened(), by="ops", version=esc.version)
        # An unknown outcome a reconciler settles.
        ledger.reconciler("refund", lambda _q: oncely.happened({"refund": "re_1"}))
        got = run("refund", {}, REFUND, _timeout)
        assert got.reconciled and got.value == {"refund": "re_1"}
        # A call a person must approve first, approves, and that then runs; one a person denies.
        with pytest.raises(oncely.AwaitingApprovalError) as asked:
            run("transfer", {"n": 5}, APPROVED, _ok)
        aid = ledger.approve(scope, asked.value.key, by="ops", version=asked.value.version)
        assert run("transfer", {"n": 5}, APPROVED, _ok).value == {"ok": True}
        with pytest.raises(oncely.AwaitingApprovalError) as gift:
            run("gift", {}, APPROVED, _ok)
        did = ledger.deny(scope, gift.value.key, by="ops", note="no", version=gift.value.version)
        with pytest.raises(oncely.DeniedError) as denied:
            run("gift", {}, APPROVED, _ok)
        assert (denied.value.by, denied.value.reason, denied.value.settlement) == (
            "ops",
            "denied by ops: no",
            did,
        )

    expected = [
        (K.CLAIMED, "pay"), (K.EXECUTED, "pay"), (K.REPLAYED, "pay"),
        (K.CLAIMED, "ship"), (K.EXECUTED, "ship"), (K.CONFLICT, "ship"),
        (K.CLAIMED, "email"), (K.IN_DOUBT, "email"), (K.ESCALATED, "email"),
        (K.ESCALATED, "email"), (K.RESOLVED, "email"),
        (K.CLAIMED, "refund"), (K.IN_DOUBT, "refund"), (K.RECONCILED, "refund"),
        (K.AWAITING_APPROVAL, "transfer"), (K.APPROVED, "transfer"),
        (K.CLAIMED, "transfer"), (K.EXECUTED, "transfer"),
        (K.AWAITING_APPROVAL, "gift"), (K.DENIED, "gift"),
    ]  # fmt: skip
    assert [(e.kind, e.tool) for e in seen] == expected
    assert set(K) == {e.kind for e in seen}
    assert all(e.scope == scope and e.key.startswith("oncely1:") for e in seen)
    details = [e.detail for e in seen]
    assert details[0] == "attempt 1 by w1" and details[1] == "attempt 1" and details[2] == ""
    assert details[5] == 'first difference at "/to"'
    assert details[7] == "timed out" and "only a human can settle it" in details[8]
    assert details[9] == details[8]
    assert details[10] == f"{sid} by ops: did not happen" and seen[10].key == esc.key
    assert details[13] == "happened"
    assert details[14] == '{"n":5}' and details[15] == f"{aid} by ops"
    assert details[19] == f"{did} by ops: no"
    assert str(K.IN_DOUBT) == "in-doubt" and K("in-doubt") is K.IN_DOUBT

    # The same decisions, in the same order, went to logging; doubt, conflicts, escalations and
    # calls awaiting approval as warnings, with the event's fields on the record.
    logged = _logged(events_log, scope)
    assert [(r.oncely_event, r.oncely_tool) for r in logged] == [  # type: ignore[attr-defined]
        (k.value, t) for k, t in expected
    ]
    for r, e in zip(logged, seen, strict=True):
        assert r.levelno == (logging.WARNING if e.kind in WARNINGS else logging.INFO)
        assert (r.oncely_key, r.oncely_detail) == (e.key, e.detail)  # type: ignore[attr-defined]
    assert logged[0].getMessage() == f"oncely claimed {scope} {seen[0].key} pay: attempt 1 by w1"
    assert logged[2].getMessage() == f"oncely replayed {scope} {seen[2].key} pay"

    # OpenTelemetry: the counter by kind and tool; the events on the span they happened in.
    counts = otel.counts(scope)
    want: dict[tuple[str, str], int] = {}
    for k, t in expected:
        want[(k.value, t)] = want.get((k.value, t), 0) + 1
    assert counts == want
    ours = otel.span_events(f"agent-turn {scope}")
    assert [e.name for e in ours] == [f"oncely.{k.value}" for k, _ in expected]
    conflict = ours[5].attributes
    assert conflict["oncely.event"] == "conflict" and conflict["oncely.tool"] == "ship"
    assert conflict["oncely.key"] == seen[5].key
    assert conflict["oncely.detail"] == 'first difference at "/to"'
    ledger.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def test_the_explicit_api_and_the_sweep(
    ledger_location: str, events_log: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    ledger = oncely.Ledger.open(ledger_location, owner="w1", clock=clock)
    seen: list[oncely.LedgerEvent] = []
    ledger.on_event(seen.append)
    lookup = {**PAY, "leaseMs": 1000, "reconcileAfterMs": 0}
    manual = {**MANUAL, "leaseMs": 1000}

    def claim(tool: str, args: dict[str, Any], policy: dict[str, Any]) -> oncely.Claim:
        return ledger.prepare(scope="ops", run="r", step="s", tool=tool, args=args, policy=policy)

    # begin, complete, begin again; the same key with other arguments.
    a = claim("pay", {"n": 1}, PAY)
    o = ledger.begin(a)
    assert isinstance(o, oncely.Execute)
    ledger.complete("ops", a.key, o.token, '{"ok":true}')
    assert isinstance(ledger.begin(a), oncely.Replay)
    b = claim("ship", {"order": 1, "to": "a"}, SHIP)
    ob = ledger.begin(b)
    assert isinstance(ob, oncely.Execute)
    assert isinstance(ledger.begin(claim("ship", {"order": 1, "to": "b"}, SHIP)), oncely.Conflict)
    # fail_ambiguous, then what a reconciliation found; a human settles.
    r = ledger.fail_ambiguous("ops", b.key, ob.token, "reset by peer")
    assert isinstance(r, oncely.ReconcileRequest)
    ledger.reconciled("ops", b.key, ob.token.attempt, oncely.Unknown("the provider is down"))
    seen_version = ledger.get("ops", b.key)
    assert seen_version is not None
    sid = ledger.resolve("ops", b.key, oncely.happened({"shipped": 1}), by="ops@acme",
                         version=seen_version.version)  # fmt: skip
    # The sweep: a lease that ran out (manual: escalated); one a reconciler settles.
    c = claim("email", {}, manual)
    assert isinstance(ledger.begin(c), oncely.Execute)
    d = claim("refund", {}, lookup)
    assert isinstance(ledger.begin(d), oncely.Execute)
    ledger.reconciler("refund", lambda _q: oncely.happened({"refund": "re_2"}))
    clock.now += 2000
    report = ledger.sweep("ops")
    assert report.leases_expired == 2 and report.happened == 1 and len(report.escalated) == 1

    by_key = {a.key: "pay", b.key: "ship", c.key: "email", d.key: "refund"}
    got = [(e.kind, by_key[e.key], e.tool, e.detail) for e in seen]
    lease = "the lease ran out before a result was recorded"
    head = [
        (K.CLAIMED, "pay", "pay", "attempt 1 by w1"),
        (K.EXECUTED, "pay", "pay", "attempt 1"),
        (K.REPLAYED, "pay", "pay", ""),
        (K.CLAIMED, "ship", "ship", "attempt 1 by w1"),
        (K.CONFLICT, "ship", "ship", 'first difference at "/to"'),
        (K.IN_DOUBT, "ship", "ship", "reset by peer"),
        (K.RECONCILED, "ship", "ship", "unknown"),
        (K.RESOLVED, "ship", "ship", f"{sid} by ops@acme: happened"),
        (K.CLAIMED, "email", "email", "attempt 1 by w1"),
        (K.CLAIMED, "refund", "refund", "attempt 1 by w1"),
    ]
    assert got[: len(head)] == head
    swept = got[len(head) :]
    assert sorted(swept) == sorted([
        (K.IN_DOUBT, "email", "email", lease),
        (K.ESCALATED, "email", "email", report.escalated[0].split(": ", 1)[1]),
        (K.IN_DOUBT, "refund", "refund", lease),
        (K.RECONCILED, "refund", "refund", "happened"),
    ])  # fmt: skip
    assert [k for k, *_ in got] == [
        getattr(r, "oncely_event", None) for r in _logged(events_log, "ops")
    ]
    ledger.close()


def test_the_async_ledger_emits_the_same_events(
    ledger_location: str, events_log: pytest.LogCaptureFixture
) -> None:
    scope = f"aio-{secrets.token_hex(4)}"

    async def main() -> list[oncely.LedgerEvent]:
        aio = await oncely.AsyncLedger.open(ledger_location, owner="w2")
        seen: list[oncely.LedgerEvent] = []
        aio.on_event(seen.append)

        async def pay(_key: str) -> dict[str, Any]:
            await asyncio.sleep(0)
            return {"ok": True}

        async def run(tool: str, args: dict[str, Any], policy: Any, fn: Any) -> Any:
            return await aio.run(fn, scope=scope, run="r", step="s", tool=tool, args=args,
                                 policy=policy)  # fmt: skip

        assert not (await run("pay", {"n": 1}, PAY, pay)).replayed
        assert (await run("pay", {"n": 1}, PAY, pay)).replayed
        await run("ship", {"order": 1, "to": "a"}, SHIP, pay)
        with pytest.raises(oncely.ConflictError):
            await run("ship", {"order": 1, "to": "b"}, SHIP, pay)
        with pytest.raises(oncely.EscalatedError):
            await run("email", {}, MANUAL, _timeout)
        await aio.close()
        return seen

    seen = asyncio.run(main())
    assert [(e.kind, e.tool, e.detail) for e in seen] == [
        (K.CLAIMED, "pay", "attempt 1 by w2"), (K.EXECUTED, "pay", "attempt 1"),
        (K.REPLAYED, "pay", ""),
        (K.CLAIMED, "ship", "attempt 1 by w2"), (K.EXECUTED, "ship", "attempt 1"),
        (K.CONFLICT, "ship", 'first difference at "/to"'),
        (K.CLAIMED, "email", "attempt 1 by w2"), (K.IN_DOUBT, "email", "timed out"),
        (K.ESCALATED, "email", seen[-1].detail),
    ]  # fmt: skip
    assert [r.oncely_event for r in _logged(events_log, scope)] == [  # type: ignore[attr-defined]
        e.kind.value for e in seen
    ]


def test_a_hook_that_raises_never_breaks_an_effect(
    sqlite_path: str, events_log: pytest.LogCaptureFixture
) -> None:
    ledger = oncely.Ledger.sqlite(sqlite_path, owner="w1")
    after: list[str] = []

    @ledger.on_event
    def broken(e: oncely.LedgerEvent) -> None:
        raise RuntimeError(f"the hook broke on {e.kind}")

    ledger.on_event(lambda e: after.append(e.kind.value))
    calls: list[str] = []

    def tool(key: str) -> int:
        calls.append(key)
        return 7

    args = {"scope": "acme", "run": "r", "step": "s", "tool": "pay", "args": {}, "policy": PAY}
    first = ledger.run(tool, **args)  # type: ignore[arg-type]
    again = ledger.run(tool, **args)  # type: ignore[arg-type]
    assert (first.value, first.replayed, again.value, again.replayed) == (7, False, 7, True)
    assert len(calls) == 1 and after == ["claimed", "executed", "replayed"]
    entry = ledger.get("acme", first.key)
    assert entry is not None and entry.state is oncely.EntryState.DONE
    failed = [r for r in events_log.records if r.name == "oncely" and r.exc_info]
    assert len(failed) == 3 and "the hook broke on claimed" in str(failed[0].exc_info[1])  # type: ignore[index]
    assert failed[0].levelno == logging.ERROR
    with pytest.raises(TypeError):
        ledger.on_event("not callable")  # type: ignore[arg-type]
    ledger.close()


def test_without_opentelemetry_nothing_is_imported_and_nothing_fails(sqlite_path: str) -> None:
    """oncely never imports OpenTelemetry with itself, and works where it cannot be imported."""
    code = f"""
import sys
import oncely
assert not [m for m in sys.modules if m.startswith("opentelemetry")], "imported with oncely"
sys.modules["opentelemetry"] = None  # as if it were not installed
ledger = oncely.Ledger.sqlite({sqlite_path!r})
seen = []
ledger.on_event(seen.append)
ledger.run(lambda key: 1, scope="acme", run="r", step="s", tool="pay", args={{}},
           policy={PAY!r})
assert [e.kind.value for e in seen] == ["claimed", "executed"], seen
print("ok")
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
