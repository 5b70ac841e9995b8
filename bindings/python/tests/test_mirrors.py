"""The package's hand-kept mirrors of the core's ``entry`` record — the ``Entry`` dataclass, the
SQL column list with its row converters, and the migrated SQLite and PostgreSQL tables — checked
against the component's own type, read from the component: every field, in order, whether it
may be absent, and whether it is a number or text."""

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


def test_the_migrated_sqlite_table_is_the_entry_record(sqlite_path: str) -> None:
    oncely.Ledger.sqlite(sqlite_path)
    with sqlite3.connect(sqlite_path) as c:
        rows = c.execute(
            'SELECT name, type, "notnull" FROM pragma_table_info(?)', ("oncely_effects",)
        ).fetchall()
    got = sorted(
        (n, notnull == 0, "integer" if t.upper() == "INTEGER" else "text") for n, t, notnull in rows
    )
    assert got == sorted(expected_columns())


def test_the_migrated_postgres_table_is_the_entry_record(pg_dsn: str) -> None:
    import psycopg

    oncely.Ledger.postgres(pg_dsn)
    with psycopg.connect(pg_dsn) as c:
        rows = c.execute(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = 'oncely' AND table_name = 'effects'"
        ).fetchall()
    got = sorted(
        (n, nullable == "YES", "integer" if t == "bigint" else "text") for n, t, nullable in rows
    )
    assert got == sorted(expected_columns())
