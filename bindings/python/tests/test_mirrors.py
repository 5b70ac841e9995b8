"""The package's mirrors of the core's types, checked against the component's own types, read
from the component: every record, enum and variant of ``oncely.types`` (written by
scripts/mirrors: names, order, types and optionality); and the ``entry`` record's other mirrors
— the SQL column list with its row converters, and the migrated SQLite and PostgreSQL tables:
every field, in order, whether it may be absent, and whether it is a number or text. The
history's (``HistoryRecord``, its column list and the migrated history views) are checked
against the same entry columns."""

from __future__ import annotations

import dataclasses
import sqlite3
import typing
from typing import Any

from wasmtime.component import _types as wt

import oncely
from oncely import _runtime, types
from oncely._values import python_name
from oncely.store import _sql

# One field is stored as two columns: `reconcile` (a variant) as its kind and, for `lookup`, its
# tool.
SPLIT = {"reconcile": [("reconcile_kind", False, "text"), ("reconcile_tool", True, "text")]}


def entry_fields() -> list[tuple[str, Any]]:
    """The component's ``ledger.entry`` record: (field name, WIT type), in order."""
    c = _runtime.shared().components
    ext = c.component.type.exports(c.engine)[f"{_runtime.PACKAGE}/ledger@{_runtime.VERSION}"]
    entry = ext.ty.exports(c.engine)["entry"].ty
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


# Beside the entry's columns, each row keeps its history (a JSON array each marked write appends
# to; JSONB on PostgreSQL), read through the history view.
ROW_HISTORY = ("history", True, "text")


def test_the_migrated_sqlite_tables_are_the_entry_and_history_records(sqlite_path: str) -> None:
    assert sorted(sqlite_columns(sqlite_path, "oncely_effects")) == sorted(
        [*expected_columns(), ROW_HISTORY]
    )
    # A SQLite view's columns have no declared type and no NOT NULL: their names, in order.
    view = sqlite_columns(sqlite_path, "oncely_history")
    assert [c for c, _, _ in view] == [c for c, _, _ in history_columns()]


def test_the_migrated_postgres_tables_are_the_entry_and_history_records(pg_dsn: str) -> None:
    assert sorted(postgres_columns(pg_dsn, "effects")) == sorted([*expected_columns(), ROW_HISTORY])
    # A view's columns are all nullable in the catalog: their names and kinds, in order.
    view = postgres_columns(pg_dsn, "history")
    assert [(c, k) for c, _, k in view] == [(c, k) for c, _, k in history_columns()]


# --- every WIT type: oncely/types.py (written by scripts/mirrors) against the component ---------


def _registry() -> Any:
    from oncely import errors
    from oncely._values import Registry

    return Registry(
        records=(
            *types.RECORDS,
            errors.CanonError,
            errors.KeyDerivationError,
            errors.PolicyError,
            errors.LedgerError,
        ),
        enums=types.ENUMS,
        variants=types.VARIANTS,
    )


def _named_types() -> list[tuple[str, Any]]:
    """Every record, enum and variant the component's interfaces export: (where, WIT type)."""
    c = _runtime.shared().components
    out: list[tuple[str, Any]] = []
    for iname, ext in c.component.type.exports(c.engine).items():
        for name, item in ext.ty.exports(c.engine).items():
            t = getattr(item, "ty", None)
            if isinstance(t, (wt.RecordType, wt.EnumType, wt.VariantType)):
                out.append((f"{iname}#{name}", t))
    return out


def _check_hint(reg: Any, hint: Any, t: Any, where: str) -> None:
    """The annotation ``hint`` is the Python type of the WIT type ``t``."""
    if isinstance(t, wt.OptionType):
        args = typing.get_args(hint)
        assert type(None) in args, f"{where}: {hint} is not optional"
        rest = tuple(a for a in args if a is not type(None))
        _check_hint(reg, rest[0] if len(rest) == 1 else typing.Union[rest], t.payload, where)
        return
    assert type(None) not in typing.get_args(hint), f"{where}: {hint} is optional"
    if isinstance(t, (wt.U8, wt.U16, wt.U32, wt.U64, wt.S32, wt.S64)):
        assert hint is int, f"{where}: {hint}"
    elif isinstance(t, wt.String):
        assert hint is str, f"{where}: {hint}"
    elif isinstance(t, wt.Bool):
        assert hint is bool, f"{where}: {hint}"
    elif isinstance(t, wt.ListType) and isinstance(t.element, wt.U8):
        assert hint is bytes, f"{where}: {hint}"
    elif isinstance(t, wt.ListType):
        assert typing.get_origin(hint) is list, f"{where}: {hint}"
        _check_hint(reg, typing.get_args(hint)[0], t.element, where + "[]")
    elif isinstance(t, wt.TupleType):
        assert typing.get_origin(hint) is tuple, f"{where}: {hint}"
        for i, (h, e) in enumerate(zip(typing.get_args(hint), t.elements, strict=True)):
            _check_hint(reg, h, e, f"{where}.{i}")
    elif isinstance(t, wt.EnumType):
        assert hint is reg.enum(t.names), f"{where}: {hint}"
    elif isinstance(t, wt.RecordType):
        cls = reg.record([n for n, _ in t.fields])
        # types.py annotates the error records (oncely.errors imports it) as Exception.
        ok = hint is cls or (hint is Exception and issubclass(cls, Exception))
        assert ok, f"{where}: {hint} is not {cls}"
    elif isinstance(t, wt.VariantType):
        classes = set(reg.variant([n for n, _ in t.cases]).values())
        got = set(typing.get_args(hint)) or {hint}
        assert got == classes, f"{where}: {hint} is not the union of {classes}"
    else:
        raise AssertionError(f"{where}: no Python type for {t!r}")


def test_every_wit_type_is_mirrored_with_its_types_and_optionality() -> None:
    """Every record's class has the WIT's fields in order, each of the WIT's type (optional
    exactly when the WIT's is an option); every enum has the WIT's cases in order; every variant
    has one class per case, whose single field (when it has a payload) is of the payload's
    type. This is what scripts/mirrors writes by construction; the codec also checks names and
    order when the component is loaded."""
    reg = _registry()
    seen = 0
    for where, t in _named_types():
        seen += 1
        if isinstance(t, wt.EnumType):
            assert [str(m.value) for m in reg.enum(t.names)] == list(t.names), where
        elif isinstance(t, wt.RecordType):
            cls = reg.record([n for n, _ in t.fields])
            if issubclass(cls, Exception):  # the error records: oncely.errors, by hand
                hints = typing.get_type_hints(cls.__init__)
            else:
                hints = typing.get_type_hints(cls)
                assert [f.name for f in dataclasses.fields(cls)] == [
                    python_name(n) for n, _ in t.fields
                ], where
            for name, ft in t.fields:
                _check_hint(reg, hints[python_name(name)], ft, f"{where}.{name}")
        else:
            table = reg.variant([n for n, _ in t.cases])
            for name, payload in t.cases:
                cls = table[name]
                if payload is None:
                    assert dataclasses.fields(cls) == (), f"{where}.{name}"
                    continue
                if (
                    isinstance(payload, wt.RecordType)
                    and reg.record([n for n, _ in payload.fields]) is cls
                ):
                    continue  # the record's own class, checked as a record
                [field] = dataclasses.fields(cls)
                hint = typing.get_type_hints(cls)[field.name]
                _check_hint(reg, hint, payload, f"{where}.{name}")
    assert seen >= 75
