"""What the ledger decided, as events: to hooks (:meth:`Ledger.on_event
<oncely.Ledger.on_event>`), to :mod:`logging` (logger ``oncely.events``: INFO, WARNING for
conflicts, doubt and escalations) and, when ``opentelemetry-api`` is installed, to OpenTelemetry
(a counter ``oncely.ledger.events`` and an event ``oncely.<kind>`` on the current span).

Which decision is which event, and its detail, is the core's: every step of its machines
carries its events (``wit/effect.wit``), and this module only delivers them. So every oncely
library (the Rust host: ``tracing``, target ``oncely``; JavaScript: OpenTelemetry) emits the same
eight kinds, with the same names, details and order (``tests/vectors/effects.json`` pins them).

::

    ledger.on_event(lambda e: print(e.kind, e.scope, e.key, e.tool, e.detail))

The events of a machine are delivered by the one interpreter of :mod:`oncely._machine`, so the
synchronous and the asyncio API deliver the same ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from oncely.types import Notice


class EventKind(str, Enum):
    """The kind of a ledger decision (its value is the name every oncely library uses)."""

    CLAIMED = "claimed"
    """A key was claimed for an attempt: the tool is called next (``attempt N by OWNER``)."""
    EXECUTED = "executed"
    """The tool ran and its result was recorded (``attempt N``)."""
    REPLAYED = "replayed"
    """A repeat got the recorded result; the tool was not called."""
    CONFLICT = "conflict"
    """The key was used before with different arguments: refused (where they differ)."""
    IN_DOUBT = "in-doubt"
    """The outcome became unknown (the ambiguous failure's reason, or the lease that ran out)."""
    RECONCILED = "reconciled"
    """A reconciliation was recorded (``detail``: what it settled: happened, not-happened or
    unknown; a "did not happen" that is not believed yet is unknown)."""
    ESCALATED = "escalated"
    """Only a human can settle the entry now (``detail``: the entry's reason)."""
    RESOLVED = "resolved"
    """A human settled it (``detail``: the settlement id, who, and the verdict)."""
    AWAITING_APPROVAL = "awaiting-approval"
    """A call now waits for a person's approval (``detail``: the canonical arguments)."""
    APPROVED = "approved"
    """A person approved the call (``detail``: the decision's id and who)."""
    DENIED = "denied"
    """A person denied the call (``detail``: the decision's id, who, and their note)."""

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
    """The entry's tool."""
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

_WARN = frozenset(
    {EventKind.CONFLICT, EventKind.IN_DOUBT, EventKind.ESCALATED, EventKind.AWAITING_APPROVAL}
)


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

    def deliver(self, notices: Iterable[Notice]) -> None:
        """Deliver the events of one step of a machine (the core's decisions), in order."""
        for n in notices:
            self.emit(EventKind(n.kind.value), n.scope, n.key, n.tool, n.detail)


__all__ = ["EventHook", "EventKind", "LedgerEvent"]
