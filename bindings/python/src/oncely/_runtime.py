"""The core component inside wasmtime: one engine per process, the compiled component cached on
disk, a small pool of instances (a wasmtime store is not thread-safe; each thread borrows its
own), a memory limit per instance, and one compiled :class:`~oncely._codec.Function` per export
(compiled at its first call).
A trap fails that call only: the instance is dropped, never reused.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import threading
from pathlib import Path
from typing import Any, cast

import wasmtime
from wasmtime import component as wc

from oncely import _files, errors, types
from oncely._codec import Codec, CodecError, Function, Registry, Scratch, call

MEMORY_LIMIT_BYTES = 256 << 20
"""Largest linear memory one instance may grow to (as in the Rust host)."""

POOL_SIZE = 16
"""Instances kept warm for reuse."""

INTERFACES = ("canonical", "keys", "policy", "ledger", "effect", "provider", "agent")

PROJECTIONS = {
    "keys.derive-many#key": ("keys.derive-many", "key"),
}
"""Extra entry points over the same exports that lift only one field of the answer."""
PACKAGE = "oncely:core"
VERSION = "0.1.0"


def component_bytes() -> bytes:
    """The core component shipped in this package (``oncely/_data/oncely-core.wasm``; the
    repository's in the source tree: ``oncely._files``), or the file named by
    ``$ONCELY_CORE_WASM``."""
    override = os.environ.get("ONCELY_CORE_WASM")
    if override:
        return Path(override).read_bytes()
    return _files.component()


def cache_dir() -> Path | None:
    """Where compiled components are cached: ``$ONCELY_CACHE_DIR``, else ``$XDG_CACHE_HOME/oncely``,
    else ``~/.cache/oncely``. ``ONCELY_CACHE_DIR=off`` disables the cache."""
    d = os.environ.get("ONCELY_CACHE_DIR")
    if d is not None:
        return None if d == "off" else Path(d)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "oncely"
    home = os.environ.get("HOME")
    return Path(home) / ".cache" / "oncely" if home else None


def wasmtime_version() -> str:
    """The installed wasmtime's version, for the cache key: the name of its distribution's
    metadata directory beside the package (importing :mod:`importlib.metadata` would cost a first
    key 33 to 45 ms: ``python -X importtime -c "import pathlib, importlib.metadata"``), else
    :mod:`importlib.metadata`'s answer. A wrong key costs a compilation only: wasmtime refuses an
    artifact another version wrote."""
    site = Path(wasmtime.__file__).parent.parent
    try:
        with os.scandir(site) as found:
            for d in found:
                if d.name.startswith("wasmtime-") and d.name.endswith(".dist-info"):
                    return d.name[len("wasmtime-") : -len(".dist-info")]
    except OSError:
        pass
    import importlib.metadata

    return importlib.metadata.version("wasmtime")


def _load_component(engine: wasmtime.Engine, wasm: bytes) -> wc.Component:
    """Compile the component, or load it from the on-disk cache keyed by the component's hash,
    the wasmtime version and the platform."""
    d = cache_dir()
    if d is None:
        return wc.Component(engine, wasm)
    h = hashlib.sha256(wasm)
    h.update(wasmtime_version().encode())
    h.update(f"{platform.system()}-{platform.machine()}".encode())
    path = d / f"core-py-{h.hexdigest()[:32]}.cwasm"
    if path.is_file():
        # The cache directory is private to the user (0700) and every file in it is written
        # below through a temporary file and an atomic rename, under a name derived from the
        # component's hash and the engine: only artifacts this wasmtime produced are loaded.
        try:
            return wc.Component.deserialize_file(engine, str(path))
        except wasmtime.WasmtimeError:
            path.unlink(missing_ok=True)  # stale or damaged: recompile and replace it
    component = wc.Component(engine, wasm)
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        import tempfile  # only when the cache is written

        fd, tmp = tempfile.mkstemp(dir=d, prefix=".core-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(component.serialize())
        os.replace(tmp, path)
    except OSError:
        pass  # the cache is an optimisation only
    return component


class _Slot:
    """One instance in its own store, with the raw function handles of every export."""

    __slots__ = ("_keep", "context", "funcs", "scratch", "store")

    def __init__(self, rt: Runtime) -> None:
        self.store = wasmtime.Store(rt.engine)
        self.store.set_limits(memory_size=MEMORY_LIMIT_BYTES, instances=4)
        instance = rt.linker.instantiate(self.store, rt.component)
        self.context = self.store._context()
        self.scratch = Scratch()
        self.funcs: dict[str, Any] = {}
        for name, index in rt.indices.items():
            func = instance.get_func(self.store, index)
            if func is None:
                raise errors.CoreTrap(f"the component does not export {name}")
            self.funcs[name] = ctypes.byref(func._func)
        self._keep = instance


class Functions(dict[str, Function]):
    """The exports' compiled lowering and lifting (:class:`~oncely._codec.Function`), each
    compiled at its first call: a first key compiles the key's functions, not the ledger's
    (compiling all 32 took most of a first key's time). ``compile_all`` compiles every one, which
    checks every mirror class against the component (the tests do)."""

    def __init__(self, codec: Codec) -> None:
        super().__init__()
        self._codec = codec
        self._declared: dict[str, tuple[wc.FuncType, str | None]] = {}

    def declare(self, name: str, ty: wc.FuncType, *, project: str | None = None) -> None:
        self._declared[name] = (ty, project)

    def declared(self) -> list[str]:
        return list(self._declared)

    def __missing__(self, name: str) -> Function:
        ty, project = self._declared[name]
        # Two threads may compile one function at once; either result is the same.
        fn = self[name] = Function(name, ty, self._codec, project=project)
        return fn

    def compile_all(self) -> None:
        for name in self._declared:
            self[name]  # compiled by __missing__


class Runtime:
    """A handle on the core component: compiled once, instances pooled. Use :func:`shared`."""

    def __init__(self, wasm: bytes | None = None) -> None:
        self.engine = wasmtime.Engine()
        self.component = _load_component(self.engine, component_bytes() if wasm is None else wasm)
        self.linker = wc.Linker(self.engine)
        registry = Registry(
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
        self.functions = Functions(Codec(registry))
        self.indices: dict[str, wc.ExportIndex] = {}
        exports = self.component.type.exports(self.engine)
        types_by_name: dict[str, wc.FuncType] = {}
        for iface in INTERFACES:
            iname = f"{PACKAGE}/{iface}@{VERSION}"
            ext = exports.get(iname)
            if ext is None:
                raise CodecError(f"the component does not export {iname}")
            instance_index = self.component.get_export_index(iname)
            assert instance_index is not None
            iface_type = cast(wc.ComponentInstanceType, ext.ty)
            for fname, item in iface_type.exports(self.engine).items():
                fty = item.ty
                if not isinstance(fty, wc.FuncType):
                    continue  # a type export
                key = f"{iface}.{fname}"
                self.functions.declare(key, fty)
                index = self.component.get_export_index(fname, instance_index)
                assert index is not None
                self.indices[key] = index
                types_by_name[key] = fty
        for alias, (target, field) in PROJECTIONS.items():
            self.functions.declare(alias, types_by_name[target], project=field)
            self.indices[alias] = self.indices[target]
        self._pool: list[_Slot] = []

    def call(self, name: str, *args: Any) -> Any:
        """Call the export ``name`` (``"interface.function"``) on a pooled instance."""
        fn = self.functions[name]
        pool = self._pool
        try:
            slot = pool.pop()  # list.pop is atomic under the GIL
        except IndexError:
            slot = _Slot(self)
        try:
            result = call(fn, slot.funcs[name], slot.context, slot.scratch, args)
        except wasmtime.WasmtimeError as trap:
            # The instance may be in any state after a trap: it is dropped, not pooled.
            raise errors.CoreTrap(f"the core component trapped (a bug in oncely): {trap}") from trap
        except BaseException:
            if len(pool) < POOL_SIZE:
                pool.append(slot)
            raise
        if len(pool) < POOL_SIZE:
            pool.append(slot)
        return result


_shared: Runtime | None = None
_shared_lock = threading.Lock()


def shared() -> Runtime:
    """The process-wide runtime (one engine, the component compiled once)."""
    global _shared
    rt = _shared
    if rt is not None:
        return rt
    with _shared_lock:
        if _shared is None:
            _shared = Runtime()
        return _shared
