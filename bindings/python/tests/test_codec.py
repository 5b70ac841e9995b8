"""oncely's two crossings — the component's exports through its compiled codec
(``oncely._codec``) and the core module's exports with the Canonical ABI done in Python
(``oncely._abi``) — against wasmtime-py's own public ``component.Func.__call__``: the same
inputs must give the same answers, for every export, each crossing on its own (a runtime with
``crossing="core"`` and one with ``crossing="component"``; the default ``"auto"``, which is the
core crossing today, runs every other test). The core crossing's layouts come from the WIT types
``scripts/mirrors`` writes (``oncely._exports``), compared here with the component's own.

Both answers are normalised, guided by the function's WIT type, to plain data
(records → dicts, variants and results → ``{"tag", "payload"}``, enums → names)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from enum import Enum
from typing import Any

import pytest
import wasmtime
from scenarios import claim_for, event
from wasmtime import component as wc
from wasmtime.component import _types as wt

import oncely
from oncely import _exports, _runtime, _wasm, types
from oncely._values import Err, python_name

Vectors = Callable[[str], Any]

CASE_TAGS = {cls: tag for table in types.VARIANTS for tag, cls in table.items()}


def norm_ours(ty: wt.ValType, v: Any) -> Any:
    """Plain data from a value of the oncely classes."""
    if isinstance(ty, wt.RecordType):
        return {python_name(n): norm_ours(t, getattr(v, python_name(n))) for n, t in ty.fields}
    if isinstance(ty, wt.VariantType):
        tag = CASE_TAGS[type(v)]
        case_ty = dict(ty.cases)[tag]
        if case_ty is None:
            return {"tag": tag, "payload": None}
        names = [f.name for f in dataclasses.fields(v)]
        direct = isinstance(case_ty, wt.RecordType) and names == [
            python_name(n) for n, _ in case_ty.fields
        ]
        payload = v if direct else getattr(v, names[0])
        return {"tag": tag, "payload": norm_ours(case_ty, payload)}
    if isinstance(ty, wt.ResultType):
        if isinstance(v, Err):
            return {"tag": "err", "payload": norm_ours(ty.err, v.error)}
        return {"tag": "ok", "payload": norm_ours(ty.ok, v)}
    if isinstance(ty, wt.OptionType):
        return None if v is None else norm_ours(ty.payload, v)
    if isinstance(ty, wt.ListType):
        if isinstance(ty.element, wt.U8):
            return bytes(v)
        return [norm_ours(ty.element, x) for x in v]
    if isinstance(ty, wt.EnumType):
        assert isinstance(v, Enum)
        return v.value
    return v


def norm_theirs(ty: wt.ValType, v: Any) -> Any:
    """Plain data from a value as wasmtime-py lifts it."""
    if isinstance(ty, wt.RecordType):
        return {python_name(n): norm_theirs(t, getattr(v, n)) for n, t in ty.fields}
    if isinstance(ty, wt.VariantType):
        if ty._tagged():
            assert isinstance(v, wc.Variant)
            tag, payload = v.tag, v.payload
        else:  # untagged: the case is told by the payload's Python class
            tag, payload = _untagged_case(ty, v), v
        case_ty = dict(ty.cases)[tag]
        return {"tag": tag, "payload": None if case_ty is None else norm_theirs(case_ty, payload)}
    if isinstance(ty, wt.ResultType):
        if isinstance(v, wc.Variant):  # tagged: ok and err map to the same Python class
            sub = ty.ok if v.tag == "ok" else ty.err
            return {"tag": v.tag, "payload": norm_theirs(sub, v.payload)}
        ok_classes: set[type] = set()
        ty.ok.add_classes(ok_classes)
        tag = "ok" if isinstance(v, tuple(ok_classes)) else "err"
        return {"tag": tag, "payload": norm_theirs(ty.ok if tag == "ok" else ty.err, v)}
    if isinstance(ty, wt.OptionType):
        return None if v is None else norm_theirs(ty.payload, v)
    if isinstance(ty, wt.ListType):
        if isinstance(ty.element, wt.U8):
            return bytes(v)
        return [norm_theirs(ty.element, x) for x in v]
    return v


def _untagged_case(ty: wt.VariantType, v: Any) -> str:
    for tag, case_ty in ty.cases:
        if case_ty is None:
            if v is None:
                return tag
            continue
        classes: set[type] = set()
        case_ty.add_classes(classes)
        if isinstance(v, tuple(classes)):
            return tag
    raise AssertionError(f"{v!r} is no case of {ty.cases}")


def to_theirs(ty: wt.ValType, v: Any) -> Any:
    """A value of the oncely classes as wasmtime-py takes it."""
    if isinstance(ty, wt.RecordType):
        r = wc.Record()
        for n, t in ty.fields:
            setattr(r, n, to_theirs(t, getattr(v, python_name(n))))
        return r
    if isinstance(ty, wt.VariantType):
        plain = norm_ours(ty, v)
        case_ty = dict(ty.cases)[plain["tag"]]
        payload = None
        if case_ty is not None:
            payload = _from_plain(case_ty, plain["payload"])
        return wc.Variant(plain["tag"], payload) if ty._tagged() else payload
    if isinstance(ty, wt.OptionType):
        return None if v is None else to_theirs(ty.payload, v)
    if isinstance(ty, wt.ListType):
        return v if isinstance(ty.element, wt.U8) else [to_theirs(ty.element, x) for x in v]
    if isinstance(ty, wt.EnumType):
        return v.value if isinstance(v, Enum) else v
    return v


def _from_plain(ty: wt.ValType, p: Any) -> Any:
    if isinstance(ty, wt.RecordType):
        r = wc.Record()
        for n, t in ty.fields:
            setattr(r, n, _from_plain(t, p[python_name(n)]))
        return r
    if isinstance(ty, wt.VariantType):
        case_ty = dict(ty.cases)[p["tag"]]
        payload = None if case_ty is None else _from_plain(case_ty, p["payload"])
        return wc.Variant(p["tag"], payload) if ty._tagged() else payload
    if isinstance(ty, wt.OptionType):
        return None if p is None else _from_plain(ty.payload, p)
    if isinstance(ty, wt.ListType):
        return p if isinstance(ty.element, wt.U8) else [_from_plain(ty.element, x) for x in p]
    return p


class Reference:
    """The component through wasmtime-py's public API only, beside a runtime of one crossing."""

    def __init__(self, crossing: str) -> None:
        rt = _runtime.Runtime(crossing=crossing)
        c = rt.components  # the component, its engine and its export indices
        self.store = wasmtime.Store(c.engine)
        self.instance = c.linker.instantiate(self.store, c.component)
        self.rt = rt
        self.types: dict[str, wc.FuncType] = {}
        for iface_name, ext in c.component.type.exports(c.engine).items():
            iface = iface_name.split("/")[1].split("@")[0]
            for fname, item in ext.ty.exports(c.engine).items():
                if isinstance(item.ty, wc.FuncType):
                    self.types[f"{iface}.{fname}"] = item.ty

    def compare(self, name: str, *args: Any) -> Any:
        fty = self.types[name]
        func = self.instance.get_func(self.store, self.rt.components.indices[name])
        assert func is not None
        params = [t for _, t in fty.params]
        theirs = func(self.store, *[to_theirs(t, a) for t, a in zip(params, args, strict=True)])
        ours = self.rt.call(name, *args)
        assert fty.result is not None
        a, b = norm_ours(fty.result, ours), norm_theirs(fty.result, theirs)
        assert a == b, f"{name}{args!r}:\nours   {a}\ntheirs {b}"
        return ours

    def run(self, state: bytes, inp: Any, now: int) -> Any:
        """One ``effect.run`` step: the ``run-call`` encoded by ``_wire``, the same answer from
        both crossings, decoded as ``Runtime.run`` decodes it."""
        call_type, answer_type = _exports.WIRE["effect.run"]
        answer = self.compare(
            "effect.run", self.rt.wire.encode(call_type, oncely.types.RunCall(state, inp, now))
        )
        step = self.rt.run(state, inp, now)
        # (repr: an error record arrives as an exception, and exceptions compare by identity)
        assert repr(self.rt.wire.decode(answer_type, answer)) == repr(step)
        return step.full() if isinstance(step, _runtime.LazyStep) else step


