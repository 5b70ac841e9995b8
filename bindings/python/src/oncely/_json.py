"""JSON text of Python values, for the core to judge.

The core canonicalizes and judges JSON *text*; this module only writes a Python value as that
text, compactly, without ASCII escaping, and without recursion. It decides nothing the core
decides: a lone surrogate in a string is written as it is (the caller sends the text as WTF-8 and
the core reports ``lone-surrogate``), an integer of any size is written with all its digits
(the core reports ``inexact-integer`` or ``number-overflow``), and nesting is written until the
``[`` or ``{`` that opens one level more than the core accepts (the core reports ``too-deep`` at
that byte; a cyclic structure is infinitely deep and ends the same way).

What only Python can see is refused here, at the place in the text where the value would have
started, as a :class:`~oncely.CanonError` of the kind the core gives for the nearest JSON text:

- a member name that is not a ``str`` (``{1: "x"}``): ``syntax``. :func:`json.dumps` would
  write it as ``"1"``, so ``{1: "x"}`` and ``{"1": "x"}`` would share a key;
- a value of a type JSON has no place for (``set``, ``bytes``, ``Decimal``, an object):
  ``syntax``;
- a float NaN: ``syntax``; a float infinity: ``number-overflow``;
- an integer too long to write as decimal digits in this process (``sys.int_info``'s digit
  limit; far beyond any double): ``number-overflow``.

The writer stops at the first such value (or at the level too deep) and returns a :class:`Cut`:
the text up to that point and Python's error, if any. The caller asks the core about that text
first, so that an error earlier in document order wins as it would in the core
(``docs/key-scheme.md``, "Which error is reported").
"""

from __future__ import annotations

import json.encoder
import math
from collections.abc import Callable, Mapping

from oncely.errors import CanonError
from oncely.types import CanonErrorKind

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any

_str = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring
_int = int.__repr__
_float = float.__repr__
_INF = float("inf")
_BIG_INT_BITS = 14_000
"""Integers longer than this are not written out (about 4,200 decimal digits, beyond Python's
default digit limit for ``str(int)``; any integer over 1,024 bits is too large for a double)."""
_SIZE_CHECK = 1 << 16
"""Pieces written between two checks of the text's size against the core's limit."""


class Cut:
    """A value that cannot be written as JSON text in full.

    ``text`` is the JSON text up to the offending value: it ends where that value would start,
    or just after the ``[`` or ``{`` that opens a level deeper than the core accepts, or once it
    is longer than the core accepts (then ``error`` is ``None``: the core reports ``too-deep``
    or ``too-large`` on ``text`` itself).
    """

    __slots__ = ("error", "text")

    def __init__(self, text: str, error: CanonError | None) -> None:
        self.text = text
        self.error = error

    def __repr__(self) -> str:
        return f"Cut({self.text[-40:]!r}, {self.error!r})"


