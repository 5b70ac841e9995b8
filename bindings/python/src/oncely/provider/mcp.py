"""Tools of an MCP server (the MCP Python SDK's ``MCPServer``, ``mcp`` 2.3) that honour the key
an agent sends with ``tools/call``: ``_meta.idempotencyKey``, ``_meta["oncely/key"]`` or
``params.idempotencyKey`` (``wit/provider.wit``, ``docs/provider.md``)::

    from mcp.server import MCPServer
    from oncely.provider.mcp import once

    server = MCPServer("payments")

    @server.tool(name="refund")
    @once(ledger, scope="acct_1", tool="refund")
    async def refund(charge: str, amount: int) -> dict[str, str]:
        ...

``@once`` goes UNDER ``@server.tool(...)``. Per call, with the core's rules:

- the key and the raw arguments are read from the request (``ctx.request_context.params``, else
  ``.meta``): the wrapper publishes a keyword-only ``Context`` parameter so the SDK injects the
  context, and strips it before calling your function (a ``Context`` parameter of your own is
  kept and used);
- a keyed call runs your function at most once per key; its value is converted to a
  ``CallToolResult`` as the SDK converts it (the same ``outputSchema``) and recorded as JSON;
- a repeat gets the recorded result with ``_meta["oncely/replayed"] = true`` and
  ``_meta["oncely/key"]`` (the client's key);
- refusals (the same key with other arguments, a call still running, an outcome in doubt, a
  missing key where ``required``) are ``isError`` results: one text ``"oncely: …"`` and
  ``_meta["oncely/refusal"]`` = the problem's kind. They are answers, not exceptions;
- an exception of your function leaves the key in doubt (never run again blindly); an ``isError``
  result of it is a definite failure (nothing happened: an identical call may run again), as
  the gateway reads it (``docs/mcp.md``).

The function reads the keys with :func:`oncely.provider.current_request`. Run the ledger's
sweeper next to the server (``ledger.start_sweeper()`` or ``oncely serve``).
"""

from __future__ import annotations

import functools
import inspect
import json
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, Union

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from oncely.aio import AsyncLedger
from oncely.ledger import Ledger
from oncely.provider import (
    Fresh,
    HandlersOwn,
    PolicyArg,
    ProviderConfigError,
    Replayed,
    admit,
    async_ledger,
    mcp_refusal,
    operation,
    record_mcp,
    resolve_scope,
    run_keyed,
)
from oncely.types import KeyedCall, McpCall, Pass, Recording, Refusal, Unrecordable

F = TypeVar("F", bound=Callable[..., Any])

ScopeOf = Union[str, Callable[[Any], Union[str, Awaitable[str]]]]
"""The ledger scope of a call: a string, or a function of the SDK's ``Context`` (sync or async)
returning a stable tenant or principal id (never a bearer token)."""

CTX = "oncely_ctx"
"""The keyword-only parameter the wrapper adds (when your function has no ``Context``)."""

REPLAYED = "oncely/replayed"
KEY = "oncely/key"
REFUSAL = "oncely/refusal"


def _context_param(fn: Callable[..., Any]) -> str | None:
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable hints: the SDK finds no Context either
        return None
    for name, hint in hints.items():
        for t in (hint, *typing.get_args(hint)):
            if inspect.isclass(t) and issubclass(t, Context):
                return name
    return None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def refusal_result(r: Refusal, client_key: str | None = None) -> CallToolResult:
    """A refusal as the ``isError`` result an agent reads (the core's ``provider.mcp-refusal``:
    its detail as text, its kind, pointer, retry and the client's key in ``_meta``)."""
    return CallToolResult.model_validate_json(mcp_refusal(r, client_key))


def _request(ctx: Any, kwargs: Mapping[str, Any]) -> McpCall:
    """The call as received: the raw arguments, ``_meta`` and ``params.idempotencyKey``."""
    rc = getattr(ctx, "request_context", None)
    params = getattr(rc, "params", None)
    meta: Any = None
    args: Any = None
    params_key = None
    if isinstance(params, Mapping):
        args = params.get("arguments")
        meta = params.get("_meta")
        pk = params.get("idempotencyKey")
        params_key = pk if isinstance(pk, str) else None
    if meta is None and rc is not None and rc.meta is not None:
        m = rc.meta
        meta = m.model_dump(mode="json", by_alias=True) if isinstance(m, BaseModel) else m
    if args is None:
        args = dict(kwargs)
    return McpCall(
        _json(args),
        "" if meta is None else _json(meta),
        params_key,
    )


