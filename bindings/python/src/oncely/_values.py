"""What both crossings into the core share, without wasmtime: the Python classes of the WIT
records, enums and variants found by their WIT names (:class:`Registry`), the error case of a
lifted ``result`` (:class:`Err`), the error of a value of the wrong type (:class:`CodecError`),
and one view of the process's memory (:data:`MEMORY`).

The component crossing (:mod:`oncely._codec`) and the core crossing (:mod:`oncely._abi`) import
these from here; only the first imports wasmtime-py.
"""

from __future__ import annotations

import ctypes
import keyword
import sys
from collections.abc import Sequence
from enum import Enum

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any

MEMORY = memoryview((ctypes.c_ubyte * sys.maxsize).from_address(0)).cast("B")
"""The process's memory as one byte view: values are read where they lie, at their addresses
(``struct.unpack_from(fmt, MEMORY, address)``, ``MEMORY[address : address + n]``), without a C
call per read. Only addresses that wasmtime hands out for a call's values are read."""


class CodecError(TypeError):
    """The component's types and the Python classes disagree (a binding bug), or a value of
    the wrong type was given."""


def python_name(wit_name: str) -> str:
    """The Python attribute name of a WIT field: kebab-case to snake_case, keywords + ``_``."""
    name = wit_name.replace("-", "_")
    return name + "_" if keyword.iskeyword(name) else name


def _field_names(cls: type) -> tuple[str, ...]:
    """The fields of a record class, in order: an exception's ``_fields``, a generated record's
    ``__match_args__`` (:mod:`oncely._records`), or a dataclass's fields."""
    names = getattr(cls, "_fields", None)
    if names is None:
        names = cls.__dict__.get("__match_args__")
    if names is None:
        import dataclasses  # only for a class neither written by scripts/mirrors nor an error

        if not dataclasses.is_dataclass(cls):
            raise CodecError(f"{cls.__name__} declares no fields")
        names = [f.name for f in dataclasses.fields(cls)]
    return tuple(names)


def _single_field(cls: type) -> str:
    names = _field_names(cls)
    if len(names) != 1:
        raise CodecError(f"{cls.__name__} must have exactly one field to wrap a variant payload")
    return names[0]


class Registry:
    """Python classes for the component's records, enums and variants, found by their WIT
    field names, enum names and variant case names."""

    def __init__(
        self,
        records: Sequence[type],
        enums: Sequence[type[Enum]],
        variants: Sequence[dict[str, type]],
    ) -> None:
        self.records: dict[tuple[str, ...], type] = {}
        for cls in records:
            key = _field_names(cls)
            if key in self.records:
                raise CodecError(f"two records with fields {key}")
            self.records[key] = cls
        self.enums: dict[tuple[str, ...], type[Enum]] = {
            tuple(str(m.value) for m in e): e for e in enums
        }
        self.variants: dict[tuple[str, ...], dict[str, type]] = {tuple(v): v for v in variants}

    def record(self, wit_fields: Sequence[str]) -> type:
        key = tuple(python_name(f) for f in wit_fields)
        cls = self.records.get(key)
        if cls is None:
            raise CodecError(f"no Python class for the WIT record with fields {tuple(wit_fields)}")
        return cls

    def enum(self, names: Sequence[str]) -> type[Enum]:
        e = self.enums.get(tuple(names))
        if e is None:
            raise CodecError(f"no Python enum for the WIT enum {tuple(names)}")
        return e

    def variant(self, cases: Sequence[str]) -> dict[str, type]:
        v = self.variants.get(tuple(cases))
        if v is None:
            raise CodecError(f"no Python classes for the WIT variant {tuple(cases)}")
        return v

    def direct(self, cls: type, record_fields: Sequence[str] | None) -> bool:
        """Is a variant's case class the payload record itself (``record_fields``: its WIT
        fields; ``None`` when the payload is not a record) rather than a one-field wrapper?"""
        return record_fields is not None and self.record(record_fields) is cls


def registry() -> Registry:
    """The registry of every class the core's values are made of: :mod:`oncely.types`, with
    the WIT error records as the exceptions of :mod:`oncely.errors`."""
    from oncely import errors, types

    return Registry(
        records=(
            # agent.identity-error arrives as the exception that carries it.
            *(r for r in types.RECORDS if r is not types.IdentityError),
            errors.IdentityError,
            errors.CanonError,
            errors.KeyDerivationError,
            errors.PolicyError,
            errors.LedgerError,
        ),
        enums=types.ENUMS,
        variants=types.VARIANTS,
    )


class Err:
    """The error case of a lifted WIT ``result``."""

    __slots__ = ("error",)

    def __init__(self, error: Any) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Err({self.error!r})"
