"""The one interpreter of the core's machines (``wit/effect.wit``), for the sync and the asyncio
API alike.

:func:`interpret` does exactly what each step of the core says and nothing else: it yields the
I/O a step asks for (:class:`ReadRecorded`, :class:`Read`, :class:`Write`, :class:`Tool`,
:class:`Reconcile`, :class:`Sleep`) and receives what happened; :func:`drive_sync` and
:func:`drive_async` perform that I/O. Every decision (attempts, waiting and polling, retries of a
lost race or of recording a result, the order of reconciliation paths, which states are settled,
what an unencodable result means) is the core's: no entry state, outcome, attempt or time is
compared here, but for the one comparison a step's ``replay`` rule spells out (a replay in one
crossing).
"""

from __future__ import annotations

import contextvars
import inspect
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, Union

from oncely import _api
from oncely._lazy import lazy
from oncely._values import Err
from oncely.errors import (
    AmbiguousFailure,
    AwaitingApprovalError,
    ConflictError,
    ContentionError,
    DefiniteFailure,
    DeniedError,
    EscalatedError,
    InDoubtError,
    InProgressError,
    OncelyError,
    ResultNotRecordedError,
    StorageError,
    ToolFailedError,
)
from oncely.store import Recorded
from oncely.types import (
    Abandoned,
    CallReconciler,
    Command,
    Denial,
    EffectOptions,
    EffectReturn,
    EffectStart,
    Entry,
    ErrAwaitingApproval,
    ErrConflict,
    ErrContention,
    ErrDenied,
    ErrEscalated,
    ErrInDoubt,
    ErrInProgress,
    ErrLedger,
    ErrResultNotRecorded,
    ErrStorage,
    ErrToolFailed,
    EventStart,
    Finish,
    FinishAction,
    Heartbeat,
    LostRace,
    NoReconciler,
    RecallTool,
    ReconcileRequest,
    ReconcilerFailed,
    ReconcileVerdict,
    RecordedResult,
    ReplayRule,
    Report,
    RowInput,
    RowWrite,
    SleepUntil,
    Start,
    StoreFailed,
    TendNote,
    TooLate,
    ToolCall,
    ToolFailure,
    ToolReturned,
    ToolUnencodable,
    VerdictInput,
    Woke,
    WriteOp,
    Written,
)
from oncely.types import (
    Effect as CallEffect,
)

_log = logging.getLogger("oncely")

if TYPE_CHECKING:
    import asyncio

    from oncely.events import Events
    from oncely.store import Store
else:
    asyncio = lazy("asyncio")  # imported at first use: oncely._lazy


T = TypeVar("T")

Reconciler = Callable[[ReconcileRequest], Union[ReconcileVerdict, Awaitable[ReconcileVerdict]]]
"""Asked whether the effect with a key happened; returns :class:`~oncely.Happened`,
:class:`~oncely.NotHappened` or :class:`~oncely.Unknown` (or an awaitable of one)."""


# --- what the interpreter asks a driver to do --------------------------------------------------


class Read(NamedTuple):
    """Read the row of ``(scope, key)``; send the entry or ``None`` (or :class:`Failed`)."""

    scope: str
    key: str


class ReadRecorded(NamedTuple):
    """Read what a step's replay rule compares of the row of ``(scope, key)``: send a
    :class:`~oncely.store.Recorded` from a store's narrow read (``recorded``), else the whole
    entry; or ``None`` (or :class:`Failed`)."""

    scope: str
    key: str


class Write(NamedTuple):
    """Apply ``write`` atomically; send whether it applied (or :class:`Failed`)."""

    write: RowWrite


class Tool(NamedTuple):
    """Call the tool with ``key`` (under ``call``'s claim and limits, when given); send a
    :class:`Called`."""

    key: str
    call: ToolCall | None


class Reconcile(NamedTuple):
    """Call the reconciler of ``request.tool``; send its verdict (a failure is ``Unknown``)."""

    request: ReconcileRequest


class Sleep(NamedTuple):
    """Sleep until ``at`` (ms, by the ledger's clock); send ``None``."""

    at: int


class Failed(NamedTuple):
    """A storage operation raised."""

    error: StorageError


