"""The few calls of wasmtime's C API that the core crossing needs, made on the library the
``wasmtime`` package ships (``wasmtime/<platform>/_libwasmtime.so``), without importing that
package: an engine, a module compiled or read from the cache, a store with a memory limit, an
instance of a module that imports nothing, its exports, and the raw call.

Why not wasmtime-py's classes: importing ``wasmtime`` declares its whole C API with ctypes
(thousands of functions) and takes about 35 ms, three times what a first key takes without it
(``bench_cold.py``); a process that derives keys or runs effects through the core crossing
needs the twenty functions below. The component crossing (:mod:`oncely._codec`) and the tests
still use wasmtime-py, on the same library; ``wasmtime`` stays the dependency that provides it,
pinned to one major version, whose C API these declarations follow (``wasmtime.h``).
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (
    POINTER,
    Structure,
    byref,
    c_char_p,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint64,
    c_void_p,
    string_at,
)

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any


class WasmError(Exception):
    """wasmtime refused something (a module, an artifact) or a call trapped: its message."""


def _library_path() -> str:
    """Where the ``wasmtime`` package keeps its library (as ``wasmtime._ffi`` finds it)."""
    plat = "android" if hasattr(sys, "getandroidapilevel") else sys.platform
    name = {"win32": "_wasmtime.dll", "darwin": "_libwasmtime.dylib"}.get(plat, "_libwasmtime.so")
    if plat == "win32":
        import platform

        machine = platform.machine()
    else:
        machine = os.uname().machine
    machine = {"AMD64": "x86_64", "arm64": "aarch64", "ARM64": "aarch64"}.get(machine, machine)
    sub = os.path.join(f"{plat}-{machine}", name)
    loaded = sys.modules.get("wasmtime")
    if loaded is not None and loaded.__file__:
        return os.path.join(os.path.dirname(loaded.__file__), sub)
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "wasmtime", sub)
        if os.path.isfile(candidate):
            return candidate
    import importlib.util

    spec = importlib.util.find_spec("wasmtime")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("oncely needs the wasmtime package (pip install wasmtime)")
    return os.path.join(next(iter(spec.submodule_search_locations)), sub)


LIBRARY = _library_path()
"""The path of wasmtime's library."""

_lib = ctypes.CDLL(LIBRARY)


class ByteVec(Structure):
    """``wasm_byte_vec_t`` (also ``wasm_name_t`` and ``wasm_message_t``)."""

    _fields_ = (("size", c_size_t), ("data", c_void_p))


class Instance(Structure):
    """``wasmtime_instance_t``."""

    _fields_ = (("store_id", c_uint64), ("index", c_size_t))


class Extern(Structure):
    """``wasmtime_extern_t``: a kind (``wasmtime_extern_kind_t``), then the item (a
    ``wasmtime_func_t`` or ``wasmtime_memory_t``, 24 bytes at most, aligned to 8)."""

    _fields_ = (("kind", c_uint8), ("of", c_uint64 * 3))


EXTERN_FUNC = 0
EXTERN_MEMORY = 3


def _declare(name: str, restype: Any, *argtypes: Any) -> Any:
    f = _lib[name]
    f.restype = restype
    f.argtypes = argtypes
    return f


_engine_new = _declare("wasm_engine_new", c_void_p)
_engine_delete = _declare("wasm_engine_delete", None, c_void_p)
_module_new = _declare("wasmtime_module_new", c_void_p, c_void_p, c_char_p, c_size_t, c_void_p)
_module_deserialize_file = _declare(
    "wasmtime_module_deserialize_file", c_void_p, c_void_p, c_char_p, c_void_p
)
_module_serialize = _declare("wasmtime_module_serialize", c_void_p, c_void_p, POINTER(ByteVec))
_module_delete = _declare("wasmtime_module_delete", None, c_void_p)
_store_new = _declare("wasmtime_store_new", c_void_p, c_void_p, c_void_p, c_void_p)
_store_context = _declare("wasmtime_store_context", c_void_p, c_void_p)
_store_limiter = _declare(
    "wasmtime_store_limiter", None, c_void_p, c_int64, c_int64, c_int64, c_int64, c_int64
)
_store_delete = _declare("wasmtime_store_delete", None, c_void_p)
_instance_new = _declare(
    "wasmtime_instance_new", c_void_p, c_void_p, c_void_p, c_void_p, c_size_t, c_void_p, c_void_p
)
_export_get = _declare(
    "wasmtime_instance_export_get",
    ctypes.c_bool,
    c_void_p,
    POINTER(Instance),
    c_char_p,
    c_size_t,
    POINTER(Extern),
)
_error_message = _declare("wasmtime_error_message", None, c_void_p, POINTER(ByteVec))
_error_delete = _declare("wasmtime_error_delete", None, c_void_p)
_trap_message = _declare("wasm_trap_message", None, c_void_p, POINTER(ByteVec))
_trap_delete = _declare("wasm_trap_delete", None, c_void_p)
_byte_vec_delete = _declare("wasm_byte_vec_delete", None, POINTER(ByteVec))

