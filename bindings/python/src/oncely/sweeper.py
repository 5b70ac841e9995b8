"""Background sweeping (``Ledger.start_sweeper``, ``AsyncLedger.start_sweeper``): the ledger's
time-driven work — expired leases go in doubt, the registered reconcilers run, what is past its
deadline is escalated, settled entries past their retention are purged — without anyone calling
``sweep`` by hand.

A pass runs at once (what a crashed worker left), then ``every`` seconds after each pass ends;
passes never overlap. A failed pass (the database is down) goes to ``on_error``, else to the
``oncely`` logger, and the loop goes on. ``stop()`` lets a pass in flight finish.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import math
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from oncely._lazy import lazy
from oncely._machine import SweepReport

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = lazy("asyncio")  # imported at first use: oncely._lazy

log = logging.getLogger("oncely")

OnReport = Callable[[SweepReport], Any]
OnError = Callable[[BaseException], Any]


def _interval(every: float) -> float:
    if isinstance(every, bool) or not isinstance(every, (int, float)) or not every > 0:
        raise TypeError(f"every must be a positive number of seconds, not {every!r}")
    if not math.isfinite(every):
        raise TypeError("every must be finite")
    return float(every)


def _report(report: SweepReport, on_report: OnReport | None, on_error: OnError | None) -> None:
    if on_report is not None:
        try:
            on_report(report)
        except Exception as e:  # noqa: BLE001 - a hook's failure never ends the loop
            _failed(e, on_error)


async def _areport(
    report: SweepReport, on_report: OnReport | None, on_error: OnError | None
) -> None:
    """:func:`_report` for the async sweeper: a hook may be ``async def`` (it is awaited)."""
    if on_report is None:
        return
    try:
        got = on_report(report)
        if inspect.isawaitable(got):
            await got
    except Exception as e:  # noqa: BLE001 - a hook's failure never ends the loop
        await _afailed(e, on_error)


async def _afailed(error: BaseException, on_error: OnError | None) -> None:
    """:func:`_failed` for the async sweeper: ``on_error`` may be ``async def``."""
    if on_error is not None:
        try:
            got = on_error(error)
            if inspect.isawaitable(got):
                await got
            return
        except Exception as e:  # noqa: BLE001 - reported below, with the original
            log.error("the sweeper's on_error failed: %r", e)
    log.error("sweep failed: %s", error, exc_info=error)


def _failed(error: BaseException, on_error: OnError | None) -> None:
    if on_error is not None:
        try:
            on_error(error)
            return
        except Exception as e:  # noqa: BLE001 - reported below, with the original
            log.error("the sweeper's on_error failed: %r", e)
    log.error("sweep failed: %s", error, exc_info=error)


class Sweeper:
    """A background sweep in a daemon thread (``Ledger.start_sweeper``). Also a context
    manager: leaving the block stops it."""

    def __init__(
        self,
        sweep: Callable[[], SweepReport],
        every: float,
        on_report: OnReport | None = None,
        on_error: OnError | None = None,
    ) -> None:
        self.every = _interval(every)
        self._sweep = sweep
        self._on_report = on_report
        self._on_error = on_error
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="oncely-sweeper", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                report = self._sweep()
            except Exception as e:  # noqa: BLE001 - a failed pass never ends the loop
                _failed(e, self._on_error)
            else:
                _report(report, self._on_report, self._on_error)
            self._stop.wait(self.every)

    @property
    def running(self) -> bool:
        """Whether the loop goes on (``False`` once stopped)."""
        return not self._stop.is_set() and self._thread.is_alive()

    def stop(self, timeout: float | None = None) -> None:
        """Stop sweeping; returns once a pass in flight has finished (or ``timeout`` passed).
        Called from inside a pass (an ``on_report`` hook), it only asks the loop to end."""
        self._stop.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def __enter__(self) -> Sweeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class AsyncSweeper:
    """A background sweep as an asyncio task (``AsyncLedger.start_sweeper``); async
    reconcilers are awaited. Also an async context manager."""

    def __init__(
        self,
        sweep: Callable[[], Awaitable[SweepReport]],
        every: float,
        on_report: OnReport | None = None,
        on_error: OnError | None = None,
    ) -> None:
        self.every = _interval(every)
        self._sweep = sweep
        self._on_report = on_report
        self._on_error = on_error
        self._stop = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="oncely-sweeper")

    async def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                report = await self._sweep()
            except Exception as e:  # noqa: BLE001 - a failed pass never ends the loop
                await _afailed(e, self._on_error)
            else:
                await _areport(report, self._on_report, self._on_error)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.every)

    @property
    def running(self) -> bool:
        """Whether the loop goes on (``False`` once stopped)."""
        return not self._stop.is_set() and not self._task.done()

    async def stop(self) -> None:
        """Stop sweeping; returns once a pass in flight has finished."""
        self._stop.set()
        if asyncio.current_task() is not self._task:
            await self._task

    async def __aenter__(self) -> AsyncSweeper:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


__all__ = ["AsyncSweeper", "Sweeper"]
