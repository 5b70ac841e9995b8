"""The pure functions: canonical JSON, keys, explanations, policies and the release gate.

Every answer comes from the core component; this module only converts Python values to the
core's inputs (JSON text, records) and the core's answers to Python values or exceptions.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Union

from oncely import _runtime
from oncely._codec import Err
from oncely.errors import CanonError, KeyDerivationError
from oncely.types import (
    DerivedKey,
    EffectClass,
    Explanation,
    Intent,
    KeyErrorKind,
    KeySpec,
    ManifestReport,
    ResolvedTool,
    ToolAnnotations,
    ToolPolicy,
)

JSONValue = Union[None, bool, int, float, str, list[Any], dict[str, Any]]
"""A JSON-compatible Python value (``json.dumps`` must accept it)."""

Args = Union[str, bytes, JSONValue, Mapping[str, Any]]
"""Tool arguments: JSON text (``str`` or UTF-8 ``bytes``) or a JSON-compatible object."""

PolicyLike = Union[str, Mapping[str, Any], ToolPolicy, KeySpec, None]
"""An oncely policy: policy JSON text, a policy mapping (parsed by the core), a parsed
:class:`ToolPolicy`, a bare :class:`KeySpec`, or ``None`` for the default spec."""

IntentLike = Union[Intent, Mapping[str, Any]]
"""An :class:`Intent`, or a mapping with ``scope``, ``run``, ``step``, ``tool`` and ``args``
(the shape the ``oncely`` CLI reads)."""


def _rt() -> _runtime.Runtime:
    return _runtime.shared()


def _unwrap(result: Any) -> Any:
    if isinstance(result, Err):
        raise result.error
    return result


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def to_json_text(value: Any) -> str:
    """JSON text of a JSON-compatible object, compact and without ASCII escaping. The core
    canonicalizes it; Python only serialises. ``NaN`` and infinities are refused here because
    JSON cannot carry them (``ValueError``); non-JSON types raise ``TypeError``."""
    return _encoder.encode(value)


def _args_text(args: Args) -> str | bytes:
    """Arguments as JSON text, or as raw bytes when they cannot be UTF-8 text (so that the core
    reports the problem)."""
    if isinstance(args, str):
        return args
    if isinstance(args, (bytes, bytearray, memoryview)):
        data = bytes(args)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data
    return to_json_text(args)


def _canon_bytes(data: bytes) -> CanonError:
    """The core's error for bytes that are not UTF-8 (or hold a lone surrogate)."""
    r = _rt().call("canonical.canonicalize-bytes", data)
    if isinstance(r, Err):
        error: CanonError = r.error
        return error
    raise AssertionError("the core accepted bytes that are not UTF-8")  # pragma: no cover


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
        try:
            r = rt.call("canonical.canonicalize", text)
        except UnicodeEncodeError:
            r = rt.call("canonical.canonicalize-bytes", text.encode("utf-8", "surrogatepass"))
    elif isinstance(text, (bytes, bytearray, memoryview)):
        r = rt.call("canonical.canonicalize-bytes", bytes(text))
    else:
        raise TypeError(f"canonicalize takes JSON text (str or bytes), not {type(text).__name__}")
    return _unwrap(r)  # type: ignore[no-any-return]


def canonicalize_value(value: Any) -> str:
    """The canonical JSON of a JSON-compatible Python object (serialised, then canonicalized
    by the core)."""
    return canonicalize(to_json_text(value))


_policy_cache: dict[str, ToolPolicy] = {}
_policy_lock = threading.Lock()
_POLICY_CACHE_SIZE = 1024


def parse_policy(policy: str | Mapping[str, Any] | ToolPolicy) -> ToolPolicy:
    """Read an oncely policy document (``policy.parse-policy``): JSON text or a mapping such as
    ``{"class": "irreversible-external", "key": {"only": ["/charge_id"]}, "reconcile":
    "provider-idempotent"}``. Parsed policies are cached by their JSON text.

    Raises :class:`~oncely.PolicyError` with the JSON pointer of the offending value.
    """
    if isinstance(policy, ToolPolicy):
        return policy
    text = policy if isinstance(policy, str) else to_json_text(policy)
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


def make_intent(*, scope: str, run: str, step: str, tool: str, args: Args) -> Intent | bytes:
    """An :class:`Intent` (args as JSON text), or the raw bytes of the arguments when they were
    given as bytes that are not UTF-8 (so that the core can say where)."""
    text = _args_text(args)
    if isinstance(text, bytes):
        return text
    return Intent(scope, run, step, tool, text)


def _wtf8(intent: Intent) -> bytes:
    """The arguments of an intent whose text holds a lone surrogate, as WTF-8 bytes."""
    return intent.args_json.encode("utf-8", "surrogatepass")


def intent_of(value: IntentLike) -> Intent | bytes:
    """An :class:`Intent` from an intent or a ``{"scope","run","step","tool","args"}`` mapping."""
    if isinstance(value, Intent):
        return value
    return make_intent(
        scope=value["scope"],
        run=value["run"],
        step=value["step"],
        tool=value["tool"],
        args=value["args"],
    )


