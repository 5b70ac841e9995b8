"""The package's hand-kept mirrors of the core's ``entry`` record — the ``Entry`` dataclass, the
SQL column list with its row converters, and the migrated SQLite and PostgreSQL tables — checked
against the component's own type, read from the component: every field, in order, whether it
may be absent, and whether it is a number or text. The history's (``HistoryRecord``, its column
list and the migrated history tables) are checked against the same entry columns."""

from __future__ import annotations

import dataclasses
import sqlite3
import typing
from typing import Any

from wasmtime.component import _types as wt

import oncely
from oncely import _runtime, types
from oncely._codec import python_name
from oncely.store import _sql

# One field is stored as two columns: `reconcile` (a variant) as its kind and, for `lookup`, its
# tool.
SPLIT = {"reconcile": [("reconcile_kind", False, "text"), ("reconcile_tool", True, "text")]}


def entry_fields() -> list[tuple[str, Any]]:
    """The component's ``ledger.entry`` record: (field name, WIT type), in order."""
    rt = _runtime.shared()
    ext = rt.component.type.exports(rt.engine)[f"{_runtime.PACKAGE}/ledger@{_runtime.VERSION}"]
    entry = ext.ty.exports(rt.engine)["entry"].ty
    assert isinstance(entry, wt.RecordType)
    fields = list(entry.fields)
    assert len(fields) >= 24
    return fields


def kind(t: Any) -> str:
    if isinstance(t, (wt.U8, wt.U16, wt.U32, wt.U64, wt.S32, wt.S64)):
        return "integer"
    if isinstance(t, (wt.String, wt.EnumType)):
        return "text"
    raise AssertionError(f"no column kind for {t!r}")


def expected_columns() -> list[tuple[str, bool, str]]:
    out: list[tuple[str, bool, str]] = []
    for name, t in entry_fields():
        col = python_name(name)
        if col in SPLIT:
            out += SPLIT[col]
        elif isinstance(t, wt.OptionType):
            out.append((col, True, kind(t.payload)))
        else:
            out.append((col, False, kind(t)))
    return out


def test_the_entry_dataclass_is_the_entry_record() -> None:
    want = [python_name(n) for n, _ in entry_fields()]
    got = [f.name for f in dataclasses.fields(types.Entry)]
    assert got == want
    hints = typing.get_type_hints(types.Entry)
    for name, t in entry_fields():
        hint = hints[python_name(name)]
        optional = type(None) in typing.get_args(hint)
        assert optional == isinstance(t, wt.OptionType), f"{name}: {hint}"
        if not optional and kind_or_none(t) == "integer":
            assert hint is int, f"{name}: {hint}"
        if not optional and isinstance(t, wt.String):
            assert hint is str, f"{name}: {hint}"


def kind_or_none(t: Any) -> str | None:
    try:
        return kind(t)
    except AssertionError:
        return None


def test_the_column_list_and_the_row_converters_are_the_entry_record(
    sqlite_path: str,
) -> None:
    assert list(_sql.COLUMNS) == [c for c, _, _ in expected_columns()]
    # An entry as the core writes it goes through to_row/from_row unchanged, field by field.
    ledger = oncely.Ledger.sqlite(sqlite_path)
    claim = ledger.prepare(
        scope="mirror", run="r", step="s", tool="t", args={"n": 1},
        policy={"class": "irreversible-external", "reconcile": {"lookup": "find"}},
    )  # fmt: skip
    ledger.begin(claim)
    [entry] = ledger.list("mirror")
    row = _sql.to_row(entry)
    assert len(row) == len(_sql.COLUMNS)
    assert _sql.from_row(row) == entry


def sqlite_columns(path: str, table: str) -> list[tuple[str, bool, str]]:
    """(name, nullable, kind) of each column of a migrated SQLite table, in order."""
    oncely.Ledger.sqlite(path).close()
    with sqlite3.connect(path) as c:
        rows = c.execute(
            'SELECT name, type, "notnull" FROM pragma_table_info(?) ORDER BY cid', (table,)
        ).fetchall()
    return [(n, nn == 0, "integer" if t.upper() == "INTEGER" else "text") for n, t, nn in rows]


def postgres_columns(dsn: str, table: str) -> list[tuple[str, bool, str]]:
    """(name, nullable, kind) of each column of a migrated table of the ``oncely`` schema, in
    order."""
    import psycopg

    oncely.Ledger.postgres(dsn).close()
    with psycopg.connect(dsn) as c:
        rows = c.execute(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = 'oncely' AND table_name = %s ORDER BY ordinal_position",
            (table,),
        ).fetchall()
    return [
        (n, nullable == "YES", "integer" if t == "bigint" else "text") for n, t, nullable in rows
    ]


def history_columns() -> list[tuple[str, bool, str]]:
    """The history table's columns as ``HistoryRecord`` and the entry record make them: the
    entry's ``(scope, key)``, then each field of the record, as the entry column of the same
    name (``at`` is ``updated_at``)."""
    fields = [f.name for f in dataclasses.fields(oncely.HistoryRecord)]
    assert list(_sql.HISTORY_COLUMNS) == fields
    entry = {c: (nullable, k) for c, nullable, k in expected_columns()}
    entry["at"] = entry["updated_at"]
    return [("scope", False, "text"), ("key", False, "text")] + [(c, *entry[c]) for c in fields]


def test_the_migrated_sqlite_tables_are_the_entry_and_history_records(sqlite_path: str) -> None:
    assert sorted(sqlite_columns(sqlite_path, "oncely_effects")) == sorted(expected_columns())
    assert sqlite_columns(sqlite_path, "oncely_history") == history_columns()


def test_the_migrated_postgres_tables_are_the_entry_and_history_records(pg_dsn: str) -> None:
    assert sorted(postgres_columns(pg_dsn, "effects")) == sorted(expected_columns())
    assert postgres_columns(pg_dsn, "history") == history_columns()
