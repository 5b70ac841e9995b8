"""The pure functions: canonical JSON, keys, explanations, policies and the release gate.

Every answer comes from the core component; this module only converts Python values to the
core's inputs (JSON text, records) and the core's answers to Python values or exceptions.
"""

from __future__ import annotations

import _thread  # its Lock, without importing threading (~1 ms of a first key)
from collections.abc import Callable, Iterable, Mapping

from oncely import _json, _runtime
from oncely._values import Err
from oncely.errors import CanonError, EncodingError, KeyDerivationError, PolicyError
from oncely.types import (
    CallContext,
    CallFailure,
    CoreDefaults,
    DerivedKey,
    EffectClass,
    Explanation,
    Identity,
    Intent,
    KeyIdentity,
    KeySpec,
    ManifestReport,
    Reply,
    ResolvedTool,
    ToolAnnotations,
    ToolPolicy,
)

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from oncely._aliases import Args, IntentLike, PolicyLike


def _rt() -> _runtime.Runtime:
    return _runtime.shared()


def _unwrap(result: Any) -> Any:
    if isinstance(result, Err):
        raise result.error
    return result


def _surrogate_at(s: str) -> int:
    """The index of the first lone surrogate of ``s``, or -1.

    UTF-8 encodes every code point of a ``str`` but a surrogate (in a ``str`` every surrogate
    stands alone), so the encoder's first failure is the answer: faster than a regular
    expression's search on non-ASCII text, in C either way.
    """
    if s.isascii():
        return -1
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        return e.start
    return -1


def _id(field: str, value: Any) -> str:
    """An id (scope, run, step, tool) as a plain ``str`` the core can take."""
    if type(value) is not str:
        if not isinstance(value, str):
            raise TypeError(f"{field} must be a str, not {type(value).__name__}")
        value = str.__str__(value)  # a str subclass (an enum member…) as its plain text
    text: str = value
    at = _surrogate_at(text)
    if at >= 0:
        raise EncodingError(field, at)
    return text


_limits: tuple[int, int] | None = None


def limits() -> tuple[int, int]:
    """``(max_input_bytes, max_depth)``: the largest JSON input and the deepest nesting the
    core accepts."""
    global _limits
    if _limits is None:
        rt = _rt()
        _limits = (rt.call("canonical.max-input-bytes"), rt.call("canonical.max-depth"))
    return _limits


def _encode(value: Any, coerce_names: bool = False) -> str | _json.Cut:
    max_bytes, max_depth = limits()
    return _json.encode(value, max_depth, max_bytes, coerce_names=coerce_names)