class Called(NamedTuple):
    """What a tool call did: its value, or what it raised."""

    value: Any
    error: BaseException | None


Request = Union[ReadRecorded, Read, Write, Tool, Reconcile, Sleep]


@dataclass(frozen=True)
class Call:
    """The tool call in progress: what :func:`current_call` returns inside a tool."""

    key: str
    """The idempotency key: pass it on to the provider (its Idempotency-Key)."""
    attempt: int | None
    """The attempt the call runs under (1 for the first); ``None`` for a pass-through tool, or
    a reconciliation that calls a provider-idempotent tool again."""
    deadline: int | None
    """The call's deadline (ms since the Unix epoch, by the ledger's clock): the policy's
    ``maxCallMs`` after the claim. Use it for the provider client's timeouts. The asyncio API
    abandons an async tool then (an ambiguous failure); a sync tool cannot be interrupted, so it
    must keep to it itself."""

    def timeout(self, now: int | None = None) -> float | None:
        """Seconds left until the deadline (at least 0), by the system clock unless ``now``."""
        if self.deadline is None:
            return None
        at = int(time.time() * 1000) if now is None else now
        return max(0, self.deadline - at) / 1000


_CURRENT: contextvars.ContextVar[Call | None] = contextvars.ContextVar("oncely_call", default=None)


def current_call() -> Call | None:
    """The :class:`Call` of the tool running now (in its thread or task), else ``None``."""
    return _CURRENT.get()


def _call_of(req: Tool) -> Call:
    c = req.call
    if c is None:
        return Call(req.key, None, None)
    return Call(c.key, None if c.token is None else c.token.attempt, c.deadline)


@dataclass(frozen=True)
class EffectSpec:
    """How an effect runs (the caller's options; the rules are the core's).

    - ``max_attempts``: how many times this call may execute the tool (new attempts only follow
      a definite "did not happen" from reconciliation). 0 (the default): the core's, 3.
    - ``wait``: how long (s) to wait for another worker's claim before raising
      :class:`~oncely.InProgressError`; ``None`` (the default): the core's, 30; 0: do not wait.
    - ``definite``: exception types that mean "the effect did NOT happen" (besides
      :class:`~oncely.DefiniteFailure`). Any other exception is read as an unknown outcome.
    - ``encode``/``decode``: result to JSON text and back (default: :mod:`json`).
    - ``approval_wait``: when the call awaits a person's approval (its policy's ``approval``),
      how long (s) to wait for their decision, looking every second: approved in time, the call
      runs; denied, :class:`~oncely.DeniedError`. ``None`` or 0 (the default): do not wait,
      raise :class:`~oncely.AwaitingApprovalError` at once.
    """

    max_attempts: int = 0
    wait: float | None = None
    definite: tuple[type[BaseException], ...] = ()
    encode: Callable[[Any], str] | None = None
    decode: Callable[[str], Any] | None = None
    approval_wait: float | None = None


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


@dataclass
class SweepReport:
    """What a sweep did: the tally of the core's notes on every due row."""

    examined: int = 0
    """Due entries tended."""
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
    escalated: list[str] = field(default_factory=list)
    """Entries escalated to a human by this sweep."""
    purged: int = 0
    """Settled entries past their retention, deleted."""
    skipped: int = 0
    """Due entries the core left as they were (not due for this job, or the event refused)."""
    errors: list[str] = field(default_factory=list)
    """Why each skipped entry was left as it was (the core's words)."""


def tally(report: SweepReport, note: TendNote) -> None:
    """Add the core's note on one tended row to a sweep report."""
    report.examined += 1
    report.leases_expired += note.lease_expired
    report.purged += note.purged
    if note.skipped is not None:
        report.skipped += 1
        report.errors.append(f"{note.scope} {note.key}: {note.skipped}")
    if note.reconciled is not None:
        report.reconciled += 1
        name = note.reconciled.value.replace("-", "_")
        setattr(report, name, getattr(report, name) + 1)
    if note.escalated is not None:
        report.escalated.append(f"{note.scope} {note.key} ({note.tool}): {note.escalated}")


