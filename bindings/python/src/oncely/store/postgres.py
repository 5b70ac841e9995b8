"""PostgreSQL backend (psycopg 3): one ledger shared by many workers on many machines.

The tables live in their own schema (``oncely.effects``, each row with its history, appended by
the writes the core marks and read through the view ``oncely.history``), and so does the
migration bookkeeping (``oncely._sqlx_migrations``, never ``public._sqlx_migrations``). A claim
is one ``INSERT … ON CONFLICT DO NOTHING``, every later write one ``UPDATE … WHERE version =
%s``; PostgreSQL's row locks make both atomic at the default isolation level. Connections are
in autocommit mode and pooled.

The server may go away (a restart, a failover, a pooler's idle timeout). A call in flight then
fails with :class:`~oncely.StorageError` (its ``__cause__`` is psycopg's error: the connection was
terminated, refused, the server is starting up…), as does every call while the server cannot be
reached (``connect_timeout`` bounds a connection attempt). The store is never poisoned: a pooled
connection the server dropped is noticed before it is handed out (the server's goodbye, or the end
of the stream, is waiting unread on its socket) and replaced, so once the server is back every call
succeeds again (``tests/test_pg_restart.py``).

The URL may name a primary and its replicas, as libpq reads it
(``postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write``): libpq tries the hosts in
turn on every new connection, so after a failover the next connection reaches the promoted
replica (``tests/test_pg_failover.py``).
"""

from __future__ import annotations

import builtins
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from oncely.errors import MigrationError, StorageError
from oncely.store import HistoryRecord, ListFilter, Recorded
from oncely.store._migrate import migrate_postgres
from oncely.store._sql import Statements, from_row, history_from_row, record_of, to_row
from oncely.types import Entry

TABLE = "oncely.effects"
HISTORY_TABLE = "oncely.history"

try:
    import psycopg
except ImportError:  # pragma: no cover - optional dependency
    psycopg = None  # type: ignore[assignment]


def _wrap(e: Exception) -> StorageError:
    err = StorageError(f"storage: {e}")
    err.__cause__ = e
    return err


def _dropped(conn: Any) -> bool:
    """Whether an idle pooled connection is no longer usable: closed, broken, or with something
    waiting to be read. An idle connection in autocommit mode is sent nothing, unless the server
    is ending it (an error message such as "terminating connection due to administrator
    command", then the end of the stream), so anything readable means: do not use it."""
    if conn.closed or getattr(conn, "broken", False):
        return True
    try:
        fd = conn.fileno()
        if hasattr(select, "poll"):  # no FD_SETSIZE limit, unlike select()
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            return bool(poller.poll(0))
        readable, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError, psycopg.Error):
        return True
    return bool(readable)


class PostgresStore:
    """A ledger in a PostgreSQL database (the schema is migrated on connect)."""

    def __init__(self, dsn: str, *, max_connections: int = 16, connect_timeout: int = 5):
        if psycopg is None:
            raise ImportError(
                "oncely.Ledger.postgres needs psycopg 3: pip install 'oncely[postgres]'"
            )
        self.dsn = dsn
        self._max = max_connections
        self._timeout = connect_timeout
        self._pool: list[Any] = []
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self._sem = threading.BoundedSemaphore(max_connections)
        self._sql = Statements(TABLE, HISTORY_TABLE, "%s", postgres=True)
        try:
            with self._conn() as conn:
                migrate_postgres(conn)
        except MigrationError:
            raise
        except psycopg.Error as e:
            raise MigrationError(f"migrating the ledger schema: {e}") from e

    def __repr__(self) -> str:
        return f"PostgresStore({self.dsn!r})"

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        self._sem.acquire()
        try:
            conn = self._pooled()
            if conn is None:
                conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=self._timeout)
                with self._lock:
                    self._all.append(conn)
            healthy = True
            try:
                yield conn
            except psycopg.OperationalError:
                healthy = False  # a broken connection is not pooled again
                raise
            finally:
                if healthy and not conn.closed:
                    with self._lock:
                        self._pool.append(conn)
                else:
                    self._forget(conn)
        finally:
            self._sem.release()

    def _pooled(self) -> Any:
        """An idle pooled connection that is still usable, if any; dropped ones are closed."""
        while True:
            with self._lock:
                if not self._pool:
                    return None
                conn = self._pool.pop()
            if not _dropped(conn):
                return conn
            self._forget(conn)

    def _forget(self, conn: Any) -> None:
        """Close a connection that is not pooled again."""
        with self._lock:
            if conn in self._all:
                self._all.remove(conn)
        conn.close()

    def _run(self, sql: str, args: tuple[Any, ...]) -> Any:
        try:
            with self._conn() as c:
                cur = c.execute(sql, args)
                return cur.rowcount if cur.description is None else cur.fetchall()
        except psycopg.Error as e:
            raise _wrap(e) from e

    def get(self, scope: str, key: str) -> Entry | None:
        rows = self._run(self._sql.get, (scope, key))
        return from_row(rows[0]) if rows else None

    def recorded(self, scope: str, key: str) -> Recorded | None:
        """What a replay compares of the row (:class:`~oncely.store.Recorded`), if any."""
        rows = self._run(self._sql.recorded, (scope, key))
        return Recorded(*rows[0]) if rows else None

    def insert(self, entry: Entry, *, claims: bool = False) -> bool:
        row = to_row(entry)
        return bool(self._run(self._sql.insert, (*row, *record_of(row))) == 1)

    def update(
        self, expected_version: int, entry: Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        row = to_row(entry)
        where = (entry.scope, entry.key, expected_version)
        if history:
            return bool(self._run(self._sql.update_kept, (*row, *record_of(row), *where)) == 1)
        return bool(self._run(self._sql.update, (*row, *where)) == 1)

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        return bool(self._run(self._sql.delete, (scope, key, expected_version)) == 1)

    def list(self, scope: str, filter: ListFilter) -> builtins.list[Entry]:
        return [from_row(r) for r in self._run(*self._sql.list(scope, filter))]

    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[Entry]:
        return [from_row(r) for r in self._run(*self._sql.due(scope, now, limit))]

    def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        rows = self._run(self._sql.history, (scope, key))
        return [history_from_row(scope, key, r) for r in rows]

    def close(self) -> None:
        with self._lock:
            conns, self._all, self._pool = self._all, [], []
        for c in conns:
            c.close()
