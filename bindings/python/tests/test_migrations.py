"""One schema, one bookkeeping: Python applies the Rust host's migration files and records them
exactly as sqlx does, in oncely's own table (``oncely._sqlx_migrations`` on PostgreSQL,
``_oncely_migrations`` on SQLite), so either language may open a ledger first and the other
accepts it; an application's own ``_sqlx_migrations`` is never read or written."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import python_worker, run

import oncely


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The SQL stores only (a Redis ledger has no schema to migrate: its scripts are loaded by
    hash, tests/test_redis.py)."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    return str(request.getfixturevalue("pg_dsn"))


def _migration_files(repo: Path, dialect: str) -> list[Path]:
    """Every migration of a dialect, in version order (all applied, in order)."""
    return sorted((repo / "migrations" / dialect).glob("*.sql"))


PG_TABLE = "oncely._sqlx_migrations"
SQLITE_TABLE = "_oncely_migrations"
_COLUMNS = "version, description, success, checksum, execution_time"


def _rows(location: str, table: str) -> list[tuple[Any, ...]]:
    sql = f"SELECT {_COLUMNS} FROM {table} ORDER BY version"
    if location.startswith("postgres"):
        import psycopg

        with psycopg.connect(location) as c:
            return [(v, d, bool(s), bytes(cs), t) for v, d, s, cs, t in c.execute(sql)]
    with sqlite3.connect(location) as c:
        return [(v, d, bool(s), bytes(cs), t) for v, d, s, cs, t in c.execute(sql)]


def _catalog(location: str, postgres: str, sqlite: str) -> set[str]:
    """The rows of a catalog query (PostgreSQL's or SQLite's), each as its columns joined by
    ``.``."""
    if location.startswith("postgres"):
        import psycopg

        with psycopg.connect(location) as c:
            return {".".join(map(str, row)) for row in c.execute(postgres)}
    with sqlite3.connect(location) as c:
        return {".".join(map(str, row)) for row in c.execute(sqlite)}


def _tables(location: str) -> set[str]:
    """Every table of the ledger's database (``schema.name`` on PostgreSQL)."""
    return _catalog(
        location,
        "SELECT table_schema, table_name FROM information_schema.tables WHERE "
        "table_schema NOT IN ('pg_catalog', 'information_schema')",
        "SELECT name FROM sqlite_master WHERE type = 'table'",
    )


def _triggers(location: str) -> set[str]:
    """Every trigger of the ledger's database (``table.name``)."""
    return _catalog(
        location,
        "SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal",
        "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'",
    )


def _bookkeeping(location: str) -> list[tuple[Any, ...]]:
    """oncely's bookkeeping rows; also checks nothing else was created (in particular no
    ``public._sqlx_migrations``, where an application's own sqlx migrations live), and that
    no trigger is left: each write appends its own history record (the core's flag)."""
    if location.startswith("postgres"):
        # information_schema.tables lists views too: ``oncely.history`` is one.
        assert _tables(location) == {PG_TABLE, "oncely.effects", "oncely.history"}
        assert _triggers(location) == set()
        return _rows(location, PG_TABLE)
    assert _tables(location) == {SQLITE_TABLE, "oncely_effects"}
    assert _triggers(location) == set()
    return _rows(location, SQLITE_TABLE)


def _expected_rows(repo: Path, location: str) -> list[tuple[int, str, bool, bytes]]:
    out = []
    for f in _migration_files(repo, "postgres" if location.startswith("postgres") else "sqlite"):
        version, rest = f.name.split("_", 1)
        digest = hashlib.sha384(f.read_bytes()).digest()
        out.append((int(version), rest.removesuffix(".sql").replace("_", " "), True, digest))
    return out