call_unchecked: Any = _lib["wasmtime_func_call_unchecked"]
"""``wasmtime_func_call_unchecked(context, func, args_and_results, len, trap_out)``, with no
argument types to check (every argument a ``c_void_p`` or a ``c_size_t``): the raw call into
wasm (:mod:`oncely._abi`)."""
call_unchecked.restype = c_void_p  # a wasmtime_error_t*, or None
call_unchecked.argtypes = None

memory_data: Any = _lib["wasmtime_memory_data"]
"""``wasmtime_memory_data(context, memory)``: the memory's address now (a ``c_size_t``)."""
memory_data.restype = c_size_t
memory_data.argtypes = None

memory_data_size = _declare("wasmtime_memory_data_size", c_size_t, c_void_p, c_void_p)
"""``wasmtime_memory_data_size(context, memory)``: the memory's size in bytes."""


def _text(vec: ByteVec) -> str:
    text = string_at(vec.data, vec.size).rstrip(b"\0").decode("utf-8", "replace")
    _byte_vec_delete(byref(vec))
    return text


def error(err: int) -> WasmError:
    """The :class:`WasmError` of a ``wasmtime_error_t*`` (deleted here)."""
    vec = ByteVec()
    _error_message(err, byref(vec))
    _error_delete(err)
    return WasmError(_text(vec))


def trap(t: int) -> WasmError:
    """The :class:`WasmError` of a ``wasm_trap_t*`` (deleted here)."""
    vec = ByteVec()
    _trap_message(t, byref(vec))
    _trap_delete(t)
    return WasmError(_text(vec))


class Engine:
    """``wasm_engine_t`` with the default configuration (as ``wasmtime.Engine()``)."""

    __slots__ = ("ptr",)

    def __init__(self) -> None:
        self.ptr = _engine_new()

    def __del__(self) -> None:
        if _engine_delete is not None and self.ptr:
            _engine_delete(self.ptr)


class Module:
    """``wasmtime_module_t``: compiled from bytes, or read from what :meth:`serialize` wrote."""

    __slots__ = ("engine", "ptr")

    def __init__(self, engine: Engine, ptr: int) -> None:
        self.engine, self.ptr = engine, ptr  # the engine lives as long as its modules

    @classmethod
    def compile(cls, engine: Engine, wasm: bytes) -> Module:
        out = c_void_p()
        err = _module_new(engine.ptr, wasm, len(wasm), byref(out))
        if err:
            raise error(err)
        return cls(engine, out.value or 0)

    @classmethod
    def deserialize_file(cls, engine: Engine, path: str) -> Module:
        """A module an earlier :meth:`serialize` wrote to ``path`` (mapped, not copied). Only
        artifacts this engine's wasmtime wrote are accepted (:class:`WasmError` otherwise)."""
        out = c_void_p()
        err = _module_deserialize_file(engine.ptr, os.fsencode(path), byref(out))
        if err:
            raise error(err)
        return cls(engine, out.value or 0)

    def serialize(self) -> bytes:
        vec = ByteVec()
        err = _module_serialize(self.ptr, byref(vec))
        if err:
            raise error(err)
        data = string_at(vec.data, vec.size)
        _byte_vec_delete(byref(vec))
        return data

    def __del__(self) -> None:
        if _module_delete is not None and self.ptr:
            _module_delete(self.ptr)


class Store:
    """``wasmtime_store_t``, its context, and a limit on what its instances may grow to."""

    __slots__ = ("context", "engine", "ptr")

    def __init__(self, engine: Engine, *, memory_size: int, instances: int) -> None:
        self.engine = engine
        self.ptr = _store_new(engine.ptr, None, None)
        _store_limiter(self.ptr, memory_size, -1, instances, -1, -1)
        self.context = c_void_p(_store_context(self.ptr))

    def __del__(self) -> None:
        if _store_delete is not None and self.ptr:
            _store_delete(self.ptr)


class ModuleInstance:
    """An instance of a module that imports nothing, and its exports as raw handles: a
    function's ``wasmtime_func_t`` or the memory's ``wasmtime_memory_t``, each kept here for as
    long as the instance (pointers to them are what the C calls take)."""

    __slots__ = ("_externs", "instance", "store")

    def __init__(self, store: Store, module: Module) -> None:
        self.store = store
        self.instance = Instance()
        t = c_void_p()
        err = _instance_new(store.context, module.ptr, None, 0, byref(self.instance), byref(t))
        if err:
            raise error(err)
        if t.value:
            raise trap(t.value)
        self._externs: list[Extern] = []

    def export(self, name: str, kind: int) -> c_void_p | None:
        """A pointer to the item the export ``name`` holds, if it is of ``kind``
        (:data:`EXTERN_FUNC`, :data:`EXTERN_MEMORY`), else ``None``."""
        item = Extern()
        raw = name.encode()
        if not _export_get(self.store.context, byref(self.instance), raw, len(raw), byref(item)):
            return None
        if item.kind != kind:
            return None
        self._externs.append(item)
        return c_void_p(ctypes.addressof(item) + Extern.of.offset)
