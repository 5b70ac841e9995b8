"""``tests/vectors/effects.json``: every scenario replayed through the REAL sync API and the REAL
asyncio API (the package's one interpreter of ``wit/effect.wit``) against a scripted world: a
store keyed by ``(scope, key)`` with failure and ``before`` hooks, a scripted tool, reconciler
and clock (sleeping advances the scripted clock, never real time). Traces, results and rows
must be exactly ``expect`` (the Rust reference interpreter, guest/tests/effect_vectors.rs)."""

from __future__ import annotations

import asyncio
import builtins
import json
from collections import deque
from typing import Any

import pytest

import oncely
from oncely import _runtime
from oncely.store import ListFilter

DOC: dict[str, Any] = {}


class Recorded:
    """A result decoded from the ledger (the test's ``decode``), as opposed to the tool's own."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _s(v: Any) -> str:
    assert isinstance(v, str), v
    return v


class RawStore:
    """The world's rows, for scripted events (someone else's doing): no hooks, no trace."""

    def __init__(self, rows: dict[tuple[str, str], oncely.Entry]) -> None:
        self.rows = rows

    def get(self, scope: str, key: str) -> oncely.Entry | None:
        return self.rows.get((scope, key))

    def insert(self, e: oncely.Entry, *, claims: bool = False) -> bool:
        if (e.scope, e.key) in self.rows:
            return False
        self.rows[(e.scope, e.key)] = e
        return True

    def update(
        self, expected_version: int, e: oncely.Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        cur = self.rows.get((e.scope, e.key))
        if cur is None or cur.version != expected_version:
            return False
        self.rows[(e.scope, e.key)] = e
        return True

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        cur = self.rows.get((scope, key))
        if cur is None or cur.version != expected_version:
            return False
        del self.rows[(scope, key)]
        return True

    def list(self, scope: str, f: ListFilter) -> builtins.list[oncely.Entry]:
        return [e for (s, _), e in self.rows.items() if s == scope]

    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[oncely.Entry]:
        rows = [
            e
            for (s, _), e in sorted(self.rows.items())
            if e.due_at is not None and e.due_at <= now and (scope is None or s == scope)
        ]
        return sorted(rows, key=lambda e: e.due_at or 0)[:limit]

    def close(self) -> None:
        pass


class World(RawStore):
    """One scenario's world; as a store, it counts operations, runs hooks and traces."""

    def __init__(self, sc: dict[str, Any]) -> None:
        super().__init__({})
        self.base = DOC["intent"]
        self.intent = sc.get("intent", self.base)
        self.policy = DOC["policies"][sc["policy"]]
        self.clock = 0
        self.tool = deque(sc.get("tool", []))
        self.reconciler = deque(sc["reconciler"]) if "reconciler" in sc else None
        self.hooks = sc.get("store", [])
        self.counts: dict[str, int] = {}
        self.trace: list[str] = []
        self._now = 0
        self._events = oncely.Ledger(RawStore(self.rows), clock=lambda: self._now)

    def key_of(self, intent: dict[str, Any], owner: str = "w", args: str | None = None) -> Any:
        i = oncely.Intent(
            intent["scope"], intent["run"], intent["step"], intent["tool"], args or intent["args"]
        )
        pol = oncely.parse_policy(self.policy)
        return _runtime.shared().call("ledger.prepare", i, pol, owner)

    def happen(self, steps: list[dict[str, Any]]) -> None:
        own = self.key_of(self.base)
        for st in steps:
            ev, b = st["event"], None
            if isinstance(ev, dict):
                ((name, b),) = ev.items()
            else:
                name = ev
            tok = (
                oncely.ClaimToken(b["attempt"], b["owner"])
                if b and "owner" in b and "attempt" in b
                else None
            )
            event: Any
            if name == "begin":
                event = oncely.Begin(self.key_of(self.base, b["owner"], b.get("args")))
            elif name == "sweep":
                event = oncely.Sweep()
            elif name == "purge":
                event = oncely.Purge()
            elif name == "complete":
                event = oncely.Complete(oncely.Completion(tok, b["result"]))
            elif name == "complete_unrecordable":
                event = oncely.CompleteUnrecordable(oncely.Failure(tok, b["reason"]))
            elif name == "fail_definite":
                event = oncely.FailDefinite(oncely.Failure(tok, b["reason"]))
            elif name == "fail_ambiguous":
                event = oncely.FailAmbiguous(oncely.Failure(tok, b["reason"]))
            elif name == "reconciled":
                if "happened" in b:
                    v: Any = oncely.Happened(_s(b["happened"]))
                elif "not_happened" in b:
                    v = oncely.NotHappened()
                else:
                    v = oncely.Unknown(b["unknown"])
                event = oncely.Reconciled(oncely.Reconciliation(b["attempt"], v))
            elif name in ("approve", "deny"):
                d = oncely.Decision(b["by"], b["note"], b["version"])
                event = oncely.Approve(d) if name == "approve" else oncely.Deny(d)
            else:
                raise AssertionError(f"unknown event {name}")
            at = (event.claim.scope, event.claim.key) if name == "begin" else (own.scope, own.key)
            self._now = st["now"]
            self._events.drive(*at, event)

    def op(self, op: str) -> None:
        n = self.counts[op] = self.counts.get(op, 0) + 1
        for h in self.hooks:
            if h["op"] == op and h.get("nth") == n:
                if "before" in h:
                    self.happen(h["before"])
                if "fails" in h:
                    self.trace.append(f"{op} failed")
                    raise oncely.StorageError(h["fails"])

    # --- the store interface, scripted --------------------------------------------------------

    def get(self, scope: str, key: str) -> oncely.Entry | None:
        self.op("read")
        r = self.rows.get((scope, key))
        self.trace.append(f"read {r.state.value if r else 'absent'}")
        return r

    def _write(self, op: str, at: tuple[str, str], expected: int | None, fn: Any) -> bool:
        stored = self.rows.get(at)
        before = None if stored is None else stored.version
        self.op(op)
        now = self.rows.get(at)
        applied = before == expected and (None if now is None else now.version) == before
        if applied:
            fn()
        self.trace.append(op if applied else f"{op} lost")
        self.after(op)
        return applied

    def after(self, op: str) -> None:
        """Once ``op`` applied: its scripted stall (the clock jumps) and ``after`` events."""
        n = self.counts.get(op, 0)
        for h in self.hooks:
            if h["op"] == op and h.get("nth") == n:
                if "stall_ms" in h:
                    self.trace.append(f"stall {h['stall_ms']}")
                    self.clock += h["stall_ms"]
                if "after" in h:
                    self.happen(h["after"])

    def insert(self, e: oncely.Entry, *, claims: bool = False) -> bool:
        at = (e.scope, e.key)
        return self._write("insert", at, None, lambda: self.rows.__setitem__(at, e))

    def update(
        self, expected_version: int, e: oncely.Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        at = (e.scope, e.key)
        return self._write("update", at, expected_version, lambda: self.rows.__setitem__(at, e))

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        at = (scope, key)
        return self._write("delete", at, expected_version, lambda: self.rows.pop(at))

    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[oncely.Entry]:
        rows = super().due(scope, now, limit)
        self.trace.append(f"due {len(rows)}")
        return rows

    # --- the scripted tool, reconciler and clock ----------------------------------------------

    def call_tool(self, key: str) -> Any:
        # A recall (reconciliation of a provider-idempotent tool) is made while the entry is in
        # doubt; a first call right after the claim (pending) or with no ledger at all.
        row = self.rows.get((self.intent["scope"], key))
        recall = row is not None and row.state is oncely.EntryState.IN_DOUBT
        self.trace.append("recall" if recall else "tool")
        assert self.tool, "the tool was called more often than scripted"
        b = self.tool.popleft()
        self.clock += b.get("takes_ms", 0)
        if "meanwhile" in b:
            self.happen(b["meanwhile"])
        if "returns" in b:
            return b["returns"]
        if "unencodable" in b:
            return object()
        if b["definite"]:
            raise oncely.DefiniteFailure(b["fails"])
        raise oncely.AmbiguousFailure(b["fails"])

    def reconcile(self, req: oncely.ReconcileRequest) -> Any:
        self.trace.append("reconciler")
        assert self.reconciler, "the reconciler was called more often than scripted"
        v = self.reconciler.popleft()
        if isinstance(v, dict) and "raises" in v:
            raise ConnectionError(v["raises"])
        if v == "not-happened":
            return oncely.NotHappened()
        if "happened" in v:
            return oncely.happened(v["happened"])
        return oncely.Unknown(v["unknown"])

    def sleep(self, seconds: float) -> None:
        ms = round(seconds * 1000)
        self.trace.append(f"sleep {ms}")
        self.clock += ms


KINDS = {
    oncely.ConflictError: "conflict",
    oncely.InProgressError: "in-progress",
    oncely.InDoubtError: "in-doubt",
    oncely.EscalatedError: "escalated",
    oncely.ToolFailedError: "tool-failed",
    oncely.ResultNotRecordedError: "result-not-recorded",
    oncely.StorageError: "storage",
    oncely.LedgerError: "ledger",
    oncely.ContentionError: "contention",
    oncely.AwaitingApprovalError: "awaiting-approval",
    oncely.DeniedError: "denied",
}


def _report(notes: list[dict[str, Any]]) -> oncely.SweepReport:
    """The report the core's notes add up to."""
    r = oncely.SweepReport()
    for n in notes:
        assert "raise" not in n, n
        r.examined += 1
        r.leases_expired += n["lease_expired"]
        r.purged += n["purged"]
        r.skipped += n["skipped"]
        if n["reconciled"] is not None:
            r.reconciled += 1
            name = n["reconciled"].replace("-", "_")
            setattr(r, name, getattr(r, name) + 1)
        if n["escalated"]:
            r.escalated.append("x")
    return r


async def _play(sc: dict[str, Any], mode: str) -> tuple[dict[str, Any], Any]:
    w = World(sc)
    if "prelude" in sc:
        w.happen(sc["prelude"])
    options = {**DOC["options"], **sc.get("options", {})}
    ledger = oncely.Ledger(w, owner=options["owner"], clock=lambda: w.clock, sleep=w.sleep)
    # The calls of `effect.run` the host makes (each one crossing into the core).
    crossings, core_run = [0], ledger._run

    def counted(*args: Any) -> Any:
        crossings[0] += 1
        return core_run(*args)

    ledger._run = counted  # type: ignore[method-assign]
    # The events the ledger delivers, traced where it delivers them.
    tools = {w.base["tool"], w.intent["tool"]}

    def on_event(e: oncely.LedgerEvent) -> None:
        w.trace.append(_event_line(e))
        # `gone`: the reconciler is unregistered right before the core asks for it (the step
        # that put the entry in doubt delivers its events just before its action).
        if e.kind.value == "in-doubt" and w.reconciler and w.reconciler[0] == "gone":
            w.reconciler.popleft()
            assert all([ledger.remove_reconciler(t) for t in tools])
            w.trace.append("reconciler")

    ledger.on_event(on_event)
    if w.reconciler is not None:
        for tool in tools:
            ledger.reconciler(tool, w.reconcile)
    api: Any = ledger.aio if mode == "async" else ledger

    async def call(fn: str, *args: Any, **kwargs: Any) -> Any:
        r = getattr(api, fn)(*args, **kwargs)
        return await r if mode == "async" else r

    run = sc.get("run", "effect")
    result: Any
    expect_result = sc["expect"]["result"]
    if run == "effect":
        w.clock = sc["now"]
        i = w.intent
        try:
            r = await call(
                "run", w.call_tool, scope=i["scope"], run=i["run"], step=i["step"],
                tool=i["tool"], args=i["args"], policy=w.policy,
                max_attempts=options["max_attempts"], wait=_seconds(options["wait_ms"]),
                approval_wait=_seconds(options.get("approval_wait_ms")),
                decode=lambda text: Recorded(json.loads(text)),
            )  # fmt: skip
            out: dict[str, Any] = {"replayed": r.replayed, "reconciled": r.reconciled}
            if isinstance(r.value, Recorded):
                out["source"], out["value"] = "recorded", r.value.value
            else:
                out["source"] = "tool-value"
            result = {"return": out}
        except oncely.OncelyError as e:
            result = {"raise": next(k for t, k in KINDS.items() if isinstance(e, t))}
            if "retry_after_ms" in expect_result:  # pinned where a scenario lists it
                result["retry_after_ms"] = getattr(e, "retry_after_ms", None)
    else:
        ((job, b),) = run.items()
        w.clock = b["now"]
        if job == "wait":
            own = w.key_of(w.intent)
            row = await call(
                "wait_settled", own.scope, own.key,
                every=_seconds(b.get("every_ms")), timeout=_seconds(b.get("timeout_ms")),
            )  # fmt: skip
            result = {"waited": row.state.value if row else "absent"}
        elif job == "resolve":
            # A person's verdict, at the version of the row as it stands (seen without a trace).
            own = w.key_of(w.intent)
            seen = w.rows[(own.scope, own.key)].version
            given = b["settlement"]  # "not-happened", or {"happened": value}
            settlement: Any = oncely.NotHappened()
            if isinstance(given, dict):
                settlement = oncely.happened(given["happened"])
            await call("resolve", own.scope, own.key, settlement, by=b["by"], version=seen)
            result = {"settled": True}
        else:
            report = await call("tend", oncely.TendJob(job))
            want = _report(expect_result["tended"])
            assert len(report.escalated) == len(want.escalated), report
            assert len(report.errors) == report.skipped, report  # each skip with its reason
            report.escalated, report.errors = want.escalated, want.errors
            assert report == want, (report, want)
            result = expect_result
    own = w.key_of(w.intent)
    e = w.rows.get((own.scope, own.key))
    row_json: Any = (
        {"state": e.state.value, "version": e.version, "attempt": e.attempt} if e else "absent"
    )
    if e and isinstance(sc["expect"]["row"], dict) and "reason" in sc["expect"]["row"]:
        row_json["reason"] = e.reason  # pinned where a scenario lists it: the core words it
    got = {"trace": w.trace, "result": result, "row": row_json}
    if "crossings" in sc["expect"]:  # pinned where a scenario lists it
        got["crossings"] = crossings[0]
    return got, sc["expect"]


def _seconds(ms: int | None) -> float | None:
    """A vector's ms option as the API's seconds (``None``: the core's default)."""
    return None if ms is None else ms / 1000


def _scenarios(vectors_dir: Any) -> list[dict[str, Any]]:
    return list(DOC["scenarios"])


@pytest.fixture(scope="module", autouse=True)
def _doc(vectors: Any) -> None:
    DOC.update(vectors("effects.json"))


def _event_line(e: oncely.LedgerEvent) -> str:
    """An event as the vectors trace it: ``event KIND TOOL: DETAIL`` (no ``: DETAIL`` when
    the detail is empty)."""
    line = f"event {e.kind.value} {e.tool}"
    return f"{line}: {e.detail}" if e.detail else line


def test_there_are_scenarios(vectors: Any) -> None:
    assert len(vectors("effects.json")["scenarios"]) >= 30


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_effect_vectors(mode: str) -> None:
    failures = []
    for sc in DOC["scenarios"]:
        got, want = asyncio.run(_play(sc, mode))
        if got != want:
            failures.append(f"{sc['name']}:\n  got  {got}\n  want {want}")
    assert not failures, (
        f"{len(failures)} of {len(DOC['scenarios'])} scenarios differ:\n" + "\n".join(failures)
    )
    assert len(DOC["scenarios"]) == 75
