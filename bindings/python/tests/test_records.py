"""The record classes of ``oncely.types`` behave as ``@dataclass(frozen=True, slots=True)``
classes do, though scripts/mirrors writes their methods out (so that importing them generates no
code): construction by position and by name, defaults, equality, hashing, ``repr``,
immutability, no instance ``__dict__``, ``match``, pickling and copying (``copy.replace`` too),
and what the :mod:`dataclasses` functions read. Checked over every record class the module has."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from oncely import types
from oncely.types import (
    Execute,
    KeySpec,
    Lookup,
    ReconcileNone,
    ToolAnnotations,
    ToolPolicy,
)


def record_classes() -> list[type]:
    out = []
    for value in vars(types).values():
        ours = isinstance(value, type) and value.__module__ == types.__name__
        if ours and "__match_args__" in vars(value):
            out.append(value)
    return out


def sample(cls: type) -> Any:
    """An instance of ``cls`` whose fields are distinct strings (no field checks its type)."""
    return cls(*[f"{cls.__name__}.{n}" for n in cls.__match_args__])


def test_every_record_and_case_class_is_written_out() -> None:
    classes = record_classes()
    assert len(classes) > 80
    for cls in classes:
        assert dataclasses.is_dataclass(cls), cls
        names = tuple(f.name for f in dataclasses.fields(cls))
        assert names == cls.__match_args__, cls
        assert sorted(cls.__slots__) == sorted(names), cls


@pytest.mark.parametrize("cls", record_classes(), ids=lambda c: c.__name__)
def test_a_record_is_plain_frozen_data(cls: type) -> None:
    a, b = sample(cls), sample(cls)
    assert a == b
    assert (a != b) is False
    assert hash(a) == hash(b)
    assert a is not b
    fields = ", ".join(f"{n}={getattr(a, n)!r}" for n in cls.__match_args__)
    assert repr(a) == f"{cls.__qualname__}({fields})"
    assert not hasattr(a, "__dict__")
    for n in cls.__match_args__:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(a, n, "other")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(a, n)
    with pytest.raises((dataclasses.FrozenInstanceError, AttributeError)):
        a.not_a_field = 1  # type: ignore[attr-defined]
    for other in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert type(other) is cls and other == a
    assert dataclasses.asdict(a) == {n: getattr(a, n) for n in cls.__match_args__}
    assert dataclasses.astuple(a) == tuple(getattr(a, n) for n in cls.__match_args__)
    if cls.__match_args__:
        first = cls.__match_args__[0]
        changed = dataclasses.replace(a, **{first: "changed"})
        assert getattr(changed, first) == "changed" and changed != a
        assert getattr(a, first) != "changed"
        # copy.replace (Python 3.13) calls __replace__, as it does on a dataclass.
        replace = getattr(copy, "replace", lambda obj, **kw: obj.__replace__(**kw))
        assert replace(a, **{first: "changed"}) == changed
        assert replace(a) == a
        with pytest.raises(TypeError):
            replace(a, not_a_field=1)


def test_records_of_different_classes_or_values_differ() -> None:
    assert Lookup("refund.lookup") != Lookup("other.lookup")
    assert Execute("t") != Lookup("t")  # the same one field, another class
    assert ReconcileNone() == ReconcileNone()
    assert ReconcileNone() != Execute("t")
    assert KeySpec(None, None, None) != (None, None, None)


def test_unhashable_fields_make_the_record_unhashable_as_a_dataclass_does() -> None:
    spec = KeySpec(["/charge_id"], [], None)
    with pytest.raises(TypeError):
        hash(spec)
    assert spec == KeySpec(only=["/charge_id"], ignore=[], identity=None)


def test_a_record_of_options_defaults_them_to_none() -> None:
    assert ToolAnnotations() == ToolAnnotations(None, None, None, None)
    assert ToolAnnotations(destructive_hint=True).destructive_hint is True
    with pytest.raises(TypeError):
        KeySpec()  # type: ignore[call-arg]


def test_match_reads_the_fields_in_wit_order() -> None:
    policy = ToolPolicy(*[None] * len(ToolPolicy.__match_args__))
    match Lookup("refund.lookup"):
        case Lookup(tool):
            assert tool == "refund.lookup"
        case _:
            pytest.fail("no match")
    match policy:
        case ToolPolicy(class_=None, key=None):
            pass
        case _:
            pytest.fail("no match")
