"""Ledger storage: one small protocol, real backends (SQLite, PostgreSQL, Redis / Valkey).

The storage contract is the one ``wit/ledger.wit`` asks of a host: ``insert`` is
insert-if-absent, ``update`` and ``delete`` are compare-and-swap on ``version``, and every query
names the scope. Storage never decides anything; the core does. Each entry's history is kept in
its row: the insert and each update the core marks (``row-write.history``) append the written
row's record in the same statement as the write; it is read through the history view
(:meth:`Store.history`).

The Redis store (:mod:`oncely.store.redis`) keeps each row as JSON under the Rust host's keys
and its history in a list beside it, both written by one of the Rust host's Lua scripts
(``migrations/redis/``).

The schema, the migration files and their bookkeeping (a table of sqlx's layout: on PostgreSQL
``oncely._sqlx_migrations``, in the ``oncely`` schema; on SQLite ``_oncely_migrations``) are the
Rust host's, byte for byte, so a Python worker and a Rust worker share one ledger and either may
open it first. An application's own sqlx migrations (``_sqlx_migrations``, in ``public`` on
PostgreSQL) are never read or written.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

from oncely.types import Entry, EntryState

__all__ = ["HistoryRecord", "ListFilter", "Recorded", "Store"]


class Recorded(NamedTuple):
    """What a step's replay rule compares of a row (``wit/effect.wit``, ``replay-rule``): a
    replay reads these four columns, not the whole row. A store may answer
    ``recorded(scope, key) -> Recorded | None`` with a narrow read; one without that method is
    read whole (:meth:`Store.get`) and these taken from the entry."""

    state: str
    """The row's state, as its WIT case name (``"done"``)."""
    fingerprint: str
    tool: str
    result_json: str | None


class ListFilter:
    """What :meth:`Store.list` returns: only one state and/or tool, at most ``limit`` rows (the
    ledger always says how many: :meth:`Ledger.list` reads none as the core's page size)."""

    __slots__ = ("limit", "state", "tool")

    def __init__(self, state: EntryState | str | None, tool: str | None, limit: int) -> None:
        self.state = EntryState(state) if state is not None else None
        self.tool = tool
        self.limit = limit


@dataclass(frozen=True, slots=True)
class HistoryRecord:
    """One record of an entry's history (:meth:`Store.history`): the entry's columns as one
    write left them. A store keeps one at the insert and at every update the core marks
    (``row-write.history``: one that changes the state, the attempt, the reason, the
    reconciliation count or the settlement; heartbeats keep none); a purge deletes them with the
    entry."""

    version: int
    """The entry's version after the write."""
    at: int
    """When (ms since the Unix epoch: the entry's ``updated_at``)."""
    state: EntryState
    """The state the write left."""
    attempt: int
    """The attempt."""
    owner: str
    """The attempt's owner."""
    reconcile_attempts: int
    """How many reconciliations had started for the attempt."""
    reason: str | None
    """Why (the entry's reason then)."""
    resolved_by: str | None
    """Who settled it, for a human's settlement."""
    settlement: str | None
    """The settlement's id (``stl-…``), for a human's settlement."""


@runtime_checkable
class Store(Protocol):
    """The storage a ledger needs. Every method is atomic on its own."""

    def get(self, scope: str, key: str) -> Entry | None:
        """The entry for ``(scope, key)``, if any."""

    def insert(self, entry: Entry, *, claims: bool = False) -> bool:
        """Insert if absent, its history the written row's record; ``False`` if a row for
        ``(scope, key)`` already exists. ``claims`` (the core's ``row-write.claims``): the row
        is a claim the tool will be called under; a store that can wait for its replicas (a
        Redis ``WAIT``) waits for this write before it returns."""

    def update(
        self, expected_version: int, entry: Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        """Replace the row if its version is still ``expected_version``; ``False`` if not.
        With ``history`` (the core's ``row-write.history``), the written row's record is
        appended to the entry's history in the same statement; ``claims`` as for
        :meth:`insert`."""

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        """Delete the row if its version is still ``expected_version``; ``False`` if not."""

    def list(self, scope: str, filter: ListFilter) -> builtins.list[Entry]:
        """Entries of one scope, newest first."""

    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[Entry]:
        """Entries whose ``due_at`` is at or before ``now``, earliest first (at most
        ``limit``; all scopes when ``None``). The core computes ``due_at`` at every write."""

    def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        """The history of ``(scope, key)``, oldest first (empty when there is no entry): the
        records the insert and each marked update appended, in the same statement as the
        write."""

    def close(self) -> None:
        """Release connections."""
