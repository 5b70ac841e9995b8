"""Calls into the core module itself, with the Canonical ABI done here: the fast crossing.

Why this exists: the shipped component is one core WebAssembly module (it imports nothing)
wrapped with the Canonical ABI's adapters. wasmtime-py's component call (``_codec``) hands
wasmtime a tree of C values, which wasmtime converts to its own values field by field and then
lowers into the module's memory, and the result comes back the same way: for the records of
``effect.run`` most of a call's time. Here the same module is instantiated on its own and
called through wasmtime's raw C call (``wasmtime_func_call_unchecked``, under a microsecond
from Python), and this module does what the component's adapters would: arguments are written
into the module's memory in the Canonical ABI's layout (strings and lists in blocks the
module's ``cabi_realloc`` hands out, one call each; the arguments as flat values or, past 16 of
them, as one block), and the result is read from the module's memory where the export left it,
then released with the export's ``cabi_post_…`` function. Each record's load and store is
compiled to one function that reads or writes its plain fields with one ``struct`` call.
``bench_crossing.py`` measures both crossings call by call; ``oncely._runtime.CROSSINGS`` says
which export takes which.

What each value means is still the component's contract: every layout here is computed from the
WIT types of its exports as ``scripts/mirrors`` writes them from the component
(:mod:`oncely._exports`; ``tests/test_codec.py`` compares them with the component's own type
information), with the classes of :mod:`oncely.types` found by the same
:class:`~oncely._values.Registry` as the component call. Nothing here imports wasmtime-py: the
module is instantiated and called through the few C functions of :mod:`oncely._wasm`. A
function whose types this module does not handle is not compiled here (:class:`AbiUnsupported`)
and keeps the component call. ``tests/test_codec.py`` calls every
export through each crossing and through wasmtime-py's public API on the same inputs, the
shared vectors included, and compares what comes back.

The layout rules (sizes, alignments, discriminants, flattening, joins) are the Canonical ABI's
("Canonical ABI explainer" of the component model): strings are UTF-8.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from ctypes import Union, addressof, c_int32, c_int64, c_size_t, c_ubyte, c_void_p
from enum import Enum

from oncely import _wasm
from oncely._values import MEMORY, CodecError, Err, Registry, _single_field, python_name
from oncely.errors import EncodingError

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any

MAX_FLAT_PARAMS = 16
MAX_FLAT_RESULTS = 1


class AbiUnsupported(CodecError):
    """A type this module does not lower or lift (the function keeps the component call)."""


class Lowering:
    """One call's arguments on their way into the module's memory: the blocks allocated so far
    (``cabi_realloc`` is called as they are needed) and the bytes each will hold, written all at
    once when every allocation is made (an allocation may grow, and so move, the memory)."""

    __slots__ = ("alloc", "pending")

    def __init__(self, alloc: Callable[[int, int], int]) -> None:
        self.alloc = alloc
        self.pending: list[tuple[int, bytes | bytearray]] = []

    def block(self, data: bytes | bytearray, align: int) -> int:
        """Allocate a block for ``data`` and return its address in the module's memory."""
        n = len(data)
        if not n:
            return align  # an empty list or string: any aligned address, nothing to own
        p = self.alloc(n, align)
        self.pending.append((p, data))
        return p


if TYPE_CHECKING:
    Store = Callable[[Any, bytearray, int, Lowering], None]
    """Writes a value at an offset of a block being built."""
    Load = Callable[[memoryview, int, int], Any]
    """Reads a value: ``(MEMORY, the memory's base address, the value's absolute address)``."""
    Flat = Callable[[Any, list[int], Lowering], None]
    """Appends a value's flat (core) values."""
    Type = Any
    """A WIT type as :mod:`oncely._exports` writes it: a scalar's name or a tagged tuple."""


class Node:
    """A WIT type's Canonical ABI layout and its compiled store, load and flat lowering."""

    __slots__ = (
        "align",
        "code",
        "flat",
        "index",
        "inner",
        "inner_at",
        "kind",
        "load",
        "lower_flat",
        "members",
        "size",
        "store",
    )

    def __init__(
        self,
        size: int,
        align: int,
        flat: tuple[str, ...],
        store: Store,
        load: Load,
        lower_flat: Flat,
        *,
        kind: str = "",
        code: str = "",
        members: Sequence[Any] = (),
        index: dict[Any, int] | None = None,
    ) -> None:
        self.size, self.align, self.flat = size, align, flat
        self.store, self.load = store, load
        self.lower_flat = lower_flat
        self.kind = kind
        """What a record reads in place, in one ``struct`` call with its other fields:
        ``"str"``, ``"bytes"``, ``"int"``, ``"bool"``, ``"enum"``, ``"option"`` (of one of
        these); ``""``: its own ``load``."""
        self.code = code  # the struct code of an "int" or an "enum"
        self.members = members  # an "enum"'s members, by index
        self.index = index or {}  # an "enum"'s index of each member and of its WIT name
        self.inner: Node | None = None  # an "option"'s payload
        self.inner_at = 0  # where an "option"'s payload starts


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