def effect_command(ledger: Any, spec: EffectSpec, **intent: Any) -> EffectStart:
    """The ``start(effect)`` command of an intent."""
    i, policy = _api.keyed_intent(**intent)  # no step: the core identifies the call
    if isinstance(i, _api.BadArgs):
        # The core's order: what the effect machine checks before the arguments comes first.
        rt = ledger._rt
        raise i.error(lambda x: rt.call("ledger.prepare", x, policy, ledger.owner))
    opts = EffectOptions(
        ledger.owner,
        spec.max_attempts,
        None if spec.wait is None else max(0, int(spec.wait * 1000)),
        i.tool in ledger._reconcilers,
        None if spec.approval_wait is None else max(0, int(spec.approval_wait * 1000)),
    )
    return EffectStart(i, policy, opts)


def effect_result(spec: EffectSpec, done: Any) -> EffectResult[Any]:
    """The caller's result from an effect machine's finish (tool value, or decoded record)."""
    finish, _, value = done
    assert isinstance(finish, EffectReturn)
    if isinstance(finish.source, RecordedResult):
        value = (spec.decode or json.loads)(finish.source.json)
    return EffectResult(value, finish.key, finish.replayed, finish.reconciled)


# --- the interpreter ---------------------------------------------------------------------------


class _Abandoned(AmbiguousFailure):
    """The call did not return by its deadline and was abandoned (the core words the reason)."""


def _tool_input(called: Called, spec: EffectSpec) -> Any:
    e = called.error
    if isinstance(e, _Abandoned):
        return Abandoned()
    if e is None:
        try:
            text = (spec.encode or _api.result_json)(called.value)
            if _api._surrogate_at(text) >= 0:  # not Unicode text: the core says where
                raise _api._judge(text) or ValueError("a lone surrogate")
            return ToolReturned(text)
        except (TypeError, ValueError) as why:
            return ToolUnencodable(f"{type(called.value).__name__}: {why}")
    definite = isinstance(e, DefiniteFailure) or (
        bool(spec.definite) and isinstance(e, spec.definite)
    )
    reason = (
        e.reason
        if isinstance(e, (DefiniteFailure, AmbiguousFailure))
        else f"{type(e).__name__}: {e}"
    )
    return ToolFailure(definite, reason)


def interpret(  # noqa: C901, PLR0912, PLR0915 - one branch per action of the core
    run: Callable[..., Any],
    clock: Callable[[], int],
    command: Command,
    spec: EffectSpec,
    events: Events | None = None,
    first: tuple[Any, Any] | None = None,
) -> Generator[Request, Any, tuple[Finish, Entry | None, Any]]:
    """Run one machine: returns its finish, the row read last and the tool's last value; raises
    the typed error of a ``raise`` (with what the tool, reconciler or store raised as cause).
    The events of each step (the core's decisions, true once its read and write went through)
    go to ``events`` (:mod:`oncely.events`) right before its action; nothing here decides one.
    ``first``: the machine's first step, already asked of the core, and what its replay read
    found (:func:`run_effect_sync`, which made both and did not replay)."""
    if first is None:
        step, pre = _unwrap(run(b"", Start(command), clock())), None
    else:
        step, pre = first
    row, value, cause = None, None, None
    while True:
        inp: Any = None
        if step.read is not None:
            where, rule = step.read, step.replay
            got = None
            if rule is not None:
                # A replay in one crossing; on a store with a narrow read (``recorded``), one
                # read of the four columns the rule compares, and the whole row only when it is
                # not this effect's record.
                if pre is None:
                    got = yield ReadRecorded(where.scope, where.key)
                else:
                    got, pre = pre[0], None
                if got is not None and not isinstance(got, Failed):
                    done = _replayed(rule, where.key, got, events)
                    if done is not None:
                        return done, got if isinstance(got, Entry) else None, value
                    if isinstance(got, Recorded):
                        got = yield Read(where.scope, where.key)
            else:
                got = yield Read(where.scope, where.key)
            if isinstance(got, Failed):
                inp, cause = StoreFailed(str(got.error)), got.error
            else:
                row = got
                if got is not None or step.write is None:
                    inp = RowInput(got)
        if inp is None and step.write is not None:
            got = yield Write(step.write)
            if isinstance(got, Failed):
                inp, cause = StoreFailed(str(got.error)), got.error
            elif not got:
                inp = LostRace()
        if inp is None:
            if step.events and events is not None:
                events.deliver(step.events)
            a = step.action
            if isinstance(a, Report):
                inp = RowInput(row) if step.write is None else Written()
            elif isinstance(a, ToolCall) and a.not_after is not None and clock() >= a.not_after:
                # Never start a call on a lease that has run out: the claim may be another's.
                inp = TooLate()
            elif isinstance(a, (ToolCall, RecallTool)):
                called = yield Tool(a.key, a if isinstance(a, ToolCall) else None)
                value, cause = called.value, called.error or cause
                inp = _tool_input(called, spec)
            elif isinstance(a, CallReconciler):
                got = yield Reconcile(a.request)
                inp = (
                    got if isinstance(got, (NoReconciler, ReconcilerFailed)) else VerdictInput(got)
                )
            elif isinstance(a, SleepUntil):
                yield Sleep(a.at)
                inp = Woke()
            elif isinstance(a, FinishAction):
                return a.finish, row, value
            else:
                error = _error(a.error)
                # The core's own effect-error, for the provider side (oncely.provider.refuse).
                setattr(error, EFFECT_ERROR, a.error)
                raise error from cause
        step = _unwrap(run(step.state, inp, clock()))