def pointer(tokens: list[Any]) -> str:
    """The RFC 6901 pointer of a path of member names and array indices."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _quoted(p: str) -> str:
    return json.dumps(p, ensure_ascii=False)


def _refuse(
    out: list[str], path: list[Any], kind: CanonErrorKind, what: Callable[[str], str]
) -> Cut:
    """A :class:`Cut` at the end of ``out``: ``what`` makes the sentence from the quoted
    pointer of the value; the position is appended as the core appends it."""
    text = "".join(out)
    offset = len(text.encode("utf-8", "surrogatepass"))
    column = len(text) + 1  # the text is one line: strings escape line breaks
    message = f"{what(_quoted(pointer(path)))} (line 1, column {column}, byte {offset})"
    return Cut(text, CanonError(kind, offset, 1, column, message))


def _type(v: Any) -> str:
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _name(key: Any) -> str:
    """A member name that is not a ``str``, for a message: its type and, if short, its repr."""
    if key is None:
        return "None"
    shown = repr(key)
    return f"the {_type(key)} {shown}" if len(shown) <= 40 else f"a {_type(key)}"


def _scalar_problem(v: Any) -> tuple[CanonErrorKind, Callable[[str], str]]:
    """Why ``v`` (not a container) cannot be written: a kind, and the sentence for a pointer."""
    if isinstance(v, float):
        if math.isnan(v):
            return CanonErrorKind.SYNTAX, lambda at: f"the float NaN at {at} is not a JSON number"
        sign = "-" if v < 0 else ""
        return (
            CanonErrorKind.NUMBER_OVERFLOW,
            lambda at: (
                f"the float {sign}inf at {at} is too large for a double; JSON numbers are finite"
            ),
        )
    if isinstance(v, int):
        digits = int(v.bit_length() * 0.30103) + 1
        return (
            CanonErrorKind.NUMBER_OVERFLOW,
            lambda at: f"the integer at {at} (about {digits:,} digits) is too large for a double",
        )
    name = _type(v)
    return (
        CanonErrorKind.SYNTAX,
        lambda at: (
            f"a value of type {name} at {at} is not a JSON value (JSON has null, true, "
            "false, numbers, strings, arrays and objects)"
        ),
    )


_fast = json.encoder.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False
).encode
_PLAIN = frozenset((str, int, float, bool, type(None)))


_NAMES: frozenset[type] = frozenset((str,))
_COERCED_NAMES: frozenset[type] = frozenset((str, int, float, bool, type(None)))


def _plain(  # noqa: C901 - one case per JSON type, in one pass
    value: Any, max_depth: int, max_items: int, names: frozenset[type]
) -> bool:
    """Can :mod:`json`'s C encoder write ``value`` exactly as :func:`_write` would? Only plain
    ``dict``/``list``/``tuple`` and scalars, member names of the types in ``names``, at most
    ``max_depth`` levels and ``max_items`` values (so no cycle, and no shared sub-list repeated
    beyond the size limit). Floats and integers are left to the encoder, which raises
    ``ValueError`` for NaN, infinities and integers too long to write."""
    if type(value) in _PLAIN:
        return True
    if type(value) is not dict and type(value) is not list and type(value) is not tuple:
        return False
    todo = [(value, 1)]
    pop, push = todo.pop, todo.append
    plain = _PLAIN
    items = 0
    while todo:
        c, depth = pop()
        if type(c) is dict:
            for k in c:
                if type(k) not in names:
                    return False
            values: Any = c.values()
        else:
            values = c
        items += len(values)
        if items > max_items:
            return False
        for x in values:
            t = type(x)
            if t in plain:
                continue
            if (t is dict or t is list or t is tuple) and depth < max_depth:
                push((x, depth + 1))
            else:
                return False
    return True


def encode(value: Any, max_depth: int, max_bytes: int, *, coerce_names: bool = False) -> str | Cut:
    """JSON text of ``value`` (``None``, ``bool``, ``int``, finite ``float``, ``str``, lists
    and tuples, dicts and other mappings with ``str`` member names, and their subclasses), or a
    :class:`Cut` where it cannot be written. No whitespace; non-ASCII written as it is.

    ``coerce_names``: write ``int``, ``float``, ``bool`` and ``None`` member names as
    :func:`json.dumps` does (``1`` as ``"1"``, ``True`` as ``"true"``), for values that make no
    key (a tool's result, returned decoded as :mod:`json` would decode it).
    """
    # Plain values (nearly all arguments) go through json's C encoder; anything else, or a
    # value it refuses, through the writer below, which finds the problem and where it is.
    names = _COERCED_NAMES if coerce_names else _NAMES
    if _plain(value, max_depth, max_bytes // 2 + 1, names):
        try:
            return _fast(value)
        except ValueError:
            pass
    return _write(value, max_depth, max_bytes, coerce_names)


def _coerced(name: Any) -> str | None:
    """A member name that is not a ``str`` as :func:`json.dumps` writes it, or ``None``."""
    if name is True:
        return "true"
    if name is False:
        return "false"
    if name is None:
        return "null"
    if isinstance(name, int) and name.bit_length() <= _BIG_INT_BITS:
        return _int(name)
    if isinstance(name, float) and name - name == 0.0:
        return _float(name)
    return None


def _write(  # noqa: C901, PLR0911, PLR0912, PLR0915
    value: Any, max_depth: int, max_bytes: int, coerce_names: bool
) -> str | Cut:
    """:func:`encode`, one value at a time, without recursion."""
    out: list[str] = []
    put = out.append
    # One frame per open container: an iterator of (token, child) pairs and its closing bracket.
    frames: list[tuple[Any, str]] = []
    path: list[Any] = []
    checked = 0  # pieces of `out` whose length is counted in `size`
    size = 0
    v = value
    while True:
        t = type(v)
        if t is str:
            put(_str(v))
        elif v is None:
            put("null")
        elif v is True:
            put("true")
        elif v is False:
            put("false")
        elif t is int and -(1 << 53) <= v <= (1 << 53):
            put(_int(v))
        elif t is float and v - v == 0.0:  # finite (inf - inf and NaN - NaN are NaN)
            put(_float(v))
        elif t is dict or t is list or t is tuple:
            if len(frames) >= max_depth:
                put("{" if t is dict else "[")
                return Cut("".join(out), None)
            if t is dict:
                put("{")
                frames.append((iter(v.items()), "}"))
            else:
                put("[")
                frames.append((enumerate(v), "]"))
            path.append(None)
        elif isinstance(v, str):
            put(_str(v))
        elif isinstance(v, int):  # bool is handled above; an int subclass, or a big int
            if v.bit_length() > _BIG_INT_BITS:
                kind, what = _scalar_problem(v)
                return _refuse(out, path, kind, what)
            try:
                put(_int(v))
            except ValueError:  # beyond this process's digit limit for str(int)
                kind, what = _scalar_problem(v)
                return _refuse(out, path, kind, what)
        elif isinstance(v, float):
            if math.isnan(v) or v in (_INF, -_INF):
                kind, what = _scalar_problem(v)
                return _refuse(out, path, kind, what)
            put(_float(v))
        elif isinstance(v, (Mapping, list, tuple)):
            is_map = isinstance(v, Mapping)
            if len(frames) >= max_depth:
                put("{" if is_map else "[")
                return Cut("".join(out), None)
            if is_map:
                put("{")
                frames.append((iter(v.items()), "}"))  # type: ignore[union-attr]
            else:
                put("[")
                frames.append((enumerate(v), "]"))
            path.append(None)
        else:
            kind, what = _scalar_problem(v)
            return _refuse(out, path, kind, what)

        # The next value: the next child of the innermost open container, closing finished ones.
        while frames:
            items, close = frames[-1]
            item = next(items, None)
            if item is None:
                frames.pop()
                path.pop()
                put(close)
                continue
            token, v = item
            last = out[-1]
            if last not in {"{", "["}:
                put(",")
            if close == "}":
                if type(token) is not str and not isinstance(token, str):
                    name = _coerced(token) if coerce_names else None
                    if name is not None:
                        put(_str(name))
                        put(":")
                        path[-1] = name
                        break
                    path.pop()
                    return _refuse(
                        out,
                        path,
                        CanonErrorKind.SYNTAX,
                        lambda at, token=token: (  # type: ignore[misc]
                            f"a member name of the object at {at} is "
                            f"{_name(token)}, not a string; JSON member names are strings"
                        ),
                    )
                put(_str(token))
                put(":")
            path[-1] = token
            break
        else:
            return "".join(out)

        if len(out) - checked >= _SIZE_CHECK:
            size += sum(map(len, out[checked:]))
            checked = len(out)
            if size > max_bytes:  # at least as many bytes: the core refuses it as too large
                return Cut("".join(out), None)
