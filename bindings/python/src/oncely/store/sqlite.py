"""SQLite backend (stdlib :mod:`sqlite3`): the embedded default.

One file; WAL journal; ``synchronous = FULL``, so a commit that returned is on disk; a 30 s busy
timeout. Many processes (Python or Rust) may share the file: a claim is one ``INSERT … ON
CONFLICT DO NOTHING`` and every later write one ``UPDATE … WHERE version = ?``, each atomic
under SQLite's write lock (each row's history is kept in the row, appended by the same statement
as the writes the core marks, and read through the view ``oncely_history``). Connections are
pooled, one per thread at a time.
"""

from __future__ import annotations

import builtins
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from oncely.errors import MigrationError
from oncely.store import HistoryRecord, ListFilter, Recorded
from oncely.store._migrate import migrate_sqlite
from oncely.store._sql import (
    Statements,
    from_row,
    history_from_row,
    record_of,
    storage_errors,
    to_row,
)
from oncely.types import Entry

TABLE = "oncely_effects"
HISTORY_TABLE = "oncely_history"
BUSY_TIMEOUT_S = 30.0

_errors = storage_errors(sqlite3.Error)


class SqliteStore:
    """A ledger in a SQLite file (created and migrated on open)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = BUSY_TIMEOUT_S):
        self.path = os.fspath(path)
        self._busy_timeout = busy_timeout
        self._pool: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._sql = Statements(TABLE, HISTORY_TABLE, "?", postgres=False)
        self._migrate()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=self._busy_timeout,
            isolation_level=None,  # autocommit: every statement is its own transaction
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        with self._lock:
            self._all.append(conn)
        return conn

    def _take(self) -> sqlite3.Connection:
        with self._lock:
            conn = self._pool.pop() if self._pool else None
        return self._connect() if conn is None else conn

    def _give(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            self._pool.append(conn)

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        conn = self._take()
        try:
            yield conn
        finally:
            self._give(conn)

    def _migrate(self) -> None:
        # Several processes may open a fresh file at once; the migration runs under SQLite's
        # write lock, and a lost race on the bookkeeping (a Rust opener) is retried.
        tries = 0
        while True:
            try:
                with self._conn() as conn:
                    migrate_sqlite(conn)
                return
            except sqlite3.Error as e:
                tries += 1
                if tries > 20:
                    raise MigrationError(f"migrating the ledger schema: {e}") from e
                time.sleep(0.025 * tries)

    @_errors
    def get(self, scope: str, key: str) -> Entry | None:
        with self._conn() as c:
            row = c.execute(self._sql.get, (scope, key)).fetchone()
        return None if row is None else from_row(row)

    @_errors
    def recorded(self, scope: str, key: str) -> Recorded | None:
        """What a replay compares of the row (:class:`~oncely.store.Recorded`), if any."""
        c = self._take()  # a replay's one read: the pool by hand, not a context manager
        try:
            row = c.execute(self._sql.recorded, (scope, key)).fetchone()
        finally:
            self._give(c)
        return None if row is None else Recorded._make(row)

    @_errors
    def insert(self, entry: Entry, *, claims: bool = False) -> bool:
        row = to_row(entry)
        with self._conn() as c:
            return c.execute(self._sql.insert, (*row, *record_of(row))).rowcount == 1

    @_errors
    def update(
        self, expected_version: int, entry: Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        row = to_row(entry)
        where = (entry.scope, entry.key, expected_version)
        with self._conn() as c:
            if history:
                return (
                    c.execute(self._sql.update_kept, (*row, *record_of(row), *where)).rowcount == 1
                )
            return c.execute(self._sql.update, (*row, *where)).rowcount == 1

    @_errors
    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        with self._conn() as c:
            return c.execute(self._sql.delete, (scope, key, expected_version)).rowcount == 1

    @_errors
    def list(self, scope: str, filter: ListFilter) -> builtins.list[Entry]:
        sql, args = self._sql.list(scope, filter)
        with self._conn() as c:
            return [from_row(r) for r in c.execute(sql, args).fetchall()]

    @_errors
    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[Entry]:
        sql, args = self._sql.due(scope, now, limit)
        with self._conn() as c:
            return [from_row(r) for r in c.execute(sql, args).fetchall()]

    @_errors
    def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        with self._conn() as c:
            rows = c.execute(self._sql.history, (scope, key)).fetchall()
        return [history_from_row(scope, key, r) for r in rows]

    def close(self) -> None:
        with self._lock:
            conns, self._all, self._pool = self._all, [], []
        for c in conns:
            c.close()
