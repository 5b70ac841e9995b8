"""The effect ledger: the API over the core's machines (``wit/effect.wit``).

Every effect, event, sweep, purge and wait runs as a machine of the core, interpreted by
:mod:`oncely._machine` (the same interpreter for this API and the asyncio one). No rule is
decided here: which event is allowed, what a repeat does, when a lease has expired, how long to
wait, whether an unknown outcome is reconciled or escalated — all of it is the core's.

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

import builtins
import inspect
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from oncely import _api, _machine, _runtime
from oncely._lazy import lazy
from oncely._machine import (
    EffectResult,
    EffectSpec,
    Reconciler,
    SweepReport,
    effect_command,
    effect_result,
    tally,
)
from oncely.errors import OncelyError
from oncely.events import EventHook, Events
from oncely.store import HistoryRecord, ListFilter, Store
from oncely.sweeper import AsyncSweeper, Sweeper
from oncely.types import (
    ApprovalRequest,
    Approve,
    Ask,
    AwaitingApproval,
    Begin,
    Claim,
    ClaimToken,
    Complete,
    Completion,
    Decision,
    Denied,
    Deny,
    Entry,
    EntryState,
    Event,
    EventStart,
    FailAmbiguous,
    FailDefinite,
    Failure,
    Happened,
    Heartbeat,
    HeldDecision,
    Outcome,
    Purge,
    Reconciled,
    ReconcileVerdict,
    Reconciliation,
    Resolution,
    Resolve,
    Settled,
    Settlement,
    TendJob,
    TendStart,
    ToolPolicy,
    WaitStart,
)

if TYPE_CHECKING:
    import asyncio

    from oncely._aliases import Args
    from oncely.tool import Tool
else:
    asyncio = lazy("asyncio")  # imported at first use: oncely._lazy


T = TypeVar("T")

Clock = Callable[[], int]
"""The host's clock: milliseconds since the Unix epoch."""


