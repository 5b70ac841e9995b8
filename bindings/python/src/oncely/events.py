"""What the ledger decided, as events: to hooks (:meth:`Ledger.on_event
<oncely.Ledger.on_event>`), to :mod:`logging` (logger ``oncely.events``: INFO, WARNING for
conflicts, doubt and escalations) and, when ``opentelemetry-api`` is installed, to OpenTelemetry
(a counter ``oncely.ledger.events`` and an event ``oncely.<kind>`` on the current span).

The same eight kinds are emitted by every oncely library (the Rust host: ``tracing``, target
``oncely``; JavaScript: OpenTelemetry), with the same names and at the same decisions.

::

    ledger.on_event(lambda e: print(e.kind, e.scope, e.key, e.tool, e.detail))

The events of a machine are emitted by the one interpreter of :mod:`oncely._machine`, so the
synchronous and the asyncio API emit the same ones.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from oncely.types import (
    Begin,
    Complete,
    Conflict,
    EffectReturn,
    EffectStart,
    ErrConflict,
    ErrEscalated,
    EventDone,
    EventStart,
    Execute,
    FailAmbiguous,
    Happened,
    NotHappened,
    Reconciled,
    Replay,
    Resolve,
    Settled,
    TendNote,
    ToolCall,
    ToolFailure,
)


class EventKind(str, Enum):
    """The kind of a ledger decision (its value is the name every oncely library uses)."""

    CLAIMED = "claimed"
    """A key was claimed: the tool is about to be called (an attempt)."""
    EXECUTED = "executed"
    """The tool ran and its result was recorded."""
    REPLAYED = "replayed"
    """A repeat got the recorded result; the tool was not called."""
    CONFLICT = "conflict"
    """The key was used before with different arguments: refused."""
    IN_DOUBT = "in-doubt"
    """The outcome is unknown (an ambiguous failure, or a lease that ran out)."""
    RECONCILED = "reconciled"
    """A reconciliation answered (``detail``: happened, not-happened or unknown)."""
    ESCALATED = "escalated"
    """Only a human can settle the entry now."""
    RESOLVED = "resolved"
    """A human settled it (``detail``: the settlement id, who, and the verdict)."""

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class LedgerEvent:
    """One decision of the ledger."""

    kind: EventKind
    """What was decided."""
    scope: str
    """The tenant."""
    key: str
    """The idempotency key."""
    tool: str
    """The tool (``""`` when the deciding call does not know it, e.g. a settlement)."""
    detail: str
    """More, for people: a reason, a verdict, a settlement id."""


EventHook = Callable[[LedgerEvent], object]
"""A hook of :meth:`Ledger.on_event <oncely.Ledger.on_event>`: called inline, on the thread or
task that decided, with every event. Keep it quick; what it raises is logged and ignored."""

log = logging.getLogger("oncely.events")
"""Every event, as a record with ``oncely_event``, ``oncely_scope``, ``oncely_key``,
``oncely_tool`` and ``oncely_detail`` attributes. It has a :class:`logging.NullHandler`, so
nothing is printed unless the application configures logging."""
log.addHandler(logging.NullHandler())

_WARN = frozenset({EventKind.CONFLICT, EventKind.IN_DOUBT, EventKind.ESCALATED})


class _Otel:
    """The OpenTelemetry instruments, from the global providers (so an application's SDK set
    up before or after this package is used picks them up)."""

    def __init__(self) -> None:
        from opentelemetry import metrics, trace

        from oncely import __version__

        self.counter = metrics.get_meter("oncely", __version__).create_counter(
            "oncely.ledger.events",
            unit="{event}",
            description="Decisions of the oncely ledger, by kind (oncely.event)",
        )
        self.current_span = trace.get_current_span

    def record(self, e: LedgerEvent) -> None:
        kind = e.kind.value
        self.counter.add(1, {"oncely.event": kind, "oncely.scope": e.scope, "oncely.tool": e.tool})
        span = self.current_span()
        if span.is_recording():
            span.add_event(
                f"oncely.{kind}",
                {
                    "oncely.event": kind,
                    "oncely.scope": e.scope,
                    "oncely.key": e.key,
                    "oncely.tool": e.tool,
                    "oncely.detail": e.detail,
                },
            )


_otel: _Otel | None = None
_otel_looked = False
_otel_lock = threading.Lock()


def _load_otel() -> _Otel | None:
    """The OpenTelemetry instruments, or ``None`` without ``opentelemetry-api``: imported at the
    first event, not with this package."""
    global _otel, _otel_looked
    with _otel_lock:
        if not _otel_looked:
            try:
                _otel = _Otel()
            except ImportError:  # no opentelemetry-api: no telemetry
                _otel = None
            except Exception:  # a broken install never breaks an effect
                _otel = None
                logging.getLogger("oncely").exception("oncely: OpenTelemetry is unusable")
            _otel_looked = True
    return _otel


class Events:
    """The hooks of one ledger, and the emission of its events to every sink."""

    __slots__ = ("hooks",)

    def __init__(self) -> None:
        self.hooks: tuple[EventHook, ...] = ()

    def add(self, hook: EventHook) -> None:
        if not callable(hook):
            raise TypeError(f"an event hook must be callable, not {hook!r}")
        self.hooks = (*self.hooks, hook)  # copied on write: emitters never see a list change

    def emit(self, kind: EventKind, scope: str, key: str, tool: str, detail: str) -> None:
        """Send one event to logging, OpenTelemetry and every hook."""
        level = logging.WARNING if kind in _WARN else logging.INFO
        logged = log.isEnabledFor(level)
        otel = _otel if _otel_looked else _load_otel()
        hooks = self.hooks
        if not (logged or otel or hooks):
            return
        e = LedgerEvent(kind, scope, key, tool, detail)
        if logged:
            log.log(
                level,
                "oncely %s %s %s%s%s",
                kind.value,
                scope,
                key,
                f" {tool}" if tool else "",
                f": {detail}" if detail else "",
                extra={
                    "oncely_event": kind.value,
                    "oncely_scope": scope,
                    "oncely_key": key,
                    "oncely_tool": tool,
                    "oncely_detail": detail,
                },
            )
        if otel is not None:
            try:
                otel.record(e)
            except Exception:  # telemetry never breaks an effect
                logging.getLogger("oncely").exception("oncely: OpenTelemetry failed on %s", kind)
        for hook in hooks:
            try:
                hook(e)
            except Exception:  # a hook's failure never breaks an effect
                logging.getLogger("oncely").exception(
                    "oncely: the event hook %r raised on %s %s %s; ignored", hook, kind, scope, key
                )

    # --- the decisions of the core's machines (called by oncely._machine.interpret) -----------

    def claimed(self, tool: str, call: ToolCall) -> None:
        """The core asks to call the tool under a claim."""
        assert call.token is not None
        detail = f"attempt {call.token.attempt} by {call.token.owner}"
        self.emit(EventKind.CLAIMED, call.scope, call.key, tool, detail)

    def called(self, tool: str, call: ToolCall, told: Any) -> None:
        """What the tool did under a claim: an ambiguous failure puts the outcome in doubt."""
        if isinstance(told, ToolFailure) and not told.definite:
            self.emit(EventKind.IN_DOUBT, call.scope, call.key, tool, told.reason)

    def finished(self, command: Any, finish: Any, claimed: bool) -> None:
        """A machine finished: an effect, an explicit event or a tended row."""
        if isinstance(command, EffectStart) and isinstance(finish, EffectReturn):
            scope, tool = command.intent.scope, command.intent.tool
            if finish.reconciled:
                self.emit(EventKind.RECONCILED, scope, finish.key, tool, "happened")
            elif finish.replayed:
                self.emit(EventKind.REPLAYED, scope, finish.key, tool, "")
            elif claimed:
                self.emit(EventKind.EXECUTED, scope, finish.key, tool, "")
        elif isinstance(command, EventStart) and isinstance(finish, EventDone):
            self._event(command, finish.outcome)
        elif isinstance(finish, TendNote):
            self._tended(finish)

    def raised(self, command: Any, error: Any) -> None:
        """An effect ended with the core's error. (An unknown outcome is reported where it
        arises, when the tool fails ambiguously or a lease runs out, not again when an effect
        finds an entry still in doubt.)"""
        if not isinstance(command, EffectStart):
            return
        scope, tool = command.intent.scope, command.intent.tool
        if isinstance(error, ErrConflict):
            c = error.conflict
            self.emit(EventKind.CONFLICT, scope, c.key, tool, _difference(c.pointer))
        elif isinstance(error, ErrEscalated):
            self.emit(EventKind.ESCALATED, scope, error.keyed.key, tool, error.keyed.reason)

    def _event(self, command: EventStart, outcome: Any) -> None:
        """The explicit API: begin, complete, fail_ambiguous, reconciled, resolve."""
        ev, scope, key = command.event, command.scope, command.key
        if isinstance(ev, Begin):
            tool = ev.claim.tool
            if isinstance(outcome, Execute):
                t = outcome.token
                self.emit(EventKind.CLAIMED, scope, key, tool, f"attempt {t.attempt} by {t.owner}")
            elif isinstance(outcome, Replay):
                self.emit(EventKind.REPLAYED, scope, key, tool, "")
            elif isinstance(outcome, Conflict):
                self.emit(EventKind.CONFLICT, scope, key, tool, _difference(outcome.pointer))
        elif isinstance(ev, Complete):
            self.emit(EventKind.EXECUTED, scope, key, "", f"attempt {ev.completion.token.attempt}")
        elif isinstance(ev, FailAmbiguous):
            self.emit(EventKind.IN_DOUBT, scope, key, "", ev.failure.reason)
        elif isinstance(ev, Reconciled):
            verdict = ev.reconciliation.verdict
            self.emit(EventKind.RECONCILED, scope, key, "", _verdict_name(verdict))
        elif isinstance(ev, Resolve) and isinstance(outcome, Settled):
            r = ev.resolution
            said = "happened" if isinstance(r.settlement, Happened) else "did not happen"
            self.emit(EventKind.RESOLVED, scope, key, "", f"{outcome.id} by {r.by}: {said}")

    def _tended(self, note: TendNote) -> None:
        """A sweep's work on one due row."""
        scope, key, tool = note.scope, note.key, note.tool
        if note.lease_expired:
            why = "the lease ran out before a result was recorded"
            self.emit(EventKind.IN_DOUBT, scope, key, tool, why)
        if note.reconciled is not None:
            self.emit(EventKind.RECONCILED, scope, key, tool, note.reconciled.value)
        if note.escalated is not None:
            self.emit(EventKind.ESCALATED, scope, key, tool, note.escalated)


def _difference(pointer: str) -> str:
    return f"first difference at {json.dumps(pointer, ensure_ascii=False)}"


def _verdict_name(verdict: Any) -> str:
    if isinstance(verdict, Happened):
        return "happened"
    return "not-happened" if isinstance(verdict, NotHappened) else "unknown"


__all__ = ["EventHook", "EventKind", "LedgerEvent"]
