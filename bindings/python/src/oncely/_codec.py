"""Fast calls into the component: lowering and lifting compiled once per function type.

Why this exists: wasmtime-py's ``component.Func.__call__`` re-reads the function's type through
the C API on every call, and its value converters re-read record fields, variant cases and list
element types at every node (``RecordType.fields`` is a property that walks the C type each
time), allocate every string and record field name through a C call, and free results node by
node. That is where most of the ~30 µs per call (and hundreds of µs for the ledger's records)
goes. Here:

- the type tree of each exported function is read ONCE, at the function's first call
  (``oncely._runtime._Components.function``), and compiled into a tree of small closures;
- arguments are written with :mod:`struct` into ONE Python-owned buffer per call (strings,
  lists, records, variants and options all point inside it; record field names point at
  constant bytes prepared once). wasmtime's ``wasmtime_component_func_call`` only *borrows* its
  arguments (it converts them to Rust values before calling and never frees them), so no C
  allocation is made for arguments at all;
- results are read from wasmtime's C values where they lie, through one view of the process's
  memory (:data:`MEMORY`: :mod:`struct` at an address, a slice for a string's bytes), not a
  :func:`ctypes.string_at` copy per node (a C call each, 50 for a ledger step), and the whole
  result tree is freed with one ``wasmtime_component_val_delete``.

Values crossing the boundary are the classes of :mod:`oncely.types` (and the exceptions of
:mod:`oncely.errors` for the WIT error records). The mapping is checked against the component's
own type information here: every record, enum and variant the component uses must have a
Python class with exactly the WIT's fields or cases, in the WIT's order, or compiling the function
that uses it fails (``tests/test_codec.py`` compiles every one).

This module relies on the C API layout that the ``wasmtime`` package exposes through its
bindings (``wasmtime._ffi``, ``wasmtime._bindings``), which is why the dependency is pinned to
one major version (``wasmtime>=50,<51``); every layout constant below is read from those
bindings, not assumed. ``tests/test_codec.py`` checks every function against wasmtime-py's own
public ``Func.__call__`` on the same inputs.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from collections.abc import Callable, Sequence
from ctypes import POINTER, addressof, byref, c_size_t, c_void_p, sizeof
from typing import Any

from wasmtime import WasmtimeError
from wasmtime import _bindings as _b
from wasmtime import _ffi as ffi
from wasmtime.component import _types as wt

from oncely._values import (
    MEMORY,
    CodecError,
    Err,
    Registry,
    _single_field,
    python_name,
)
from oncely.errors import EncodingError

if sys.byteorder != "little" or sizeof(c_void_p) != 8:  # pragma: no cover - layout guard
    raise ImportError("oncely's component calls need a little-endian 64-bit platform")


def _offset(struct: Any, field: str) -> int:
    """The byte offset of ``field`` in the ctypes structure ``struct``."""
    return int(getattr(struct, field).offset)


VAL = ffi.wasmtime_component_val_t
_ENTRY = ffi.wasmtime_component_valrecord_entry
_VEC = ffi.wasm_byte_vec_t

S = sizeof(VAL)  # one C value
OF = _offset(VAL, "of")  # where a value's payload starts
E = sizeof(_ENTRY)  # one record entry
EV = _offset(_ENTRY, "val")  # where an entry's value starts
VEC_SIZE = _offset(_VEC, "size")
VEC_DATA = _offset(_VEC, "data")
LIST_SIZE = _offset(ffi.wasmtime_component_vallist, "size")
LIST_DATA = _offset(ffi.wasmtime_component_vallist, "data")
TUPLE_SIZE = _offset(ffi.wasmtime_component_valtuple, "size")
TUPLE_DATA = _offset(ffi.wasmtime_component_valtuple, "data")
REC_SIZE = _offset(ffi.wasmtime_component_valrecord, "size")
REC_DATA = _offset(ffi.wasmtime_component_valrecord, "data")
VARIANT_NAME = _offset(ffi.wasmtime_component_valvariant, "discriminant")
VARIANT_VAL = _offset(ffi.wasmtime_component_valvariant, "val")
RESULT_OK = _offset(ffi.wasmtime_component_valresult, "is_ok")
RESULT_VAL = _offset(ffi.wasmtime_component_valresult, "val")

# Every writer below packs ``kind`` then two words of payload (``<B7xQQ``): a string, an enum
# name, a list and a record are (size, pointer); a variant is (name size, name pointer) then its
# payload pointer; an option is its payload pointer. Check that the C layout is that one.
if not (
    OF == 8
    and (VEC_SIZE, VEC_DATA) == (LIST_SIZE, LIST_DATA) == (REC_SIZE, REC_DATA) == (0, 8)
    and (TUPLE_SIZE, TUPLE_DATA) == (0, 8)
    and (VARIANT_NAME, VARIANT_VAL) == (0, 16)
    and (RESULT_OK, RESULT_VAL) == (0, 8)
    and S == 32
    and (E, EV) == (48, 16)
):  # pragma: no cover - layout guard
    raise ImportError("unexpected wasmtime component value layout; oncely needs wasmtime 50")

# Value kinds (wasmtime_component_valkind_t).
K_BOOL = ffi.WASMTIME_COMPONENT_BOOL.value
K_U8 = ffi.WASMTIME_COMPONENT_U8.value
K_U16 = ffi.WASMTIME_COMPONENT_U16.value
K_U32 = ffi.WASMTIME_COMPONENT_U32.value
K_U64 = ffi.WASMTIME_COMPONENT_U64.value
K_STRING = ffi.WASMTIME_COMPONENT_STRING.value
K_LIST = ffi.WASMTIME_COMPONENT_LIST.value
K_TUPLE = ffi.WASMTIME_COMPONENT_TUPLE.value
K_RECORD = ffi.WASMTIME_COMPONENT_RECORD.value
K_VARIANT = ffi.WASMTIME_COMPONENT_VARIANT.value
K_ENUM = ffi.WASMTIME_COMPONENT_ENUM.value
K_OPTION = ffi.WASMTIME_COMPONENT_OPTION.value
K_RESULT = ffi.WASMTIME_COMPONENT_RESULT.value

_pack_q = struct.Struct("<Q").pack_into
_pack_kind_qq = struct.Struct("<B7xQQ").pack_into  # a kind, then two words of its payload
_pack_i = struct.Struct("<I").pack_into
_pack_qq = struct.Struct("<QQ").pack_into
_unpack_q = struct.Struct("<Q").unpack_from
_unpack_i = struct.Struct("<I").unpack_from
_unpack_h = struct.Struct("<H").unpack_from
_unpack_qq = struct.Struct("<QQ").unpack_from
_ZERO_S = bytes(S)

# The call takes the arguments' address as a plain integer: a fresh function object over the
# same C symbol, so that wasmtime-py's own (shared) object keeps its argument types.
_func_call = ffi.dll["wasmtime_component_func_call"]
_func_call.restype = POINTER(ffi.wasmtime_error_t)
_func_call.argtypes = [
    POINTER(ffi.wasmtime_component_func_t),
    POINTER(ffi.wasmtime_context_t),
    c_void_p,
    c_size_t,
    POINTER(VAL),
    c_size_t,
]
_val_delete = _b._wasmtime_component_val_delete


class _Constants:
    """Byte strings that C values point at for the life of the process (record field names,
    variant case names, enum names), with their addresses."""

    def __init__(self) -> None:
        self._keep: dict[bytes, tuple[Any, int]] = {}

    def address(self, text: str) -> tuple[int, int]:
        """``(size, address)`` of the UTF-8 bytes of ``text``, kept alive here."""
        data = text.encode("utf-8")
        hit = self._keep.get(data)
        if hit is None:
            buf = ctypes.create_string_buffer(data, len(data) or 1)
            hit = (buf, addressof(buf))
            self._keep[data] = hit
        return len(data), hit[1]


_constants = _Constants()


class Scratch:
    """Memory for one call's arguments, owned by Python and reused call after call by one
    component instance (an instance serves one thread at a time). Its address is known before
    lowering starts, so every pointer is written directly as an absolute address."""

    __slots__ = ("base", "buf", "mv", "size")

    def __init__(self, size: int = 1 << 16) -> None:
        self.size = size
        self.buf = ctypes.create_string_buffer(size)
        self.mv = memoryview(self.buf).cast("B")
        self.base = addressof(self.buf)

    def grow(self, at_least: int) -> None:
        size = self.size
        while size < at_least:
            size *= 2
        self.__init__(size)  # type: ignore[misc]


class _Full(Exception):
    """The scratch buffer is too small for this call's arguments (it grows; the call retries)."""

    def __init__(self, needed: int) -> None:
        self.needed = needed


