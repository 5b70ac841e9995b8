"""The core inside wasmtime: one engine per process, the core module (and, when asked for, the
component) compiled once and cached on disk, a small pool of instances (a wasmtime store is not
thread-safe; each thread borrows its own), a memory limit per instance, and for each export one
compiled call (compiled at its first call) through the crossing :data:`CROSSINGS` chooses for
it: the core module's export called directly with the Canonical ABI done in Python
(:mod:`oncely._abi`, on the C calls of :mod:`oncely._wasm`), or the component's export through
wasmtime-py's component API (:mod:`oncely._codec`, imported only when a call takes it).
A trap fails that call only: the instance is dropped, never reused.
"""

from __future__ import annotations

import _thread  # its Lock, without importing threading (~1 ms of a first key)
import os
from collections.abc import Callable

from oncely import _exports, _files, _wasm, errors
from oncely._abi import Abi, AbiFunction, AbiUnsupported, Bound, CoreInstance
from oncely._abi import call as abi_call
from oncely._abi import call_bytes as abi_call_bytes
from oncely._values import CodecError, Err, registry
from oncely._wire import Wire, WireError

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

CROSSINGS = ("auto", "core", "component")
"""How a :class:`Runtime` calls the core: ``"auto"`` and ``"core"`` call the core module
directly (:mod:`oncely._abi`) for every export it handles (today every one), so that a process
never imports wasmtime-py's Python classes (35 ms of a cold start, ``bench_cold.py``) nor
converts values field by field through its component API (most of a ledger call's time,
``bench_crossing.py``); ``"component"`` calls the component's exports through that API (the
tests compare the crossings on every export)."""

MEMORY_LIMIT_BYTES = 256 << 20
"""Largest linear memory one instance may grow to (as in the Rust host)."""

POOL_SIZE = 16
"""Instances kept warm for reuse."""

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
        with open(override, "rb") as f:
            return f.read()
    return _files.component()


def cache_dir() -> str | None:
    """Where compiled components are cached: ``$ONCELY_CACHE_DIR``, else ``$XDG_CACHE_HOME/oncely``,
    else ``~/.cache/oncely``. ``ONCELY_CACHE_DIR=off`` disables the cache."""
    d = os.environ.get("ONCELY_CACHE_DIR")
    if d is not None:
        return None if d == "off" else d
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "oncely")
    home = os.environ.get("HOME")
    return os.path.join(home, ".cache", "oncely") if home else None


