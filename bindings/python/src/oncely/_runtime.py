"""The core component inside wasmtime: one engine per process, the compiled component and its
core module cached on disk, a small pool of instances (a wasmtime store is not thread-safe; each
thread borrows its own), a memory limit per instance, and for each export one compiled call
(compiled at its first call) through the crossing :data:`CROSSINGS` chooses for it: the core
module's export called directly with the Canonical ABI done in Python (:mod:`oncely._abi`), or
the component's export through wasmtime's component API (:mod:`oncely._codec`).
A trap fails that call only: the instance is dropped, never reused.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import wasmtime
from wasmtime import component as wc

from oncely import _files, errors, types
from oncely._abi import Abi, AbiFunction, AbiUnsupported, Bound, CoreInstance
from oncely._abi import call as abi_call
from oncely._codec import Codec, CodecError, Function, Registry, Scratch, call


class _Compiled(Protocol):
    def serialize(self) -> bytearray: ...


T = TypeVar("T", bound=_Compiled)

CROSSINGS = ("auto", "core", "component")
"""How a :class:`Runtime` calls the core: ``"auto"`` calls the core module directly
(:mod:`oncely._abi`) for every export whose arguments the Canonical ABI passes in memory (more
than 16 flat values: the records of ``effect.run``, ``ledger.prepare``, ``agent.identify``,
``provider.admit``…), where the component API's conversion of every field costs most, and the
component's export for the others (a few strings: wasmtime allocates them natively, where the
direct call pays one call into wasm per string; ``bench_crossing.py`` measures both);
``"core"`` calls every export directly, ``"component"`` none (the tests compare all three)."""

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


def _cached(
    engine: wasmtime.Engine,
    wasm: bytes,
    kind: str,
    compile: Callable[[wasmtime.Engine, bytes], T],
    load: Callable[[wasmtime.Engine, str], T],
) -> T:
    """``compile(engine, wasm)``, or ``load(engine, path)`` of what an earlier process compiled:
    the on-disk cache, keyed by ``kind``, the bytes' hash, the wasmtime version and the platform.
    """
    d = cache_dir()
    if d is None:
        return compile(engine, wasm)
    h = hashlib.sha256(wasm)
    h.update(wasmtime_version().encode())
    h.update(f"{platform.system()}-{platform.machine()}".encode())
    path = d / f"{kind}-{h.hexdigest()[:32]}.cwasm"
    if path.is_file():
        # The cache directory is private to the user (0700) and every file in it is written
        # below through a temporary file and an atomic rename, under a name derived from the
        # bytes' hash and the engine: only artifacts this wasmtime produced are loaded.
        try:
            return load(engine, str(path))
        except wasmtime.WasmtimeError:
            path.unlink(missing_ok=True)  # stale or damaged: recompile and replace it
    compiled = compile(engine, wasm)
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        import tempfile  # only when the cache is written

        fd, tmp = tempfile.mkstemp(dir=d, prefix=".core-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(compiled.serialize())
        os.replace(tmp, path)
    except OSError:
        pass  # the cache is an optimisation only
    return compiled


def _load_component(engine: wasmtime.Engine, wasm: bytes) -> wc.Component:
    """The component, compiled or from the cache."""
    return _cached(engine, wasm, "core-py", wc.Component, wc.Component.deserialize_file)


def _load_module(engine: wasmtime.Engine, wasm: bytes) -> wasmtime.Module:
    """The core module inside the component, compiled or from the cache."""
    module = wasmtime.Module
    return _cached(engine, wasm, "core-module-py", module, module.deserialize_file)


def core_module(component: bytes) -> bytes:
    """The core module inside ``component``: the one module section (id 1) of a component that
    imports nothing (``wit-component`` wraps the guest's one module, and adapts nothing)."""

    def leb(i: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            b = component[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value, i

    found = []
    i = 8  # magic, version and layer
    while i < len(component):
        size, start = leb(i + 1)
        if component[i] == 1:
            found.append(component[start : start + size])
        i = start + size
    if len(found) != 1:
        raise CodecError(f"expected one core module in the component, found {len(found)}")
    return found[0]


class _Slot:
    """One store, with two instances made at the first call that needs each: the core module on
    its own (the Canonical ABI done by ``_abi``) and the component (``_codec``). The core is
    pure: either answers any call alike."""

    __slots__ = ("_component", "_core", "_rt", "bound", "context", "funcs", "scratch", "store")

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self.store = wasmtime.Store(rt.engine)
        self.store.set_limits(memory_size=MEMORY_LIMIT_BYTES, instances=4)
        self.context = self.store._context()
        self._core: CoreInstance | None = None
        self.bound: dict[str, Bound] = {}
        self.funcs: dict[str, Any] | None = None
        self.scratch: Scratch | None = None
        self._component: Any = None

    def component_funcs(self) -> dict[str, Any]:
        """The raw handles of the component's exports (instantiated now if not yet)."""
        if self.funcs is None:
            rt = self._rt
            instance = rt.linker.instantiate(self.store, rt.component)
            funcs: dict[str, Any] = {}
            for name, index in rt.indices.items():
                func = instance.get_func(self.store, index)
                if func is None:
                    raise errors.CoreTrap(f"the component does not export {name}")
                funcs[name] = ctypes.byref(func._func)
            self._component, self.scratch, self.funcs = instance, Scratch(), funcs
        return self.funcs

    @property
    def core(self) -> CoreInstance:
        """The core module's instance (instantiated now if not yet)."""
        core = self._core
        if core is None:
            core = self._core = CoreInstance(self.store, self._rt.module)
        return core

    def bind(self, name: str, fn: AbiFunction) -> Bound:
        b = self.bound[name] = Bound(fn, self.core, self._rt.exports[name])
        return b


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


class AbiFunctions(dict[str, AbiFunction | None]):
    """The exports' Canonical ABI calls (:class:`~oncely._abi.AbiFunction`), each compiled at its
    first call; ``None`` for a function that keeps the component call: every one when the
    crossing is ``"component"``, one ``_abi`` does not handle, and (``"auto"``) one whose
    arguments are few enough to pass as flat values."""

    def __init__(self, abi: Abi, crossing: str) -> None:
        super().__init__()
        self._abi = abi
        self._crossing = crossing
        self._declared: dict[str, tuple[wc.FuncType, str | None]] = {}

    def declare(self, name: str, ty: wc.FuncType, *, project: str | None = None) -> None:
        self._declared[name] = (ty, project)

    def __missing__(self, name: str) -> AbiFunction | None:
        ty, project = self._declared[name]
        fn: AbiFunction | None = None
        if self._crossing != "component":
            try:
                fn = AbiFunction(name, ty, self._abi, project=project)
            except AbiUnsupported:
                fn = None
        if fn is not None and self._crossing == "auto" and not fn.indirect:
            fn = None  # a few flat arguments cross faster through the component
        self[name] = fn
        return fn


class Runtime:
    """A handle on the core component: compiled once, instances pooled. Use :func:`shared`."""

    def __init__(self, wasm: bytes | None = None, *, crossing: str = "auto") -> None:
        if crossing not in CROSSINGS:
            raise ValueError(f"crossing must be one of {CROSSINGS}, not {crossing!r}")
        self.engine = wasmtime.Engine()
        self.wasm = component_bytes() if wasm is None else wasm
        self.component = _load_component(self.engine, self.wasm)
        self.crossing = crossing
        self._module: wasmtime.Module | None = None
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
        codec = Codec(registry)
        self.functions = Functions(codec)
        self.abi_functions = AbiFunctions(Abi(codec), crossing)
        self.indices: dict[str, wc.ExportIndex] = {}
        self.exports: dict[str, str] = {}
        """The core module's export of each function (``package/interface@version#function``)."""
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
                self.abi_functions.declare(key, fty)
                self.exports[key] = f"{iname}#{fname}"
                index = self.component.get_export_index(fname, instance_index)
                assert index is not None
                self.indices[key] = index
                types_by_name[key] = fty
        for alias, (target, field) in PROJECTIONS.items():
            self.functions.declare(alias, types_by_name[target], project=field)
            self.abi_functions.declare(alias, types_by_name[target], project=field)
            self.indices[alias] = self.indices[target]
            self.exports[alias] = self.exports[target]
        self._pool: list[_Slot] = []

    @property
    def module(self) -> wasmtime.Module:
        """The core module inside the component, compiled at the first instance that needs it."""
        m = self._module
        if m is None:
            m = self._module = _load_module(self.engine, core_module(self.wasm))
        return m

    def call(self, name: str, *args: Any) -> Any:
        """Call the export ``name`` (``"interface.function"``) on a pooled instance."""
        pool = self._pool
        try:
            slot = pool.pop()  # list.pop is atomic under the GIL
        except IndexError:
            slot = _Slot(self)
        keep = True
        try:
            fn = self.abi_functions[name]
            if fn is not None:
                bound = slot.bound.get(name) or slot.bind(name, fn)
                try:
                    return abi_call(bound, slot.core, args)
                except BaseException:
                    # Allocations a failed lowering made are nobody's: the instance goes.
                    keep = False
                    raise
            funcs = slot.component_funcs()
            assert slot.scratch is not None
            return call(self.functions[name], funcs[name], slot.context, slot.scratch, args)
        except wasmtime.WasmtimeError as trap:
            # The instance may be in any state after a trap: it is dropped, not pooled.
            keep = False
            raise errors.CoreTrap(f"the core component trapped (a bug in oncely): {trap}") from trap
        finally:
            if keep and len(pool) < POOL_SIZE:
                pool.append(slot)


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
