"""The provider side: your own HTTP API or MCP server honours the idempotency key its clients
send (``wit/provider.wit``, ``docs/provider.md``).

The middlewares are :mod:`oncely.provider.asgi` (Starlette, FastAPI: any ASGI app) and
:mod:`oncely.provider.mcp` (tools of the MCP Python SDK's ``MCPServer``). Both do what the
core's ``provider`` interface says, per request:

1. :func:`admit` the request for a scope (a stable principal id) and an :class:`Operation`:
   pass it through, refuse it (a :class:`~oncely.types.Refusal`: a problem document), or run it
   keyed (a :class:`~oncely.types.KeyedCall`);
2. keyed: run the handler as the tool of an ordinary effect (:func:`run_keyed`, the ledger's
   asyncio API), recording what it answered (HTTP: :func:`record_http`);
3. a repeat gets the recorded answer (HTTP: :func:`replay_http`); an effect error becomes the
   core's answer (:func:`refuse`).

The sweeper must run next to a provider (``ledger.start_sweeper()`` or ``oncely serve``): it
expires the leases of crashed handlers, escalates and purges.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union

from oncely import _api, _runtime
from oncely._machine import effect_error_of
from oncely._values import Err
from oncely.aio import AsyncLedger
from oncely.errors import AmbiguousFailure, DefiniteFailure, OncelyError
from oncely.ledger import Ledger
from oncely.types import (
    Admission,
    Answer,
    EffectError,
    HandlerAnswer,
    HttpRequest,
    HttpResponse,
    KeyedCall,
    McpCall,
    Operation,
    Pass,
    ProviderRequest,
    Recording,
    Refusal,
    Returned,
    ToolFailure,
    ToolPolicy,
    Unrecordable,
)

PolicyArg = Union[str, Mapping[str, Any], None]
"""An operation's policy: JSON text, a JSON object, or ``None`` for the default
(``irreversible-external``, reconciled ``manual``ly)."""


class ProviderConfigError(OncelyError, ValueError):
    """A route or tool is misconfigured (an empty scope or tool name, a policy that cannot be
    read or that a provider cannot use): a bug of the server, not of the request."""


@dataclass(frozen=True)
class OncelyRequest:
    """What a handler of a keyed request can read (``request.state.oncely`` in Starlette and
    FastAPI, ``oncely_request()`` in an MCP tool): store the keys with the effect, and a lookup
    reconciler is one query."""

    client_key: str
    """The key the client sent (its ``Idempotency-Key``)."""
    key: str
    """The ledger key of the request (``oncely1:`` + 64 hex digits)."""
    scope: str
    """The scope (principal) the request was keyed under."""
    tool: str
    """The operation's name: the route template, or the MCP tool's name."""


_CURRENT: contextvars.ContextVar[OncelyRequest | None] = contextvars.ContextVar(
    "oncely_provider_request", default=None
)


def current_request() -> OncelyRequest | None:
    """The keyed request whose handler runs now (in its task or thread), else ``None``."""
    return _CURRENT.get()


def _rt() -> _runtime.Runtime:
    return _runtime.shared()


def operation(tool: str, policy: PolicyArg = None, required: bool = False) -> Operation:
    """An :class:`Operation` from a tool name, a policy (JSON text, a mapping, or ``None``) and
    whether the key is required. Raises :class:`ProviderConfigError` for a policy JSON cannot
    carry or that the core refuses for a provider (checked at once)."""
    if policy is None:
        text = ""
    elif isinstance(policy, str):
        text = policy
    elif isinstance(policy, Mapping):
        try:
            text = _api.to_json_text(policy)
        except (TypeError, ValueError) as e:
            raise ProviderConfigError(f"the policy of {tool!r} is not JSON: {e}") from e
    else:
        raise ProviderConfigError(
            f"the policy of {tool!r} must be JSON text, a mapping or None, "
            f"not {type(policy).__name__}"
        )
    if not isinstance(required, bool):
        raise ProviderConfigError(f"required must be a bool, not {type(required).__name__}")
    op = Operation(_api._id("tool", tool), text, required)
    check_operation(op)
    return op


def check_operation(op: Operation) -> ToolPolicy:
    """The operation's policy as :func:`admit` uses it; raises :class:`ProviderConfigError` when
    the operation is misconfigured (``provider.check-operation``)."""
    r = _rt().call("provider.check-operation", op)
    if isinstance(r, Err):
        raise ProviderConfigError(f"{op.tool!r}: {r.error}")
    policy: ToolPolicy = r
    return policy


def admit(scope: str, op: Operation, request: ProviderRequest) -> Admission:
    """What to do with a request (``provider.admit``): :class:`~oncely.types.Pass`, a
    :class:`~oncely.types.KeyedCall` or a :class:`~oncely.types.Refusal`. Raises
    :class:`ProviderConfigError` for a misconfiguration (an empty scope…)."""
    if not isinstance(scope, str):
        raise ProviderConfigError(f"the scope must be a str, not {type(scope).__name__}")
    r = _rt().call("provider.admit", _api._id("scope", scope), op, request)
    if isinstance(r, Err):
        raise ProviderConfigError(f"{op.tool!r}: {r.error}")
    admission: Admission = r
    return admission


def record_http(response: HttpResponse) -> Recording:
    """What a handler's response means for the ledger (``provider.record-http``)."""
    recording: Recording = _rt().call("provider.record-http", response)
    return recording