def _replayed(
    rule: ReplayRule, key: str, got: Recorded | Entry, events: Events | None
) -> EffectReturn | None:
    """The finish of a step whose replay ``rule`` ``got`` answers (its event delivered), else
    ``None``."""
    result = got.result_json
    if result is None or not _replays(rule, got):
        return None
    if events is not None:
        events.deliver((rule.event,))
    return EffectReturn(key, RecordedResult(result), True, rule.reconciled)


def _replays(rule: ReplayRule, r: Recorded | Entry) -> bool:
    """Whether ``r`` is the record a step's ``replay`` rule names: in its state, of its intent
    (fingerprint and tool), with a result — the rule's values, compared here and nothing else."""
    return (
        r.result_json is not None
        and r.state == rule.state.value
        and r.fingerprint == rule.fingerprint
        and r.tool == rule.tool
    )


def recorded(store: Store, scope: str, key: str) -> Recorded | Entry | None:
    """The store's narrow read for a replay (``recorded``), else its whole row."""
    narrow = getattr(store, "recorded", None)
    return store.get(scope, key) if narrow is None else narrow(scope, key)


EFFECT_ERROR = "_oncely_effect_error"
"""The attribute of an exception raised by a machine that holds the core's ``effect-error``."""


def effect_error_of(error: BaseException) -> Any:
    """The core's ``effect-error`` behind an exception an effect machine raised, else ``None``."""
    return getattr(error, EFFECT_ERROR, None)


def _unwrap(r: Any) -> Any:
    if isinstance(r, Err):
        raise r.error
    return r


def denied_error(n: Denial, said: str | None = None) -> DeniedError:
    """The typed error of a person's denial; its message the core's answer (``said``, else
    asked of the core now)."""
    if said is None:
        reply = _api.answer(CallEffect(ErrDenied(n)))
        said = None if reply is None else reply.text
    return DeniedError(n.key, n.by, n.reason, n.settlement, message=said)


def _error(e: Any) -> Exception:  # noqa: C901, PLR0911 - one case per effect-error
    """The package's typed error for the core's ``effect-error``; its message is the core's
    sentence for the outcome (``agent.answer``: what the model reads), the same in every host."""
    if isinstance(e, ErrStorage):
        return StorageError(e.reason)
    if isinstance(e, ErrLedger):
        return e.error
    reply = _api.answer(CallEffect(e))
    said = None if reply is None else reply.text
    if isinstance(e, ErrConflict):
        return ConflictError(e.conflict.key, e.conflict.pointer, message=said)
    if isinstance(e, ErrInProgress):
        b = e.busy
        return InProgressError(b.key, b.owner, b.retry_after_ms, message=said)
    if isinstance(e, ErrInDoubt):
        d = e.doubt
        return InDoubtError(d.key, d.reason, d.retry_after_ms, message=said)
    if isinstance(e, ErrEscalated):
        return EscalatedError(e.keyed.key, e.keyed.reason, message=said)
    if isinstance(e, ErrToolFailed):
        return ToolFailedError(e.reason, message=said)
    if isinstance(e, ErrResultNotRecorded):
        return ResultNotRecordedError(e.keyed.key, e.keyed.reason, message=said)
    if isinstance(e, ErrAwaitingApproval):
        r = e.approval_request
        return AwaitingApprovalError(r.key, r.args_canonical, r.version, message=said)
    if isinstance(e, ErrDenied):
        return denied_error(e.denial, said)
    assert isinstance(e, ErrContention)
    return ContentionError(e.races, message=said)