def system_clock() -> int:
    """Now, in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


def happened(result: Any) -> Happened:
    """A :class:`Happened` verdict or settlement carrying ``result`` (a JSON-compatible value,
    written as a tool's result is). Raises :class:`~oncely.CanonError` for a value JSON cannot
    carry."""
    return Happened(_api.result_json(result))


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
        sleep: Callable[[float], Any] | None = None,
    ) -> None:
        self.store = store
        self.owner = (
            _api._id("owner", owner) if owner else f"py{os.getpid()}-{secrets.token_hex(4)}"
        )
        """This worker's owner id in claims."""
        self.clock: Clock = clock or system_clock
        self.sleep = sleep
        """How to sleep (seconds) when the core says so; ``None``: :func:`time.sleep` (and
        :func:`asyncio.sleep` in the asyncio API). A test clock's sleep may advance it."""
        self._rt = _runtime.shared()
        self._reconcilers: dict[str, Reconciler] = {}
        self._events = Events()

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
    def dynamodb(cls, location: str, **kwargs: Any) -> Ledger:
        """A ledger in a DynamoDB table, ``dynamodb://TABLE?region=…&endpoint=…`` (created at
        open if absent); needs boto3 (``pip install 'oncely[dynamodb]'``)."""
        from oncely.store.dynamodb import DynamoDBStore

        return cls(DynamoDBStore(location), **kwargs)

    @classmethod
    def open(cls, location: str | os.PathLike[str], **kwargs: Any) -> Ledger:
        """A ``postgres://`` URL or a SQLite file path, as the Rust CLI's ``--db``, or a
        ``dynamodb://TABLE`` location (:meth:`dynamodb`)."""
        loc = os.fspath(location)
        if loc.startswith(("postgres://", "postgresql://")):
            return cls.postgres(loc, **kwargs)
        if loc.startswith("dynamodb://"):
            return cls.dynamodb(loc, **kwargs)
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

    def remove_reconciler(self, tool: str) -> bool:
        """Unregister the reconciler of ``tool``; whether one was registered. From then on a
        sweep leaves its in-doubt entries alone (a person settles them), and a reconciliation
        already asked for records the outcome as still unknown."""
        return self._reconcilers.pop(tool, None) is not None

    def reconciler_of(self, tool: str) -> Reconciler | None:
        """The reconciler registered for ``tool`` in this process, if any."""
        return self._reconcilers.get(tool)

    # --- events ------------------------------------------------------------------------------

    def on_event(self, hook: EventHook) -> EventHook:
        """Call ``hook`` with every decision of this ledger (and of its :attr:`aio` view): an
        :class:`~oncely.LedgerEvent` of kind claimed, executed, replayed, conflict, in-doubt,
        reconciled, escalated or resolved (:class:`~oncely.EventKind`). It runs inline, on the
        thread or task that decided: keep it quick, and never block. What it raises is logged
        (``oncely`` logger) and ignored. Returns ``hook``, so it can be a decorator.

        Every decision also goes to the ``oncely.events`` logger and, when
        ``opentelemetry-api`` is installed, to OpenTelemetry (:mod:`oncely.events`), hook or
        not."""
        self._events.add(hook)
        return hook

    # --- machines ------------------------------------------------------------------------------

    def machine(self, command: Any, spec: EffectSpec | None = None, first: Any = None) -> Any:
        """The interpreter of one machine of the core (run it with a driver of
        :mod:`oncely._machine`); ``first``: its first step and read, already made
        (:func:`oncely._machine.run_effect_sync`)."""
        return _machine.interpret(
            self._run, self.clock, command, spec or _DEFAULT_SPEC, self._events, first
        )

    def _run(self, state: bytes, inp: Any, now: int) -> Any:
        return self._rt.run(state, inp, now)

    def _tend_command(self, e: Entry, job: TendJob) -> TendStart:
        return TendStart(e.scope, e.key, job, e.tool in self._reconcilers)

    def drive(self, scope: str, key: str, event: Event) -> Outcome:
        """Apply one event to ``(scope, key)`` (the core's event machine: read, decide, write;
        a lost race reads again) and return its outcome.

        Raises :class:`~oncely.LedgerError` when the core refuses the event (nothing written),
        :class:`~oncely.StorageError`, or :class:`~oncely.ContentionError`.
        """
        finish, _, _ = _machine.drive_sync(self, self.machine(EventStart(scope, key, event)))
        return finish.outcome  # type: ignore[no-any-return]

    def prepare(
        self,
        *,
        scope: str,
        run: str,
        step: str | None = None,
        tool: str,
        args: Args,
        policy: str | dict[str, Any] | ToolPolicy | None = None,
    ) -> Claim:
        """The claim for an intent under a policy (the core's ``prepare``: derives the key)."""
        intent, parsed = _api.keyed_intent(  # no step: the core identifies the call
            scope=scope, run=run, step=step, tool=tool, args=args, policy=policy
        )
        if isinstance(intent, _api.BadArgs):
            raise intent.error(lambda i: self._rt.call("ledger.prepare", i, parsed, self.owner))
        r = self._rt.call("ledger.prepare", intent, parsed, self.owner)
        claim: Claim = _machine._unwrap(r)
        return claim

    def asks_approval(
        self,
        *,
        scope: str,
        run: str,
        step: str | None = None,
        tool: str,
        args: Args,
        policy: str | dict[str, Any] | ToolPolicy | None = None,
    ) -> bool:
        """Whether running this intent now would wait for a person's approval (the core's
        ``ledger.asks-approval`` on the entry as it stands): its policy asks for one on these
        arguments, and neither an approval that holds nor a denial is recorded. What an agent
        framework's own approval step asks before it asks its person, so that the framework's
        decision and the ledger's are one (the adapters; docs/choosing-keys.md)."""
        claim = self.prepare(scope=scope, run=run, step=step, tool=tool, args=args, policy=policy)
        current = self.store.get(claim.scope, claim.key)
        asks: bool = self._rt.call("ledger.asks-approval", current, claim, self.clock())
        return asks

    def request_approval(
        self,
        *,
        scope: str,
        run: str,
        step: str | None = None,
        tool: str,
        args: Args,
        policy: str | dict[str, Any] | ToolPolicy | None = None,
    ) -> ApprovalRequest | None:
        """Record the request for a person's approval of running this intent, and claim
        nothing (the core's ``ask`` event): what an agent framework's own approval step does
        before it asks its person, so that the inbox lists the same one request and a person may
        decide in either place. Returns the request (recorded now or found: its ``key``,
        ``args_canonical`` and the ``version`` to decide on), or ``None`` when there is nothing
        to ask: a person approved the call (the next run goes under the approval), it ran, or
        the policy asks for no approval here. Raises :class:`~oncely.DeniedError` when a person
        denied it."""
        claim = self.prepare(scope=scope, run=run, step=step, tool=tool, args=args, policy=policy)
        o = self.drive(claim.scope, claim.key, Ask(claim))
        if isinstance(o, AwaitingApproval):
            return o.approval_request
        if isinstance(o, Denied):
            raise _machine.denied_error(o.denial)
        return None

    def decision_of(self, entry: Entry) -> HeldDecision | None:
        """What ``entry`` holds of a person's approval (the core's ``ledger.decision-of``):
        :class:`~oncely.types.Asked` (its request waits for a person),
        :class:`~oncely.types.Approved` (``by``, ``settlement``, ``unused``: not yet run under,
        still withdrawable), :class:`~oncely.types.Denied` (what the model reads of it), or
        ``None``."""
        d: HeldDecision | None = self._rt.call("ledger.decision-of", entry)
        return d

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
        self, scope: str, key: str, settlement: Settlement, *, by: str, version: int, note: str = ""
    ) -> str:
        """A human's verdict on an in-doubt or escalated entry: :class:`Happened` (its result
        JSON, e.g. ``oncely.happened({...})``, is replayed from then on) or :class:`NotHappened`
        (a new attempt may run). ``version`` is the entry's version the person decided on (as
        :meth:`get` showed it): if the entry has changed since, nothing is written and
        :class:`~oncely.LedgerError` is raised with kind ``changed`` (look again; an entry no
        longer in doubt is refused as ``invalid-state``). Returns the settlement's id (``stl-``
        and 16 hex digits), kept in the entry (``settlement``) and its :meth:`history`."""
        return _settled_id(self.drive(scope, key, _resolve_event(settlement, by, note, version)))

    def approve(self, scope: str, key: str, *, by: str, version: int, note: str = "") -> str:
        """A person approves the call that awaits approval (its policy's ``approval``): the next
        ask of the intent runs it once, while the approval holds. ``version`` is the entry's
        version the person decided on (:class:`~oncely.AwaitingApprovalError` and :meth:`get`
        give it): if the entry has changed since, nothing is written and
        :class:`~oncely.LedgerError` is raised with kind ``changed``. Returns the decision's id
        (``stl-`` and 16 hex digits), kept in the entry and its :meth:`history`."""
        return _settled_id(self.drive(scope, key, Approve(Decision(by, note, version))))

    def deny(self, scope: str, key: str, *, by: str, version: int, note: str = "") -> str:
        """A person denies the call that awaits approval (or an approval not yet used): it will
        not happen, and every later ask raises :class:`~oncely.DeniedError` with ``note`` as
        the reason. ``version`` as in :meth:`approve`. Returns the decision's id."""
        return _settled_id(self.drive(scope, key, Deny(Decision(by, note, version))))

    def purge(self, scope: str, key: str) -> Outcome:
        """Delete one settled entry whose retention has passed."""
        return self.drive(scope, key, Purge())

    def tend(self, job: TendJob, scope: str | None = None) -> SweepReport:
        """Tend every row due now (``due_at <= now``) with the core's ``tend`` machine.
        Storage errors propagate (:class:`~oncely.StorageError`)."""
        report = SweepReport()
        for e in self.store.due(scope, self.clock(), _api.core_defaults().due_batch):
            finish, _, _ = _machine.drive_sync(self, self.machine(self._tend_command(e, job)))
            tally(report, finish)
        return report

    def purge_expired(self, scope: str | None = None) -> int:
        """Delete every settled entry whose retention has passed (of one scope, or all)."""
        return self.tend(TendJob.PURGE, scope).purged

    def sweep(self, scope: str | None = None) -> SweepReport:
        """Time-driven work on every due entry: expire leases, run the registered reconcilers
        of in-doubt entries, escalate what is past its deadline, purge settled entries past
        their retention. Never executes a tool."""
        return self.tend(TendJob.SWEEP, scope)

    def start_sweeper(
        self,
        every: float = 5.0,
        *,
        scope: str | None = None,
        on_report: Callable[[SweepReport], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> Sweeper:
        """:meth:`sweep` in a background thread: at once, then ``every`` seconds after each
        pass ends, with this ledger's reconcilers, until the returned :class:`Sweeper` is
        stopped (``stop()``, or leaving its ``with`` block). Each pass's report goes to
        ``on_report``; a failed pass to ``on_error`` (else the ``oncely`` logger), and the loop
        goes on."""
        return Sweeper(lambda: self.sweep(scope), every, on_report, on_error)

    def get(self, scope: str, key: str) -> Entry | None:
        """One entry."""
        return self.store.get(scope, key)

    def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        """The history of one entry, oldest first: its columns as each write that changed its
        state, attempt, reason, reconciliation count or settlement left them (heartbeats are
        not kept). Empty when there is no entry; a purge deletes it with the entry."""
        return self.store.history(scope, key)

    def list(
        self,
        scope: str,
        *,
        state: EntryState | str | None = None,
        tool: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[Entry]:
        """Entries of one scope, newest first: at most ``limit`` (``None`` or 0: the core's page
        size, ``core_defaults().page_size``, 100)."""
        return self.store.list(
            scope, ListFilter(state, tool, limit or _api.core_defaults().page_size)
        )

    def wait_settled(
        self, scope: str, key: str, *, every: float | None = None, timeout: float | None = None
    ) -> Entry | None:
        """Wait until ``(scope, key)`` is settled (done or failed) or needs a human, looking
        every ``every`` seconds for at most ``timeout`` (the core's wait machine; ``None``: the
        core's defaults, 0.05 and 30). Returns the entry as last seen."""
        cmd = _wait_command(scope, key, every, timeout)
        seen: Entry | None = _machine.drive_sync(self, self.machine(cmd))[1]
        return seen

    # --- effects ------------------------------------------------------------------------------

    def run(
        self,
        tool_fn: Callable[[str], T],
        *,
        scope: str,
        run: str,
        step: str | None = None,
        tool: str,
        args: Args,
        policy: str | dict[str, Any] | ToolPolicy | None = None,
        max_attempts: int = 0,
        wait: float | None = None,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
        approval_wait: float | None = None,
    ) -> EffectResult[T]:
        """Run ``tool_fn`` at most once per intent. ``tool_fn`` gets the idempotency key (pass
        it on to the provider). See :class:`EffectSpec` for the options.

        Raises :class:`~oncely.ConflictError`, :class:`~oncely.InProgressError`,
        :class:`~oncely.InDoubtError`, :class:`~oncely.EscalatedError`,
        :class:`~oncely.ToolFailedError` (what the tool raised is its ``__cause__``),
        :class:`~oncely.ResultNotRecordedError`, :class:`~oncely.StorageError`,
        :class:`~oncely.LedgerError`, :class:`~oncely.ContentionError`,
        :class:`~oncely.AwaitingApprovalError` or :class:`~oncely.DeniedError`, as the core
        decides.
        """
        if inspect.iscoroutinefunction(tool_fn):
            raise TypeError("an async tool needs the async API: await ledger.aio.run(...)")
        spec = EffectSpec(max_attempts, wait, definite, encode, decode, approval_wait)
        cmd = effect_command(
            self, spec, scope=scope, run=run, step=step, tool=tool, args=args, policy=policy
        )
        return _machine.run_effect_sync(self, cmd, spec, tool_fn)

    def tool(
        self,
        name: str | None = None,
        *,
        policy: str | dict[str, Any] | ToolPolicy | None = None,
        key_param: str = "idempotency_key",
        max_attempts: int = 0,
        wait: float | None = None,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
        approval_wait: float | None = None,
    ) -> Callable[[Callable[..., T]], Tool[T]]:
        """Decorate a tool function so that each intent runs at most once (see
        :mod:`oncely.tool`). ``policy`` is the tool's oncely policy (class, key spec,
        reconciliation, timings; none: the core's default, safe for any tool — see
        :func:`oncely.core_defaults`); ``name`` defaults to the function's name; the function gets
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
            approval_wait=approval_wait,
        )


def _wait_command(scope: str, key: str, every: float | None, timeout: float | None) -> WaitStart:
    """The ``start(wait)`` command (``None``: the core's default pacing and limit)."""
    return WaitStart(
        scope,
        key,
        None if every is None else max(1, int(every * 1000)),
        None if timeout is None else max(0, int(timeout * 1000)),
    )


def _resolve_event(settlement: Settlement, by: str, note: str, version: int) -> Resolve:
    """The ``resolve`` event of :meth:`Ledger.resolve` (``version``: the version seen)."""
    return Resolve(Resolution(settlement, by, note, version))


def _settled_id(outcome: Outcome) -> str:
    """The id of a person's decision (``resolve``, ``approve``, ``deny``: the core answers
    ``settled``)."""
    if not isinstance(outcome, Settled):
        raise OncelyError(f"a person's decision ended with {outcome!r}, not a settlement")
    return outcome.id


_DEFAULT_SPEC = EffectSpec()

__all__ = [
    "Clock",
    "EffectResult",
    "EffectSpec",
    "Ledger",
    "Reconciler",
    "SweepReport",
    "happened",
    "system_clock",
]


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

    @classmethod
    async def dynamodb(cls, location: str, **kwargs: Any) -> AsyncLedger:
        """Open a DynamoDB ledger (:meth:`Ledger.dynamodb`) without blocking the loop."""
        return cls(await asyncio.to_thread(Ledger.dynamodb, location, **kwargs))

    @classmethod
    async def open(cls, location: str | os.PathLike[str], **kwargs: Any) -> AsyncLedger:
        """Open the ledger at ``location`` (:meth:`Ledger.open`) without blocking the loop."""
        return cls(await asyncio.to_thread(Ledger.open, location, **kwargs))

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

    async def approve(self, scope: str, key: str, *, by: str, version: int, note: str = "") -> str:
        """See :meth:`Ledger.approve`: returns the decision's id."""
        return _settled_id(await self.drive(scope, key, Approve(Decision(by, note, version))))

    async def deny(self, scope: str, key: str, *, by: str, version: int, note: str = "") -> str:
        """See :meth:`Ledger.deny`: returns the decision's id."""
        return _settled_id(await self.drive(scope, key, Deny(Decision(by, note, version))))

    async def purge(self, scope: str, key: str) -> Outcome:
        """See :meth:`Ledger.purge`."""
        return await self.drive(scope, key, Purge())

    async def tend(self, job: TendJob, scope: str | None = None) -> SweepReport:
        """See :meth:`Ledger.tend`; async reconcilers are awaited."""
        s = self.sync
        report = SweepReport()
        for e in await asyncio.to_thread(
            s.store.due, scope, s.clock(), _api.core_defaults().due_batch
        ):
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

    async def asks_approval(self, **intent: Any) -> bool:
        """See :meth:`Ledger.asks_approval`."""
        return await asyncio.to_thread(lambda: self.sync.asks_approval(**intent))

    async def request_approval(self, **intent: Any) -> ApprovalRequest | None:
        """See :meth:`Ledger.request_approval`."""
        return await asyncio.to_thread(lambda: self.sync.request_approval(**intent))

    def decision_of(self, entry: Entry) -> HeldDecision | None:
        """See :meth:`Ledger.decision_of` (no I/O)."""
        return self.sync.decision_of(entry)

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
        limit: int | None = None,
    ) -> builtins.list[Entry]:
        """See :meth:`Ledger.list`."""
        return await asyncio.to_thread(self.sync.list, scope, state=state, tool=tool, limit=limit)

    async def wait_settled(
        self, scope: str, key: str, *, every: float | None = None, timeout: float | None = None
    ) -> Entry | None:
        """See :meth:`Ledger.wait_settled` (sleeps without blocking the loop)."""
        cmd = _wait_command(scope, key, every, timeout)
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
        step: str | None = None,
        tool: str,
        args: Args,
        policy: str | dict[str, Any] | ToolPolicy | None = None,
        max_attempts: int = 0,
        wait: float | None = None,
        definite: tuple[type[BaseException], ...] = (),
        encode: Callable[[Any], str] | None = None,
        decode: Callable[[str], Any] | None = None,
        approval_wait: float | None = None,
    ) -> EffectResult[T]:
        """Run ``tool_fn`` (sync or async) at most once per intent; see :meth:`Ledger.run`."""
        spec = EffectSpec(max_attempts, wait, definite, encode, decode, approval_wait)
        cmd = effect_command(
            self.sync, spec, scope=scope, run=run, step=step, tool=tool, args=args, policy=policy
        )
        return effect_result(spec, await self._drive(cmd, tool_fn, spec))