def _discriminant(cases: int) -> tuple[int, str]:
    """The size and struct code of a variant's discriminant."""
    if cases <= 1 << 8:
        return 1, "B"
    if cases <= 1 << 16:
        return 2, "H"
    return 4, "I"


def _join(a: str, b: str) -> str:
    return a if a == b else "i64"  # no floats cross here: i32 with i64 is i64


_PAIR = struct.Struct("<II")
_pack_pair = _PAIR.pack_into
_unpack_pair = _PAIR.unpack_from


def _scalar(code: str, check: Callable[[Any], bool], what: str) -> Node:
    s = struct.Struct("<" + code)
    pack, unpack = s.pack_into, s.unpack_from

    def store(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
        if not check(value):
            raise CodecError(f"expected {what}, got {value!r}")
        pack(buf, off, value)

    def load(mv: memoryview, base: int, addr: int) -> Any:
        return unpack(mv, addr)[0]

    def lower_flat(value: Any, out: list[int], low: Lowering) -> None:
        if not check(value):
            raise CodecError(f"expected {what}, got {value!r}")
        out.append(value)

    flat = ("i64",) if s.size == 8 else ("i32",)
    return Node(s.size, s.size, flat, store, load, lower_flat, kind="int", code=code)


def _uint(bits: int) -> Callable[[Any], bool]:
    top = 1 << bits
    return lambda v: type(v) is int and 0 <= v < top  # bool is not an int here


def _store_bool(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
    if not isinstance(value, bool):
        raise CodecError(f"expected bool, got {type(value).__name__}")
    buf[off] = 1 if value else 0


def _load_bool(mv: memoryview, base: int, addr: int) -> bool:
    return mv[addr] != 0


def _flat_bool(value: Any, out: list[int], low: Lowering) -> None:
    if not isinstance(value, bool):
        raise CodecError(f"expected bool, got {type(value).__name__}")
    out.append(1 if value else 0)


def _encode(value: Any) -> bytes:
    return _utf8(value, "a string argument")


def _store_string(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
    data = _encode(value)
    _pack_pair(buf, off, low.block(data, 1), len(data))


def _load_string(mv: memoryview, base: int, addr: int) -> str:
    p, n = _unpack_pair(mv, addr)
    return str(mv[base + p : base + p + n], "utf-8") if n else ""


def _flat_string(value: Any, out: list[int], low: Lowering) -> None:
    data = _encode(value)
    out += (low.block(data, 1), len(data))


def _bytes_of(value: Any) -> bytes:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise CodecError(f"expected bytes, got {type(value).__name__}")
    return bytes(value)


def _store_bytes(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
    data = _bytes_of(value)
    _pack_pair(buf, off, low.block(data, 1), len(data))


def _load_bytes(mv: memoryview, base: int, addr: int) -> bytes:
    p, n = _unpack_pair(mv, addr)
    return mv[base + p : base + p + n].tobytes()


def _flat_bytes(value: Any, out: list[int], low: Lowering) -> None:
    data = _bytes_of(value)
    out += (low.block(data, 1), len(data))


STRING = Node(8, 4, ("i32", "i32"), _store_string, _load_string, _flat_string, kind="str")
BYTES = Node(8, 4, ("i32", "i32"), _store_bytes, _load_bytes, _flat_bytes, kind="bytes")
BOOL = Node(1, 1, ("i32",), _store_bool, _load_bool, _flat_bool, kind="bool")
U8 = _scalar("B", _uint(8), "a u8")
U16 = _scalar("H", _uint(16), "a u16")
U32 = _scalar("I", _uint(32), "a u32")
U64 = _scalar("Q", _uint(64), "a u64")
SCALARS: dict[str, Node] = {
    "string": STRING,
    "bool": BOOL,
    "u8": U8,
    "u16": U16,
    "u32": U32,
    "u64": U64,
}


def _record_fields(ty: Type) -> tuple[tuple[str, Type], ...] | None:
    """A record type's ``(field, type)`` pairs, or ``None`` for any other type."""
    return ty[2] if isinstance(ty, tuple) and ty[0] == "record" else None


class Abi:
    """Compiles Canonical ABI nodes for WIT types (:mod:`oncely._exports`), with the Python
    classes of ``registry`` (the same classes the component call uses)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def node(self, ty: Type) -> Node:  # noqa: PLR0911 - a branch per kind of type
        if isinstance(ty, str):
            scalar = SCALARS.get(ty)
            if scalar is None:
                raise AbiUnsupported(f"no Canonical ABI layout here for {ty!r}")
            return scalar
        kind = ty[0]
        if kind == "list":
            return BYTES if ty[1] == "u8" else _list(self.node(ty[1]))
        if kind == "tuple":
            return _fields([self.node(t) for t in ty[1]], tuple, None)
        if kind == "record":
            fields = ty[2]
            cls = self.registry.record([n for n, _ in fields])
            attrs = [python_name(n) for n, _ in fields]
            return _fields([self.node(t) for _, t in fields], cls, attrs)
        if kind == "enum":
            return self._enum(ty[2])
        if kind == "option":
            return _option(self.node(ty[1]))
        if kind == "result":
            return _result(
                None if ty[1] is None else self.node(ty[1]),
                None if ty[2] is None else self.node(ty[2]),
            )
        if kind == "variant":
            return self._variant(ty[2])
        raise AbiUnsupported(f"no Canonical ABI layout here for {ty!r}")

    def _enum(self, names: Sequence[str]) -> Node:
        enum: type[Enum] = self.registry.enum(names)
        members = list(enum)
        index: dict[Any, int] = {m: i for i, m in enumerate(members)}
        index.update({str(m.value): i for i, m in enumerate(members)})  # plain strings too
        size, code = _discriminant(len(members))
        d = struct.Struct("<" + code)
        pack, unpack = d.pack_into, d.unpack_from

        def to_index(value: Any) -> int:
            try:
                return index[value]
            except (KeyError, TypeError):
                raise CodecError(f"{value!r} is not a {enum.__name__}") from None

        def store(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
            pack(buf, off, to_index(value))

        def load(mv: memoryview, base: int, addr: int) -> Any:
            return members[unpack(mv, addr)[0]]

        def lower_flat(value: Any, out: list[int], low: Lowering) -> None:
            out.append(to_index(value))

        return Node(
            size,
            size,
            ("i32",),
            store,
            load,
            lower_flat,
            kind="enum",
            code=code,
            members=members,
            index=index,
        )

    def _variant(self, cases: Sequence[tuple[str, Type]]) -> Node:
        table = self.registry.variant([n for n, _ in cases])
        plan: list[tuple[type, Node | None, str | None]] = []
        for name, payload in cases:
            cls = table[name]
            if payload is None:
                plan.append((cls, None, None))
            else:
                fields = _record_fields(payload)
                names = None if fields is None else [n for n, _ in fields]
                direct = self.registry.direct(cls, names)
                attr = None if direct else _single_field(cls)
                plan.append((cls, self.node(payload), attr))
        by_class = {cls: (i, node, attr) for i, (cls, node, attr) in enumerate(plan)}
        lift = [(cls, node, attr is not None) for cls, node, attr in plan]

        def case_of(value: Any) -> tuple[int, Node | None, Any]:
            hit = by_class.get(type(value))
            if hit is None:
                raise CodecError(f"{type(value).__name__} is not a case of this variant")
            i, node, attr = hit
            return i, node, (value if attr is None else getattr(value, attr))

        def lift_case(i: int, node: Node | None, inner: Any) -> Any:
            cls, _, wrap = lift[i]
            if node is None:
                return cls()
            return cls(inner) if wrap else inner

        return _tagged([node for _, node, _ in plan], case_of, lift_case)


def _layout(nodes: list[Node]) -> tuple[list[int], int, int]:
    """Where each field of a record starts, the record's size and its alignment."""
    offsets: list[int] = []
    size, align = 0, 1
    for n in nodes:
        size = _align(size, n.align)
        offsets.append(size)
        size += n.size
        align = max(align, n.align)
    return offsets, _align(size, align), align


def _fields(nodes: list[Node], cls: Any, attrs: list[str] | None) -> Node:
    """A record (``attrs``: its Python attribute names) or a tuple (``attrs`` None)."""
    offsets, size, align = _layout(nodes)
    flat = tuple(f for n in nodes for f in n.flat)
    plan = list(zip(offsets, nodes, strict=True))
    name = getattr(cls, "__name__", "tuple")
    count = len(nodes)

    def parts(value: Any) -> Sequence[Any]:
        if attrs is None:
            if not isinstance(value, (list, tuple)) or len(value) != count:
                raise CodecError(f"expected a tuple of {count}, got {value!r}")
            return value
        if not isinstance(value, cls):
            raise CodecError(f"expected {name}, got {type(value).__name__}")
        return [getattr(value, a) for a in attrs]

    store = _compile_store(plan, cls if attrs is not None else None, attrs)
    load = _compile_load(plan, cls if attrs is not None else None)

    def lower_flat(value: Any, out: list[int], low: Lowering) -> None:
        for v, n in zip(parts(value), nodes, strict=True):
            n.lower_flat(v, out, low)

    return Node(size, align, flat, store, load, lower_flat)


def _check_uint(value: Any, top: int, what: str) -> Any:
    if type(value) is not int or not 0 <= value < top:  # bool is not an int here
        raise CodecError(f"{what}: expected an integer below {top}, got {value!r}")
    return value


def _check_bool(value: Any, what: str) -> int:
    if not isinstance(value, bool):
        raise CodecError(f"{what}: expected bool, got {type(value).__name__}")
    return 1 if value else 0


def _enum_index(index: dict[Any, int], value: Any, what: str) -> int:
    try:
        return index[value]
    except (KeyError, TypeError):
        raise CodecError(f"{what}: {value!r} is not one of its enum's cases") from None


def _utf8(value: Any, what: str) -> bytes:
    if type(value) is not str:
        raise CodecError(f"{what}: expected str, got {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate: not Unicode text
        raise EncodingError(what, e.start) from None


def _compile_store(plan: list[tuple[int, Node]], cls: Any, attrs: list[str] | None) -> Store:
    """A record's (``cls``, its ``attrs``) or a tuple's (``None``) store, compiled to one
    function: each field checked, the fields a ``struct`` writes in ONE ``pack_into``, then each
    other field through its own store."""
    fmt, pos = "<", 0
    name = cls.__name__ if cls is not None else "tuple"
    env: dict[str, Any] = {
        "cls": cls,
        "CodecError": CodecError,
        "utf8": _utf8,
        "uint": _check_uint,
        "boolean": _check_bool,
        "enum_index": _enum_index,
    }
    lines: list[str] = []
    packed: list[str] = []
    nested: list[str] = []
    if cls is not None:
        lines.append("if not isinstance(value, cls):")
        lines.append(f"    raise CodecError(f'expected {name}, got {{type(value).__name__}}')")
    else:
        lines.append(f"if not isinstance(value, (list, tuple)) or len(value) != {len(plan)}:")
        lines.append(f"    raise CodecError(f'expected a tuple of {len(plan)}, got {{value!r}}')")
    for j, (at, n) in enumerate(plan):
        read = f"value.{attrs[j]}" if attrs is not None else f"value[{j}]"
        what = repr(f"{name}.{attrs[j]}" if attrs is not None else f"{name}[{j}]")
        if at > pos:
            fmt += f"{at - pos}x"
        pos = at + n.size
        if n.kind == "str":
            fmt += "II"
            lines.append(f"b{j} = utf8({read}, {what})")
            packed += [f"low.block(b{j}, 1)", f"len(b{j})"]
        elif n.kind == "int":
            fmt += n.code
            packed.append(f"uint({read}, {1 << (8 * n.size)}, {what})")
        elif n.kind == "bool":
            fmt += "B"
            packed.append(f"boolean({read}, {what})")
        elif n.kind == "enum":
            fmt += n.code
            env[f"e{j}"] = n.index
            packed.append(f"enum_index(e{j}, {read}, {what})")
        else:  # bytes, lists, options, variants, records: their own store
            fmt += f"{n.size}x"
            env[f"s{j}"] = n.store
            nested.append(f"s{j}({read}, buf, off + {at}, low)")
    env["pack"] = struct.Struct(fmt).pack_into
    lines.append(f"pack(buf, off, {', '.join(packed)})")
    lines += nested
    source = "def store(value, buf, off, low):\n" + "".join(f"    {x}\n" for x in lines)
    exec(source, env)  # source built above from the WIT type, no outside text
    return env["store"]  # type: ignore[no-any-return]


def _in_place(  # noqa: PLR0911 - a return per kind of field
    n: Node, j: int, i: int, env: dict[str, Any]
) -> tuple[str, str, int] | None:
    """How a record's load reads field ``j`` (node ``n``) in its one ``unpack_from``, its values
    starting at ``v[i]``: the ``struct`` codes, the expression of the field's value, how many
    values the codes read; ``None`` for a field read by its own load."""
    if n.kind in ("str", "bytes"):
        part = f"mv[base + v[{i}] : base + v[{i}] + v[{i + 1}]]"
        if n.kind == "str":
            return "II", f"(str({part}, 'utf-8') if v[{i + 1}] else '')", 2
        return "II", f"{part}.tobytes()", 2
    if n.kind == "int":
        return n.code, f"v[{i}]", 1
    if n.kind == "bool":
        return "B", f"(v[{i}] != 0)", 1
    if n.kind == "enum":
        env[f"m{j}"] = n.members
        return n.code, f"m{j}[v[{i}]]", 1
    if n.kind == "option" and n.inner is not None:
        # The payload's bytes are read whatever the case; its value is made only when present.
        inner = _in_place(n.inner, j, i + 1, env)
        if inner is None:
            return None
        codes, expr, count = inner
        pad = n.inner_at - 1
        return "B" + (f"{pad}x" if pad else "") + codes, f"({expr} if v[{i}] else None)", count + 1
    return None


def _compile_load(plan: list[tuple[int, Node]], cls: Any) -> Load:
    """A record's (``cls``) or a tuple's (``None``) load, compiled to one function: the fields
    a ``struct`` reads (strings, integers, booleans, enums, options of these) in ONE
    ``unpack_from``, then each other field through its own load. (A record of 30 fields is one
    call, not 30.)"""
    fmt, pos, i = "<", 0, 0
    env: dict[str, Any] = {"cls": cls}
    exprs: list[str] = []
    for j, (at, n) in enumerate(plan):
        if at > pos:
            fmt += f"{at - pos}x"
        read = _in_place(n, j, i, env)
        if read is None:
            fmt += f"{n.size}x"
            env[f"l{j}"] = n.load
            exprs.append(f"l{j}(mv, base, addr + {at})")
            pos = at + n.size
            continue
        codes, expr, count = read
        fmt += codes
        exprs.append(expr)
        i += count
        pos = at + struct.calcsize("<" + codes)
    env["unpack"] = struct.Struct(fmt).unpack_from
    body = ", ".join(exprs)
    made = f"cls({body})" if cls is not None else f"({body}{',' if len(exprs) == 1 else ''})"
    source = f"def load(mv, base, addr):\n    v = unpack(mv, addr)\n    return {made}\n"
    exec(source, env)  # source built above from the WIT type, no outside text
    return env["load"]  # type: ignore[no-any-return]


def _list(element: Node) -> Node:
    es, ea = element.size, element.align
    store_element, load_element = element.store, element.load

    def block(value: Any, low: Lowering) -> tuple[int, int]:
        if not isinstance(value, (list, tuple)):
            raise CodecError(f"expected a list, got {type(value).__name__}")
        buf = bytearray(len(value) * es)
        for i, item in enumerate(value):
            store_element(item, buf, i * es, low)
        return low.block(buf, ea), len(value)

    def store(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
        _pack_pair(buf, off, *block(value, low))

    def load(mv: memoryview, base: int, addr: int) -> list[Any]:
        p, n = _unpack_pair(mv, addr)
        at = base + p
        return [load_element(mv, base, at + i * es) for i in range(n)]

    def lower_flat(value: Any, out: list[int], low: Lowering) -> None:
        out += block(value, low)

    return Node(8, 4, ("i32", "i32"), store, load, lower_flat)


def _tagged(
    payloads: list[Node | None],
    case_of: Callable[[Any], tuple[int, Node | None, Any]],
    lift_case: Callable[[int, Node | None, Any], Any],
) -> Node:
    """A variant (option and result are variants too): a discriminant, then the case's payload
    at the offset every case shares."""
    dsize, code = _discriminant(len(payloads))
    d = struct.Struct("<" + code)
    pack, unpack = d.pack_into, d.unpack_from
    palign = max([n.align for n in payloads if n is not None], default=1)
    psize = max([n.size for n in payloads if n is not None], default=0)
    at = _align(dsize, palign)
    align = max(dsize, palign)
    size = _align(at + psize, align)
    joined: list[str] = []
    for n in payloads:
        for i, f in enumerate(n.flat if n is not None else ()):
            if i < len(joined):
                joined[i] = _join(joined[i], f)
            else:
                joined.append(f)
    width = len(joined)

    def store(value: Any, buf: bytearray, off: int, low: Lowering) -> None:
        i, node, inner = case_of(value)
        pack(buf, off, i)
        if node is not None:
            node.store(inner, buf, off + at, low)

    def load(mv: memoryview, base: int, addr: int) -> Any:
        i = unpack(mv, addr)[0]
        node = payloads[i]
        return lift_case(i, node, None if node is None else node.load(mv, base, addr + at))

    def lower_flat(value: Any, out: list[int], low: Lowering) -> None:
        i, node, inner = case_of(value)
        out.append(i)
        start = len(out)
        if node is not None:
            node.lower_flat(inner, out, low)  # i32 into an i64 slot: the same unsigned value
        out += [0] * (width - (len(out) - start))

    return Node(size, align, ("i32", *joined), store, load, lower_flat)


def _option(payload: Node) -> Node:
    def case_of(value: Any) -> tuple[int, Node | None, Any]:
        return (0, None, None) if value is None else (1, payload, value)

    def lift_case(i: int, node: Node | None, inner: Any) -> Any:
        return inner

    node = _tagged([None, payload], case_of, lift_case)
    at = _align(1, payload.align)
    load_payload = payload.load

    def load(mv: memoryview, base: int, addr: int) -> Any:
        return load_payload(mv, base, addr + at) if mv[addr] else None

    node.load, node.kind, node.inner, node.inner_at = load, "option", payload, at
    return node


def _result(ok: Node | None, err: Node | None) -> Node:
    def case_of(value: Any) -> tuple[int, Node | None, Any]:
        if isinstance(value, Err):
            return 1, err, value.error
        return 0, ok, value

    def lift_case(i: int, node: Node | None, inner: Any) -> Any:
        return inner if i == 0 else Err(inner)

    return _tagged([ok, err], case_of, lift_case)


def _projection(ty: Type, field: str, abi: Abi) -> Load:
    """Load only ``field`` of a ``result<record, E>`` (or of each element of a list of them):
    as ``_codec.Codec.result_field``."""
    if isinstance(ty, tuple) and ty[0] == "list":
        inner = _projection(ty[1], field, abi)
        es = abi.node(ty[1]).size

        def load_list(mv: memoryview, base: int, addr: int) -> list[Any]:
            p, n = _unpack_pair(mv, addr)
            at = base + p
            return [inner(mv, base, at + i * es) for i in range(n)]

        return load_list
    ok = _record_fields(ty[1]) if isinstance(ty, tuple) and ty[0] == "result" else None
    if ok is None:
        raise CodecError(f"cannot project {field!r} out of {ty!r}")
    names = [n for n, _ in ok]
    if field not in names:
        raise CodecError(f"no field {field!r} in {names}")
    nodes = [abi.node(t) for _, t in ok]
    offsets, _, ok_align = _layout(nodes)
    target, offset = nodes[names.index(field)], offsets[names.index(field)]
    err = None if ty[2] is None else abi.node(ty[2])
    # A result is a variant of two cases: a one-byte discriminant, then the payload aligned.
    at = _align(1, max(ok_align, err.align if err is not None else 1))
    load_field, load_err = target.load, (err.load if err is not None else None)

    def load(mv: memoryview, base: int, addr: int) -> Any:
        if mv[addr] == 0:
            return load_field(mv, base, addr + at + offset)
        return Err(load_err(mv, base, addr + at) if load_err is not None else None)

    return load


def _lift_flat(node: Node, ty: Type) -> Callable[[int], Any]:
    """A result that is one flat value (a scalar or an enum), from that value."""
    if ty == "bool":
        return lambda v: v & 0xFFFFFFFF != 0
    if ty in ("u8", "u16", "u32") or (isinstance(ty, tuple) and ty[0] == "enum"):
        buf = bytearray(node.size)
        mask = (1 << (8 * node.size)) - 1

        def from_i32(v: int) -> Any:
            buf[:] = (v & mask).to_bytes(node.size, "little")
            return node.load(memoryview(buf), 0, 0)

        return from_i32
    if ty == "u64":
        return lambda v: v & 0xFFFFFFFFFFFFFFFF
    raise AbiUnsupported(f"no flat lifting here for {ty!r}")


class AbiFunction:
    """One export's Canonical ABI call, compiled: how its arguments are lowered (flat values,
    or one block past ``MAX_FLAT_PARAMS``) and how its result is lifted (one flat value, or
    from the block the export returns the address of)."""

    __slots__ = (
        "arity",
        "flat_types",
        "indirect",
        "lift_flat",
        "load",
        "lower_params",
        "name",
        "nargs",
        "result_i64",
    )

    def __init__(
        self, name: str, ty: tuple[Any, Any], abi: Abi, *, project: str | None = None
    ) -> None:
        """``ty``: the function's ``(params, result)`` as :data:`oncely._exports.FUNCTIONS`
        has them."""
        self.name = name
        params = [abi.node(t) for _, t in ty[0]]
        self.arity = len(params)
        flat = [f for n in params for f in n.flat]
        self.indirect = len(flat) > MAX_FLAT_PARAMS
        self.flat_types = ("i32",) if self.indirect else tuple(flat)
        if self.indirect:
            tuple_node = _fields(params, tuple, None)
            size, align = tuple_node.size, tuple_node.align
            store_tuple = tuple_node.store

            def lower_params(args: Sequence[Any], out: list[int], low: Lowering) -> None:
                buf = bytearray(size)
                store_tuple(tuple(args), buf, 0, low)
                out.append(low.block(buf, align))

        else:
            flats = [n.lower_flat for n in params]

            def lower_params(args: Sequence[Any], out: list[int], low: Lowering) -> None:
                for lower, value in zip(flats, args, strict=True):
                    lower(value, out, low)

        self.lower_params = lower_params
        result = ty[1]
        self.load: Load | None = None
        self.lift_flat: Callable[[int], Any] | None = None
        self.result_i64 = False
        results = 1
        if result is not None:
            node = abi.node(result)
            if len(node.flat) > MAX_FLAT_RESULTS:
                self.load = _projection(result, project, abi) if project else node.load
            elif project:
                raise AbiUnsupported("a projection of a flat result")
            else:
                self.lift_flat = _lift_flat(node, result)
                self.result_i64 = node.flat == ("i64",)
        else:
            results = 0
        self.nargs = max(len(self.flat_types), results)


# --- the call ---------------------------------------------------------------------------------


class Raw(Union):
    """``wasmtime_val_raw_t``: one argument or result of a raw call (16 bytes)."""

    _fields_ = (("i32", c_int32), ("i64", c_int64), ("bytes", c_ubyte * 16))


# A raw call from Python costs 0.8 µs with every argument already a C value and no argument
# types to check, against 1.4 µs with ctypes converting five typed arguments
# (bench_crossing.py's floor). Every argument is a pointer (``c_void_p``) or a ``c_size_t``.
_call_raw = _wasm.call_unchecked
_memory_data = _wasm.memory_data
_SIZES = tuple(c_size_t(n) for n in range(MAX_FLAT_PARAMS + 1))
_FOUR = _SIZES[4]

REALLOC = "cabi_realloc"


class CoreInstance:
    """The core module instantiated in ``store``, with what a call needs at hand: the raw
    handles of its exports, its memory, and one buffer of raw values reused call after call
    (an instance serves one thread at a time)."""

    __slots__ = (
        "_instance",
        "_trap",
        "args",
        "args_at",
        "context",
        "memory",
        "realloc",
        "trap_at",
        "words",
    )

    def __init__(self, store: _wasm.Store, module: _wasm.Module) -> None:
        self._instance = _wasm.ModuleInstance(store, module)
        self.context = store.context
        memory = self._instance.export("memory", _wasm.EXTERN_MEMORY)
        if memory is None:
            raise CodecError("the core module exports no memory")
        self.memory = memory
        realloc = self.func(REALLOC)
        if realloc is None:
            raise CodecError("the core module exports no cabi_realloc")
        self.realloc = realloc
        self.args = (Raw * (MAX_FLAT_PARAMS + 1))()
        self.args_at = c_void_p(addressof(self.args))
        # The same buffer as 64-bit words, two per raw value: an allocation's four i32 arguments
        # set with one slice assignment (non-negative, so their low halves are the i32s).
        self.words = (c_int64 * (2 * (MAX_FLAT_PARAMS + 1))).from_buffer(self.args)
        self._trap = c_void_p()  # the wasm_trap_t* a call that traps sets
        self.trap_at = c_void_p(addressof(self._trap))

    def func(self, name: str) -> c_void_p | None:
        """A pointer to the export ``name``'s raw handle, or ``None``."""
        return self._instance.export(name, _wasm.EXTERN_FUNC)

    def base(self) -> int:
        """The memory's address now (an allocation may move it)."""
        return int(_memory_data(self.context, self.memory))

    def invoke(self, func: c_void_p, n: int) -> None:
        """Call ``func`` with the first ``n`` raw values of ``args``; its results replace them.
        Raises :class:`oncely._wasm.WasmError` when the call traps."""
        err = _call_raw(self.context, func, self.args_at, _SIZES[n], self.trap_at)
        if err:
            raise _wasm.error(err)
        trap = self._trap.value
        if trap:
            self._trap.value = None
            raise _wasm.trap(trap)

    def alloc(self, size: int, align: int) -> int:
        w = self.words
        w[0:8:2] = [0, 0, align, size]
        err = _call_raw(self.context, self.realloc, self.args_at, _FOUR, self.trap_at)
        if err or self._trap.value:
            self._raise(err)
        return int(w[0]) & 0xFFFFFFFF

    def _raise(self, err: int | None) -> None:
        if err:
            raise _wasm.error(err)
        trap = self._trap.value
        self._trap.value = None
        raise _wasm.trap(trap or 0)


class Bound:
    """An :class:`AbiFunction` with its export's and post-return's handles in one instance."""

    __slots__ = ("fn", "func", "post")

    def __init__(self, fn: AbiFunction, core: CoreInstance, export: str) -> None:
        self.fn = fn
        func = core.func(export)
        if func is None:
            raise CodecError(f"the core module does not export {export}")
        self.func = func
        self.post = core.func("cabi_post_" + export)


def call(bound: Bound, core: CoreInstance, args: Sequence[Any]) -> Any:
    """Call the export with ``args``: lower them into the module's memory, call, lift the
    result out of it, release it (post-return).

    Raises :class:`oncely._wasm.WasmError` when the call traps, :class:`CodecError` when an
    argument has the wrong type and :class:`~oncely.EncodingError` when a string holds a lone
    surrogate; after any of these the instance may hold allocations nobody frees: drop it.
    """
    fn = bound.fn
    if len(args) != fn.arity:
        raise CodecError(f"{fn.name} takes {fn.arity} arguments, not {len(args)}")
    low = Lowering(core.alloc)
    flat: list[int] = []
    fn.lower_params(args, flat, low)
    if low.pending:
        base = core.base()
        for p, data in low.pending:
            at = base + p
            MEMORY[at : at + len(data)] = data
    if len(flat) != len(fn.flat_types):
        raise CodecError(f"{fn.name}: {len(flat)} flat arguments, not {len(fn.flat_types)}")
    # Each flat value in the low half of its raw value (an i32's high half is not read; ctypes
    # keeps the low 64 bits of an integer, as the Canonical ABI's two's complement does).
    core.words[0 : 2 * len(flat) : 2] = flat  # type: ignore[assignment]
    a = core.args
    core.invoke(bound.func, fn.nargs)
    load = fn.load
    if load is not None:
        ret = a[0].i32 & 0xFFFFFFFF
        base = core.base()
        try:
            return load(MEMORY, base, base + ret)
        finally:
            if bound.post is not None:
                a[0].i32 = ret
                core.invoke(bound.post, 1)
    lift_flat = fn.lift_flat
    if lift_flat is None:
        return None
    value = a[0].i64 if fn.result_i64 else a[0].i32
    if bound.post is not None:
        core.invoke(bound.post, 1)  # its argument is the result, still in place
    return lift_flat(value)


_PTR_LEN = struct.Struct("<II").unpack_from


def call_bytes(bound: Bound, core: CoreInstance, args: Sequence[Any]) -> bytes:
    """:func:`call` for an export of ``(list<u8>) -> list<u8>`` (``effect.run``: its values
    cross as bytes in the core's encoding, :mod:`oncely._wire`): one allocation and one copy in,
    the answer's bytes copied out, released by the post-return; no per-value lowering.
    ``args`` is the one byte string. Raises as :func:`call`."""
    (data,) = args
    n = len(data)
    p = 1  # an empty list: any aligned address, nothing to own
    if n:
        p = core.alloc(n, 1)
        at = core.base() + p
        MEMORY[at : at + n] = data
    w = core.words
    w[0] = p
    w[2] = n
    a = core.args
    core.invoke(bound.func, 2)
    ret = a[0].i32 & 0xFFFFFFFF
    base = core.base()
    ptr, length = _PTR_LEN(MEMORY, base + ret)
    at = base + ptr
    out = bytes(MEMORY[at : at + length])
    if bound.post is not None:
        a[0].i32 = ret
        core.invoke(bound.post, 1)
    return out
