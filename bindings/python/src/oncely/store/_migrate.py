"""Schema migrations, with the same files and the same bookkeeping as the Rust host.

The Rust host applies ``migrations/{sqlite,postgres}/*.sql`` with sqlx, which records each
applied migration in a table of sqlx's layout (version = the file name's numeric prefix,
description = the rest of the name, checksum = SHA-384 of the file's bytes). That table is
oncely's own, never the ``_sqlx_migrations`` an application's own sqlx migrations use (two
migrators sharing one table each refuse the other's rows): ``oncely._sqlx_migrations`` on
PostgreSQL (in the ``oncely`` schema, created first) and ``_oncely_migrations`` on SQLite. This
module reads and writes that same table, so either language may open a ledger first: a migration
already recorded is skipped (after checking its checksum, as sqlx does); one applied here is
recorded in the same transaction as its statements. On PostgreSQL the same advisory lock as
sqlx's is held.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
import zlib
from dataclasses import dataclass
from typing import Any

from oncely._files import migration_files
from oncely.errors import MigrationError

SQLITE_TABLE = "_oncely_migrations"
"""The SQLite bookkeeping table (the Rust host's ``SqliteStore::MIGRATIONS_TABLE``)."""

POSTGRES_SCHEMA = "oncely"
"""The PostgreSQL schema of the ledger and of its bookkeeping table."""

POSTGRES_TABLE = f"{POSTGRES_SCHEMA}._sqlx_migrations"
"""The PostgreSQL bookkeeping table (the Rust host's ``PostgresStore::MIGRATIONS_TABLE``)."""

_SQLITE_CREATE = f"""
CREATE TABLE IF NOT EXISTS {SQLITE_TABLE} (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    success BOOLEAN NOT NULL,
    checksum BLOB NOT NULL,
    execution_time BIGINT NOT NULL
);
"""

_POSTGRES_CREATE = f"""
CREATE TABLE IF NOT EXISTS {POSTGRES_TABLE} (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMPTZ NOT NULL DEFAULT now(),
    success BOOLEAN NOT NULL,
    checksum BYTEA NOT NULL,
    execution_time BIGINT NOT NULL
);
"""


@dataclass(frozen=True)
class Migration:
    """One migration file."""

    version: int
    description: str
    sql: str
    checksum: bytes


def migrations(dialect: str) -> list[Migration]:
    """The migrations shipped in this package for ``dialect`` (``sqlite`` or ``postgres``),
    in version order. Names are ``<VERSION>_<DESCRIPTION>.sql``, as sqlx reads them."""
    out = []
    for name, data in migration_files(dialect):
        if "_" not in name:
            continue
        prefix, rest = name.split("_", 1)
        out.append(
            Migration(
                version=int(prefix),
                description=rest[: -len(".sql")].replace("_", " "),
                sql=data.decode("utf-8"),
                checksum=hashlib.sha384(data).digest(),
            )
        )
    if not out:
        raise MigrationError(f"no {dialect} migrations are packaged with oncely")
    return sorted(out, key=lambda m: m.version)


def _check_applied(applied: dict[int, bytes], known: list[Migration]) -> None:
    by_version = {m.version: m for m in known}
    for version, checksum in applied.items():
        m = by_version.get(version)
        if m is None:
            raise MigrationError(
                f"migration {version} was previously applied but is missing in the resolved "
                "migrations (the ledger was created by a newer oncely)"
            )
        if bytes(checksum) != m.checksum:
            raise MigrationError(
                f"migration {version} was previously applied but has been modified"
            )


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (sqlite3's executescript would commit first)."""
    out, buf = [], ""
    for part in sql.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf):
            out.append(buf)
            buf = ""
    return out


def migrate_sqlite(conn: sqlite3.Connection) -> None:
    """Bring a SQLite ledger up to date. ``conn`` is in autocommit mode."""
    known = migrations("sqlite")
    conn.execute("BEGIN IMMEDIATE")  # one migrator at a time (SQLite's write lock)
    try:
        conn.execute(_SQLITE_CREATE)
        dirty = conn.execute(
            f"SELECT version FROM {SQLITE_TABLE} WHERE success = false ORDER BY version LIMIT 1"
        ).fetchone()
        if dirty is not None:
            raise MigrationError(f"migration {dirty[0]} is partially applied; fix and remove it")
        applied = dict(
            conn.execute(f"SELECT version, checksum FROM {SQLITE_TABLE} ORDER BY version")
        )
        _check_applied(applied, known)
        done: list[tuple[int, int]] = []
        for m in known:
            if m.version in applied:
                continue
            start = time.perf_counter_ns()
            for statement in _statements(m.sql):
                conn.execute(statement)
            conn.execute(
                f"INSERT INTO {SQLITE_TABLE} (version, description, success, checksum, "
                "execution_time) VALUES (?, ?, TRUE, ?, -1)",
                (m.version, m.description, m.checksum),
            )
            done.append((m.version, start))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    for version, start in done:
        # As sqlx does: the execution time is recorded after the commit.
        conn.execute(
            f"UPDATE {SQLITE_TABLE} SET execution_time = ? WHERE version = ?",
            (time.perf_counter_ns() - start, version),
        )


def advisory_lock_id(database: str) -> int:
    """sqlx's advisory lock id for a database: ``0x3d32ad9e * crc32(name)``."""
    return 0x3D32AD9E * zlib.crc32(database.encode("utf-8"))


def migrate_postgres(conn: Any) -> None:
    """Bring a PostgreSQL ledger up to date. ``conn`` is a psycopg connection in autocommit
    mode; sqlx's advisory lock is held throughout, so Rust and Python openers queue. As sqlx's
    migrator does under that lock: create the schema, then the bookkeeping table in it."""
    known = migrations("postgres")
    (database,) = conn.execute("SELECT current_database()").fetchone()
    lock = advisory_lock_id(database)
    conn.execute("SELECT pg_advisory_lock(%s)", (lock,))
    try:
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {POSTGRES_SCHEMA};")
        conn.execute(_POSTGRES_CREATE)
        dirty = conn.execute(
            f"SELECT version FROM {POSTGRES_TABLE} WHERE success = false ORDER BY version LIMIT 1"
        ).fetchone()
        if dirty is not None:
            raise MigrationError(f"migration {dirty[0]} is partially applied; fix and remove it")
        rows = conn.execute(
            f"SELECT version, checksum FROM {POSTGRES_TABLE} ORDER BY version"
        ).fetchall()
        applied = {v: bytes(c) for v, c in rows}
        _check_applied(applied, known)
        for m in known:
            if m.version in applied:
                continue
            start = time.perf_counter_ns()
            with conn.transaction():
                conn.execute(m.sql)
                conn.execute(
                    f"INSERT INTO {POSTGRES_TABLE} (version, description, success, checksum, "
                    "execution_time) VALUES (%s, %s, TRUE, %s, -1)",
                    (m.version, m.description, m.checksum),
                )
            conn.execute(
                f"UPDATE {POSTGRES_TABLE} SET execution_time = %s WHERE version = %s",
                (time.perf_counter_ns() - start, m.version),
            )
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (lock,))
