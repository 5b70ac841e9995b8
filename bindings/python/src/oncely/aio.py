"""The asyncio API: the same ledger, with ``async`` methods.

Storage and the core run in worker threads (:func:`asyncio.to_thread`), one hop per ledger
event, so the event loop never blocks on a database; tools and reconcilers may be ``async``
functions and are awaited on the loop. The effect state machine is the one of
:mod:`oncely.ledger`, so both APIs behave identically.

::

    ledger = oncely.Ledger.sqlite("ledger.db").aio
    r = await ledger.run(lambda key: refund(key), scope=..., run=..., step=..., tool="refund",
                         args={...}, policy={...})
"""

from __future__ import annotations

import asyncio
import builtins
import inspect
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar

from oncely import _api
from oncely.types import (
    Claim,
    ClaimToken,
    Entry,
    EntryState,
    Escalation,
    Event,
    Outcome,
    ReconcileRequest,
    ReconcileVerdict,
    Settlement,
    Sweep,
    ToolPolicy,
)

if TYPE_CHECKING:
    from oncely.ledger import EffectResult, Ledger, Reconciler, SweepReport

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
        from oncely.ledger import Ledger

        return cls(await asyncio.to_thread(Ledger.sqlite, path, **kwargs))

    @classmethod
    async def postgres(cls, dsn: str, **kwargs: Any) -> AsyncLedger:
        """Connect to (and migrate) a PostgreSQL ledger without blocking the loop."""
        from oncely.ledger import Ledger

        return cls(await asyncio.to_thread(Ledger.postgres, dsn, **kwargs))

    @property
    def owner(self) -> str:
        """This worker's owner id."""
        return self.sync.owner

    def reconciler(self, tool: str, fn: Reconciler | None = None) -> Any:
        """Register the reconciler of ``tool`` (sync or async); see :meth:`Ledger.reconciler`."""
        return self.sync.reconciler(tool, fn)

    async def close(self) -> None:
        """Close the store's connections."""
        await asyncio.to_thread(self.sync.close)

    async def drive(self, scope: str, key: str, event: Event) -> Outcome:
        """See :meth:`Ledger.drive`."""
        return await asyncio.to_thread(self.sync.drive, scope, key, event)

    async def begin(self, claim: Claim) -> Outcome:
        """See :meth:`Ledger.begin`."""
        return await asyncio.to_thread(self.sync.begin, claim)

    async def complete(self, scope: str, key: str, token: ClaimToken, result_json: str) -> Outcome:
        """See :meth:`Ledger.complete`."""
        return await asyncio.to_thread(self.sync.complete, scope, key, token, result_json)

    async def fail_definite(self, scope: str, key: str, token: ClaimToken, reason: str) -> Outcome:
        """See :meth:`Ledger.fail_definite`."""
        return await asyncio.to_thread(self.sync.fail_definite, scope, key, token, reason)

    async def fail_ambiguous(self, scope: str, key: str, token: ClaimToken, reason: str) -> Outcome:
        """See :meth:`Ledger.fail_ambiguous`."""
        return await asyncio.to_thread(self.sync.fail_ambiguous, scope, key, token, reason)

    async def heartbeat(self, scope: str, key: str, token: ClaimToken) -> Outcome:
        """See :meth:`Ledger.heartbeat`."""
        return await asyncio.to_thread(self.sync.heartbeat, scope, key, token)

    async def reconciled(
        self, scope: str, key: str, attempt: int, verdict: ReconcileVerdict
    ) -> Outcome:
        """See :meth:`Ledger.reconciled`."""
        return await asyncio.to_thread(self.sync.reconciled, scope, key, attempt, verdict)

    async def resolve(
        self, scope: str, key: str, settlement: Settlement, *, by: str, note: str = ""
    ) -> Outcome:
        """See :meth:`Ledger.resolve`."""
        return await asyncio.to_thread(self.sync.resolve, scope, key, settlement, by=by, note=note)

    async def purge(self, scope: str, key: str) -> Outcome:
        """See :meth:`Ledger.purge`."""
        return await asyncio.to_thread(self.sync.purge, scope, key)

    async def purge_expired(self, scope: str | None = None) -> int:
        """See :meth:`Ledger.purge_expired`."""
        return await asyncio.to_thread(self.sync.purge_expired, scope)

    async def get(self, scope: str, key: str) -> Entry | None:
        """See :meth:`Ledger.get`."""
        return await asyncio.to_thread(self.sync.get, scope, key)

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
        """See :meth:`Ledger.wait_settled` (polls without blocking the loop)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            e = await self.get(scope, key)
            settled = e is None or e.state in (
                EntryState.DONE,
                EntryState.FAILED,
                EntryState.ESCALATED,
            )
            now = loop.time()
            if settled or now >= deadline:
                return e
            await asyncio.sleep(min(every, deadline - now))

    async def sweep(self, scope: str | None = None) -> SweepReport:
        """See :meth:`Ledger.sweep`; async reconcilers are awaited."""
        from oncely.ledger import SweepReport, _escalation_line, _sweep_verdict

        s = self.sync
        report = SweepReport()
        for e in await asyncio.to_thread(s.store.unsettled, scope, 10_000):
            report.examined += 1
            try:
                o = await self.drive(e.scope, e.key, Sweep())
            except Exception as err:  # noqa: BLE001 - reported, entry untouched
                report.errors.append(f"{e.scope} {e.key}: {err}")
                continue
            if isinstance(o, ReconcileRequest):
                if e.state is EntryState.PENDING:
                    report.leases_expired += 1
                verdict = _sweep_verdict(s.reconciler_of(o.tool), o)
                if inspect.isawaitable(verdict):
                    verdict = await _await_verdict(verdict)
                await asyncio.to_thread(s._record_verdict, o, verdict, report)
            elif isinstance(o, Escalation):
                if e.state is EntryState.PENDING:
                    report.leases_expired += 1
                report.escalated.append(_escalation_line(o))
        return report

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
        max_attempts: int = 3,
        wait: float = 30.0,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
    ) -> EffectResult[T]:
        """Run ``tool_fn`` (sync or async) at most once per intent; see :meth:`Ledger.run`."""
        from oncely.ledger import EffectSpec, _effect

        claim = await self.prepare(
            scope=scope, run=run, step=step, tool=tool, args=args, policy=policy
        )
        spec = EffectSpec(max_attempts, wait, definite, encode, decode)
        return await run_async(self.sync, _effect(self.sync, claim, spec), tool_fn)


async def _await_verdict(aw: Awaitable[ReconcileVerdict]) -> ReconcileVerdict:
    from oncely.types import Unknown

    try:
        return await aw
    except Exception as e:  # noqa: BLE001 - a failing reconciler cannot tell
        return Unknown(f"the reconciler failed: {e!r}")


async def run_async(
    ledger: Ledger,
    steps: Generator[Any, Any, EffectResult[Any]],
    tool_fn: Callable[[str], Any],
) -> EffectResult[Any]:
    """Run the effect state machine on the event loop (storage in worker threads)."""
    from oncely.ledger import _call_reconciler, _CallTool, _Drive, _Reconcile, _Record, _ToolOutcome

    send: Any = None
    while True:
        try:
            action = steps.send(send)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if isinstance(action, _Drive):
            send = await asyncio.to_thread(
                ledger.drive_from, action.scope, action.key, action.event, action.known
            )
        elif isinstance(action, _CallTool):
            try:
                value = tool_fn(action.key)
                if inspect.isawaitable(value):
                    value = await value
                send = _ToolOutcome(value=value)
            except Exception as e:  # noqa: BLE001 - classified by the state machine
                send = _ToolOutcome(error=e)
        elif isinstance(action, _Reconcile):
            send = _call_reconciler(action.fn, action.req)
            if inspect.isawaitable(send):
                send = await _await_verdict(send)
        elif isinstance(action, _Record):
            await asyncio.to_thread(
                ledger.record_completion,
                action.scope,
                action.key,
                action.token,
                action.text,
                action.known,
            )
            send = None
        else:
            await asyncio.sleep(action.seconds)
            send = None