def once(  # noqa: C901 - the wrapper and its call paths, as closures
    ledger: Ledger | AsyncLedger,
    *,
    scope: ScopeOf,
    tool: str | None = None,
    policy: PolicyArg = None,
    required: bool = False,
    wait_ms: int | None = None,
) -> Callable[[F], F]:
    """Make an ``MCPServer`` tool honour its callers' idempotency keys (see the module).

    - ``ledger``: an :class:`~oncely.Ledger` or :class:`~oncely.aio.AsyncLedger` (its ``owner``
      names this process in claims).
    - ``scope``: the ledger scope of a call (:data:`ScopeOf`).
    - ``tool``: the operation's name (its entries' ``tool``); default: the function's name.
      Give the name the tool is published under when it differs.
    - ``policy``: the operation's policy (JSON text or mapping; ``key.ignore`` pointers point
      into the arguments); default ``irreversible-external``, reconciled ``manual``ly.
    - ``required``: refuse a call without a key (an ``isError`` result).
    - ``wait_ms``: how long a concurrent duplicate waits for the first call's result; 0: refuse
      it at once (``request-in-progress``); ``None``: the core's default (``provider_wait_ms``,
      0).

    Raises :class:`~oncely.provider.ProviderConfigError` for a misconfiguration, at once.
    """
    aio = async_ledger(ledger)
    if not (isinstance(scope, str) and scope) and not callable(scope):
        raise ProviderConfigError("scope must be a non-empty str or a function of the Context")
    if wait_ms is not None and (type(wait_ms) is not int or wait_ms < 0):
        raise ProviderConfigError("wait_ms must be an int >= 0 (or None)")

    def decorate(fn: F) -> F:  # noqa: C901 - the call paths of one tool
        if not callable(fn):
            raise TypeError("@once decorates a tool function")
        op = operation(tool or fn.__name__, policy, required)
        own_ctx = _context_param(fn)
        try:  # the annotations evaluated: the SDK does not evaluate a published __signature__
            sig = inspect.signature(fn, eval_str=True)
        except Exception:  # noqa: BLE001 - the SDK then reports it for the function itself
            sig = inspect.signature(fn)
        meta = func_metadata(fn, skip_names=[own_ctx] if own_ctx else [])
        is_async = inspect.iscoroutinefunction(fn)

        async def call(kwargs: dict[str, Any]) -> Any:
            if is_async:
                return await fn(**kwargs)
            return await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))

        @functools.wraps(fn)
        async def wrapper(**kwargs: Any) -> Any:
            ctx = kwargs[own_ctx] if own_ctx else kwargs.pop(CTX, None)
            if ctx is None:
                raise ProviderConfigError(
                    f"{op.tool!r}: no MCP Context was injected; put @once under @server.tool()"
                )
            plain = {k: v for k, v in kwargs.items() if k != own_ctx}
            principal = await resolve_scope(scope, ctx)
            admission = admit(principal, op, _request(ctx, plain))
            if isinstance(admission, Pass):
                return await call(kwargs)
            if isinstance(admission, Refusal):
                return refusal_result(admission)
            assert isinstance(admission, KeyedCall)
            return await _keyed(admission, kwargs)

        async def _keyed(keyed: KeyedCall, kwargs: dict[str, Any]) -> Any:
            # The function's answer in this run: its converted result, or the exception it (or
            # the SDK's conversion of its value) raised. A cancellation (the policy's maxCallMs)
            # leaves none, and run_keyed answers with the core's refusal then.
            own: dict[str, Any] = {}

            async def handler() -> Recording:
                try:
                    result = meta.convert_result(await call(kwargs))
                except Exception as e:
                    own["error"] = e
                    raise
                own["result"] = result
                # The core reads it: isError is a definite failure, anything else is recorded.
                return _recording(result)

            # Shielded: an agent's timeout cancels its request (notifications/cancelled), but a
            # handler that started runs to its end and is recorded.
            with anyio.CancelScope(shield=True):
                outcome = await run_keyed(aio, keyed, handler, wait_ms=wait_ms)
            if isinstance(outcome, (Fresh, HandlersOwn)):
                # run_keyed gives these only when the function answered (one of the two).
                if "error" in own:
                    raise own["error"]
                return own.get("result")
            if isinstance(outcome, Replayed):
                return _replayed(outcome.recorded, keyed.client_key)
            assert isinstance(outcome, Refusal)
            return refusal_result(outcome, keyed.client_key)

        if own_ctx is None:
            params = [*sig.parameters.values()]
            extra = inspect.Parameter(CTX, inspect.Parameter.KEYWORD_ONLY, annotation=Context)
            wrapper.__signature__ = sig.replace(  # type: ignore[attr-defined]
                parameters=[
                    *(p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD),
                    extra,
                    *(p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD),
                ]
            )
            wrapper.__annotations__ = {**getattr(fn, "__annotations__", {}), CTX: Context}
        return typing.cast(F, wrapper)

    return decorate


def _recording(result: Any) -> Recording:
    """What the SDK's conversion of a tool's value means for the ledger: its JSON, read by the
    core (``record-mcp``); a value JSON cannot carry is not recorded (``unrecordable``)."""
    try:
        if isinstance(result, BaseModel):
            doc: Any = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        else:
            doc = result
        text = _json(doc)
    except (TypeError, ValueError) as e:
        return Unrecordable(f"the tool's result ({type(result).__name__}) is not JSON: {e}")
    return record_mcp(text)


def _replayed(recorded: str, client_key: str) -> CallToolResult:
    """The recorded result, marked as a replay."""
    try:
        doc = json.loads(recorded)
        result = CallToolResult.model_validate(doc)
    except ValueError:
        # Not a recorded CallToolResult (a person's settlement in the inbox): its JSON as text.
        result = CallToolResult(content=[TextContent(type="text", text=recorded)])
    meta = dict(result.meta or {})
    meta[REPLAYED] = True
    meta[KEY] = client_key
    return result.model_copy(update={"meta": meta})


__all__ = ["CTX", "KEY", "REFUSAL", "REPLAYED", "ScopeOf", "once", "refusal_result"]