CROSSINGS = ("core", "component")


@pytest.fixture(scope="module", params=CROSSINGS)
def ref(request: pytest.FixtureRequest) -> Reference:
    return Reference(request.param)


def test_every_export_is_compiled(ref: Reference) -> None:
    # Compiling each export checks every mirror class it uses against the component (the
    # component call), and against the generated WIT types of oncely._exports (the core call).
    components = ref.rt.components
    components.compile_all()
    ref.rt.abi_functions.compile_all()
    declared = set(components.types)
    assert declared == set(_exports.FUNCTIONS) | set(_runtime.PROJECTIONS)
    # Every export has its direct call: none falls back to the component unless chosen to.
    direct = {name for name in declared if ref.rt.abi_functions[name] is not None}
    assert direct == (declared if ref.rt.crossing == "core" else set())
    assert set(ref.types) == set(_exports.FUNCTIONS)
    assert {name.split(".")[0] for name in _exports.FUNCTIONS} == {
        "canonical",
        "keys",
        "policy",
        "ledger",
        "effect",
        "provider",
        "agent",
    }


def plain(ty: Any) -> Any:
    """A type of wasmtime's component API written as oncely._exports writes one."""
    scalars = {wt.String: "string", wt.Bool: "bool", wt.U8: "u8", wt.U16: "u16", wt.U32: "u32"}
    scalars[wt.U64] = "u64"
    if type(ty) in scalars:
        return scalars[type(ty)]
    if isinstance(ty, wt.ListType):
        return ("list", plain(ty.element))
    if isinstance(ty, wt.OptionType):
        return ("option", plain(ty.payload))
    if isinstance(ty, wt.TupleType):
        return ("tuple", tuple(plain(t) for t in ty.elements))
    if isinstance(ty, wt.ResultType):
        return ("result", *(None if t is None else plain(t) for t in (ty.ok, ty.err)))
    if isinstance(ty, wt.RecordType):
        return ("record", tuple((n, plain(t)) for n, t in ty.fields))
    if isinstance(ty, wt.EnumType):
        return ("enum", tuple(ty.names))
    if isinstance(ty, wt.VariantType):
        return ("variant", tuple((n, None if t is None else plain(t)) for n, t in ty.cases))
    raise AssertionError(f"a WIT type oncely._exports does not write: {ty!r}")