def wasmtime_version() -> str:
    """The installed wasmtime's version, for the cache key: the name of its distribution's
    metadata directory beside the package (importing :mod:`importlib.metadata` would cost a first
    key 33 to 45 ms: ``python -X importtime -c "import pathlib, importlib.metadata"``), else
    :mod:`importlib.metadata`'s answer. A wrong key costs a compilation only: wasmtime refuses an
    artifact another version wrote."""
    site = os.path.dirname(os.path.dirname(os.path.dirname(_wasm.LIBRARY)))
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
    digest: str,
    kind: str,
    compile: Callable[[], T],
    load: Callable[[str], T],
    serialize: Callable[[T], bytes],
    stale: type[Exception],
) -> T:
    """``compile()``, or ``load(path)`` of what an earlier process compiled: the on-disk cache,
    keyed by ``kind``, the component's SHA-256 (``digest``), the wasmtime version and the
    platform (the directory of wasmtime's library: ``linux-x86_64``). ``stale``: what ``load``
    raises for an artifact it refuses."""
    d = cache_dir()
    if d is None:
        return compile()
    platform = os.path.basename(os.path.dirname(_wasm.LIBRARY))
    path = os.path.join(d, f"{kind}-{digest[:32]}-{wasmtime_version()}-{platform}.cwasm")
    if os.path.isfile(path):
        # The cache directory is private to the user (0700) and every file in it is written
        # below through a temporary file and an atomic rename, under a name derived from the
        # bytes' hash and the engine: only artifacts this wasmtime produced are loaded.
        try:
            return load(path)
        except stale:
            try:  # noqa: SIM105 - contextlib is not imported for this
                os.unlink(path)  # stale or damaged: recompile and replace it
            except FileNotFoundError:
                pass
    compiled = compile()
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        import tempfile  # only when the cache is written

        fd, tmp = tempfile.mkstemp(dir=d, prefix=".core-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(serialize(compiled))
        os.replace(tmp, path)
    except OSError:
        pass  # the cache is an optimisation only
    return compiled


def _load_module(engine: _wasm.Engine, digest: str, wasm: Callable[[], bytes]) -> _wasm.Module:
    """The core module inside the component (``wasm()``, read only if the cache has no module
    for ``digest``), compiled or from the cache."""
    return _cached(
        digest,
        "core-module-py",
        lambda: _wasm.Module.compile(engine, core_module(wasm())),
        lambda path: _wasm.Module.deserialize_file(engine, path),
        _wasm.Module.serialize,
        _wasm.WasmError,
    )


def _sha256(data: bytes) -> str:
    import hashlib  # only where the component's bytes are read

    return hashlib.sha256(data).hexdigest()


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


class _Components:
    """The component crossing's share of a :class:`Runtime`, made at the first call that takes
    it: wasmtime-py (imported then), its engine, the compiled component, a linker, and each
    export's index and compiled lowering and lifting (:class:`~oncely._codec.Function`, compiled
    at its first call; ``compile_all`` compiles every one, which checks every mirror class
    against the component's own types)."""

    def __init__(self, wasm: bytes, digest: str) -> None:
        import wasmtime
        from wasmtime import component as wc

        from oncely import _codec

        self.wasmtime, self.codec_module = wasmtime, _codec
        self.engine = wasmtime.Engine()
        self.component = _cached(
            digest,
            "core-py",
            lambda: wc.Component(self.engine, wasm),
            lambda path: wc.Component.deserialize_file(self.engine, path),
            lambda c: bytes(c.serialize()),
            wasmtime.WasmtimeError,
        )
        self.linker = wc.Linker(self.engine)
        self.codec = _codec.Codec(registry())
        self.types: dict[str, Any] = {}
        self.indices: dict[str, Any] = {}
        self._compiled: dict[str, Any] = {}
        exports = self.component.type.exports(self.engine)
        for iface in sorted({name.split(".")[0] for name in _exports.FUNCTIONS}):
            iname = f"{PACKAGE}/{iface}@{VERSION}"
            ext = exports.get(iname)
            if ext is None:
                raise CodecError(f"the component does not export {iname}")
            instance_index = self.component.get_export_index(iname)
            assert instance_index is not None
            assert isinstance(ext.ty, wc.ComponentInstanceType)
            for fname, item in ext.ty.exports(self.engine).items():
                if not isinstance(item.ty, wc.FuncType):
                    continue  # a type export
                key = f"{iface}.{fname}"
                self.types[key] = item.ty
                index = self.component.get_export_index(fname, instance_index)
                assert index is not None
                self.indices[key] = index
        for alias, (target, _) in PROJECTIONS.items():
            self.types[alias] = self.types[target]
            self.indices[alias] = self.indices[target]

    def function(self, name: str) -> Any:
        """The export's compiled lowering and lifting (compiled now if not yet; two threads
        may compile one function at once, and either result is the same)."""
        fn = self._compiled.get(name)
        if fn is None:
            project = PROJECTIONS[name][1] if name in PROJECTIONS else None
            fn = self.codec_module.Function(name, self.types[name], self.codec, project=project)
            self._compiled[name] = fn
        return fn

    def compile_all(self) -> None:
        for name in self.types:
            self.function(name)


class _Slot:
    """One borrowed set of instances, each made at the first call that needs it: the core
    module on its own (the Canonical ABI done by ``_abi``, in a store of ``_wasm``) and the
    component (``_codec``, in a wasmtime-py store). The core is pure: either answers any call
    alike."""

    __slots__ = ("_core", "_rt", "bound", "component", "funcs", "scratch", "store")

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self.store: _wasm.Store | None = None
        self._core: CoreInstance | None = None
        self.bound: dict[str, Bound] = {}
        self.funcs: dict[str, Any] | None = None
        self.scratch: Any = None
        self.component: Any = None  # the wasmtime-py store and instance

    def component_funcs(self) -> dict[str, Any]:
        """The raw handles of the component's exports (instantiated now if not yet)."""
        if self.funcs is None:
            import ctypes

            c = self._rt.components
            store = c.wasmtime.Store(c.engine)
            store.set_limits(memory_size=MEMORY_LIMIT_BYTES, instances=4)
            instance = c.linker.instantiate(store, c.component)
            funcs: dict[str, Any] = {}
            for name, index in c.indices.items():
                func = instance.get_func(store, index)
                if func is None:
                    raise errors.CoreTrap(f"the component does not export {name}")
                funcs[name] = ctypes.byref(func._func)
            self.component = (store, store._context(), instance)
            self.scratch, self.funcs = c.codec_module.Scratch(), funcs
        return self.funcs

    @property
    def core(self) -> CoreInstance:
        """The core module's instance (instantiated now if not yet)."""
        core = self._core
        if core is None:
            rt = self._rt
            self.store = _wasm.Store(rt.engine, memory_size=MEMORY_LIMIT_BYTES, instances=4)
            core = self._core = CoreInstance(self.store, rt.module)
        return core

    def bind(self, name: str, fn: AbiFunction) -> Bound:
        b = self.bound[name] = Bound(fn, self.core, self._rt.exports[name])
        return b


class AbiFunctions(dict[str, AbiFunction | None]):
    """The exports' Canonical ABI calls (:class:`~oncely._abi.AbiFunction`), each compiled at its
    first call; ``None`` for a function that keeps the component call: every one when the
    crossing is ``"component"``, and one ``_abi`` does not handle."""

    def __init__(self, abi: Abi, crossing: str) -> None:
        super().__init__()
        self._abi = abi
        self._crossing = crossing

    def __missing__(self, name: str) -> AbiFunction | None:
        target, project = PROJECTIONS.get(name, (name, None))
        fn: AbiFunction | None = None
        if self._crossing != "component":
            try:
                fn = AbiFunction(name, _exports.FUNCTIONS[target], self._abi, project=project)
            except AbiUnsupported:
                fn = None
        self[name] = fn
        return fn

    def compile_all(self) -> None:
        for name in (*_exports.FUNCTIONS, *PROJECTIONS):
            self[name]  # compiled by __missing__


class _RunCodec:
    """``effect.run``'s encoder of a ``run-call`` and the decoders of a ``run-answer``: the
    step's head (what a replay needs) and its rest, apart."""

    __slots__ = ("head", "key_error", "put", "rest", "run_call", "step")

    def __init__(self, wire: Wire, call_type: Any, answer_type: Any) -> None:
        from oncely.types import RunCall, Step

        self.run_call, self.step = RunCall, Step
        self.put = wire.put(call_type)
        (_, step_type), (_, key_error_type) = answer_type[2]
        self.key_error = wire.get(key_error_type)
        fields = dict(step_type[2])
        if tuple(fields) != ("state", "read", "replay", "write", "events", "action"):
            raise CodecError(f"effect.step has fields {tuple(fields)}: _runtime.LazyStep is stale")
        self.head = [wire.get(fields[f]) for f in ("state", "read", "replay")]
        self.rest = [wire.get(fields[f]) for f in ("write", "events", "action")]


class LazyStep:
    """A step of ``effect.run`` (``effect.step``) read from the core's answer in two parts: its
    state, read and replay rule at once; its write, events and action at the first look at one
    of them — a replay, answered by the replay rule, never reads them (the speculative insert,
    its events and its tool call are most of a step's bytes)."""

    __slots__ = ("_answer", "_codec", "_pos", "_rest", "read", "replay", "state")

    def __init__(self, answer: bytes, codec: _RunCodec) -> None:
        get_state, get_read, get_replay = codec.head
        self.state, pos = get_state(answer, 1)
        self.read, pos = get_read(answer, pos)
        self.replay, pos = get_replay(answer, pos)
        self._answer, self._codec, self._pos = answer, codec, pos
        self._rest: tuple[Any, Any, Any] | None = None

    def _read_rest(self) -> tuple[Any, Any, Any]:
        rest = self._rest
        if rest is None:
            a, pos = self._answer, self._pos
            get_write, get_events, get_action = self._codec.rest
            try:
                write, pos = get_write(a, pos)
                events, pos = get_events(a, pos)
                action, pos = get_action(a, pos)
            except (IndexError, UnicodeDecodeError) as e:
                raise WireError(f"the core's answer is not a run-answer: {e}") from None
            if pos != len(a):
                raise WireError(f"{len(a) - pos} bytes left after the core's run-answer")
            rest = self._rest = (write, events, action)
        return rest

    @property
    def write(self) -> Any:
        return self._read_rest()[0]

    @property
    def events(self) -> Any:
        return self._read_rest()[1]

    @property
    def action(self) -> Any:
        return self._read_rest()[2]

    def full(self) -> Any:
        """The step as an :class:`oncely.types.Step`."""
        return self._codec.step(self.state, self.read, self.replay, *self._read_rest())

    def __repr__(self) -> str:
        return repr(self.full())


class Runtime:
    """A handle on the core: compiled once, instances pooled. Use :func:`shared`."""

    def __init__(self, wasm: bytes | None = None, *, crossing: str = "auto") -> None:
        if crossing not in CROSSINGS:
            raise ValueError(f"crossing must be one of {CROSSINGS}, not {crossing!r}")
        self.engine = _wasm.Engine()
        self._wasm = wasm
        if wasm is None and not os.environ.get("ONCELY_CORE_WASM"):
            # The component the package ships: its hash is known, and its bytes are read only
            # to compile it (a process whose cache holds the compiled module never reads them).
            self.digest = _exports.COMPONENT_SHA256
        else:
            # Given bytes, or the file $ONCELY_CORE_WASM names: read now, to know their hash.
            self._wasm = wasm if wasm is not None else component_bytes()
            self.digest = _sha256(self._wasm)
            if self.digest != _exports.COMPONENT_SHA256 and crossing != "component":
                raise CodecError(
                    "this component is not the one oncely._exports was written from (run"
                    " scripts/mirrors): only crossing='component' reads a component's own types"
                )
        self.crossing = crossing
        self._module: _wasm.Module | None = None
        self._components: _Components | None = None
        self._components_lock = _thread.allocate_lock()
        classes = registry()
        self.abi_functions = AbiFunctions(Abi(classes), crossing)
        self.wire = Wire(classes)
        self._run_types = _exports.WIRE["effect.run"]
        self._run_codec: _RunCodec | None = None
        self.exports: dict[str, str] = {}
        """The core module's export of each function (``package/interface@version#function``)."""
        for key in _exports.FUNCTIONS:
            iface, fname = key.split(".", 1)
            self.exports[key] = f"{PACKAGE}/{iface}@{VERSION}#{fname}"
        for alias, (target, _) in PROJECTIONS.items():
            self.exports[alias] = self.exports[target]
        self._pool: list[_Slot] = []

    @property
    def wasm(self) -> bytes:
        """The component's bytes (read now if not yet; those of the package's own component
        must be what its mirrors were written from)."""
        w = self._wasm
        if w is None:
            w = component_bytes()
            if _sha256(w) != self.digest:
                raise CodecError(
                    "the packaged component is not the one oncely._exports was written from"
                    " (run scripts/mirrors)"
                )
            self._wasm = w
        return w

    @property
    def module(self) -> _wasm.Module:
        """The core module inside the component, compiled at the first instance that needs it."""
        m = self._module
        if m is None:
            m = self._module = _load_module(self.engine, self.digest, lambda: self.wasm)
        return m

    @property
    def components(self) -> _Components:
        """The component crossing (wasmtime-py imported and the component compiled now if not
        yet)."""
        c = self._components
        if c is None:
            with self._components_lock:
                c = self._components
                if c is None:
                    c = self._components = _Components(self.wasm, self.digest)
        return c

    def call(self, name: str, *args: Any) -> Any:
        """Call the export ``name`` (``"interface.function"``) on a pooled instance."""
        return self._call(name, args, abi_call)

    def call_bytes(self, name: str, data: bytes | bytearray) -> bytes:
        """Call the export ``name`` of ``(list<u8>) -> list<u8>`` with ``data``: the same call
        as :meth:`call`, through the core crossing's copy-in, copy-out path
        (:func:`oncely._abi.call_bytes`)."""
        return self._call(name, (data,), abi_call_bytes)  # type: ignore[no-any-return]

    def _call(self, name: str, args: tuple[Any, ...], via: Callable[..., Any]) -> Any:
        pool = self._pool
        try:
            slot = pool.pop()  # list.pop is atomic under the GIL
        except IndexError:
            slot = _Slot(self)
        # A call that raises drops its instance, never pools it: after a trap the instance may
        # be in any state, and allocations a failed lowering made are nobody's.
        fn = self.abi_functions[name]
        if fn is None:
            result = self._component_call(slot, name, args)
        else:
            bound = slot.bound.get(name) or slot.bind(name, fn)
            try:
                result = via(bound, slot.core, args)
            except _wasm.WasmError as trap:
                raise errors.CoreTrap(
                    f"the core component trapped (a bug in oncely): {trap}"
                ) from trap
        if len(pool) < POOL_SIZE:
            pool.append(slot)
        return result

    def run(self, state: bytes, inp: Any, now: int) -> Any:
        """One step of a ledger machine (``effect.run``, ``wit/effect.wit``): the
        ``run-call`` in the core's encoding (:mod:`oncely._wire`), one call, the ``run-answer``
        decoded — the step (a :class:`LazyStep`), or :class:`~oncely._values.Err` of the
        intent's key error."""
        codec = self._run_codec or self._make_run_codec()
        out = bytearray()
        codec.put(codec.run_call(state, inp, now), out)
        answer = self.call_bytes("effect.run", out)
        try:
            if answer[0] == 0:  # run-answer.step
                return LazyStep(answer, codec)
            error, end = codec.key_error(answer, 1)
        except (IndexError, UnicodeDecodeError) as e:
            raise WireError(f"the core's answer is not a run-answer: {e}") from None
        if end != len(answer):
            raise WireError(f"{len(answer) - end} bytes left after the core's run-answer")
        return Err(error)

    def _make_run_codec(self) -> _RunCodec:
        c = self._run_codec = _RunCodec(self.wire, *self._run_types)
        return c

    def _component_call(self, slot: _Slot, name: str, args: tuple[Any, ...]) -> Any:
        c = self.components
        funcs = slot.component_funcs()
        try:
            return c.codec_module.call(
                c.function(name), funcs[name], slot.component[1], slot.scratch, args
            )
        except c.wasmtime.WasmtimeError as trap:
            raise errors.CoreTrap(f"the core component trapped (a bug in oncely): {trap}") from trap


_shared: Runtime | None = None
_shared_lock = _thread.allocate_lock()


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