def _invalid_args(raw: bytes) -> KeyDerivationError:
    """The core's ``invalid-args`` error for arguments that are not UTF-8 text: the core
    judges the bytes (``canonicalize-bytes``), and the error is wrapped as ``derive`` wraps it."""
    canon = _canon_bytes(raw)
    return KeyDerivationError(
        KeyErrorKind.INVALID_ARGS,
        None,
        canon,
        f"the arguments are not acceptable JSON: {canon.message}",
    )


def derive(
    *, scope: str, run: str, step: str, tool: str, args: Args, policy: PolicyLike = None
) -> DerivedKey:
    """The key of an intent with what it was derived from (preimage, fingerprint, canonical
    arguments). See :func:`derive_key`."""
    return _derive("keys.derive", scope, run, step, tool, args, policy)  # type: ignore[no-any-return]


def derive_key(
    *, scope: str, run: str, step: str, tool: str, args: Args, policy: PolicyLike = None
) -> str:
    """The idempotency key (``oncely1:`` + 64 hex digits) of a tool call's intent.

    ``args`` is JSON text or a JSON-compatible object; member order and formatting do not
    matter. ``policy`` is an oncely policy (JSON text or mapping, parsed by the core) whose key
    spec is used, or ``None`` for the default spec (all arguments, identity ``step``). Every
    host (Rust, Python, JavaScript) derives the same key for the same intent.

    Raises :class:`~oncely.KeyDerivationError` (``invalid-args`` carries the
    :class:`~oncely.CanonError`), or :class:`~oncely.PolicyError` for a bad policy.
    """
    # The core's `keys.key`: derive's key with one SHA-256 pass and nothing else copied back.
    return _derive("keys.key", scope, run, step, tool, args, policy)  # type: ignore[no-any-return]


def _derive(
    fn: str, scope: str, run: str, step: str, tool: str, args: Args, policy: PolicyLike
) -> Any:
    intent = make_intent(scope=scope, run=run, step=step, tool=tool, args=args)
    if isinstance(intent, bytes):
        raise _invalid_args(intent)
    try:
        r = _rt().call(fn, intent, key_spec(policy))
    except UnicodeEncodeError:
        # In the arguments, the core judges the WTF-8 bytes and reports where; in a scope,
        # id or tool name (plain strings, not JSON), it is the caller's error as raised.
        checked = _checked(intent)
        if isinstance(checked, bytes):
            raise _invalid_args(checked) from None
        raise
    return _unwrap(r)


def derive_many(
    intents: Iterable[IntentLike], *, policy: PolicyLike = None
) -> list[DerivedKey | KeyDerivationError]:
    """Derive the keys of many intents in ONE call into the core (``keys.derive-many``).

    Each result stands alone: a bad intent gives its :class:`~oncely.KeyDerivationError` in its
    place and does not fail the others.
    """
    spec = key_spec(policy)
    prepared = [_checked(intent_of(i)) for i in intents]
    good = [i for i in prepared if isinstance(i, Intent)]
    results = iter(_rt().call("keys.derive-many", good, spec) if good else [])
    out: list[DerivedKey | KeyDerivationError] = []
    for i in prepared:
        if isinstance(i, bytes):
            out.append(_invalid_args(i))
        else:
            r = next(results)
            out.append(r.error if isinstance(r, Err) else r)
    return out


def _checked(i: Intent | bytes) -> Intent | bytes:
    if isinstance(i, Intent):
        try:
            i.args_json.encode("utf-8")
        except UnicodeEncodeError:
            return _wtf8(i)
    return i


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
    ia, ib = _checked(intent_of(a)), _checked(intent_of(b))
    for i in (ia, ib):
        if isinstance(i, bytes):
            raise _invalid_args(i)
    return _unwrap(_rt().call("keys.explain", ia, ib, key_spec(policy)))  # type: ignore[no-any-return]


def check_tools(tool_list: str | bytes | Mapping[str, Any] | list[Any]) -> ManifestReport:
    """The release gate over an MCP tool list: a ``tools/list`` result (``{"tools": [...]}``),
    a JSON-RPC response carrying one, or a bare list of tools; JSON text or Python objects.

    ``report.passed`` is false when any finding has severity ``error``. Raises
    :class:`~oncely.PolicyError` only when the document is not JSON or holds no tool list.
    """
    text = tool_list if isinstance(tool_list, str) else None
    if isinstance(tool_list, (bytes, bytearray)):
        text = bytes(tool_list).decode("utf-8")
    if text is None:
        text = to_json_text(tool_list)
    return _unwrap(_rt().call("policy.check-manifest", text))  # type: ignore[no-any-return]


def resolve_tool(tool: str | Mapping[str, Any]) -> ResolvedTool:
    """One MCP tool object with its effective policy and where its class came from."""
    text = tool if isinstance(tool, str) else to_json_text(tool)
    return _unwrap(_rt().call("policy.resolve-tool", text))  # type: ignore[no-any-return]


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


def limits() -> tuple[int, int]:
    """``(max_input_bytes, max_depth)``: the largest JSON input and the deepest nesting the
    core accepts."""
    rt = _rt()
    return rt.call("canonical.max-input-bytes"), rt.call("canonical.max-depth")
