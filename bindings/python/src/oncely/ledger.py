"""The effect ledger: the driver that reads an entry, asks the core for the transition, applies
the write atomically and retries on a lost race — and the API built on it.

The Rust host's ``host/src/ledger.rs`` is the reference; this is the same loop in Python. No
rule is decided here: which event is allowed, what a repeat does, when a lease has expired,
whether an unknown outcome is reconciled or escalated — all of it is the core's ``handle``.

::

    import oncely

    ledger = oncely.Ledger.sqlite("ledger.db")
    policy = {"class": "irreversible-external", "key": {"only": ["/charge_id"]},
              "reconcile": "provider-idempotent"}
    r = ledger.run(
        lambda key: stripe_refund(charge="ch_1", amount=500, idempotency_key=key),
        scope="acme", run="run-7", step="refund-1", tool="refund",
        args={"charge_id": "ch_1", "amount": 500}, policy=policy,
    )
    print(r.value, r.replayed)
"""

from __future__ import annotations

import asyncio
import builtins
import inspect
import json
import os
import secrets
import time
import warnings
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Union

from oncely import _api, _runtime
from oncely._codec import Err
from oncely.errors import (
    AmbiguousFailure,
    ConflictError,
    ContentionError,
    DefiniteFailure,
    EscalatedError,
    InDoubtError,
    InProgressError,
    StorageError,
    ToolFailedError,
)
from oncely.store import ListFilter, Store
from oncely.types import (
    Begin,
    Claim,
    ClaimToken,
    Complete,
    Completion,
    Conflict,
    Entry,
    EntryState,
    Escalation,
    Event,
    Execute,
    FailAmbiguous,
    FailDefinite,
    Failure,
    Happened,
    Heartbeat,
    Idle,
    InProgress,
    Insert,
    NotHappened,
    Outcome,
    PassThrough,
    ProviderIdempotent,
    Purge,
    Purged,
    Reconciled,
    ReconcileRequest,
    ReconcileVerdict,
    Reconciliation,
    Recorded,
    Removal,
    Replay,
    Resolution,
    Resolve,
    Settlement,
    Sweep,
    ToolPolicy,
    Unknown,
    Update,
)

if TYPE_CHECKING:
    from oncely.tool import Tool

T = TypeVar("T")

MAX_RACES = 64
"""How many lost compare-and-swap races in a row before giving up."""

READ: object = object()
"""For :meth:`Ledger.drive_from`: no belief about the stored row; read it."""

Clock = Callable[[], int]
"""The host's clock: milliseconds since the Unix epoch."""

Reconciler = Callable[[ReconcileRequest], Union[ReconcileVerdict, Awaitable[ReconcileVerdict]]]
"""Asked whether the effect with a key happened; returns :class:`Happened`,
:class:`NotHappened` or :class:`Unknown` (or an awaitable of one)."""


def system_clock() -> int:
    """Now, in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


def happened(result: Any) -> Happened:
    """A :class:`Happened` verdict or settlement carrying ``result`` (a JSON-compatible value)."""
    return Happened(_api.to_json_text(result))


class ResultNotSerializableWarning(UserWarning):
    """A tool's result could not be encoded as JSON; the effect was recorded with the
    result's ``repr()`` (as a JSON string), which is what a replay returns."""


@dataclass
class SweepReport:
    """What a sweep did."""

    examined: int = 0
    """Unsettled entries looked at."""
    leases_expired: int = 0
    """Pending entries whose lease had expired (now in doubt)."""
    reconciled: int = 0
    """Reconciliations run."""
    happened: int = 0
    """… that found the effect happened (now done)."""
    not_happened: int = 0
    """… that found it did not happen (now failed: a new attempt may run)."""
    unknown: int = 0
    """… that could not tell (still in doubt)."""
    escalated: builtins.list[str] = field(default_factory=list)
    """Entries escalated to a human by this sweep."""
    errors: builtins.list[str] = field(default_factory=list)
    """Entries the sweep could not process (and why); they are untouched."""