def record_mcp(result_json: str) -> Recording:
    """What an MCP tool's result (a ``CallToolResult`` as JSON text) means for the ledger
    (``provider.record-mcp``): ``isError: true`` is a definite failure, anything else is
    recorded verbatim."""
    recording: Recording = _rt().call("provider.record-mcp", result_json)
    return recording


def replay_http(recorded: str) -> HttpResponse:
    """The response a recorded result replays, with ``idempotent-replayed: true``
    (``provider.replay-http``)."""
    response: HttpResponse = _rt().call("provider.replay-http", recorded)
    return response


def refuse(error: EffectError, handler_ran: bool) -> Answer:
    """What to answer after a run raised the effect error ``error`` (``provider.refuse``):
    :class:`~oncely.types.HandlerAnswer` (the handler's own answer of this run stands) or a
    :class:`~oncely.types.Refusal`."""
    answer: Answer = _rt().call("provider.refuse", error, handler_ran)
    return answer


def async_ledger(ledger: Ledger | AsyncLedger) -> AsyncLedger:
    """The asyncio view of a ledger given as either."""
    if isinstance(ledger, AsyncLedger):
        return ledger
    if isinstance(ledger, Ledger):
        return ledger.aio
    raise TypeError(f"ledger must be an oncely Ledger or AsyncLedger, not {type(ledger).__name__}")


async def resolve_scope(scope: Any, arg: Any) -> str:
    """The scope of a request: a string, or a function of ``arg`` (sync or async) returning one."""
    value = scope(arg) if callable(scope) else scope
    if asyncio.iscoroutine(value) or isinstance(value, Awaitable):
        value = await value
    if not isinstance(value, str) or not value:
        raise ProviderConfigError(f"the scope must be a non-empty str, got {value!r}")
    return value


class _NotRecordable:
    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _encode(value: Any) -> str:
    if isinstance(value, _NotRecordable):
        raise ValueError(value.reason)
    assert isinstance(value, str)
    return value


def _decode(text: str) -> str:
    return text


@dataclass(frozen=True)
class Fresh:
    """The handler ran in this run and its answer was recorded: send its answer as it was."""


@dataclass(frozen=True)
class Replayed:
    """A repeat: the recorded result (JSON text) is the answer."""

    recorded: str


@dataclass(frozen=True)
class HandlersOwn:
    """The run raised, but the handler ran in this run: its own answer (or exception) stands."""


KeyedOutcome = Union[Fresh, Replayed, HandlersOwn, Refusal]
"""How a keyed run ended, for the middleware to answer."""