# --- the drivers -------------------------------------------------------------------------------


def _apply(store: Store, w: RowWrite) -> bool:
    if w.op is WriteOp.INSERT:
        return store.insert(w.row, claims=w.claims)
    if w.op is WriteOp.UPDATE:
        return store.update(w.expected_version, w.row, history=w.history, claims=w.claims)
    return store.delete(w.row.scope, w.row.key, w.expected_version)


def _storage(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except StorageError as e:
        return Failed(e)


def _failed_reconciler(e: Exception) -> ReconcilerFailed:
    """What a reconciler raised, for the core (which words the reason)."""
    return ReconcilerFailed(str(e) or type(e).__name__)


def _reconcile(reconciler: Reconciler | None, req: ReconcileRequest) -> Any:
    if reconciler is None:
        return NoReconciler()
    try:
        return reconciler(req)
    except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
        return _failed_reconciler(e)


def drive_sync(
    host: Any, steps: Generator[Request, Any, T], tool_fn: Callable[[str], Any] | None = None
) -> T:
    """Run a machine with blocking I/O."""
    send: Any = None
    while True:
        try:
            req = steps.send(send)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if isinstance(req, ReadRecorded):
            send = _storage(recorded, host.store, req.scope, req.key)
        elif isinstance(req, Read):
            send = _storage(host.store.get, req.scope, req.key)
        elif isinstance(req, Write):
            send = _storage(_apply, host.store, req.write)
        elif isinstance(req, Tool):
            beat = _beats_of(host).add(host, req.call)
            token = _CURRENT.set(_call_of(req))
            try:
                send = _call_sync(tool_fn, req.key)
            finally:
                _CURRENT.reset(token)
                if beat is not None:
                    beat.stop()
        elif isinstance(req, Reconcile):
            send = _reconcile(host.reconciler_of(req.request.tool), req.request)
            if inspect.isawaitable(send):
                send = _await_in_new_loop(send)
        else:
            (host.sleep or time.sleep)(max(0, req.at - host.clock()) / 1000)
            send = None


def run_effect_sync(
    host: Any, command: EffectStart, spec: EffectSpec, tool_fn: Callable[[str], Any]
) -> EffectResult[Any]:
    """An effect machine with blocking I/O (``Ledger.run``). Its first step is asked here and,
    when the core gives it a replay rule, its read made here: a replay is that one call into the
    core, one read and the result, without the interpreter; anything else goes on in
    :func:`interpret` from that step and that read."""
    step = _unwrap(host._run(b"", Start(command), host.clock()))
    rule, where = step.replay, step.read
    first: tuple[Any, Any] = (step, None)
    if rule is not None and where is not None:
        got = _storage(recorded, host.store, where.scope, where.key)
        if got is not None and not isinstance(got, Failed):
            done = _replayed(rule, where.key, got, host._events)
            if done is not None:
                return effect_result(spec, (done, None, None))
        first = (step, (got,))
    return effect_result(spec, drive_sync(host, host.machine(command, spec, first), tool_fn))


def _call_sync(tool_fn: Callable[[str], Any] | None, key: str) -> Called:
    assert tool_fn is not None
    try:
        value = tool_fn(key)
    except Exception as e:  # noqa: BLE001 - the core classifies it
        return Called(None, e)
    if inspect.isawaitable(value):
        # A sync function returning an awaitable: its outcome is unknown to the ledger.
        close = getattr(value, "close", None)
        if close is not None:
            close()
        return Called(None, TypeError("the tool returned an awaitable; use ledger.aio"))
    return Called(value, None)


def _await_in_new_loop(aw: Awaitable[Any]) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:

        async def wrap() -> Any:
            try:
                return await aw
            except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
                return _failed_reconciler(e)

        return asyncio.run(wrap())
    close = getattr(aw, "close", None)
    if close is not None:
        close()
    raise TypeError(
        "an async reconciler was called from a synchronous ledger call inside a running event "
        "loop; use the asyncio API (ledger.aio)"
    )


async def drive_async(
    host: Any, steps: Generator[Request, Any, T], tool_fn: Callable[[str], Any] | None = None
) -> T:
    """Run a machine on the event loop: storage in worker threads, async tools and reconcilers
    awaited.

    A caller that stops waiting (its task is cancelled: a framework's tool timeout, a client
    that went away) does not stop a machine that has written to the ledger: from its first write
    on (an effect's claim), the rest runs in a task of its own, shielded from the caller's
    cancellation, to its finish — the call's result (or its deadline, the policy's
    ``maxCallMs``) recorded. That is the rule of ``wit/effect.wit`` ("A caller that stops
    waiting"); a re-ask, or the caller coming back, gets the record. Before its first write, a
    cancellation stops the machine: nothing was claimed, nothing called.
    """
    return await _drive_async(host, steps, tool_fn, None, detach=True)


async def _drive_async(
    host: Any,
    steps: Generator[Request, Any, T],
    tool_fn: Callable[[str], Any] | None,
    send: Any,
    *,
    detach: bool,
) -> T:
    while True:
        try:
            req = steps.send(send)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if isinstance(req, ReadRecorded):
            send = await asyncio.to_thread(_storage, recorded, host.store, req.scope, req.key)
        elif isinstance(req, Read):
            send = await asyncio.to_thread(_storage, host.store.get, req.scope, req.key)
        elif isinstance(req, Write):
            if detach:
                return await _shielded(_to_the_finish(host, steps, tool_fn, req))
            send = await asyncio.to_thread(_storage, _apply, host.store, req.write)
        elif isinstance(req, Tool):
            assert tool_fn is not None
            send = await _call_async(host, tool_fn, req)
        elif isinstance(req, Reconcile):
            send = await _reconcile_async(host, req)
        else:
            seconds = max(0, req.at - host.clock()) / 1000
            slept = host.sleep(seconds) if host.sleep else asyncio.sleep(seconds)
            if inspect.isawaitable(slept):
                await slept
            send = None


async def _reconcile_async(host: Any, req: Reconcile) -> Any:
    verdict = _reconcile(host.reconciler_of(req.request.tool), req.request)
    if inspect.isawaitable(verdict):
        try:
            return await verdict
        except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
            return _failed_reconciler(e)
    return verdict


async def _to_the_finish(
    host: Any, steps: Generator[Request, Any, T], tool_fn: Callable[[str], Any] | None, req: Write
) -> T:
    """The rest of a machine from its first write: the write, then whatever the core says until
    it finishes (the call, its record, reconciliation, further attempts)."""
    send = await asyncio.to_thread(_storage, _apply, host.store, req.write)
    return await _drive_async(host, steps, tool_fn, send, detach=False)


_DETACHED: set[asyncio.Future[Any]] = set()
"""Machines past their first write whose caller may have stopped waiting: the loop keeps only
weak references to tasks, so they are held here until they finish."""


async def _shielded(work: Awaitable[T]) -> T:
    task = asyncio.ensure_future(work)
    _DETACHED.add(task)
    task.add_done_callback(_detached_done)
    return await asyncio.shield(task)


def _detached_done(task: asyncio.Future[Any]) -> None:
    _DETACHED.discard(task)
    if task.cancelled():
        return
    e = task.exception()  # retrieved here, so a caller that left does not leave it unheard
    if e is not None and not isinstance(e, OncelyError):
        _log.warning("a machine whose caller stopped waiting ended with %r", e)


# --- calls under a claim: heartbeats and deadlines ----------------------------------------------


def _heartbeat(host: Any, call: ToolCall) -> Generator[Request, Any, Any]:
    assert call.token is not None
    steps: Generator[Request, Any, Any] = host.machine(
        EventStart(call.scope, call.key, Heartbeat(call.token))
    )
    return steps


class _Beat:
    """One call's heartbeats: due every ``every`` s (monotonic clock) until ``until``."""

    __slots__ = ("active", "call", "every", "host", "next", "until")

    def __init__(self, host: Any, call: ToolCall, every: float, until: float) -> None:
        self.host, self.call, self.every, self.until = host, call, every, until
        self.next = time.monotonic() + every
        self.active = True

    def stop(self) -> None:
        self.active = False
        _beats_of(self.host).remove(self)


class _Beats:
    """Heartbeats of the sync API's calls in flight, from one daemon thread per ledger: a call
    registers (a dict insert, no thread start, no wake-up in the common case) and the thread
    looks every quarter of the shortest heartbeat period seen, so a call shorter than its first
    heartbeat costs no I/O at all."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._jobs: dict[int, _Beat] = {}
        self._tick = 1.0
        self._thread: threading.Thread | None = None

    def add(self, host: Any, call: ToolCall | None) -> _Beat | None:
        if call is None or call.token is None or not call.heartbeat_ms:
            return None
        every = call.heartbeat_ms / 1000
        left = None if call.deadline is None else (call.deadline - host.clock()) / 1000
        job = _Beat(
            host, call, every, time.monotonic() + (left if left is not None else float("inf"))
        )
        with self._cv:
            self._jobs[id(job)] = job
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="oncely-heartbeats", daemon=True
                )
                self._thread.start()
            if every / 4 < self._tick:
                self._tick = every / 4
                self._cv.notify()
        return job

    def remove(self, job: _Beat) -> None:
        with self._cv:
            self._jobs.pop(id(job), None)

    def _loop(self) -> None:
        while True:
            with self._cv:
                self._cv.wait(self._tick)
                now = time.monotonic()
                due = [j for j in self._jobs.values() if j.next <= now]
            for job in due:
                if not job.active or now >= job.until:
                    continue
                try:
                    drive_sync(job.host, _heartbeat(job.host, job.call))
                except StorageError:
                    pass  # beat on: the next beat may get through (wit/effect.wit, call-tool)
                except Exception:  # noqa: BLE001 - refused (the claim moved on): stop
                    self.remove(job)
                    continue
                job.next = time.monotonic() + job.every


def _beats_of(host: Any) -> _Beats:
    beats = getattr(host, "_beats", None)
    if beats is None:
        beats = host._beats = _Beats()
    return beats


async def _beat_async(host: Any, call: ToolCall) -> None:
    assert call.heartbeat_ms
    every = call.heartbeat_ms / 1000
    while True:
        await asyncio.sleep(every)
        try:
            await drive_async(host, _heartbeat(host, call))
        except StorageError:
            pass  # beat on: the next beat may get through (wit/effect.wit, call-tool)
        except Exception:  # noqa: BLE001 - refused (the claim moved on): stop
            return


async def _call_async(host: Any, tool_fn: Callable[[str], Any], req: Tool) -> Called:
    """Call a sync or async tool on the event loop, under its claim: heartbeats while it runs;
    an async tool is abandoned at the deadline (an ambiguous failure)."""
    call = req.call
    beats = None
    if call is not None and call.token is not None and call.heartbeat_ms:
        beats = asyncio.ensure_future(_beat_async(host, call))
    token = _CURRENT.set(_call_of(req))
    try:
        value = tool_fn(req.key)
        if inspect.isawaitable(value):
            if call is not None and call.deadline is not None:
                left = max(0, call.deadline - host.clock()) / 1000
                try:
                    value = await asyncio.wait_for(value, left)
                except asyncio.TimeoutError:
                    return Called(None, _Abandoned("abandoned at its deadline (maxCallMs)"))
            else:
                value = await value
        return Called(value, None)
    except Exception as e:  # noqa: BLE001 - the core classifies it
        return Called(None, e)
    finally:
        _CURRENT.reset(token)
        if beats is not None:
            beats.cancel()
