"""What every record class of :mod:`oncely.types` (written by ``scripts/mirrors``) shares: the
methods ``@dataclass(frozen=True, slots=True)`` would generate, written once here and set on each
class by :func:`_record`, and :class:`WitEnum`, the base of the WIT enums.

The generated classes carry their ``__slots__``, ``__match_args__`` and ``__init__`` (which sets
fields with :data:`_set`); equality, hashing, ``repr``, immutability, pickling, ``copy.replace``
and the dataclass description come from here.
"""

from __future__ import annotations

from enum import Enum

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    _C = TypeVar("_C", bound=type)
else:

    def dataclass_transform(**_: object) -> object:
        return lambda f: f


_set = object.__setattr__


def _values(self: Any) -> tuple[Any, ...]:
    return tuple([getattr(self, n) for n in self.__match_args__])


def _repr(self: Any) -> str:
    fields = ", ".join([f"{n}={getattr(self, n)!r}" for n in self.__match_args__])
    return f"{type(self).__qualname__}({fields})"


def _eq(self: Any, other: object) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen(self: Any, name: str, *_: object) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _reduce(self: Any) -> tuple[type, tuple[Any, ...]]:
    return type(self), _values(self)


def _replace(self: Any, /, **changes: Any) -> Any:
    """``copy.replace(record, **changes)`` (Python 3.13), as on a dataclass: a new record, the
    fields named changed, the others the same."""
    from dataclasses import replace

    return replace(self, **changes)


class _DataclassFields:
    """A record class's ``__dataclass_fields__``, made at its first read (by
    ``dataclasses.fields``, ``replace``, ``asdict`` or ``is_dataclass``): describing a class as a
    dataclass costs as much as the rest of this module's import, and most processes never ask."""

    def __get__(self, obj: object, cls: type) -> Any:
        from dataclasses import dataclass

        # Sets the class's own __dataclass_fields__ (and __dataclass_params__) in place of this.
        dataclass(init=False, repr=False, eq=False, match_args=False)(cls)
        return cls.__dict__["__dataclass_fields__"]


_METHODS = {
    "__dataclass_fields__": _DataclassFields(),
    "__repr__": _repr,
    "__eq__": _eq,
    "__hash__": _hash,
    "__setattr__": _frozen,
    "__delattr__": _frozen,
    "__reduce__": _reduce,
    "__replace__": _replace,
}


@dataclass_transform(frozen_default=True)
def _record(cls: _C) -> _C:
    """A record class as ``@dataclass(frozen=True, slots=True)`` makes it, without generating code
    when the module is imported (that was most of the time of ``import oncely``): the class body
    has its ``__slots__``, ``__match_args__`` and ``__init__``; this adds equality, hashing,
    ``repr``, immutability, pickling and copying (``copy.replace`` too), and the dataclass
    fields (``dataclasses.fields``, ``replace`` and ``asdict`` work)."""
    for name, method in _METHODS.items():
        setattr(cls, name, method)
    return cls


class WitEnum(str, Enum):
    """Base of the WIT enums: a ``str`` whose value is the WIT case name."""

    def __str__(self) -> str:
        return str(self.value)