async def run_keyed(
    ledger: AsyncLedger,
    keyed: KeyedCall,
    handler: Callable[[], Awaitable[Recording]],
    *,
    wait_ms: int | None = None,
) -> KeyedOutcome:
    """Run ``handler`` as the tool of the keyed call's effect: at most once per key.

    ``handler`` runs the real handler and returns what its answer means for the ledger (a
    :class:`~oncely.types.Returned` JSON text recorded verbatim, a
    :class:`~oncely.types.ToolFailure`, or :class:`~oncely.types.Unrecordable`); an
    :class:`Exception` it raises is the handler's own answer too (its exception: an unknown
    outcome for the ledger). A handler that did not end with an answer of its own (cancelled at
    the policy's ``maxCallMs``, or raising another ``BaseException`` such as
    :class:`asyncio.CancelledError`) has none: the core's refusal is the answer then (never
    :class:`HandlersOwn`). ``wait_ms``: how long a concurrent duplicate waits for the first
    request to finish (0: answer 409 at once; ``None``: the core's ``provider_wait_ms``)."""
    ran = False
    # The handler produced an answer of its own in this run: a response, or an exception it
    # raised (JS: runKeyed's `answer !== null`).
    answered = False

    i = keyed.intent
    info = OncelyRequest(keyed.client_key, keyed.key, i.scope, i.tool)

    async def tool(_key: str) -> Any:
        nonlocal ran, answered
        ran = True
        token = _CURRENT.set(info)
        try:
            recording = await handler()
        except Exception:
            answered = True
            raise
        finally:
            _CURRENT.reset(token)
        answered = True
        return _tool_value(recording)

    if wait_ms is None:
        wait_ms = _api.core_defaults().provider_wait_ms
    try:
        r = await ledger.run(
            tool,
            scope=i.scope,
            run=i.run_id,
            step=i.step_id,
            tool=i.tool,
            args=i.args_json,
            policy=keyed.policy,
            wait=max(0, wait_ms) / 1000,
            encode=_encode,
            decode=_decode,
        )
    except Exception as e:
        error = effect_error_of(e)
        # Not the effect's answer (a failure of the ledger itself…): the handler's own answer
        # stands when it gave one, else the failure goes on.
        answer: Answer = HandlerAnswer() if error is None else refuse(error, answered)
        if isinstance(answer, HandlerAnswer):
            if answered:
                return HandlersOwn()
            raise  # the core names the handler's answer only when there is one
        return answer
    if ran and answered and not (r.replayed or r.reconciled):
        return Fresh()
    # A replay, or a reconciliation's verdict: the recorded JSON text (decoded by _decode).
    recorded = r.value
    if not isinstance(recorded, str):
        recorded = _api.to_json_text(recorded)
    return Replayed(recorded)


def _tool_value(recording: Recording) -> Any:
    """The effect's tool value for what a handler's answer means for the ledger."""
    if isinstance(recording, Returned):
        return recording.json
    if isinstance(recording, ToolFailure):
        if recording.definite:
            raise DefiniteFailure(recording.reason)
        raise AmbiguousFailure(recording.reason)
    assert isinstance(recording, Unrecordable)
    return _NotRecordable(recording.reason)


def mcp_refusal(refusal: Refusal, client_key: str | None = None) -> str:
    """A refusal as an MCP tool's answer: the ``CallToolResult`` JSON (``provider.mcp-refusal``)."""
    text: str = _rt().call("provider.mcp-refusal", refusal, client_key)
    return text


def oversized(limit_bytes: int) -> Refusal:
    """The refusal of a keyed request whose body is over the middleware's limit
    (``provider.oversized``): 413 ``request-too-large``."""
    refusal: Refusal = _rt().call("provider.oversized", limit_bytes)
    return refusal


__all__ = [
    "Fresh",
    "HandlersOwn",
    "HttpRequest",
    "HttpResponse",
    "KeyedCall",
    "KeyedOutcome",
    "McpCall",
    "OncelyRequest",
    "Operation",
    "Pass",
    "ProviderConfigError",
    "Refusal",
    "Replayed",
    "admit",
    "async_ledger",
    "check_operation",
    "current_request",
    "mcp_refusal",
    "operation",
    "oversized",
    "record_http",
    "refuse",
    "replay_http",
    "resolve_scope",
    "run_keyed",
]