class Out:
    """One call's arguments being written into a :class:`Scratch`: ``mv`` is the memory,
    ``base`` its address, ``pos`` the end of what is written so far (8-byte aligned)."""

    __slots__ = ("base", "end", "mv", "pos")

    def __init__(self, scratch: Scratch, head: int) -> None:
        self.mv = scratch.mv
        self.base = scratch.base
        self.end = scratch.size
        if head > self.end:
            raise _Full(head)
        self.mv[0:head] = bytes(head)
        self.pos = head

    def put(self, data: bytes | bytearray) -> int:
        """Append ``data`` (8-byte aligned) and return its offset."""
        pos = self.pos
        n = len(data)
        new = pos + n + (-n % 8)
        if new > self.end:
            raise _Full(new)
        self.mv[pos : pos + n] = data
        self.pos = new
        return pos

    def zeros(self, n: int) -> int:
        """Append ``n`` zero bytes (``n`` a multiple of 8) and return their offset."""
        return self.put(_ZERO_S if n == S else bytes(n))


Lower = Callable[[Any, Out, int], None]
Lift = Callable[[memoryview, int], Any]
"""Reads a value from ``MEMORY`` at an address (the C value, ``wasmtime_component_val_t``)."""


class Codec:
    """Compiles lowering and lifting closures for WIT value types."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def _direct(self, cls: type, payload: wt.ValType) -> bool:
        """Is the case class the payload record itself (rather than a one-field wrapper)?"""
        fields = [n for n, _ in payload.fields] if isinstance(payload, wt.RecordType) else None
        return self.registry.direct(cls, fields)

    # --- lowering: Python value -> C value in the call's buffer ------------------------------

    def lowerer(self, ty: wt.ValType) -> Lower:  # noqa: C901, PLR0911 - one branch per type
        if isinstance(ty, wt.String):
            return _lower_string
        if isinstance(ty, wt.U16):
            return _lower_u16
        if isinstance(ty, wt.U32):
            return _lower_u32
        if isinstance(ty, wt.U64):
            return _lower_u64
        if isinstance(ty, wt.Bool):
            return _lower_bool
        if isinstance(ty, wt.ListType):
            element = ty.element
            if isinstance(element, wt.U8):
                return _lower_bytes
            return _lower_list(self.lowerer(element))
        if isinstance(ty, wt.TupleType):
            return _lower_tuple([self.lowerer(t) for t in ty.elements])
        if isinstance(ty, wt.OptionType):
            return _lower_option(self.lowerer(ty.payload))
        if isinstance(ty, wt.EnumType):
            return self._lower_enum(ty)
        if isinstance(ty, wt.RecordType):
            return self._lower_record(ty)
        if isinstance(ty, wt.VariantType):
            return self._lower_variant(ty)
        raise CodecError(f"cannot lower WIT type {ty!r}")

    def _lower_enum(self, ty: wt.EnumType) -> Lower:
        enum = self.registry.enum(ty.names)
        names: dict[Any, tuple[int, int]] = {m: _constants.address(str(m.value)) for m in enum}
        names.update({str(m.value): addr for m, addr in names.items()})  # plain strings too

        def lower(value: Any, out: Out, off: int) -> None:
            try:
                size, addr = names[value]
            except (KeyError, TypeError):
                raise CodecError(f"{value!r} is not a {enum.__name__}") from None
            _pack_kind_qq(out.mv, off, K_ENUM, size, addr)

        return lower

    def _lower_record(self, ty: wt.RecordType) -> Lower:
        fields = ty.fields
        cls = self.registry.record([n for n, _ in fields])
        n = len(fields)
        template = bytearray(n * E)
        for i, (wit_name, _) in enumerate(fields):
            size, addr = _constants.address(wit_name)
            _pack_q(template, i * E + VEC_SIZE, size)
            _pack_q(template, i * E + VEC_DATA, addr)
        entries = bytes(template)
        # String fields (most fields) are written inline: no nested call per field.
        plan = [
            (
                i * E + EV,
                python_name(wit_name),
                None if isinstance(t, wt.String) else self.lowerer(t),
            )
            for i, (wit_name, t) in enumerate(fields)
        ]
        cls_name = cls.__name__

        def lower(value: Any, out: Out, off: int) -> None:
            if not isinstance(value, cls):
                raise CodecError(f"expected {cls_name}, got {type(value).__name__}")
            pos = out.put(entries)
            mv, base = out.mv, out.base
            _pack_kind_qq(mv, off, K_RECORD, n, base + pos)
            for at, attr, lower_field in plan:
                v = getattr(value, attr)
                if lower_field is not None:
                    lower_field(v, out, pos + at)
                    continue
                if type(v) is not str:
                    raise CodecError(f"{cls_name}.{attr}: expected str, got {type(v).__name__}")
                try:
                    data = v.encode("utf-8")
                except UnicodeEncodeError as e:
                    raise EncodingError(f"{cls_name}.{attr}", e.start) from None
                _pack_kind_qq(mv, pos + at, K_STRING, len(data), base + out.put(data))

        return lower

    def _lower_variant(self, ty: wt.VariantType) -> Lower:
        cases = ty.cases
        table = self.registry.variant([n for n, _ in cases])
        by_class: dict[type, tuple[int, int, Lower | None, str | None]] = {}
        for name, payload in cases:
            cls = table[name]
            size, addr = _constants.address(name)
            if payload is None:
                by_class[cls] = (size, addr, None, None)
            else:
                attr = None if self._direct(cls, payload) else _single_field(cls)
                by_class[cls] = (size, addr, self.lowerer(payload), attr)

        def lower(value: Any, out: Out, off: int) -> None:
            plan = by_class.get(type(value))
            if plan is None:
                raise CodecError(f"{type(value).__name__} is not a case of this variant")
            size, addr, lower_payload, attr = plan
            _pack_kind_qq(out.mv, off, K_VARIANT, size, addr)
            if lower_payload is not None:
                pos = out.zeros(S)
                _pack_q(out.mv, off + OF + VARIANT_VAL, out.base + pos)
                lower_payload(value if attr is None else getattr(value, attr), out, pos)

        return lower

    # --- lifting: C value (a bytes snapshot and an offset) -> Python value -------------------

    def lifter(self, ty: wt.ValType) -> Lift:  # noqa: C901, PLR0911, PLR0912 - one branch per type
        if isinstance(ty, wt.String):
            return _lift_string
        if isinstance(ty, wt.U16):
            return _lift_u16
        if isinstance(ty, wt.U32):
            return _lift_u32
        if isinstance(ty, wt.U64):
            return _lift_u64
        if isinstance(ty, wt.Bool):
            return _lift_bool
        if isinstance(ty, wt.ListType):
            if isinstance(ty.element, wt.U8):
                return _lift_bytes
            return _lift_list(self.lifter(ty.element))
        if isinstance(ty, wt.TupleType):
            return _lift_tuple([self.lifter(t) for t in ty.elements])
        if isinstance(ty, wt.OptionType):
            return _lift_option(self.lifter(ty.payload))
        if isinstance(ty, wt.EnumType):
            return self._lift_enum(ty)
        if isinstance(ty, wt.RecordType):
            return self._lift_record(ty)
        if isinstance(ty, wt.VariantType):
            return self._lift_variant(ty)
        if isinstance(ty, wt.ResultType):
            return self._lift_result(ty)
        raise CodecError(f"cannot lift WIT type {ty!r}")

    def _lift_enum(self, ty: wt.EnumType) -> Lift:
        enum = self.registry.enum(ty.names)
        members = {str(m.value).encode("utf-8"): m for m in enum}

        def lift(raw: memoryview, off: int) -> Any:
            size, addr = _unpack_qq(raw, off + OF + VEC_SIZE)
            return members[bytes(raw[addr : addr + size])]

        return lift

    def _lift_record(self, ty: wt.RecordType) -> Lift:
        fields = ty.fields
        cls = self.registry.record([n for n, _ in fields])
        n = len(fields)
        plan = [(i * E + EV, self.lifter(t)) for i, (_, t) in enumerate(fields)]

        def lift(raw: memoryview, off: int) -> Any:
            size, addr = _unpack_qq(raw, off + OF + REC_SIZE)
            if size != n:
                raise CodecError(f"{cls.__name__}: expected {n} fields, got {size}")
            return cls(*[lift_field(raw, addr + at) for at, lift_field in plan])

        return lift

    def _lift_variant(self, ty: wt.VariantType) -> Lift:
        cases = ty.cases
        table = self.registry.variant([n for n, _ in cases])
        by_tag: dict[bytes, tuple[type, Lift | None, bool]] = {}
        for name, payload in cases:
            cls = table[name]
            if payload is None:
                by_tag[name.encode("utf-8")] = (cls, None, False)
            else:
                direct = self._direct(cls, payload)
                if not direct:
                    _single_field(cls)
                by_tag[name.encode("utf-8")] = (cls, self.lifter(payload), not direct)

        def lift(raw: memoryview, off: int) -> Any:
            size, addr = _unpack_qq(raw, off + OF + VARIANT_NAME + VEC_SIZE)
            cls, lift_payload, wrap = by_tag[bytes(raw[addr : addr + size])]
            if lift_payload is None:
                return cls()
            (p,) = _unpack_q(raw, off + OF + VARIANT_VAL)
            value = lift_payload(raw, p)
            return cls(value) if wrap else value

        return lift

    def _lift_result(self, ty: wt.ResultType) -> Lift:
        ok_ty, err_ty = ty.ok, ty.err
        lift_ok = self.lifter(ok_ty) if ok_ty is not None else None
        lift_err = self.lifter(err_ty) if err_ty is not None else None

        def lift(raw: memoryview, off: int) -> Any:
            is_ok = raw[off + OF + RESULT_OK]
            (p,) = _unpack_q(raw, off + OF + RESULT_VAL)
            if is_ok:
                return lift_ok(raw, p) if lift_ok is not None else None
            return Err(lift_err(raw, p) if lift_err is not None else None)

        return lift

    def result_field(self, ty: wt.ValType, field: str) -> Lift:
        """Lift only one field of a ``result<record, E>`` (or of each element of a list of
        them): what a caller that needs one string does not pay to read the others."""
        if isinstance(ty, wt.ListType):
            return _lift_list(self.result_field(ty.element, field))
        if not isinstance(ty, wt.ResultType) or not isinstance(ty.ok, wt.RecordType):
            raise CodecError(f"cannot project {field!r} out of {ty!r}")
        fields = ty.ok.fields
        names = [n for n, _ in fields]
        if field not in names:
            raise CodecError(f"no field {field!r} in {names}")
        i = names.index(field)
        lift_field = self.lifter(fields[i][1])
        err_ty = ty.err
        lift_err = self.lifter(err_ty) if err_ty is not None else None

        def lift(raw: memoryview, off: int) -> Any:
            is_ok = raw[off + OF + RESULT_OK]
            (p,) = _unpack_q(raw, off + OF + RESULT_VAL)
            if is_ok:
                _, addr = _unpack_qq(raw, p + OF + REC_SIZE)
                return lift_field(raw, addr + i * E + EV)
            return Err(lift_err(raw, p) if lift_err is not None else None)

        return lift


def _lower_string(value: Any, out: Out, off: int) -> None:
    if type(value) is not str:
        raise CodecError(f"expected str, got {type(value).__name__}")
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate: not Unicode text
        raise EncodingError("a string argument", e.start) from None
    _pack_kind_qq(out.mv, off, K_STRING, len(data), out.base + out.put(data))


def _lower_bool(value: Any, out: Out, off: int) -> None:
    if not isinstance(value, bool):
        raise CodecError(f"expected bool, got {type(value).__name__}")
    _pack_kind_qq(out.mv, off, K_BOOL, 1 if value else 0, 0)


def _lower_u16(value: Any, out: Out, off: int) -> None:
    if type(value) is not int or not 0 <= value < 2**16:  # bool is not an int here
        raise CodecError(f"expected a u16, got {value!r}")
    _pack_kind_qq(out.mv, off, K_U16, value, 0)


def _lower_u32(value: Any, out: Out, off: int) -> None:
    if type(value) is not int or not 0 <= value < 2**32:  # bool is not an int here
        raise CodecError(f"expected a u32, got {value!r}")
    _pack_kind_qq(out.mv, off, K_U32, value, 0)


def _lower_u64(value: Any, out: Out, off: int) -> None:
    if type(value) is not int or not 0 <= value < 2**64:
        raise CodecError(f"expected a u64, got {value!r}")
    _pack_kind_qq(out.mv, off, K_U64, value, 0)


def _lower_bytes(value: Any, out: Out, off: int) -> None:
    """``list<u8>``: one C value per byte, all written by two slice assignments."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise CodecError(f"expected bytes, got {type(value).__name__}")
    data = bytes(value)
    n = len(data)
    addr = 0
    if n:
        image = bytearray(n * S)
        image[0::S] = bytes((K_U8,)) * n
        image[OF::S] = data
        addr = out.base + out.put(image)
    _pack_kind_qq(out.mv, off, K_LIST, n, addr)


