"""What both SQL backends share: the column list (the Rust host's ``COLUMNS``, in the order of
the entry record's fields), the conversion between entries and rows, the history's columns and
its conversion, and the statements."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from oncely.errors import StorageError
from oncely.store import HistoryRecord, ListFilter
from oncely.types import (
    Entry,
    EntryState,
    Lookup,
    Manual,
    ProviderIdempotent,
    ReconcileNone,
    ReconcilePath,
)

COLUMNS = (
    "scope", "key", "tool", "run_id", "step_id", "fingerprint", "args_canonical", "state",
    "version", "attempt", "owner", "created_at", "updated_at", "lease_until", "in_doubt_since",
    "next_reconcile_at", "reconcile_attempts", "result_json", "reason", "resolved_by",
    "settlement", "reconcile_kind", "reconcile_tool", "lease_ms", "max_call_ms",
    "reconcile_after_ms", "escalate_after_ms", "retention_ms", "due_at",
)  # fmt: skip

HISTORY_COLUMNS = (
    "version", "at", "state", "attempt", "owner", "reconcile_attempts", "reason", "resolved_by",
    "settlement",
)  # fmt: skip
"""The columns of a history record (the Rust host's history query), in
:class:`~oncely.HistoryRecord` order."""

_RECORD_OF = (
    ("version", "BIGINT"), ("updated_at", "BIGINT"), ("state", "TEXT"), ("attempt", "BIGINT"),
    ("owner", "TEXT"), ("reconcile_attempts", "BIGINT"), ("reason", "TEXT"),
    ("resolved_by", "TEXT"), ("settlement", "TEXT"),
)  # fmt: skip
# The row's columns a history record holds, in HISTORY_COLUMNS order (`at` is the row's
# `updated_at`), with their SQL types.

record_of: Callable[[tuple[Any, ...]], tuple[Any, ...]] = operator.itemgetter(
    *(COLUMNS.index(c) for c, _ in _RECORD_OF)
)
"""The history record's values out of a row of :data:`COLUMNS` (what a write appends)."""

_I64_MAX = 2**63 - 1


def _i(v: int) -> int:
    # Times and counters are far below 2^63; saturate rather than wrap if one is not.
    return v if v <= _I64_MAX else _I64_MAX


_STATES = {s.value: s for s in EntryState}


def to_row(e: Entry) -> tuple[Any, ...]:
    """The column values of an entry, in :data:`COLUMNS` order."""
    r = e.reconcile
    if isinstance(r, Lookup):
        kind, tool = "lookup", r.tool
    elif isinstance(r, ProviderIdempotent):
        kind, tool = "provider-idempotent", None
    elif isinstance(r, Manual):
        kind, tool = "manual", None
    else:
        kind, tool = "none", None
    return (
        e.scope, e.key, e.tool, e.run_id, e.step_id, e.fingerprint, e.args_canonical,
        e.state.value, _i(e.version), e.attempt, e.owner, _i(e.created_at), _i(e.updated_at),
        _i(e.lease_until), None if e.in_doubt_since is None else _i(e.in_doubt_since),
        None if e.next_reconcile_at is None else _i(e.next_reconcile_at),
        e.reconcile_attempts, e.result_json, e.reason, e.resolved_by, e.settlement, kind, tool,
        _i(e.lease_ms), _i(e.max_call_ms), _i(e.reconcile_after_ms), _i(e.escalate_after_ms),
        _i(e.retention_ms), None if e.due_at is None else _i(e.due_at),
    )  # fmt: skip


def from_row(row: Sequence[Any]) -> Entry:
    """The entry a row holds; :class:`~oncely.StorageError` if the row is not a valid entry."""
    (
        scope, key, tool, run_id, step_id, fingerprint, args_canonical, state, version,
        attempt, owner, created_at, updated_at, lease_until, in_doubt_since, next_reconcile_at,
        reconcile_attempts, result_json, reason, resolved_by, settlement, reconcile_kind,
        reconcile_tool, lease_ms, max_call_ms, reconcile_after_ms, escalate_after_ms,
        retention_ms, due_at,
    ) = row  # fmt: skip
    reconcile: ReconcilePath
    if reconcile_kind == "none":
        reconcile = ReconcileNone()
    elif reconcile_kind == "provider-idempotent":
        reconcile = ProviderIdempotent()
    elif reconcile_kind == "manual":
        reconcile = Manual()
    elif reconcile_kind == "lookup" and reconcile_tool is not None:
        reconcile = Lookup(reconcile_tool)
    else:
        raise StorageError(f"corrupt ledger row (reconcile_kind of ({scope}, {key}))")
    st = _STATES.get(state)
    if st is None:
        raise StorageError(f"corrupt ledger row (state of ({scope}, {key}))")
    for name, v in (
        ("version", version), ("attempt", attempt), ("created_at", created_at),
        ("updated_at", updated_at), ("lease_until", lease_until),
        ("reconcile_attempts", reconcile_attempts), ("lease_ms", lease_ms),
        ("reconcile_after_ms", reconcile_after_ms), ("escalate_after_ms", escalate_after_ms),
        ("retention_ms", retention_ms), ("in_doubt_since", in_doubt_since or 0),
        ("next_reconcile_at", next_reconcile_at or 0), ("due_at", due_at or 0),
        ("max_call_ms", max_call_ms),
    ):  # fmt: skip
        if v < 0:
            raise StorageError(f"corrupt ledger row ({name} of ({scope}, {key}) is negative)")
    return Entry(
        scope, key, tool, run_id, step_id, fingerprint, args_canonical, st, version, attempt,
        owner, created_at, updated_at, lease_until, in_doubt_since, next_reconcile_at,
        reconcile_attempts, result_json, reason, resolved_by, settlement, reconcile, lease_ms,
        max_call_ms, reconcile_after_ms, escalate_after_ms, retention_ms, due_at,
    )  # fmt: skip


def history_from_row(scope: str, key: str, row: Sequence[Any]) -> HistoryRecord:
    """The history record a row of :data:`HISTORY_COLUMNS` holds; :class:`~oncely.StorageError`
    if it is not a valid one."""
    version, at, state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement = row
    st = _STATES.get(state)
    where = f"a history record of ({scope}, {key}), version {version}"
    if st is None:
        raise StorageError(f"corrupt ledger row (state of {where})")
    for name, v in (
        ("version", version), ("at", at), ("attempt", attempt),
        ("reconcile_attempts", reconcile_attempts),
    ):  # fmt: skip
        if v < 0:
            raise StorageError(f"corrupt ledger row ({name} of {where} is negative)")
    return HistoryRecord(
        version, at, st, attempt, owner, reconcile_attempts, reason, resolved_by, settlement
    )


class Statements:
    """Every statement of a backend, built once from its table names (the entries', the
    history's), placeholder and dialect. The SQL text is ours alone: no value is ever spliced
    into it.

    Each write keeps the entry's history in its own statement (wit/ledger.wit, step 3): the
    insert's ``history`` is an array of the written row's record, and :attr:`update_kept` (an
    update the core marked, ``row-write.history``) appends the record; both take the record's
    values (:func:`record_of`) after the row's."""

    def __init__(self, table: str, history: str, placeholder: str, *, postgres: bool) -> None:
        p = placeholder
        cols = ", ".join(COLUMNS)
        n = len(COLUMNS)
        values = ", ".join([p] * n)
        sets = ", ".join(f"{c} = {p}" for c in COLUMNS)
        where = f"WHERE scope = {p} AND key = {p} AND version = {p}"
        if postgres:
            record = ", ".join(f"CAST({p} AS {t})" for _, t in _RECORD_OF)
            first = f"jsonb_build_array(jsonb_build_array({record}))"
            append = f"COALESCE(history, '[]'::jsonb) || {first}"
        else:
            record = ", ".join([p] * len(_RECORD_OF))
            first = f"json_array(json_array({record}))"
            append = f"json_insert(COALESCE(history, '[]'), '$[#]', json_array({record}))"
        self.get = f"SELECT {cols} FROM {table} WHERE scope = {p} AND key = {p}"
        self.recorded = (
            f"SELECT state, fingerprint, tool, result_json FROM {table} "
            f"WHERE scope = {p} AND key = {p}"
        )
        self.insert = (
            f"INSERT INTO {table} ({cols}, history) VALUES ({values}, {first}) "
            "ON CONFLICT (scope, key) DO NOTHING"
        )
        self.update = f"UPDATE {table} SET {sets} {where}"
        self.update_kept = f"UPDATE {table} SET {sets}, history = {append} {where}"
        self.delete = f"DELETE FROM {table} WHERE scope = {p} AND key = {p} AND version = {p}"
        self.history = (
            f"SELECT {', '.join(HISTORY_COLUMNS)} FROM {history} "
            f"WHERE scope = {p} AND key = {p} ORDER BY version"
        )
        self._select = f"SELECT {cols} FROM {table}"
        self._p = p

    def list(self, scope: str, f: ListFilter) -> tuple[str, tuple[Any, ...]]:
        p = self._p
        where, args = [f"scope = {p}"], [scope]
        if f.state is not None:
            where.append(f"state = {p}")
            args.append(f.state.value)
        if f.tool is not None:
            where.append(f"tool = {p}")
            args.append(f.tool)
        sql = f"{self._select} WHERE {' AND '.join(where)} ORDER BY updated_at DESC, key LIMIT {p}"
        return sql, (*args, f.limit)

    def due(self, scope: str | None, now: int, limit: int) -> tuple[str, tuple[Any, ...]]:
        """Rows whose ``due_at`` (computed by the core) is at or before ``now``, earliest
        first."""
        p = self._p
        where: list[str] = [f"due_at <= {p}"]
        args: list[Any] = [_i(now)]
        if scope is not None:
            where.append(f"scope = {p}")
            args.append(scope)
        sql = f"{self._select} WHERE {' AND '.join(where)} ORDER BY due_at, scope, key LIMIT {p}"
        return sql, (*args, limit)


def storage_errors(*kinds: type[BaseException]) -> Callable[[Callable[..., Any]], Any]:
    """Wrap a store method so that the driver's errors become :class:`~oncely.StorageError`."""

    def deco(fn: Callable[..., Any]) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except StorageError:
                raise
            except kinds as e:
                raise StorageError(f"storage: {e}") from e

        return wrapper

    return deco