def test_python_first_then_rust(
    repo: Path, oncely_cli: Path, ledger_location: str, tmp_path: Path
) -> None:
    with oncely.Ledger.open(ledger_location, owner="py") as ledger:
        r = ledger.run(lambda key: {"ok": key[:10]}, scope="mig", run="r", step="s",
                       tool="t", args={"a": 1}, policy={"class": "accumulating-write"})  # fmt: skip
    rows = _bookkeeping(ledger_location)
    assert [r[:4] for r in rows] == _expected_rows(repo, ledger_location)
    assert all(
        r[4] >= 0 for r in rows
    )  # the execution time, recorded after the commit as sqlx does
    # The Rust host opens it without re-applying or complaining, and reads Python's row.
    out = run([str(oncely_cli), "ledger", "--db", ledger_location, "--json", "show",
               "--scope", "mig", r.key])  # fmt: skip
    shown = json.loads(out.stdout)
    assert shown["state"] == "done" and shown["owner"] == "py"
    assert (shown["run"], shown["step"]) == ("r", "s")
    assert shown["result"] == r.value  # a JSON value, not JSON text
    assert len(_bookkeeping(ledger_location)) == len(_expected_rows(repo, ledger_location))


def test_rust_first_then_python(
    repo: Path, oncely_test_worker: Path, ledger_location: str, tmp_path: Path
) -> None:
    marker = tmp_path / "marker.txt"
    out = run([str(oncely_test_worker), "--db", ledger_location, "--scope", "mig",
               "--run", "r", "--step", "s", "--tool", "charge", "--args", '{"amount":1}',
               "--policy", '{"class":"accumulating-write"}', "--owner", "rust",
               "--marker", str(marker)])  # fmt: skip
    rust = json.loads(out.stdout)
    rows = _bookkeeping(ledger_location)
    assert [r[:4] for r in rows] == _expected_rows(repo, ledger_location)
    with oncely.Ledger.open(ledger_location) as ledger:
        [entry] = ledger.list("mig")
        assert entry.key == rust["key"] and entry.owner == "rust"
        assert (entry.run_id, entry.step_id) == ("r", "s")
        assert json.loads(entry.result_json or "") == rust["value"]
    assert _bookkeeping(ledger_location) == rows  # nothing re-applied or re-recorded