def _lower_list(lower_element: Lower) -> Lower:
    def lower(value: Any, out: Out, off: int) -> None:
        if not isinstance(value, (list, tuple)):
            raise CodecError(f"expected a list, got {type(value).__name__}")
        n = len(value)
        pos = out.zeros(n * S) if n else 0
        _pack_kind_qq(out.mv, off, K_LIST, n, out.base + pos if n else 0)
        for i, item in enumerate(value):
            lower_element(item, out, pos + i * S)

    return lower


def _lower_tuple(lower_elements: list[Lower]) -> Lower:
    n = len(lower_elements)

    def lower(value: Any, out: Out, off: int) -> None:
        if not isinstance(value, (list, tuple)) or len(value) != n:
            raise CodecError(f"expected a tuple of {n}, got {value!r}")
        pos = out.zeros(n * S) if n else 0
        _pack_kind_qq(out.mv, off, K_TUPLE, n, out.base + pos if n else 0)
        for i, lower_element in enumerate(lower_elements):
            lower_element(value[i], out, pos + i * S)

    return lower


def _lower_option(lower_payload: Lower) -> Lower:
    def lower(value: Any, out: Out, off: int) -> None:
        if value is None:
            _pack_kind_qq(out.mv, off, K_OPTION, 0, 0)
            return
        pos = out.zeros(S)
        _pack_kind_qq(out.mv, off, K_OPTION, out.base + pos, 0)
        lower_payload(value, out, pos)

    return lower