@dataclass(frozen=True)
class EffectResult(Generic[T]):
    """The result of an effect run through the ledger."""

    value: T
    """The tool's result: fresh, or decoded from the ledger on a replay."""
    key: str
    """The idempotency key the tool was (or would have been) given."""
    replayed: bool
    """True when the result came from the ledger, not from calling the tool now."""
    reconciled: bool
    """True when this call settled an unknown outcome by reconciliation."""


def _escalation_line(x: Escalation) -> str:
    return f"{x.scope} {x.key} ({x.tool}): {x.reason}"


class Ledger:
    """The core's ledger rules over a store (SQLite or PostgreSQL).

    Thread-safe: the store pools connections and the core runtime pools instances. For
    asyncio, see :attr:`aio`.
    """

    def __init__(
        self,
        store: Store,
        *,
        owner: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.owner = owner or f"py{os.getpid()}-{secrets.token_hex(4)}"
        """This worker's owner id in claims."""
        self.clock: Clock = clock or system_clock
        self._rt = _runtime.shared()
        self._reconcilers: dict[str, Reconciler] = {}

    # --- opening ------------------------------------------------------------------------------

    @classmethod
    def sqlite(cls, path: str | os.PathLike[str], **kwargs: Any) -> Ledger:
        """A ledger in a SQLite file (created and migrated if needed): WAL journal,
        ``synchronous=FULL``, 30 s busy timeout. The default backend."""
        from oncely.store.sqlite import SqliteStore

        return cls(SqliteStore(path), **kwargs)

    @classmethod
    def postgres(cls, dsn: str, **kwargs: Any) -> Ledger:
        """A ledger in a PostgreSQL database (``oncely.effects``; migrated on connect); needs
        psycopg 3 (``pip install 'oncely[postgres]'``)."""
        from oncely.store.postgres import PostgresStore

        return cls(PostgresStore(dsn), **kwargs)

    @classmethod
    def open(cls, location: str | os.PathLike[str], **kwargs: Any) -> Ledger:
        """A ``postgres://`` URL or a SQLite file path, as the Rust CLI's ``--db``."""
        loc = os.fspath(location)
        if loc.startswith(("postgres://", "postgresql://")):
            return cls.postgres(loc, **kwargs)
        if "://" in loc:
            raise ValueError(f"unsupported ledger location {loc!r}: use a file path or postgres://")
        return cls.sqlite(loc, **kwargs)

    def close(self) -> None:
        """Close the store's connections."""
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Ledger({self.store!r}, owner={self.owner!r})"

    @property
    def aio(self) -> AsyncLedger:
        """The same ledger with ``async`` methods (storage runs in worker threads)."""
        from oncely.aio import AsyncLedger

        return AsyncLedger(self)

    def now(self) -> int:
        """Now, by this ledger's clock (ms since the Unix epoch)."""
        return self.clock()

    # --- reconcilers --------------------------------------------------------------------------

    def reconciler(self, tool: str, fn: Reconciler | None = None) -> Any:
        """Register the reconciler of ``tool``: asked whether the effect with a key happened.
        Use directly (``ledger.reconciler("refund", fn)``) or as a decorator
        (``@ledger.reconciler("refund")``)."""
        if fn is None:

            def deco(f: Reconciler) -> Reconciler:
                self._reconcilers[tool] = f
                return f

            return deco
        self._reconcilers[tool] = fn
        return fn

    def reconciler_of(self, tool: str) -> Reconciler | None:
        """The reconciler registered for ``tool`` in this process, if any."""
        return self._reconcilers.get(tool)

    # --- the driver ---------------------------------------------------------------------------

    def drive(self, scope: str, key: str, event: Event) -> Outcome:
        """Read the entry, ask the core, write atomically; on a lost race, read again.

        Raises :class:`~oncely.LedgerError` when the core refuses the event (nothing written),
        :class:`~oncely.StorageError`, or :class:`~oncely.ContentionError`.
        """
        return self.drive_from(scope, key, event)[0]

    def drive_from(
        self, scope: str, key: str, event: Event, known: Entry | object | None = READ
    ) -> tuple[Outcome, Entry | None]:
        """The driver, starting from a row the caller believes current (``known``: ``None``
        for "absent", an entry for the row it just wrote) to save a read; a wrong belief only
        costs a lost compare-and-swap and a re-read. Returns the outcome and the row as
        written (as the Rust host's ``drive_from``)."""
        store, rt = self.store, self._rt
        for _ in range(MAX_RACES):
            current = store.get(scope, key) if known is READ else known
            known = READ
            t = rt.call("ledger.handle", current, event, self.clock())
            if isinstance(t, Err):
                raise t.error
            w = t.write
            row: Entry | None
            if w is None:
                applied, row = True, current  # type: ignore[assignment]
            elif isinstance(w, Insert):
                applied, row = store.insert(w.entry), w.entry
            elif isinstance(w, Update):
                applied, row = store.update(w.expected_version, w.entry), w.entry
            else:
                assert isinstance(w, Removal)
                applied, row = store.delete(w.scope, w.key, w.expected_version), None
            if applied:
                return t.outcome, row
        raise ContentionError(MAX_RACES)

    def prepare(
        self,
        *,
        scope: str,
        run: str,
        step: str,
        tool: str,
        args: _api.Args,
        policy: str | dict[str, Any] | ToolPolicy,
    ) -> Claim:
        """The claim for an intent under a policy (the core's ``prepare``: derives the key)."""
        intent = _api._checked(
            _api.make_intent(scope=scope, run=run, step=step, tool=tool, args=args)
        )
        if isinstance(intent, bytes):
            raise _api._invalid_args(intent)
        r = self._rt.call("ledger.prepare", intent, _api.parse_policy(policy), self.owner)
        if isinstance(r, Err):
            raise r.error
        return r  # type: ignore[no-any-return]

    def begin(self, claim: Claim) -> Outcome:
        """Claim the key before calling the tool; returns what to do (``wit/ledger.wit``)."""
        return self.drive(claim.scope, claim.key, Begin(claim))

    def complete(self, scope: str, key: str, token: ClaimToken, result_json: str) -> Outcome:
        """Record the result of the attempt ``token`` holds."""
        return self.drive(scope, key, Complete(Completion(token, result_json)))

    def fail_definite(self, scope: str, key: str, token: ClaimToken, reason: str) -> Outcome:
        """Record a definite failure: the effect did not happen."""
        return self.drive(scope, key, FailDefinite(Failure(token, reason)))

    def fail_ambiguous(self, scope: str, key: str, token: ClaimToken, reason: str) -> Outcome:
        """Record an ambiguous failure: the outcome is unknown. The answer is a
        :class:`ReconcileRequest` (you hold the slot) or an :class:`Escalation`."""
        return self.drive(scope, key, FailAmbiguous(Failure(token, reason)))

    def heartbeat(self, scope: str, key: str, token: ClaimToken) -> Outcome:
        """Extend the lease of a long call."""
        return self.drive(scope, key, Heartbeat(token))

    def reconciled(self, scope: str, key: str, attempt: int, verdict: ReconcileVerdict) -> Outcome:
        """Report what a reconciliation of ``attempt`` found."""
        return self.drive(scope, key, Reconciled(Reconciliation(attempt, verdict)))

    def resolve(
        self, scope: str, key: str, settlement: Settlement, *, by: str, note: str = ""
    ) -> Outcome:
        """A human's verdict on an in-doubt or escalated entry: :class:`Happened` (its result
        JSON, e.g. ``oncely.happened({...})``, is replayed from then on) or :class:`NotHappened`
        (a new attempt may run)."""
        return self.drive(scope, key, Resolve(Resolution(settlement, by, note)))

    def purge(self, scope: str, key: str) -> Outcome:
        """Delete one settled entry whose retention has passed."""
        return self.drive(scope, key, Purge())

    def purge_expired(self, scope: str | None = None) -> int:
        """Delete every settled entry whose retention has passed (of one scope, or all)."""
        purged = 0
        while True:
            batch = self.store.expired(scope, self.clock(), 500)
            if not batch:
                return purged
            progressed = False
            for e in batch:
                # Another process may purge it first, or a claim may revive it: not an error.
                try:
                    if isinstance(self.purge(e.scope, e.key), Purged):
                        purged += 1
                        progressed = True
                except Exception:  # noqa: BLE001 - see above
                    continue
            if not progressed:
                return purged

    def get(self, scope: str, key: str) -> Entry | None:
        """One entry."""
        return self.store.get(scope, key)

    def list(
        self,
        scope: str,
        *,
        state: EntryState | str | None = None,
        tool: str | None = None,
        limit: int = 100,
    ) -> builtins.list[Entry]:
        """Entries of one scope, newest first."""
        return self.store.list(scope, ListFilter(state, tool, limit))

    def wait_settled(
        self, scope: str, key: str, *, every: float = 0.05, timeout: float = 30.0
    ) -> Entry | None:
        """Wait until ``(scope, key)`` is settled (done or failed) or needs a human, polling
        every ``every`` seconds for at most ``timeout``. Returns the entry as last seen."""
        deadline = time.monotonic() + timeout
        while True:
            e = self.store.get(scope, key)
            settled = e is None or e.state in (
                EntryState.DONE,
                EntryState.FAILED,
                EntryState.ESCALATED,
            )
            now = time.monotonic()
            if settled or now >= deadline:
                return e
            time.sleep(min(every, deadline - now))

    def sweep(self, scope: str | None = None) -> SweepReport:
        """Time-driven work: expire leases, run the registered reconcilers of in-doubt
        entries, escalate what is past its deadline. Never re-executes a tool."""
        report = SweepReport()
        for e in self.store.unsettled(scope, 10_000):
            report.examined += 1
            try:
                o = self.drive(e.scope, e.key, Sweep())
            except Exception as err:  # noqa: BLE001 - reported, entry untouched
                report.errors.append(f"{e.scope} {e.key}: {err}")
                continue
            if isinstance(o, ReconcileRequest):
                if e.state is EntryState.PENDING:
                    report.leases_expired += 1
                verdict = _sweep_verdict(self.reconciler_of(o.tool), o)
                if inspect.isawaitable(verdict):
                    verdict = _await_verdict_sync(verdict)
                self._record_verdict(o, verdict, report)
            elif isinstance(o, Escalation):
                if e.state is EntryState.PENDING:
                    report.leases_expired += 1
                report.escalated.append(_escalation_line(o))
        return report

    def _record_verdict(
        self, req: ReconcileRequest, verdict: ReconcileVerdict, report: SweepReport
    ) -> None:
        report.reconciled += 1
        try:
            o = self.reconciled(req.scope, req.key, req.attempt, verdict)
        except Exception as err:  # noqa: BLE001 - reported
            report.errors.append(f"{req.scope} {req.key}: {err}")
            return
        if isinstance(o, Escalation):
            report.escalated.append(_escalation_line(o))
        elif isinstance(verdict, Happened):
            report.happened += 1
        elif isinstance(verdict, NotHappened):
            report.not_happened += 1
        else:
            report.unknown += 1

    # --- effects ------------------------------------------------------------------------------

    def run(
        self,
        tool_fn: Callable[[str], T],
        *,
        scope: str,
        run: str,
        step: str,
        tool: str,
        args: _api.Args,
        policy: str | dict[str, Any] | ToolPolicy,
        max_attempts: int = 3,
        wait: float = 30.0,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
    ) -> EffectResult[T]:
        """Run ``tool_fn`` at most once per intent. ``tool_fn`` gets the idempotency key (pass
        it on to the provider). See :class:`EffectSpec` for what each outcome does."""
        if inspect.iscoroutinefunction(tool_fn):
            raise TypeError("an async tool needs the async API: await ledger.aio.run(...)")
        claim = self.prepare(scope=scope, run=run, step=step, tool=tool, args=args, policy=policy)
        spec = EffectSpec(max_attempts, wait, definite, encode, decode)
        return run_sync(self, _effect(self, claim, spec), tool_fn)

    def tool(
        self,
        name: str | None = None,
        *,
        policy: str | dict[str, Any] | ToolPolicy,
        key_param: str = "idempotency_key",
        max_attempts: int = 3,
        wait: float = 30.0,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
    ) -> Callable[[Callable[..., T]], Tool[T]]:
        """Decorate a tool function so that each intent runs at most once (see
        :mod:`oncely.tool`). ``policy`` is the tool's oncely policy (class, key spec,
        reconciliation, timings); ``name`` defaults to the function's name; the function gets
        the key in its ``key_param`` parameter. The other options are :class:`EffectSpec`'s."""
        from oncely.tool import make_tool_decorator

        return make_tool_decorator(
            self,
            name,
            policy=policy,
            key_param=key_param,
            max_attempts=max_attempts,
            wait=wait,
            definite=definite,
            encode=encode,
            decode=decode,
        )

    def record_completion(
        self,
        scope: str,
        key: str,
        token: ClaimToken,
        text: str,
        known: Entry | object | None = READ,
    ) -> None:
        """Record a result, retrying transient storage failures: the effect already happened,
        so losing the record would leave it to reconciliation. ``known`` is the row the claim
        wrote (no read is needed unless someone changed it since)."""
        last: StorageError | None = None
        ev = Complete(Completion(token, text))
        for i in range(5):
            try:
                self.drive_from(scope, key, ev, known)
                return
            except StorageError as e:
                last = e
                known = READ
                time.sleep(0.05 * (1 << i))
        raise InDoubtError(
            key,
            f"the tool succeeded but its result could not be recorded ({last}); "
            "the entry will be reconciled",
        )


def _sweep_verdict(
    reconciler: Reconciler | None, req: ReconcileRequest
) -> ReconcileVerdict | Awaitable[ReconcileVerdict]:
    if reconciler is None:
        return Unknown(f"no reconciler is registered for {req.tool!r} in this process")
    try:
        return reconciler(req)
    except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
        return Unknown(f"the reconciler failed: {e!r}")


def _await_verdict_sync(aw: Awaitable[ReconcileVerdict]) -> ReconcileVerdict:
    """Await an async reconciler's verdict from synchronous code; a failure cannot tell."""
    try:
        return _await_in_new_loop(aw)
    except TypeError:
        raise
    except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
        return Unknown(f"the reconciler failed: {e!r}")


def _await_in_new_loop(aw: Awaitable[T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:

        async def wrap() -> T:
            return await aw

        return asyncio.run(wrap())
    raise TypeError(
        "an async reconciler was called from a synchronous sweep inside a running event loop; "
        "use `await ledger.aio.sweep()`"
    )


# --- the effect state machine, shared by the sync and async APIs -----------------------------


@dataclass(frozen=True)
class EffectSpec:
    """How an effect runs.

    - ``max_attempts``: how many times this call may execute the tool (new attempts only follow
      a definite "did not happen"). Default 3.
    - ``wait``: how long (s) to wait for another worker's claim before raising
      :class:`~oncely.InProgressError`. Default 30.
    - ``definite``: exception types that mean "the effect did NOT happen" (besides
      :class:`~oncely.DefiniteFailure`). Any other exception is read as an unknown outcome,
      the safe reading: the ledger reconciles it and never retries it blindly.
    - ``encode``/``decode``: result to JSON text and back (default: :mod:`json`).

    Read-only and overwriting-write tools bypass the ledger (``pass-through``): the tool is
    called every time and its exceptions propagate unchanged.

    Outcomes: a fresh result is recorded and returned; a repeat of an intent that already
    happened returns the recorded result decoded (``replayed``); an unknown outcome is
    reconciled (the registered reconciler, or for ``provider-idempotent`` tools the same call
    again with the same key); a conflict, an escalation or a still-unknown outcome raise
    :class:`~oncely.ConflictError`, :class:`~oncely.EscalatedError`, :class:`~oncely.InDoubtError`.
    """

    max_attempts: int = 3
    wait: float = 30.0
    definite: tuple[type[BaseException], ...] = ()
    encode: Callable[[Any], str] | None = None
    decode: Callable[[str], Any] | None = None


@dataclass(frozen=True)
class _Drive:
    scope: str
    key: str
    event: Event
    known: Entry | object | None = READ


@dataclass(frozen=True)
class _CallTool:
    key: str


@dataclass(frozen=True)
class _Reconcile:
    fn: Reconciler
    req: ReconcileRequest


@dataclass(frozen=True)
class _Record:
    scope: str
    key: str
    token: ClaimToken
    text: str
    known: Entry | object | None = READ


@dataclass(frozen=True)
class _Sleep:
    seconds: float


_Action = Union[_Drive, _CallTool, _Reconcile, _Record, _Sleep]


@dataclass(frozen=True)
class _ToolOutcome:
    value: Any = None
    error: BaseException | None = None


def _encode_result(value: Any, encode: Callable[[Any], str] | None) -> str:
    try:
        return (encode or _api.to_json_text)(value)
    except (TypeError, ValueError) as e:
        warnings.warn(
            f"the tool's result ({type(value).__name__}) is not JSON-serialisable ({e}); "
            "the effect is recorded as done with repr(result) as a JSON string, and a replay "
            "returns that string. Return JSON-compatible values or give encode/decode.",
            ResultNotSerializableWarning,
            stacklevel=4,
        )
        return json.dumps(repr(value), ensure_ascii=False)


def _is_definite(e: BaseException, spec: EffectSpec) -> bool:
    return isinstance(e, DefiniteFailure) or (bool(spec.definite) and isinstance(e, spec.definite))


def _reason(e: BaseException) -> str:
    if isinstance(e, (DefiniteFailure, AmbiguousFailure)):
        return e.reason
    return f"{type(e).__name__}: {e}"


def _effect(  # noqa: C901, PLR0912, PLR0915 - the state machine of wit/ledger.wit step 4
    ledger: Ledger, claim: Claim, spec: EffectSpec
) -> Generator[_Action, Any, EffectResult[Any]]:
    scope, key = claim.scope, claim.key
    deadline = time.monotonic() + spec.wait
    decode = spec.decode or json.loads
    executions = 0
    reconciled = False
    last_error: BaseException | None = None
    nxt: Outcome | None = None
    # First claim: assume no row yet (the common case) and insert directly.
    known: Entry | object | None = None
    row: Entry | object | None = READ
    while True:
        if nxt is not None:
            outcome, row = nxt, READ
        else:
            outcome, row = yield _Drive(scope, key, Begin(claim), known)
            known = READ
        nxt = None
        if isinstance(outcome, PassThrough):
            r: _ToolOutcome = yield _CallTool(key)
            if r.error is not None:
                raise r.error
            return EffectResult(r.value, key, False, False)
        if isinstance(outcome, Execute):
            executions += 1
            r = yield _CallTool(key)
            if r.error is None:
                text = _encode_result(r.value, spec.encode)
                yield _Record(scope, key, outcome.token, text, row)
                return EffectResult(r.value, key, False, reconciled)
            last_error = r.error
            if _is_definite(r.error, spec):
                yield _Drive(scope, key, FailDefinite(Failure(outcome.token, _reason(r.error))))
                raise ToolFailedError(_reason(r.error)) from r.error
            nxt, _ = yield _Drive(
                scope, key, FailAmbiguous(Failure(outcome.token, _reason(r.error)))
            )
        elif isinstance(outcome, Replay):
            return EffectResult(decode(outcome.result_json), key, True, reconciled)
        elif isinstance(outcome, ReconcileRequest):
            reconciled = True
            fn = ledger.reconciler_of(outcome.tool)
            verdict: ReconcileVerdict
            if fn is not None:
                verdict = yield _Reconcile(fn, outcome)
            elif isinstance(outcome.path, ProviderIdempotent):
                # The provider deduplicates by key: asking again is finding out.
                r = yield _CallTool(key)
                if r.error is None:
                    verdict = Happened(_encode_result(r.value, spec.encode))
                elif _is_definite(r.error, spec):
                    verdict = NotHappened()
                else:
                    last_error = r.error
                    verdict = Unknown(_reason(r.error))
            else:
                verdict = Unknown(f"no reconciler is registered for {outcome.tool!r}")
            why = verdict.reason if isinstance(verdict, Unknown) else ""
            o, _ = yield _Drive(scope, key, Reconciled(Reconciliation(outcome.attempt, verdict)))
            if isinstance(o, Recorded) and o.state is EntryState.IN_DOUBT:
                raise InDoubtError(key, why) from last_error
            if (
                isinstance(o, Recorded)
                and o.state is EntryState.FAILED
                and executions >= spec.max_attempts
            ):
                raise ToolFailedError(
                    f"the effect did not happen after {executions} attempt(s)"
                ) from last_error
            if isinstance(o, Escalation):
                raise EscalatedError(key, o.reason) from last_error
            # Done: the next begin replays it. Failed: the next begin executes anew.
        elif isinstance(outcome, InProgress):
            now = time.monotonic()
            if now >= deadline:
                raise InProgressError(key, outcome.owner, outcome.state)
            pause = min(max(outcome.retry_after_ms, 5), 250) / 1000
            yield _Sleep(min(pause, deadline - now))
        elif isinstance(outcome, Escalation):
            raise EscalatedError(key, outcome.reason) from last_error
        elif isinstance(outcome, Conflict):
            raise ConflictError(key, outcome.pointer)
        elif isinstance(outcome, (Recorded, Purged, Idle)):
            pass  # only after an event other than begin: ask again


def _call_tool(tool_fn: Callable[[str], Any], key: str) -> _ToolOutcome:
    try:
        return _ToolOutcome(value=tool_fn(key))
    except Exception as e:  # noqa: BLE001 - classified by the state machine
        return _ToolOutcome(error=e)


def _call_reconciler(fn: Reconciler, req: ReconcileRequest) -> Any:
    try:
        return fn(req)
    except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
        return Unknown(f"the reconciler failed: {e!r}")


def run_sync(
    ledger: Ledger,
    steps: Generator[_Action, Any, EffectResult[Any]],
    tool_fn: Callable[[str], Any],
) -> EffectResult[Any]:
    """Run the effect state machine with blocking I/O."""
    send: Any = None
    while True:
        try:
            action = steps.send(send)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if isinstance(action, _Drive):
            send = ledger.drive_from(action.scope, action.key, action.event, action.known)
        elif isinstance(action, _CallTool):
            send = _call_tool(tool_fn, action.key)
            if inspect.isawaitable(send.value):
                # Caught before the claim for coroutine functions; this is a sync function
                # returning an awaitable. Its outcome is unknown to the ledger: reconciled later.
                close = getattr(send.value, "close", None)
                if close is not None:
                    close()
                send = _ToolOutcome(
                    error=TypeError("the tool returned an awaitable; use ledger.aio")
                )
        elif isinstance(action, _Reconcile):
            send = _call_reconciler(action.fn, action.req)
            if inspect.isawaitable(send):
                send = _await_verdict_sync(send)
        elif isinstance(action, _Record):
            ledger.record_completion(
                action.scope, action.key, action.token, action.text, action.known
            )
            send = None
        else:
            time.sleep(action.seconds)
            send = None


# Imported at the end: aio.py needs the names above.
from oncely.aio import AsyncLedger  # noqa: E402

__all__ = [
    "MAX_RACES",
    "READ",
    "AsyncLedger",
    "Clock",
    "EffectResult",
    "EffectSpec",
    "Ledger",
    "Reconciler",
    "ResultNotSerializableWarning",
    "SweepReport",
    "happened",
    "system_clock",
]