def unnamed(ty: Any) -> Any:
    """An oncely._exports type without the names of its records, enums and variants (the
    component's type information does not carry them)."""
    if not isinstance(ty, tuple):
        return ty
    if ty[0] in ("record", "variant"):
        return (ty[0], tuple((n, unnamed(t)) for n, t in ty[2]))
    if ty[0] == "enum":
        return ("enum", ty[2])
    if ty[0] == "tuple":
        return ("tuple", tuple(unnamed(t) for t in ty[1]))
    return (ty[0], *(unnamed(t) for t in ty[1:]))


def test_the_generated_types_are_the_components(ref: Reference) -> None:
    """oncely._exports (scripts/mirrors) against the component's own type information: every
    parameter and result of every export, field by field, case by case."""
    assert set(ref.types) == set(_exports.FUNCTIONS)
    for name, fty in ref.types.items():
        params, result = _exports.FUNCTIONS[name]
        assert [(n, unnamed(t)) for n, t in params] == [(n, plain(t)) for n, t in fty.params]
        assert unnamed(result) == (None if fty.result is None else plain(fty.result)), name
    assert hashlib.sha256(_runtime.component_bytes()).hexdigest() == _exports.COMPONENT_SHA256


def test_a_component_other_than_the_mirrors_takes_the_component_crossing_only() -> None:
    other = _runtime.component_bytes() + bytes([0, 1, 0])  # a custom section: another component
    with pytest.raises(TypeError, match="scripts/mirrors"):
        _runtime.Runtime(other, crossing="core")
    rt = _runtime.Runtime(other, crossing="component")
    assert rt.call("canonical.canonicalize", "[1.0]") == "[1]"