def _lift_string(raw: memoryview, off: int) -> str:
    size, addr = _unpack_qq(raw, off + OF + VEC_SIZE)
    return str(raw[addr : addr + size], "utf-8") if size else ""


def _lift_u16(raw: memoryview, off: int) -> int:
    return _unpack_h(raw, off + OF)[0]  # type: ignore[no-any-return]


def _lift_u32(raw: memoryview, off: int) -> int:
    return _unpack_i(raw, off + OF)[0]  # type: ignore[no-any-return]


def _lift_u64(raw: memoryview, off: int) -> int:
    return _unpack_q(raw, off + OF)[0]  # type: ignore[no-any-return]


def _lift_bool(raw: memoryview, off: int) -> bool:
    return raw[off + OF] != 0


def _lift_list(lift_element: Lift) -> Lift:
    def lift(raw: memoryview, off: int) -> list[Any]:
        size, addr = _unpack_qq(raw, off + OF + LIST_SIZE)
        return [lift_element(raw, addr + i * S) for i in range(size)]

    return lift


def _lift_tuple(lift_elements: list[Lift]) -> Lift:
    n = len(lift_elements)

    def lift(raw: memoryview, off: int) -> tuple[Any, ...]:
        size, addr = _unpack_qq(raw, off + OF + TUPLE_SIZE)
        if size != n:
            raise CodecError(f"expected a tuple of {n}, got {size} values")
        return tuple(one(raw, addr + i * S) for i, one in enumerate(lift_elements))

    return lift