def _judge(text: str | bytes) -> CanonError | None:
    """The core's error for JSON text (a ``str`` that may hold a lone surrogate, or bytes),
    or ``None`` when the core accepts it."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    r = _rt().call("canonical.canonicalize-bytes", data)
    return r.error if isinstance(r, Err) else None


def _cut_error(cut: _json.Cut) -> CanonError:
    """The error for a value that could not be written as JSON in full: the core's for the text
    before the problem when that text already holds one (the first in document order wins, as
    in the core), else the problem's. A level too deep or a text too large is the core's to
    report, on the text as written."""
    core = _judge(cut.text)
    if cut.error is None or (core is not None and core.offset < cut.error.offset):
        assert core is not None, "the core accepted a cut JSON text"
        return core
    return cut.error


def to_json_text(value: Any) -> str:
    """JSON text of a JSON-compatible object, compact and without ASCII escaping. The core
    canonicalizes it; Python only serialises, without recursion (see :mod:`oncely._json`).

    Raises :class:`~oncely.CanonError` for a value JSON cannot carry (NaN, an infinity, a
    member name that is not a ``str``, a type such as ``set`` or ``bytes``) and for nesting the
    core refuses, with the JSON pointer of the value in the message. A lone surrogate in a
    string is left in the text, for the core to report (see :func:`canonicalize`).
    """
    text = _encode(value)
    if isinstance(text, _json.Cut):
        raise _cut_error(text)
    return text


def result_json(value: Any) -> str:
    """JSON text of a tool's result (or of a reconciler's or a human's, :func:`oncely.happened`):
    as :func:`to_json_text`, except that ``int``, ``float``, ``bool`` and ``None`` member names
    are written as :func:`json.dumps` writes them (``{1: "x"}`` as ``{"1":"x"}``). A result
    makes no key; a replay returns it as :func:`json.loads` decodes it.

    Raises :class:`~oncely.CanonError` for a value JSON cannot carry (NaN, a ``set``, a cycle,
    nesting deeper than the core accepts).
    """
    text = _encode(value, coerce_names=True)
    if isinstance(text, _json.Cut):
        raise _cut_error(text)
    return text


def _args_text(args: Args) -> str | bytes | CanonError:
    """Arguments as JSON text; as bytes when they are not Unicode text (bytes that are not
    UTF-8, or text holding a lone surrogate as WTF-8) so that the core reports the problem;
    or the error for a value that cannot be written as JSON."""
    if isinstance(args, str):
        text = args if type(args) is str else str.__str__(args)
    elif isinstance(args, (bytes, bytearray, memoryview)):
        data = bytes(args)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data
    else:
        written = _encode(args)
        if isinstance(written, _json.Cut):
            return _cut_error(written)
        text = written
    if _surrogate_at(text) >= 0:
        return text.encode("utf-8", "surrogatepass")
    return text


def canonicalize(text: str | bytes) -> str:
    """The RFC 8785 canonical form of the JSON text ``text``.

    A ``str`` that holds a lone surrogate (which Python allows) is sent to the core as
    WTF-8 bytes, so the core reports ``lone-surrogate`` itself instead of the text being
    silently altered; ``bytes`` are sent as they are (``invalid-utf8`` when they are not UTF-8).

    Raises :class:`~oncely.CanonError` with the kind, byte offset, line and column of the first
    offending byte.
    """
    rt = _rt()
    if isinstance(text, str):
        if type(text) is not str:
            text = str.__str__(text)
        if _surrogate_at(text) < 0:
            r = rt.call("canonical.canonicalize", text)
        else:
            r = rt.call("canonical.canonicalize-bytes", text.encode("utf-8", "surrogatepass"))
    elif isinstance(text, (bytes, bytearray, memoryview)):
        r = rt.call("canonical.canonicalize-bytes", bytes(text))
    else:
        raise TypeError(f"canonicalize takes JSON text (str or bytes), not {type(text).__name__}")
    return _unwrap(r)  # type: ignore[no-any-return]


def canonicalize_value(value: Any) -> str:
    """The canonical JSON of a JSON-compatible Python object (serialised, then canonicalized
    by the core). Raises :class:`~oncely.CanonError` as :func:`canonicalize` does, and for a
    value JSON cannot carry (see :func:`to_json_text`)."""
    return canonicalize(to_json_text(value))


def _document(doc: Any) -> str:
    """A policy or tool-list document (JSON text, UTF-8 bytes or Python objects) as text the
    core's policy reader takes; a JSON error is the core's JSON error as that reader reports it
    (:class:`~oncely.PolicyError` at ``""``)."""
    text = _args_text(doc)
    if isinstance(text, str):
        return text
    canon = text if isinstance(text, CanonError) else _judge(text)
    assert canon is not None, "the core accepted JSON text that is not Unicode"
    raise PolicyError("", canon.message)


_policy_cache: dict[str, ToolPolicy] = {}
_policy_lock = _thread.allocate_lock()
_POLICY_CACHE_SIZE = 1024


_defaults: CoreDefaults | None = None


def core_defaults() -> CoreDefaults:
    """The core's defaults (``effect.defaults``): what every option left out means, the same in
    every host. Read once."""
    global _defaults
    if _defaults is None:
        _defaults = _rt().call("effect.defaults")
    return _defaults


def parse_policy(policy: str | Mapping[str, Any] | ToolPolicy | None) -> ToolPolicy:
    """Read an oncely policy document (``policy.parse-policy``): JSON text or a mapping such as
    ``{"class": "irreversible-external", "key": {"only": ["/charge_id"]}, "reconcile":
    "provider-idempotent"}``. Parsed policies are cached by their JSON text.

    ``None``: the core's default policy (``core-defaults.policy``: irreversible-external, every
    argument keyed, reconciled by nobody), safe for any tool.

    Raises :class:`~oncely.PolicyError` with the JSON pointer of the offending value.
    """
    if policy is None:
        return core_defaults().policy
    if isinstance(policy, ToolPolicy):
        return policy
    text = _document(policy)
    hit = _policy_cache.get(text)
    if hit is not None:
        return hit
    parsed: ToolPolicy = _unwrap(_rt().call("policy.parse-policy", text))
    with _policy_lock:
        if len(_policy_cache) >= _POLICY_CACHE_SIZE:
            _policy_cache.clear()
        _policy_cache[text] = parsed
    return parsed


_default_spec: KeySpec | None = None


def default_spec() -> KeySpec:
    """The key spec used when a policy declares none: all arguments, identity ``step``."""
    global _default_spec
    if _default_spec is None:
        _default_spec = _rt().call("keys.default-spec")
    return _default_spec


def key_spec(policy: PolicyLike) -> KeySpec:
    """The key spec of ``policy`` (its declared spec, else the default)."""
    if policy is None:
        return default_spec()
    if isinstance(policy, KeySpec):
        return policy
    parsed = parse_policy(policy)
    return parsed.key if parsed.key is not None else default_spec()


class BadArgs:
    """An intent whose arguments cannot reach the core as JSON text (bytes that are not UTF-8,
    text holding a lone surrogate, a value JSON cannot carry). ``intent`` carries the ids and a
    stand-in for the arguments (empty text, which the core refuses as ``invalid-args``), so the
    core still judges everything it checks before the arguments; ``canon`` is the error for the
    real arguments."""

    __slots__ = ("canon", "intent")

    def __init__(self, intent: Intent, canon: CanonError) -> None:
        self.intent = intent
        self.canon = canon

    def error(self, ask: Callable[[Intent], Any]) -> KeyDerivationError:
        """The error the core gives for the real intent (``keys.args-refused``): ``ask`` calls
        the core with the stand-in intent; an error it finds before the arguments wins
        (``docs/key-scheme.md``, "Which error is reported"), else it is ``invalid-args`` with
        :attr:`canon`."""
        r = ask(self.intent)
        found = r.error if isinstance(r, Err) else None
        error: KeyDerivationError = _rt().call("keys.args-refused", found, self.canon)
        return error


def make_intent(*, scope: str, run: str, step: str, tool: str, args: Args) -> Intent | BadArgs:
    """An :class:`Intent` (args as JSON text), or a :class:`BadArgs` when the arguments cannot
    be JSON text. Raises :class:`~oncely.EncodingError` for an id holding a lone surrogate
    (checked first, in the core's order: scope, tool, run, step)."""
    scope = _id("scope", scope)
    tool = _id("tool", tool)
    run = _id("run", run)
    step = _id("step", step)
    text = _args_text(args)
    if isinstance(text, str):
        return Intent(scope, run, step, tool, text)
    canon = text if isinstance(text, CanonError) else _judge(text)
    assert canon is not None, "the core accepted JSON text that is not Unicode"
    return BadArgs(Intent(scope, run, step, tool, ""), canon)


def intent_of(value: IntentLike) -> Intent | BadArgs:
    """An :class:`Intent` from an intent or a ``{"scope","run","step","tool","args"}`` mapping."""
    if isinstance(value, Intent):
        return make_intent(
            scope=value.scope,
            run=value.run_id,
            step=value.step_id,
            tool=value.tool,
            args=value.args_json,
        )
    return make_intent(
        scope=value["scope"],
        run=value["run"],
        step=value["step"],
        tool=value["tool"],
        args=value["args"],
    )


def _opt(field: str, value: str | None) -> str | None:
    return None if value is None else _id(field, value)


def identify(
    *,
    tool: str,
    key_identity: KeyIdentity | str = KeyIdentity.STEP,
    effect_class: EffectClass | str | None = None,
    scope: str | None = None,
    run: str | None = None,
    step: str | None = None,
    conversation: str | None = None,
    meta_json: str = "",
    params_key: str | None = None,
    session: str | None = None,
    default_scope: str | None = None,
    default_run: str | None = None,
) -> Identity:
    """Which intent a tool call is, as the core decides it for every host (``agent.identify``,
    docs/choosing-keys.md): its scope, run and step, where each came from, and the identity to
    key it with (``key_identity`` is the tool's key spec's; with no step, ``step`` is keyed by
    ``run``). ``effect_class`` is the tool's class when known: a class that passes through
    (read-only, overwriting write) needs no run, and with none is keyed by its scope. An empty
    string names nothing, as ``None`` does.

    Raises :class:`~oncely.IdentityError` (a :class:`LookupError`): ``no-run`` when nothing
    names a run and the key needs one, ``invalid-meta`` for an MCP ``_meta`` the core cannot
    read; :class:`~oncely.EncodingError` for a string holding a lone surrogate.
    """
    ctx = CallContext(
        _id("tool", tool),
        KeyIdentity(key_identity),
        None if effect_class is None else EffectClass(effect_class),
        _opt("scope", scope),
        _opt("run", run),
        _opt("step", step),
        _opt("conversation", conversation),
        _id("meta_json", meta_json),
        _opt("params_key", params_key),
        _opt("session", session),
        _opt("default_scope", default_scope),
        _opt("default_run", default_run),
    )
    return _unwrap(_rt().call("agent.identify", ctx))  # type: ignore[no-any-return]


def identify_keyed(
    spec: KeySpec,
    *,
    tool: str,
    scope: str | None,
    run: str | None,
    step: str | None,
    conversation: str | None = None,
    effect_class: EffectClass | None = None,
) -> tuple[Identity, KeySpec]:
    """The core's identity of a call (:func:`identify`) and ``spec`` with the identity to key
    the call with."""
    i = identify(
        tool=tool,
        key_identity=spec.identity,
        effect_class=effect_class,
        scope=scope,
        run=run,
        step=step,
        conversation=conversation,
    )
    import dataclasses  # only for a spec to change

    return i, dataclasses.replace(spec, identity=i.key_identity)


def keyed_intent(
    *,
    scope: str,
    run: str,
    step: str | None,
    tool: str,
    args: Args,
    policy: str | Mapping[str, Any] | ToolPolicy | None,
) -> tuple[Intent | BadArgs, ToolPolicy]:
    """The intent and parsed policy of a low-level call (``Ledger.run``, ``Ledger.prepare``).
    With ``step=None`` the core identifies the call (:func:`identify`): keyed by run unless the
    key is natural. A step given (even ``""``) is the intent as written."""
    parsed = parse_policy(policy)
    if step is None:
        i, spec = identify_keyed(
            parsed.key or default_spec(),
            tool=tool,
            scope=scope,
            run=run,
            step=None,
            effect_class=parsed.class_,
        )
        import dataclasses

        parsed = dataclasses.replace(parsed, key=spec)
        scope, run, step = i.scope, i.run or "", i.step or ""
    return make_intent(scope=scope, run=run, step=step, tool=tool, args=args), parsed


def answer(failure: CallFailure) -> Reply | None:
    """What the model reads for a call that did not simply return (``agent.answer``): the
    core's :class:`~oncely.types.Reply` (its ``text`` starts with ``oncely:``), or ``None`` for
    what is not the model's business (storage, the ledger, a key spec the host got wrong): that
    one propagates. :func:`oncely.adapters.reply_for` asks it for an exception oncely raised."""
    return _rt().call("agent.answer", failure)  # type: ignore[no-any-return]


def derive(
    *,
    scope: str,
    run: str,
    step: str | None = None,
    tool: str,
    args: Args,
    policy: PolicyLike = None,
) -> DerivedKey:
    """The key of an intent with what it was derived from (preimage, fingerprint, canonical
    arguments). See :func:`derive_key`."""
    return _derive("keys.derive", scope, run, step, tool, args, policy)  # type: ignore[no-any-return]


def derive_key(
    *,
    scope: str,
    run: str,
    step: str | None = None,
    tool: str,
    args: Args,
    policy: PolicyLike = None,
) -> str:
    """The idempotency key (``oncely1:`` + 64 hex digits) of a tool call's intent.

    ``step`` is optional: without one (``None``) the core identifies the call as every adapter
    does (:func:`identify`, docs/choosing-keys.md): a key spec of identity ``step`` (the default)
    is keyed by ``run``, an empty scope is ``default``, and a natural key (identity ``scope``)
    needs no run; :class:`~oncely.IdentityError` when the key needs a run and none is given. A
    step given (even ``""``) keys the intent as written.

    ``args`` is JSON text or a JSON-compatible object; member order and formatting do not
    matter. ``policy`` is an oncely policy (JSON text or mapping, parsed by the core) whose key
    spec is used, or ``None`` for the default spec (all arguments, identity ``step``). Every
    host (Rust, Python, JavaScript) derives the same key for the same intent.

    Raises :class:`~oncely.KeyDerivationError` (``invalid-args`` carries the
    :class:`~oncely.CanonError`; a value JSON cannot carry — NaN, an infinity, a member name
    that is not a ``str``, a ``set`` — is ``invalid-args`` too), :class:`~oncely.PolicyError`
    for a bad policy, or :class:`~oncely.EncodingError` for an id holding a lone surrogate.
    """
    # The core's `keys.key`: derive's key with one SHA-256 pass and nothing else copied back.
    return _derive("keys.key", scope, run, step, tool, args, policy)  # type: ignore[no-any-return]


def _derive(
    fn: str, scope: str, run: str, step: str | None, tool: str, args: Args, policy: PolicyLike
) -> Any:
    if step is None:
        # No step: the core identifies the call, as for every adapter (agent.identify).
        # The tool's class, when the policy names one: a class that passes through needs no run.
        cls = None if policy is None or isinstance(policy, KeySpec) else parse_policy(policy).class_
        i, spec = identify_keyed(
            key_spec(policy), tool=tool, scope=scope, run=run, step=None, effect_class=cls
        )
        scope, run, step = i.scope, i.run or "", i.step or ""
        intent = make_intent(scope=scope, run=run, step=step, tool=tool, args=args)
    else:
        intent = make_intent(scope=scope, run=run, step=step, tool=tool, args=args)
        spec = key_spec(policy)
    rt = _rt()
    if isinstance(intent, BadArgs):
        raise intent.error(lambda i: rt.call("keys.key", i, spec))
    return _unwrap(rt.call(fn, intent, spec))


def derive_many(
    intents: Iterable[IntentLike], *, policy: PolicyLike = None
) -> list[DerivedKey | KeyDerivationError]:
    """Derive the keys of many intents in ONE call into the core (``keys.derive-many``).

    Each result stands alone: a bad intent gives its :class:`~oncely.KeyDerivationError` in its
    place and does not fail the others (an id holding a lone surrogate raises
    :class:`~oncely.EncodingError`).
    """
    spec = key_spec(policy)
    rt = _rt()
    prepared = [intent_of(i) for i in intents]
    good = [i for i in prepared if isinstance(i, Intent)]
    results = iter(rt.call("keys.derive-many", good, spec) if good else [])
    out: list[DerivedKey | KeyDerivationError] = []
    for i in prepared:
        if isinstance(i, BadArgs):
            out.append(i.error(lambda x: rt.call("keys.key", x, spec)))
        else:
            r = next(results)
            out.append(r.error if isinstance(r, Err) else r)
    return out


def derive_keys(intents: Iterable[IntentLike], *, policy: PolicyLike = None) -> list[str]:
    """The keys of many intents in one call into the core; raises the first error."""
    keys = []
    for r in derive_many(intents, policy=policy):
        if isinstance(r, KeyDerivationError):
            raise r
        keys.append(r.key)
    return keys


def explain(a: IntentLike, b: IntentLike, *, policy: PolicyLike = None) -> Explanation:
    """Why two intents do or don't share a key under one key spec: the verdict
    (``same-intent``, ``conflict``, ``different-keys``) and every difference with its effect.

    ``a`` and ``b`` are :class:`Intent` objects or ``{"scope","run","step","tool","args"}``
    mappings. Raises :class:`~oncely.KeyDerivationError` if either cannot be keyed.
    """
    ia, ib = intent_of(a), intent_of(b)
    spec = key_spec(policy)
    rt = _rt()
    if isinstance(ia, BadArgs):
        raise ia.error(lambda i: rt.call("keys.key", i, spec))
    if isinstance(ib, BadArgs):
        _unwrap(rt.call("keys.key", ia, spec))  # the first intent's error comes first
        raise ib.error(lambda i: rt.call("keys.key", i, spec))
    return _unwrap(rt.call("keys.explain", ia, ib, spec))  # type: ignore[no-any-return]


def check_tools(tool_list: str | bytes | Mapping[str, Any] | list[Any]) -> ManifestReport:
    """The release gate over an MCP tool list: a ``tools/list`` result (``{"tools": [...]}``),
    a JSON-RPC response carrying one, or a bare list of tools; JSON text or Python objects.

    ``report.passed`` is false when any finding has severity ``error``. Raises
    :class:`~oncely.PolicyError` only when the document is not JSON or holds no tool list.
    """
    text = _document(tool_list)
    return _unwrap(_rt().call("policy.check-manifest", text))  # type: ignore[no-any-return]


def resolve_tool(tool: str | Mapping[str, Any]) -> ResolvedTool:
    """One MCP tool object with its effective policy and where its class came from."""
    return _unwrap(_rt().call("policy.resolve-tool", _document(tool)))  # type: ignore[no-any-return]


def classify(annotations: ToolAnnotations | Mapping[str, Any]) -> EffectClass:
    """The effect class MCP ``ToolAnnotations`` imply (with the MCP spec's defaults)."""
    if not isinstance(annotations, ToolAnnotations):
        a = annotations
        annotations = ToolAnnotations(
            a.get("readOnlyHint"),
            a.get("destructiveHint"),
            a.get("idempotentHint"),
            a.get("openWorldHint"),
        )
    return _rt().call("policy.classify", annotations)  # type: ignore[no-any-return]


def default_policy(effect_class: EffectClass | str) -> ToolPolicy:
    """The policy of a class with every field at its default."""
    return _rt().call("policy.default-policy", EffectClass(effect_class))  # type: ignore[no-any-return]
