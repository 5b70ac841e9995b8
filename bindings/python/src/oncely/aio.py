"""The asyncio API: the same ledger, with ``async`` methods.

Storage and the core run in worker threads (:func:`asyncio.to_thread`), one hop per ledger
event, so the event loop never blocks on a database; tools and reconcilers may be ``async``
functions and are awaited on the loop. Every effect, event, sweep and wait runs the
core's machines through the interpreter of :mod:`oncely._machine`, the very one the synchronous
API uses, so both APIs behave identically.

::

    ledger = oncely.Ledger.sqlite("ledger.db").aio
    r = await ledger.run(lambda key: refund(key), scope=..., run=..., step=..., tool="refund",
                         args={...}, policy={...})
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from oncely import _api, _machine
from oncely._machine import (
    SWEEP_BATCH,
    EffectResult,
    EffectSpec,
    Reconciler,
    SweepReport,
    effect_command,
    effect_result,
    tally,
)
from oncely.events import EventHook
from oncely.ledger import Ledger, _resolve_event, _settled_id
from oncely.store import HistoryRecord
from oncely.sweeper import AsyncSweeper
from oncely.types import (
    Begin,
    Claim,
    ClaimToken,
    Complete,
    Completion,
    Entry,
    EntryState,
    Event,
    EventStart,
    FailAmbiguous,
    FailDefinite,
    Failure,
    Heartbeat,
    Outcome,
    Purge,
    Reconciled,
    ReconcileVerdict,
    Reconciliation,
    Settlement,
    TendJob,
    ToolPolicy,
    WaitStart,
)

T = TypeVar("T")


class AsyncLedger:
    """An asyncio view of a :class:`~oncely.Ledger` (``ledger.aio``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.sync = ledger
        """The underlying synchronous ledger."""

    def __repr__(self) -> str:
        return f"AsyncLedger({self.sync!r})"

    @classmethod
    async def sqlite(cls, path: str, **kwargs: Any) -> AsyncLedger:
        """Open (and migrate) a SQLite ledger without blocking the loop."""
        return cls(await asyncio.to_thread(Ledger.sqlite, path, **kwargs))

    @classmethod
    async def postgres(cls, dsn: str, **kwargs: Any) -> AsyncLedger:
        """Connect to (and migrate) a PostgreSQL ledger without blocking the loop."""
        return cls(await asyncio.to_thread(Ledger.postgres, dsn, **kwargs))

    @property
    def owner(self) -> str:
        """This worker's owner id."""
        return self.sync.owner

    def reconciler(self, tool: str, fn: Reconciler | None = None) -> Any:
        """Register the reconciler of ``tool`` (sync or async); see :meth:`Ledger.reconciler`."""
        return self.sync.reconciler(tool, fn)

    def on_event(self, hook: EventHook) -> EventHook:
        """Call ``hook`` (a plain function, called on the event loop) with every decision of
        this ledger; see :meth:`Ledger.on_event`."""
        return self.sync.on_event(hook)

    async def close(self) -> None:
        """Close the store's connections."""
        await asyncio.to_thread(self.sync.close)

    async def _drive(
        self, command: Any, tool_fn: Any = None, spec: EffectSpec | None = None
    ) -> Any:
        return await _machine.drive_async(self.sync, self.sync.machine(command, spec), tool_fn)

    async def drive(self, scope: str, key: str, event: Event) -> Outcome:
        """See :meth:`Ledger.drive`."""
        finish, _, _ = await self._drive(EventStart(scope, key, event))
        return finish.outcome  # type: ignore[no-any-return]

    async def begin(self, claim: Claim) -> Outcome:
        """See :meth:`Ledger.begin`."""
        return await self.drive(claim.scope, claim.key, Begin(claim))

    async def complete(self, scope: str, key: str, token: ClaimToken, result_json: str) -> Outcome:
        """See :meth:`Ledger.complete`."""
        return await self.drive(scope, key, Complete(Completion(token, result_json)))

    async def fail_definite(self, scope: str, key: str, token: ClaimToken, reason: str) -> Outcome:
        """See :meth:`Ledger.fail_definite`."""
        return await self.drive(scope, key, FailDefinite(Failure(token, reason)))

    async def fail_ambiguous(self, scope: str, key: str, token: ClaimToken, reason: str) -> Outcome:
        """See :meth:`Ledger.fail_ambiguous`."""
        return await self.drive(scope, key, FailAmbiguous(Failure(token, reason)))

    async def heartbeat(self, scope: str, key: str, token: ClaimToken) -> Outcome:
        """See :meth:`Ledger.heartbeat`."""
        return await self.drive(scope, key, Heartbeat(token))

    async def reconciled(
        self, scope: str, key: str, attempt: int, verdict: ReconcileVerdict
    ) -> Outcome:
        """See :meth:`Ledger.reconciled`."""
        return await self.drive(scope, key, Reconciled(Reconciliation(attempt, verdict)))

    async def resolve(
        self, scope: str, key: str, settlement: Settlement, *, by: str, version: int, note: str = ""
    ) -> str:
        """See :meth:`Ledger.resolve`: returns the settlement's id."""
        return _settled_id(
            await self.drive(scope, key, _resolve_event(settlement, by, note, version))
        )

    async def purge(self, scope: str, key: str) -> Outcome:
        """See :meth:`Ledger.purge`."""
        return await self.drive(scope, key, Purge())

    async def tend(self, job: TendJob, scope: str | None = None) -> SweepReport:
        """See :meth:`Ledger.tend`; async reconcilers are awaited."""
        s = self.sync
        report = SweepReport()
        for e in await asyncio.to_thread(s.store.due, scope, s.clock(), SWEEP_BATCH):
            finish, _, _ = await self._drive(s._tend_command(e, job))
            tally(report, finish)
        return report

    async def purge_expired(self, scope: str | None = None) -> int:
        """See :meth:`Ledger.purge_expired`."""
        return (await self.tend(TendJob.PURGE, scope)).purged

    async def sweep(self, scope: str | None = None) -> SweepReport:
        """See :meth:`Ledger.sweep`; async reconcilers are awaited."""
        return await self.tend(TendJob.SWEEP, scope)

    def start_sweeper(
        self,
        every: float = 5.0,
        *,
        scope: str | None = None,
        on_report: Callable[[SweepReport], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> AsyncSweeper:
        """See :meth:`Ledger.start_sweeper`: an asyncio task in the running loop, async
        reconcilers awaited; ``await sweeper.stop()`` (or ``async with``) ends it."""
        return AsyncSweeper(lambda: self.sweep(scope), every, on_report, on_error)

    async def get(self, scope: str, key: str) -> Entry | None:
        """See :meth:`Ledger.get`."""
        return await asyncio.to_thread(self.sync.get, scope, key)

    async def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        """See :meth:`Ledger.history`."""
        return await asyncio.to_thread(self.sync.history, scope, key)

    async def list(
        self,
        scope: str,
        *,
        state: EntryState | str | None = None,
        tool: str | None = None,
        limit: int = 100,
    ) -> builtins.list[Entry]:
        """See :meth:`Ledger.list`."""
        return await asyncio.to_thread(self.sync.list, scope, state=state, tool=tool, limit=limit)

    async def wait_settled(
        self, scope: str, key: str, *, every: float = 0.05, timeout: float = 30.0
    ) -> Entry | None:
        """See :meth:`Ledger.wait_settled` (sleeps without blocking the loop)."""
        cmd = WaitStart(scope, key, max(1, int(every * 1000)), max(0, int(timeout * 1000)))
        return (await self._drive(cmd))[1]  # type: ignore[no-any-return]

    async def prepare(self, **kwargs: Any) -> Claim:
        """See :meth:`Ledger.prepare`."""
        return await asyncio.to_thread(lambda: self.sync.prepare(**kwargs))

    async def run(
        self,
        tool_fn: Callable[[str], T | Awaitable[T]],
        *,
        scope: str,
        run: str,
        step: str,
        tool: str,
        args: _api.Args,
        policy: str | dict[str, Any] | ToolPolicy,
        max_attempts: int = 0,
        wait: float = 30.0,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
    ) -> EffectResult[T]:
        """Run ``tool_fn`` (sync or async) at most once per intent; see :meth:`Ledger.run`."""
        spec = EffectSpec(max_attempts, wait, definite, encode, decode)
        cmd = effect_command(
            self.sync, spec, scope=scope, run=run, step=step, tool=tool, args=args, policy=policy
        )
        return effect_result(spec, await self._drive(cmd, tool_fn, spec))
