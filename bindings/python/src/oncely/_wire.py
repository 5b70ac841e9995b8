"""The core's encoding: values that cross into the core as one byte string each way.

``effect.run`` (``wit/effect.wit``) takes a ``run-call`` and answers a ``run-answer``, each as
bytes in the core's encoding — a byte string is one allocation and one copy into the module's
memory and one copy out, where the same records as Canonical ABI values were a Python call per
field and an allocation call per string. The encoding, by WIT type: ``u8`` its byte; ``bool`` a
byte 0 or 1; ``u32`` and ``u64`` unsigned LEB128; ``string`` its UTF-8 length (LEB128) and
bytes; ``list<T>`` its length and each element; ``option<T>`` a byte 0, or 1 and the value; a
record its fields in order; an ``enum`` its case's index; a ``variant`` its case's index and its
payload, if any.

Like :mod:`oncely._abi`, this compiles one encoder and one decoder per WIT type from the types
``scripts/mirrors`` writes from the component (:data:`oncely._exports.WIRE`), with the classes
of :mod:`oncely.types` found by the same :class:`~oncely._values.Registry`; a record's decoder
is one generated function that reads its fields in line. ``tests/test_wire.py`` checks both
directions against the core itself.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from oncely._values import CodecError, Registry, _single_field, python_name
from oncely.errors import EncodingError

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any

    Put = Callable[[Any, bytearray], None]
    Get = Callable[[bytes, int], tuple[Any, int]]


class WireError(CodecError):
    """Bytes that do not decode as the type asked for (a bug in oncely: only the core writes
    what this decodes)."""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """An unsigned LEB128 integer at ``pos``, and the position after it (past the end of
    ``buf``: :class:`IndexError`, which :meth:`Wire.decode` reports)."""
    n = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7


def _put_varint(out: bytearray, n: int) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


# --- decoders ------------------------------------------------------------------------------------

# In generated code: read an unsigned integer into `{v}` (one byte, the common case, in line).
_UINT = "{v} = buf[pos]\nif {v} < 128:\n    pos += 1\nelse:\n    {v}, pos = varint(buf, pos)\n"
_STRING = _UINT + "end = pos + {v}\n{v} = buf[pos:end].decode()\npos = end\n"
_BYTES = _UINT + "end = pos + {v}\n{v} = buf[pos:end]\npos = end\n"
_BOOL = "{v} = buf[pos] == 1\npos += 1\n"


def _get_uint(buf: bytes, pos: int) -> tuple[int, int]:
    v = buf[pos]
    if v < 128:
        return v, pos + 1
    return _varint(buf, pos)


def _get_string(buf: bytes, pos: int) -> tuple[str, int]:
    n, pos = _get_uint(buf, pos)
    end = pos + n
    return buf[pos:end].decode(), end


def _get_bytes(buf: bytes, pos: int) -> tuple[bytes, int]:
    n, pos = _get_uint(buf, pos)
    end = pos + n
    return buf[pos:end], end


def _get_bool(buf: bytes, pos: int) -> tuple[bool, int]:
    return buf[pos] == 1, pos + 1


_SCALAR_GET: dict[str, tuple[str, Get]] = {
    "u8": ("{v} = buf[pos]\npos += 1\n", lambda buf, pos: (buf[pos], pos + 1)),
    "u32": (_UINT, _get_uint),
    "u64": (_UINT, _get_uint),
    "string": (_STRING, _get_string),
    "bool": (_BOOL, _get_bool),
}

# --- encoders ------------------------------------------------------------------------------------


def _bad(value: Any, expected: str) -> None:
    raise CodecError(f"expected {expected}, got {type(value).__name__} {value!r}")


def _put_uint(value: Any, out: bytearray) -> None:
    if type(value) is not int or value < 0:
        raise CodecError(f"expected a non-negative int, got {value!r}")
    if value < 0x80:
        out.append(value)
    else:
        _put_varint(out, value)


def _put_string(value: Any, out: bytearray) -> None:
    if type(value) is not str:
        raise CodecError(f"expected str, got {type(value).__name__}")
    try:
        b = value.encode()
    except UnicodeEncodeError as e:  # a lone surrogate: not Unicode text
        raise EncodingError("string", e.start) from None
    n = len(b)
    if n < 0x80:
        out.append(n)
    else:
        _put_varint(out, n)
    out += b


def _put_bytes(value: Any, out: bytearray) -> None:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise CodecError(f"expected bytes, got {type(value).__name__}")
    _put_varint(out, len(value))
    out += value


def _put_bool(value: Any, out: bytearray) -> None:
    if type(value) is not bool:
        raise CodecError(f"expected bool, got {type(value).__name__}")
    out.append(1 if value else 0)


def _put_u8(value: Any, out: bytearray) -> None:
    out.append(value)


_SCALAR_PUT: dict[str, Put] = {
    "u8": _put_u8,
    "u32": _put_uint,
    "u64": _put_uint,
    "string": _put_string,
    "bool": _put_bool,
}


class Wire:
    """Encoders and decoders of the core's encoding for WIT types (:mod:`oncely._exports`),
    with the Python classes of ``registry``; each compiled once per type."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._puts: dict[int, Put] = {}
        self._gets: dict[int, Get] = {}

    # -- encoding --

    def put(self, ty: Any) -> Put:
        key = id(ty)
        f = self._puts.get(key)
        if f is None:
            f = self._puts[key] = self._compile_put(ty)
        return f

    def _compile_put(self, ty: Any) -> Put:  # noqa: C901, PLR0911 - a branch per kind
        if isinstance(ty, str):
            f = _SCALAR_PUT.get(ty)
            if f is None:
                raise CodecError(f"no encoding here for {ty!r}")
            return f
        kind = ty[0]
        if kind == "list":
            if ty[1] == "u8":
                return _put_bytes
            element = self.put(ty[1])

            def put_list(value: Any, out: bytearray) -> None:
                _put_varint(out, len(value))
                for v in value:
                    element(v, out)

            return put_list
        if kind == "option":
            inner = self.put(ty[1])

            def put_option(value: Any, out: bytearray) -> None:
                if value is None:
                    out.append(0)
                else:
                    out.append(1)
                    inner(value, out)

            return put_option
        if kind == "record":
            return self._put_record(ty)
        if kind == "enum":
            enum: type[Enum] = self.registry.enum(ty[2])
            index: dict[Any, int] = {m: i for i, m in enumerate(enum)}

            def put_enum(value: Any, out: bytearray) -> None:
                try:
                    out.append(index[value])
                except (KeyError, TypeError):
                    raise CodecError(f"{value!r} is not a {enum.__name__}") from None

            return put_enum
        if kind == "variant":
            return self._put_variant(ty)
        raise CodecError(f"no encoding here for {ty!r}")

    def _put_record(self, ty: Any) -> Put:
        """One generated function: each field written in line (scalars, bytes, enums, options
        of these) or by its encoder."""
        fields = ty[2]
        cls = self.registry.record([n for n, _ in fields])
        env: dict[str, Any] = {
            "cls": cls,
            "varint": _put_varint,
            "bad": _bad,
            "EncodingError": EncodingError,
        }
        lines = [
            "if type(value) is not cls:",
            f"    bad(value, {cls.__name__!r})",
        ]
        for i, (name, t) in enumerate(fields):
            attr = python_name(name)
            lines.append(f"v = value.{attr}")
            inline = self._inline_put(t, f"{ty[1]}.{name}", i, env)
            if inline is None and isinstance(t, tuple) and t[0] == "option":
                some = self._inline_put(t[1], f"{ty[1]}.{name}", i, env)
                if some is not None:
                    inline = ["if v is None:", "    out.append(0)", "else:", "    out.append(1)"]
                    inline += [f"    {x}" for x in some]
            if inline is None:
                env[f"p{i}"] = self.put(t)
                inline = [f"p{i}(v, out)"]
            lines += inline
        body = "".join(f"    {line}\n" for line in lines)
        source = f"def put(value, out):\n{body}"
        exec(compile(source, f"<oncely wire {ty[1]}>", "exec"), env)
        put: Put = env["put"]
        return put

    def _inline_put(self, t: Any, what: str, i: int, env: dict[str, Any]) -> list[str] | None:
        """The lines that write `v`, a `t`, in line; ``None`` for a type written by its own
        encoder."""
        if t == "string":
            return [
                "if type(v) is not str:",
                "    bad(v, 'str')",
                "try:",
                "    b = v.encode()",
                "except UnicodeEncodeError as e:",
                f"    raise EncodingError({what!r}, e.start) from None",
                "n = len(b)",
                "if n < 128:",
                "    out.append(n)",
                "else:",
                "    varint(out, n)",
                "out += b",
            ]
        if t in ("u32", "u64"):
            return [
                "if type(v) is not int or v < 0:",
                "    bad(v, 'a non-negative int')",
                "if v < 128:",
                "    out.append(v)",
                "else:",
                "    varint(out, v)",
            ]
        if t == "bool":
            return [
                "if v is True:",
                "    out.append(1)",
                "elif v is False:",
                "    out.append(0)",
                "else:",
                "    bad(v, 'bool')",
            ]
        if isinstance(t, tuple) and t[0] == "enum":
            enum: type[Enum] = self.registry.enum(t[2])
            env[f"e{i}"] = {m: j for j, m in enumerate(enum)}
            return [
                f"j = e{i}.get(v)",
                "if j is None:",
                f"    bad(v, {enum.__name__!r})",
                "out.append(j)",
            ]
        return None

    def _put_variant(self, ty: Any) -> Put:
        cases = ty[2]
        table = self.registry.variant([n for n, _ in cases])
        by_class: dict[type, tuple[int, Put | None, str | None]] = {}
        for i, (name, payload) in enumerate(cases):
            cls = table[name]
            if payload is None:
                by_class[cls] = (i, None, None)
                continue
            fields = payload[2] if isinstance(payload, tuple) and payload[0] == "record" else None
            direct = self.registry.direct(cls, None if fields is None else [n for n, _ in fields])
            by_class[cls] = (i, self.put(payload), None if direct else _single_field(cls))

        def put_variant(value: Any, out: bytearray) -> None:
            hit = by_class.get(type(value))
            if hit is None:
                raise CodecError(f"{type(value).__name__} is not a case of {ty[1]}")
            i, put, attr = hit
            out.append(i)
            if put is not None:
                put(value if attr is None else getattr(value, attr), out)

        return put_variant

    def encode(self, ty: Any, value: Any) -> bytes:
        out = bytearray()
        self.put(ty)(value, out)
        return bytes(out)

    # -- decoding --

    def get(self, ty: Any) -> Get:
        key = id(ty)
        f = self._gets.get(key)
        if f is None:
            f = self._gets[key] = self._compile_get(ty)
        return f

    def _compile_get(self, ty: Any) -> Get:  # noqa: C901, PLR0911 - a branch per kind of type
        if isinstance(ty, str):
            scalar = _SCALAR_GET.get(ty)
            if scalar is None:
                raise CodecError(f"no decoding here for {ty!r}")
            return scalar[1]
        kind = ty[0]
        if kind == "list":
            if ty[1] == "u8":
                return _get_bytes
            element = self.get(ty[1])

            def get_list(buf: bytes, pos: int) -> tuple[list[Any], int]:
                n, pos = _get_uint(buf, pos)
                out = []
                for _ in range(n):
                    v, pos = element(buf, pos)
                    out.append(v)
                return out, pos

            return get_list
        if kind == "option":
            inner = self.get(ty[1])

            def get_option(buf: bytes, pos: int) -> tuple[Any, int]:
                if buf[pos]:
                    return inner(buf, pos + 1)
                return None, pos + 1

            return get_option
        if kind == "record":
            return self._get_record(ty)
        if kind == "enum":
            members = tuple(self.registry.enum(ty[2]))

            def get_enum(buf: bytes, pos: int) -> tuple[Any, int]:
                return members[buf[pos]], pos + 1

            return get_enum
        if kind == "variant":
            return self._get_variant(ty)
        raise CodecError(f"no decoding here for {ty!r}")

    def _get_record(self, ty: Any) -> Get:
        """One generated function: the fields read in line (scalars) or by their decoders."""
        fields = ty[2]
        cls = self.registry.record([n for n, _ in fields])
        env: dict[str, Any] = {"cls": cls, "varint": _varint}
        lines: list[str] = []
        names: list[str] = []
        for i, (_, t) in enumerate(fields):
            name = f"f{i}"
            names.append(name)
            inline = self._inline(t, name, f"m{i}", env)
            if inline is not None:
                lines += inline.splitlines()
            elif (
                isinstance(t, tuple) and t[0] == "option" and self._inline(t[1], name, f"m{i}", env)
            ):
                # None, or the value read in line
                some = self._inline(t[1], name, f"m{i}", env) or ""
                lines += ["if buf[pos]:", "    pos += 1"]
                lines += [f"    {x}" for x in some.splitlines()]
                lines += ["else:", "    pos += 1", f"    {name} = None"]
            else:
                env[f"g{i}"] = self.get(t)
                lines.append(f"{name}, pos = g{i}(buf, pos)")
        body = "".join(f"    {line}\n" for line in lines)
        source = f"def get(buf, pos):\n{body}    return cls({', '.join(names)}), pos\n"
        exec(compile(source, f"<oncely wire {ty[1]}>", "exec"), env)
        get: Get = env["get"]
        return get

    def _inline(self, t: Any, name: str, members: str, env: dict[str, Any]) -> str | None:
        """The source that reads a `t` into `name` in line (a scalar, bytes, an enum), else
        ``None``."""
        if isinstance(t, str):
            scalar = _SCALAR_GET.get(t)
            return None if scalar is None else scalar[0].format(v=name)
        if t == ("list", "u8"):
            return _BYTES.format(v=name)
        if t[0] == "enum":
            env[members] = tuple(self.registry.enum(t[2]))
            return f"{name} = {members}[buf[pos]]\npos += 1\n"
        return None

    def _get_variant(self, ty: Any) -> Get:
        cases = ty[2]
        table = self.registry.variant([n for n, _ in cases])
        plan: list[tuple[type, Get | None, bool]] = []
        for name, payload in cases:
            cls = table[name]
            if payload is None:
                plan.append((cls, None, False))
                continue
            fields = payload[2] if isinstance(payload, tuple) and payload[0] == "record" else None
            direct = self.registry.direct(cls, None if fields is None else [n for n, _ in fields])
            plan.append((cls, self.get(payload), not direct))

        def get_variant(buf: bytes, pos: int) -> tuple[Any, int]:
            try:
                cls, get, wrap = plan[buf[pos]]
            except IndexError:
                raise WireError(f"no case {buf[pos]} in {ty[1]}") from None
            if get is None:
                return cls(), pos + 1
            v, pos = get(buf, pos + 1)
            return (cls(v) if wrap else v), pos

        return get_variant

    def decode(self, ty: Any, data: bytes) -> Any:
        try:
            value, end = self.get(ty)(data, 0)
        except (IndexError, UnicodeDecodeError) as e:
            raise WireError(f"the core's answer is not a {ty[1]}: {e}") from None
        if end != len(data):
            raise WireError(f"{len(data) - end} bytes left after a {ty[1]}")
        return value