def test_the_component_named_by_the_environment_is_the_one_run(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # $ONCELY_CORE_WASM: the shipped bytes take either crossing; other bytes, the component's.
    shipped = tmp_path / "shipped.wasm"
    shipped.write_bytes(_runtime.component_bytes())
    monkeypatch.setenv("ONCELY_CORE_WASM", str(shipped))
    rt = _runtime.Runtime(crossing="core")
    assert rt.digest == _exports.COMPONENT_SHA256
    assert rt.call("canonical.canonicalize", "[1.0]") == "[1]"
    other = tmp_path / "other.wasm"
    other.write_bytes(_runtime.component_bytes() + bytes([0, 1, 0]))
    monkeypatch.setenv("ONCELY_CORE_WASM", str(other))
    with pytest.raises(TypeError, match="scripts/mirrors"):
        _runtime.Runtime(crossing="core")
    rt = _runtime.Runtime(crossing="component")
    assert rt.digest == hashlib.sha256(other.read_bytes()).hexdigest()
    assert rt.call("canonical.canonicalize", "[1.0]") == "[1]"


def test_pure_functions_match(ref: Reference, vectors: Vectors) -> None:
    for c in vectors("canonical.json")["cases"][:20]:
        if "input" in c:
            ref.compare("canonical.canonicalize", c["input"])
        ref.compare(
            "canonical.canonicalize-bytes",
            bytes.fromhex(c["input_hex"]) if "input_hex" in c else c["input"].encode(),
        )
    ref.compare("canonical.max-input-bytes")
    ref.compare("canonical.max-depth")
    spec = ref.compare("keys.default-spec")
    for c in vectors("keys.json")["cases"]:
        i = c["intent"]
        intent = oncely.Intent(i["scope"], i["run"], i["step"], i["tool"], i["args"])
        kspec = oncely.key_spec(c["policy"])
        ref.compare("keys.derive", intent, kspec)
        ref.compare("keys.derive-many", [intent, intent], kspec)
    for c in vectors("explain.json")["cases"]:
        a, b = (oncely.Intent(x["scope"], x["run"], x["step"], x["tool"], x["args"])
                for x in (c["a"], c["b"]))  # fmt: skip
        ref.compare("keys.explain", a, b, oncely.key_spec(c["policy"]))
    doc = vectors("policy.json")
    for c in doc["policies"]:
        ref.compare("policy.parse-policy", c.get("policy_text") or json.dumps(c["policy"]))
    for c in doc["resolve"]:
        ref.compare("policy.resolve-tool", json.dumps(c["tool"]))
    for c in doc["manifests"]:
        ref.compare("policy.check-manifest", json.dumps(c["manifest"]))
    for cls in oncely.EffectClass:
        ref.compare("policy.default-policy", cls)
    ref.compare("policy.classify", oncely.ToolAnnotations(True, None, None, None))
    ref.compare("policy.classify", oncely.ToolAnnotations(False, False, True, None))
    assert spec == oncely.default_spec()


def test_ledger_functions_match(ref: Reference, vectors: Vectors) -> None:
    """Every step of every ledger scenario through the event machine (``effect.run``: records,
    variants, options and bytes in both directions), and ``prepare``."""
    for sc in vectors("ledger.json")["scenarios"]:
        i = sc["intent"]
        intent = oncely.Intent(i["scope"], i["run"], i["step"], i["tool"], i["args"])
        ref.compare("ledger.prepare", intent, oncely.parse_policy(sc["policy"]), "w1")
        ref.compare("ledger.prepare", intent, oncely.parse_policy(sc["policy"]), "")
        claim_for(sc, "w1")
        own = claim_for(sc, "w1")
        entry: oncely.Entry | None = None
        for step in sc["steps"]:
            ev, claim = event(sc, step)
            at = claim or own
            start = oncely.types.Start(oncely.types.EventStart(at.scope, at.key, ev))
            s = ref.run(b"", start, step["now"])
            s = ref.run(s.state, oncely.types.RowInput(entry), step["now"])
            if s.write is not None:
                w = s.write
                entry = None if w.op is oncely.types.WriteOp.DELETE else w.row
                ref.run(s.state, oncely.types.Written(), step["now"])
            if entry is not None:
                # What `oncely serve` asks of an entry and of each history record.
                ref.compare(
                    "ledger.attention-since", entry.state, entry.in_doubt_since, entry.updated_at
                )
                ref.compare("ledger.history-decision", entry.state, entry.settlement)


@pytest.mark.parametrize("crossing", (*CROSSINGS, "auto"))
def test_wrong_argument_types_are_refused_before_the_call(crossing: str) -> None:
    rt = _runtime.Runtime(crossing=crossing)
    with pytest.raises(TypeError):
        rt.call("canonical.canonicalize", b"{}")
    with pytest.raises(TypeError):
        rt.call("keys.derive", {"scope": "a"}, oncely.default_spec())
    with pytest.raises(TypeError):
        rt.run(b"", oncely.types.Written(), -1)
    with pytest.raises(TypeError):
        rt.run(b"", oncely.types.Written(), True)
    with pytest.raises(TypeError):
        rt.run(b"", oncely.types.Written, 1)  # the class, not a value
    with pytest.raises(oncely.EncodingError):
        rt.call("canonical.canonicalize", "\ud800")
    # The runtime is still usable afterwards.
    assert rt.call("canonical.canonicalize", "[1.0]") == "[1]"
    assert rt.run(b"", oncely.types.Written(), 1).action is not None


@pytest.mark.parametrize("crossing", CROSSINGS)
def test_a_trap_fails_that_call_only(crossing: str) -> None:
    """Arguments larger than an instance's memory may grow to: the core's allocator traps (in
    the component's adapter or in ``_abi``'s ``cabi_realloc`` call); that call fails with
    CoreTrap, the instance is dropped, and the next call runs on a fresh one."""
    rt = _runtime.Runtime(crossing=crossing)
    assert rt.call("canonical.canonicalize", "[2.0]") == "[2]"
    huge = " " * (_runtime.MEMORY_LIMIT_BYTES + 1)
    with pytest.raises(oncely.CoreTrap):
        rt.call("canonical.canonicalize", huge)
    del huge
    assert rt.call("canonical.canonicalize", "[3.0]") == "[3]"


def test_large_values_cross_intact() -> None:
    big = {"s": "é" * 300_000, "n": list(range(2000))}
    text = json.dumps(big, ensure_ascii=False, indent=1)
    out = oncely.canonicalize(text)
    assert json.loads(out) == big
    assert oncely.canonicalize(out) == out
    assert oncely.canonicalize(text.encode()) == out


def test_provider_functions_match(ref: Reference, vectors: Vectors) -> None:
    """The provider interface (u16, tuples of strings, bytes, nested variants) both ways.
    ``admit`` (a result whose ok case is itself a variant, which this reference's normaliser
    cannot tell from the result's own tag) is checked against its vectors' expected values in
    test_provider_vectors.py; its arguments are the same records as here."""
    from test_provider_vectors import _body, _error

    doc = vectors("provider.json")
    for c in doc["admit"]:
        o = c["operation"]
        op = oncely.types.Operation(o["tool"], o["policy"], o["required"])
        ref.compare("provider.check-operation", op)
    for c in doc["record"]:
        r = c["response"]
        headers = [tuple(h) for h in r["headers"]]
        ref.compare(
            "provider.record-http", oncely.types.HttpResponse(r["status"], headers, _body(r))
        )
    for c in doc["replay"]:
        ref.compare("provider.replay-http", c["recorded"])
    for c in doc["refuse"]:
        ref.compare("provider.refuse", _error(c["error"]), c["handlerRan"])


def test_agent_functions_match(ref: Reference, vectors: Vectors) -> None:
    """The agent interface (options, an error record that arrives as an exception, a variant of
    variants) both ways, on every case of its vectors."""
    from test_agent_vectors import _failure, _meta_json

    doc = vectors("adapters.json")
    for c in doc["identify"]:
        call = c["call"]
        identity = (call.get("key") or {}).get("identity", "step")
        ctx = oncely.types.CallContext(
            call["tool"],
            oncely.KeyIdentity(identity),
            None if "class" not in call else oncely.types.EffectClass(call["class"]),
            *(call.get(f) for f in ("scope", "run", "step", "conversation")),
            _meta_json(call),
            *(call.get(f) for f in ("paramsKey", "session", "defaultScope", "defaultRun")),
        )
        ref.compare("agent.identify", ctx)
    for c in doc["answer"]:
        ref.compare("agent.answer", _failure(c["failure"])[0])
    req = oncely.types.ApprovalRequest("acme", "oncely1:ab", "charge", '{"n":1}', 3, 1000)
    for client in ("desk", "", None):
        ref.compare("agent.approval-prompt", req, client)


def test_the_core_crossing_leaks_nothing(vectors: Vectors) -> None:
    """Every block ``_abi`` allocates for arguments is the callee's to free (the strings, the
    lists, the block of indirect parameters), and every result is released by the export's
    post-return: thousands of calls on one instance leave its memory as it was."""
    rt = _runtime.Runtime(crossing="core")
    sc = vectors("ledger.json")["scenarios"][0]
    i = sc["intent"]
    intent = oncely.Intent(i["scope"], i["run"], i["step"], i["tool"], i["args"])
    policy = oncely.parse_policy(sc["policy"])
    options = oncely.types.EffectOptions("w1", 0, None, False, None)
    start = oncely.types.Start(oncely.types.EffectStart(intent, policy, options))
    spec = oncely.default_spec()

    def calls() -> None:
        s = rt.run(b"", start, 1_000)
        rt.run(s.state, oncely.types.RowInput(None), 1_000)
        rt.call("keys.key", intent, spec)
        rt.call("keys.derive-many", [intent, intent], spec)
        rt.call("ledger.prepare", intent, policy, "w1")
        rt.call("canonical.max-depth")

    calls()
    (slot,) = rt._pool
    core = slot.core
    size = ctypes_memory_size(core)
    for _ in range(3_000):
        calls()
    assert rt._pool == [slot], "one instance answered every call"
    assert ctypes_memory_size(core) == size


def ctypes_memory_size(core: Any) -> int:
    return int(_wasm.memory_data_size(core.context, core.memory))