def _lift_bytes(raw: memoryview, off: int) -> bytes:
    """``list<u8>``: one C value per byte; the byte of each is at ``OF``."""
    size, addr = _unpack_qq(raw, off + OF + LIST_SIZE)
    return raw[addr + OF : addr + size * S : S].tobytes() if size else b""


def _lift_option(lift_payload: Lift) -> Lift:
    def lift(raw: memoryview, off: int) -> Any:
        (p,) = _unpack_q(raw, off + OF)
        return lift_payload(raw, p) if p else None

    return lift


class Function:
    """One exported function, with its lowering and lifting compiled."""

    def __init__(
        self, name: str, ty: wt.FuncType, codec: Codec, *, project: str | None = None
    ) -> None:
        self.name = name
        params = ty.params
        self.arity = len(params)
        self.head = self.arity * S
        self.lowers = list(enumerate(codec.lowerer(t) for _, t in params))
        result = ty.result
        self.lift: Lift | None = None
        if result is not None:
            self.lift = codec.result_field(result, project) if project else codec.lifter(result)


def call(fn: Function, func: Any, context: Any, scratch: Scratch, args: Sequence[Any]) -> Any:
    """Call ``func`` (a reference to a ``wasmtime_component_func_t``) with ``args``, lowered
    into ``scratch``; return the lifted result.

    Raises :class:`wasmtime.WasmtimeError` when the call traps, :class:`CodecError` when an
    argument has the wrong type and :class:`~oncely.EncodingError` when a string holds a lone
    surrogate.
    """
    while True:
        try:
            out = Out(scratch, fn.head)
            for i, lower in fn.lowers:
                lower(args[i], out, i * S)
            break
        except _Full as full:
            scratch.grow(full.needed)
    result = VAL()
    err = _func_call(func, context, scratch.base, fn.arity, byref(result), 1)
    if err:
        raise WasmtimeError._from_ptr(err)
    try:
        if fn.lift is None:
            return None
        return fn.lift(MEMORY, addressof(result))
    finally:
        _val_delete(byref(result))
