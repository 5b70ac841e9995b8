"""One schema, one bookkeeping: Python applies the Rust host's migration files and records them
in sqlx's ``_sqlx_migrations`` exactly as sqlx does, so either language may open a ledger first
and the other accepts it."""

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


def _migration_file(repo: Path, dialect: str) -> Path:
    [f] = sorted((repo / "host" / "migrations" / dialect).glob("*.sql"))
    return f


def _bookkeeping(location: str) -> list[tuple[Any, ...]]:
    sql = "SELECT version, description, success, checksum, execution_time FROM _sqlx_migrations"
    if location.startswith("postgres"):
        import psycopg

        with psycopg.connect(location) as c:
            return [(v, d, bool(s), bytes(cs), t) for v, d, s, cs, t in c.execute(sql)]
    with sqlite3.connect(location) as c:
        return [(v, d, bool(s), bytes(cs), t) for v, d, s, cs, t in c.execute(sql)]


def _expected_row(repo: Path, location: str) -> tuple[int, str, bool, bytes]:
    f = _migration_file(repo, "postgres" if location.startswith("postgres") else "sqlite")
    version, rest = f.name.split("_", 1)
    return int(version), rest.removesuffix(".sql"), True, hashlib.sha384(f.read_bytes()).digest()


def test_python_first_then_rust(
    repo: Path, oncely_cli: Path, ledger_location: str, tmp_path: Path
) -> None:
    with oncely.Ledger.open(ledger_location, owner="py") as ledger:
        r = ledger.run(lambda key: {"ok": key[:10]}, scope="mig", run="r", step="s",
                       tool="t", args={"a": 1}, policy={"class": "accumulating-write"})  # fmt: skip
    [row] = _bookkeeping(ledger_location)
    assert row[:4] == _expected_row(repo, ledger_location)
    assert row[4] >= 0  # the execution time, recorded after the commit as sqlx does
    # The Rust host opens it without re-applying or complaining, and reads Python's row.
    out = run([str(oncely_cli), "ledger", "--db", ledger_location, "--json", "show",
               "--scope", "mig", r.key])  # fmt: skip
    shown = json.loads(out.stdout)
    assert shown["state"] == "done" and shown["owner"] == "py"
    assert json.loads(shown["result"]) == r.value
    assert len(_bookkeeping(ledger_location)) == 1


def test_rust_first_then_python(
    repo: Path, oncely_cli: Path, ledger_location: str, tmp_path: Path
) -> None:
    marker = tmp_path / "marker.txt"
    out = run([str(oncely_cli), "ledger", "exec", "--db", ledger_location, "--scope", "mig",
               "--run", "r", "--step", "s", "--tool", "charge", "--args", '{"amount":1}',
               "--policy", '{"class":"accumulating-write"}', "--owner", "rust",
               "--marker", str(marker)])  # fmt: skip
    rust = json.loads(out.stdout)
    rows = _bookkeeping(ledger_location)
    assert [r[:4] for r in rows] == [_expected_row(repo, ledger_location)]
    with oncely.Ledger.open(ledger_location) as ledger:
        [entry] = ledger.list("mig")
        assert entry.key == rust["key"] and entry.owner == "rust"
        assert json.loads(entry.result_json or "") == rust["value"]
    assert _bookkeeping(ledger_location) == rows  # nothing re-applied or re-recorded


def test_a_modified_migration_is_refused(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as c:
        c.execute("UPDATE _sqlx_migrations SET checksum = ?", (b"\0" * 48,))
    with pytest.raises(oncely.MigrationError, match="modified"):
        oncely.Ledger.sqlite(sqlite_path)


def test_an_unknown_newer_migration_is_refused(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as c:
        c.execute(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, "
            "execution_time) VALUES (99991231000000, 'future', TRUE, X'00', 0)"
        )
    with pytest.raises(oncely.MigrationError, match="missing"):
        oncely.Ledger.sqlite(sqlite_path)


def test_a_dirty_migration_is_refused(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as c:
        c.execute("UPDATE _sqlx_migrations SET success = FALSE")
    with pytest.raises(oncely.MigrationError, match="partially applied"):
        oncely.Ledger.sqlite(sqlite_path)


def test_rust_and_python_opening_a_fresh_ledger_at_once(
    repo: Path, oncely_cli: Path, ledger_location: str, tmp_path: Path
) -> None:
    """Several Rust and Python processes open (and so migrate) one fresh ledger together:
    all succeed, and the migration is recorded once."""
    procs = []
    for i in range(3):
        procs.append(subprocess.Popen(
            [str(oncely_cli), "ledger", "--db", ledger_location, "list", "--scope", f"s{i}"],
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
    assert [r[:4] for r in _bookkeeping(ledger_location)] == [_expected_row(repo, ledger_location)]
    assert len((tmp_path / "m.txt").read_text().splitlines()) == 3