def test_a_modified_migration_is_refused(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as c:
        c.execute("UPDATE _oncely_migrations SET checksum = ?", (b"\0" * 48,))
    with pytest.raises(oncely.MigrationError, match="modified"):
        oncely.Ledger.sqlite(sqlite_path)


def test_an_unknown_newer_migration_is_refused(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as c:
        c.execute(
            "INSERT INTO _oncely_migrations (version, description, success, checksum, "
            "execution_time) VALUES (99991231000000, 'future', TRUE, X'00', 0)"
        )
    with pytest.raises(oncely.MigrationError, match="missing"):
        oncely.Ledger.sqlite(sqlite_path)


def test_a_dirty_migration_is_refused(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as c:
        c.execute("UPDATE _oncely_migrations SET success = FALSE")
    with pytest.raises(oncely.MigrationError, match="partially applied"):
        oncely.Ledger.sqlite(sqlite_path)


def test_rust_and_python_opening_a_fresh_ledger_at_once(
    repo: Path, oncely_test_worker: Path, ledger_location: str, tmp_path: Path
) -> None:
    """Several Rust and Python processes open (and so migrate) one fresh ledger together, each
    to record an effect: all succeed, and the migration is recorded once."""
    procs = []
    for i in range(3):
        procs.append(subprocess.Popen(
            [str(oncely_test_worker), "--db", ledger_location, "--scope", "mig", "--run", "r",
             "--step", f"r{i}", "--tool", "charge", "--args", '{"amount":1}',
             "--policy", '{"class":"accumulating-write"}', "--owner", f"r{i}",
             "--marker", str(tmp_path / "m.txt")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ))  # fmt: skip
        procs.append(subprocess.Popen(
            python_worker("exec_worker.py", "--db", ledger_location, "--owner", f"p{i}",
                          "--marker", str(tmp_path / "m.txt"), "--step", f"s{i}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ))  # fmt: skip
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert [r[:4] for r in _bookkeeping(ledger_location)] == _expected_rows(repo, ledger_location)
    assert len((tmp_path / "m.txt").read_text().splitlines()) == 6


def test_postgres_bookkeeping_is_in_the_oncely_schema(pg_dsn: str) -> None:
    import psycopg

    oncely.Ledger.postgres(pg_dsn).close()
    with psycopg.connect(pg_dsn) as c:
        row = c.execute(
            "SELECT to_regclass('public._sqlx_migrations')::text, "
            "to_regclass('oncely._sqlx_migrations')::text"
        ).fetchone()
    assert row == (None, PG_TABLE)


def test_an_applications_own_sqlx_migrations_are_left_alone(
    repo: Path, oncely_cli: Path, ledger_location: str
) -> None:
    """An application keeps its own sqlx migrations in ``_sqlx_migrations`` (``public`` on
    PostgreSQL), in the database the ledger shares. Python and Rust open the ledger: that table
    keeps exactly its rows, and oncely's migrator is not confused by them (it would refuse a
    recorded migration it does not know)."""
    pg = ledger_location.startswith("postgres")
    app_table = "public._sqlx_migrations" if pg else "_sqlx_migrations"
    create = (
        f"CREATE TABLE {app_table} (version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
        f"installed_on {'TIMESTAMPTZ' if pg else 'TIMESTAMP'} NOT NULL DEFAULT CURRENT_TIMESTAMP, "
        f"success BOOLEAN NOT NULL, checksum {'BYTEA' if pg else 'BLOB'} NOT NULL, "
        "execution_time BIGINT NOT NULL)"
    )
    p = "%s" if pg else "?"
    insert = f"INSERT INTO {app_table} ({_COLUMNS}) VALUES ({p}, {p}, TRUE, {p}, 42)"
    row = (1, "create users", b"\x07" * 48)
    if pg:
        import psycopg

        with psycopg.connect(ledger_location) as c:
            c.execute(create)
            c.execute(insert, row)
    else:
        with sqlite3.connect(ledger_location) as c:
            c.execute(create)
            c.execute(insert, row)
    before = _rows(ledger_location, app_table)
    assert before == [(1, "create users", True, b"\x07" * 48, 42)]

    oncely.Ledger.open(ledger_location).close()
    run([str(oncely_cli), "ledger", "--db", ledger_location, "list", "--scope", "s"])
    oncely.Ledger.open(ledger_location).close()

    assert _rows(ledger_location, app_table) == before
    ours = _rows(ledger_location, PG_TABLE if pg else SQLITE_TABLE)
    assert [r[:4] for r in ours] == _expected_rows(repo, ledger_location)


def test_an_entry_written_before_the_run_and_step_were_kept_has_them_empty(
    repo: Path, ledger_location: str
) -> None:
    """A ledger of the migrations before ``run_step`` (the columns dropped again, the
    migration's record removed) is brought up to date on the next open: its entries read with
    an empty run and step, and still replay."""
    pg = ledger_location.startswith("postgres")
    [added] = [f for f in _migration_files(repo, "postgres" if pg else "sqlite")
               if f.name.endswith("_run_step.sql")]  # fmt: skip
    version = int(added.name.split("_", 1)[0])
    policy = {"class": "accumulating-write"}
    with oncely.Ledger.open(ledger_location, owner="py") as ledger:
        r = ledger.run(lambda key: {"n": 1}, scope="old", run="r", step="s", tool="t",
                       args={"a": 1}, policy=policy)  # fmt: skip
        entry = ledger.get("old", r.key)
        assert entry is not None and (entry.run_id, entry.step_id) == ("r", "s")
    table, bookkeeping = ("oncely.effects", PG_TABLE) if pg else ("oncely_effects", SQLITE_TABLE)
    downgrade = [f"ALTER TABLE {table} DROP COLUMN run_id",
                 f"ALTER TABLE {table} DROP COLUMN step_id",
                 f"DELETE FROM {bookkeeping} WHERE version = {version}"]  # fmt: skip
    if pg:
        import psycopg

        with psycopg.connect(ledger_location) as c:
            for statement in downgrade:
                c.execute(statement)
    else:
        with sqlite3.connect(ledger_location) as c:
            for statement in downgrade:
                c.execute(statement)
    assert version not in [row[0] for row in _rows(ledger_location, bookkeeping)]

    with oncely.Ledger.open(ledger_location, owner="py") as ledger:
        entry = ledger.get("old", r.key)
        assert entry is not None and (entry.run_id, entry.step_id) == ("", "")
        again = ledger.run(lambda key: {"n": 2}, scope="old", run="r", step="s", tool="t",
                           args={"a": 1}, policy=policy)  # fmt: skip
        assert again.replayed and again.value == {"n": 1}
    assert [row[:4] for row in _rows(ledger_location, bookkeeping)] == _expected_rows(
        repo, ledger_location
    )


def _write_as_before_history_in_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stores write as they did before the history column: the row alone (that schema's
    triggers kept the history in its table)."""
    from oncely.store import _sql, postgres, sqlite

    init = _sql.Statements.__init__

    def before(self: _sql.Statements, table: str, history: str, p: str, *, postgres: bool) -> None:
        init(self, table, history, p, postgres=postgres)
        values = ", ".join([p] * len(_sql.COLUMNS))
        self.insert = (
            f"INSERT INTO {table} ({', '.join(_sql.COLUMNS)}) VALUES ({values}) "
            "ON CONFLICT (scope, key) DO NOTHING"
        )
        self.update_kept = self.update

    monkeypatch.setattr(_sql.Statements, "__init__", before)
    for store in (sqlite, postgres):
        monkeypatch.setattr(store, "record_of", lambda row: ())


def test_a_ledgers_history_moves_into_its_rows_and_reads_the_same(
    ledger_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ledger created before ``history_in_row`` (its history in a table of its own) is brought
    up to date on the next open: every record kept so far reads the same through the view that
    now has the table's name, and writes after it append to the same histories."""
    from oncely.store import _migrate

    every = _migrate.migrations
    monkeypatch.setattr(_migrate, "migrations", lambda dialect: [
        m for m in every(dialect) if m.version < 20261206000000])  # fmt: skip
    _write_as_before_history_in_row(monkeypatch)
    policy = {"class": "irreversible-external", "reconcile": "manual"}
    keys = []
    with oncely.Ledger.open(ledger_location, owner="old") as ledger:
        for n, end in enumerate(("done", "escalated", "pending")):
            claim = ledger.prepare(scope="up", run="r", step="s", tool="t", args={"n": n},
                                   policy=policy)  # fmt: skip
            o = ledger.begin(claim)
            assert isinstance(o, oncely.Execute)
            if end == "done":
                ledger.complete("up", claim.key, o.token, '{"ok":1}')
            elif end == "escalated":  # manual reconciliation: in doubt goes to a person at once
                ledger.fail_ambiguous("up", claim.key, o.token, "timed out")
            keys.append(claim.key)
        before = [ledger.history("up", k) for k in keys]
    assert [[h.state.value for h in hs] for hs in before] == [
        ["pending", "done"], ["pending", "escalated"], ["pending"]]  # fmt: skip
    pg = ledger_location.startswith("postgres")
    old = {"oncely.history"} if pg else {"oncely_history"}
    assert old <= _tables(ledger_location)

    monkeypatch.undo()
    with oncely.Ledger.open(ledger_location, owner="new") as ledger:
        assert [ledger.history("up", k) for k in keys] == before
        # The pending entry, completed now, gets a second record after the one it had.
        [_, _, pending] = keys
        entry = ledger.get("up", pending)
        assert entry is not None
        token = oncely.ClaimToken(entry.attempt, entry.owner)
        ledger.complete("up", pending, token, '{"ok":2}')
        after = ledger.history("up", pending)
        assert after[:1] == before[2] and [h.state.value for h in after] == ["pending", "done"]
        assert after[1].version == entry.version + 1
    # The history table is gone; a view of the same name reads the rows' records.
    views = _catalog(
        ledger_location,
        "SELECT table_schema, table_name FROM information_schema.views "
        "WHERE table_schema = 'oncely'",
        "SELECT name FROM sqlite_master WHERE type = 'view'",
    )
    assert views == old
