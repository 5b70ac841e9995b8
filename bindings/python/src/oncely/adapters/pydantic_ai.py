"""Pydantic AI: a ``Tool`` whose calls run at most once per intent
(``pip install 'oncely[pydantic-ai]'``).

::

    import oncely
    from pydantic_ai import Agent
    from oncely.adapters.pydantic_ai import oncely_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    agent = Agent(model, tools=[oncely_tool(refund, scope="acme")])
    agent.run_sync("refund ch_1", conversation_id="conversation-7")

:func:`oncely_tool` is Pydantic AI's ``Tool`` for an oncely tool (``@ledger.tool``) or a plain
function (sync or ``async def``, with ``ledger=`` and ``policy=``; a first parameter typed
``RunContext`` gets the context, as with ``Tool``). Its JSON schema is the function's
parameters WITHOUT the key parameter (``idempotency_key``). A sync function runs in Pydantic AI's
worker thread, an ``async def`` one on the run's loop; both through the ledger.

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here (a string, or a function of the
``RunContext``), else the run's ``RunContext.conversation_id`` — Pydantic AI's own conversation
id: the ``conversation_id`` given to ``agent.run``, else the one the ``message_history`` carries,
else a new one for a new conversation — else refused (:class:`~oncely.IdentityError`, a
``LookupError``) unless the key is natural (an agent run always has a conversation id; a
``RunContext`` made by hand may not). So a conversation continued from its saved messages
(``ModelMessagesTypeAdapter``) is the same run, and one started without them is a new one: name
it yourself (``conversation_id=``, your session id) when a turn may be run again without them.
No step unless given, so the same tool with the same arguments in one conversation is one
effect — a model re-asking with a new tool-call id gets the first result. The tool-call id is
recorded for audit (``audit=``, logger ``oncely.adapters``), never keyed.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed), the model reads the core's answer
(``agent.answer``: ``oncely: …``) as Pydantic AI's failed tool result (``ToolFailed``: no "fix
the errors and try again" added, no retry budget spent); storage errors propagate out of the run.
A tool ``timeout`` (``tool_options={"timeout": ...}``) or a cancelled run stops waiting for the
call, not the call: once claimed it runs to its result and is recorded, and the model re-asking
gets that result.

Approval (a policy with an ``approval`` rule): Pydantic AI's deferred tools are the ledger's
request. When the core says a person is needed, the tool records the ledger's one request (the
inbox lists it) and raises ``ApprovalRequired`` (its metadata: ``{"oncely": "approval", "tool",
"key", "args", "version", "scope", "run", "step"}``); the run ends with ``DeferredToolRequests``
(give the agent ``output_type=[str, DeferredToolRequests]``). Decide with :func:`approve` and
:func:`reject` (the request's metadata names the call: any process may decide): they record the
decision in the ledger and return the value for ``DeferredToolResults.approvals[call_id]`` (a
denial: ``ToolDenied`` with the core's answer); resume with the run's messages and those
results. An approval given with a bare ``True`` is recorded by the call itself (``approved_by``)
before it runs; a bare ``False`` or ``ToolDenied`` never reaches the tool, so the ledger does
not learn it (its request stays open): deny with :func:`reject`. A decision already in the
ledger is not asked again: approved, the call runs; denied, the model reads the denial.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from contextvars import copy_context
from typing import Any

from pydantic_ai import RunContext, Tool
from pydantic_ai.exceptions import ApprovalRequired, ToolFailed
from pydantic_ai.tools import DeferredToolRequests, ToolApproved, ToolDenied
from pydantic_core import to_jsonable_python

from oncely.adapters._core import (
    CallRecord,
    Guard,
    Identity,
    PolicyLike,
    answer_for,
    as_ledger,
    unwrap_tool,
)
from oncely.tool import context
from oncely.types import ApprovalRequest

# The attribute of the tool's function holding its guard (for approve and reject).
_GUARD = "_oncely_guard"


def conversation_id(ctx: RunContext[Any] | None) -> str | None:
    """The run's conversation (``RunContext.conversation_id``), if any."""
    value = getattr(ctx, "conversation_id", None)
    return None if value in (None, "") else str(value)


def _takes_ctx(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s first parameter is the ``RunContext`` (Pydantic AI's own rule)."""
    return Tool(fn).takes_ctx


def _shown(fn: Callable[..., Any], takes_ctx: bool, key_param: str) -> inspect.Signature:
    """``fn``'s signature as the model sees it: a first, unannotated context parameter (given
    by Pydantic AI, not in the schema), then ``fn``'s parameters without its own context and
    without the key."""
    params = list(inspect.signature(fn).parameters.values())[1 if takes_ctx else 0 :]
    shown = [p for p in params if p.name != key_param]
    ctx = inspect.Parameter("_oncely_ctx", inspect.Parameter.POSITIONAL_ONLY)
    return inspect.Signature([ctx, *shown])


class _Guarded:
    """One tool's calls: the function, its guard, and how a call reaches both."""

    def __init__(
        self,
        fn: Callable[..., Any],
        guard: Guard[RunContext[Any]],
        key_param: str,
        approved_by: str | Callable[[RunContext[Any]], str],
    ) -> None:
        self.fn, self.guard, self.key_param, self.approved_by = fn, guard, key_param, approved_by
        self.takes_key = key_param in inspect.signature(fn).parameters
        self.takes_ctx = _takes_ctx(fn)
        self.signature = _shown(fn, self.takes_ctx, key_param)
        self.values = self.signature.replace(
            parameters=list(self.signature.parameters.values())[1:]
        )

    def prepared(
        self, ctx: RunContext[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[Identity, dict[str, Any], Callable[[str], Any]]:
        """The call's identity, its arguments as keyed, and the tool function of the key."""
        intent = to_jsonable_python(dict(self.values.bind(*args, **kwargs).arguments))
        i = self.guard.identity(ctx, conversation_id(ctx), ctx.tool_call_id)
        head = (ctx, *args) if self.takes_ctx else args
        fn, named = self.fn, kwargs

        def call(key: str) -> Any:
            return fn(*head, **({**named, self.key_param: key} if self.takes_key else named))

        return i, intent, call

    def gate(self, ctx: RunContext[Any], i: Identity, intent: dict[str, Any]) -> None:
        """The person's decision, if the ledger asks for one (see the module's docstring)."""
        if ctx.tool_call_approved:
            # Approved in the run's DeferredToolResults: recorded before the call (a decision
            # the ledger already holds stands: a denial then meets the call).
            who = self.approved_by
            by = who if isinstance(who, str) else who(ctx)
            note = f"approved in the run's deferred tool results (tool call {ctx.tool_call_id})"
            self.guard.decide(intent, i, approve=True, by=by, note=note)
            return
        asked = self.guard.ask(intent, i)
        if asked is not None:
            raise ApprovalRequired(metadata=_request(self.guard, i, asked, intent))

    def sync_tool(self, ctx: RunContext[Any], /, *args: Any, **kwargs: Any) -> Any:
        i, intent, call = self.prepared(ctx, args, kwargs)
        try:
            if self.guard.gated:
                self.gate(ctx, i, intent)
            r = self.guard.run_sync(call, intent, i, ctx.tool_call_id)
        except Exception as e:
            failed = _failed(e)
            if failed is None:
                raise
            raise failed from e
        return r.value

    async def async_tool(self, ctx: RunContext[Any], /, *args: Any, **kwargs: Any) -> Any:
        i, intent, call = self.prepared(ctx, args, kwargs)
        try:
            if self.guard.gated:
                await asyncio.to_thread(copy_context().run, self.gate, ctx, i, intent)
            r = await self.guard.run_async(call, intent, i, ctx.tool_call_id)
        except Exception as e:
            failed = _failed(e)
            if failed is None:
                raise
            raise failed from e
        return r.value

    def function(self, name: str) -> Callable[..., Any]:
        """The function Pydantic AI's ``Tool`` is made of: it reads the schema from this
        signature (the key left out), the function's annotations (resolved in its module:
        ``__wrapped__``) and its docstring."""
        fn = self.fn
        bound = self.async_tool if inspect.iscoroutinefunction(fn) else self.sync_tool

        # A function of its own (a bound method's attributes cannot be set).
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            return await bound(*args, **kwargs)

        def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
            return bound(*args, **kwargs)

        wrapper: Callable[..., Any] = (
            async_wrapper if inspect.iscoroutinefunction(fn) else sync_wrapper
        )
        hints = getattr(fn, "__annotations__", {})
        wrapper.__signature__ = self.signature  # type: ignore[attr-defined]
        wrapper.__annotations__ = {
            k: v for k, v in hints.items() if k in self.signature.parameters or k == "return"
        }
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        wrapper.__doc__ = fn.__doc__
        wrapper.__name__ = wrapper.__qualname__ = name
        wrapper.__module__ = fn.__module__
        setattr(wrapper, _GUARD, self.guard)
        return wrapper


def _failed(e: Exception) -> ToolFailed | None:
    """The core's answer to ``e`` as Pydantic AI's failed tool result; ``None`` when ``e`` is
    not about the call (storage, the ledger, a bug: it propagates)."""
    text = answer_for(e)
    return None if text is None else ToolFailed(text)


def oncely_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[RunContext[Any]], str | None] | None = None,
    step: Callable[[RunContext[Any], str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    approved_by: str | Callable[[RunContext[Any]], str] = "pydantic-ai",
    tool_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> Tool[Any]:
    """A Pydantic AI ``Tool`` that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used) or a plain function (sync or ``async def``; give ``ledger`` and ``policy``).
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring). An oncely tool keeps its own name in the ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the ``RunContext`` (e.g. of its ``deps``);
      default: the run's ``conversation_id``. ``oncely.context(run=...)`` overrides both.
    - ``step``: a function ``(run_context, tool_call_id) -> step or None``, for tools where two
      identical calls in one conversation are meant as two effects. Default: none (keyed by
      run). Returning the tool-call id brings back the double effect a re-asking model causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the schema;
      a function without it reads ``oncely.current_call().key``).
    - ``approved_by``: who the ledger records for an approval given as a bare ``True`` in
      ``DeferredToolResults`` (a name, or a function of the ``RunContext``).
    - ``tool_options``: other ``Tool`` arguments (``max_retries``, ``timeout``, ``strict``,
      ``sequential``, ``docstring_format``, ``requires_approval``, ``metadata``, …).
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    guard: Guard[RunContext[Any]] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    shown = name or tool_name
    guarded = _Guarded(fn, guard, fn_key or key_param, approved_by)
    return Tool(
        guarded.function(shown),
        takes_ctx=True,
        name=shown,
        description=description,
        **dict(tool_options or {}),
    )


def _request(guard: Guard[Any], i: Identity, asked: ApprovalRequest, args: Any) -> dict[str, Any]:
    """The metadata of a deferred call the ledger asks a person about: its request, and the
    identity it was asked with (what :func:`approve` and :func:`reject` record on)."""
    return {
        "oncely": "approval",
        "tool": guard.name,
        "key": asked.key,
        "args": args,
        "version": asked.version,
        "scope": i.scope,
        "run": i.run,
        "step": i.step,
    }


def _guard_of(tool: Tool[Any]) -> Guard[Any]:
    guard = getattr(tool.function, _GUARD, None)
    if not isinstance(guard, Guard):
        raise LookupError(f"{tool.name!r} is not a tool made by oncely_tool")
    return guard


def _decide(
    tool: Tool[Any], requests: DeferredToolRequests, call_id: str
) -> tuple[Guard[Any], Identity, Any]:
    """The guard, identity and arguments of the deferred call ``call_id``, as it was asked."""
    guard = _guard_of(tool)
    asked = requests.metadata.get(call_id) or {}
    if asked.get("oncely") != "approval" or asked.get("tool") != guard.name:
        raise LookupError(f"the tool call {call_id!r} is not an oncely request of {tool.name!r}")
    with context(scope=asked["scope"], run=asked["run"], step=asked["step"]):
        i = guard.identity(None, None, call_id)
    return guard, i, asked["args"]


def approve(
    tool: Tool[Any], requests: DeferredToolRequests, call_id: str, *, by: str, note: str = ""
) -> ToolApproved:
    """Approve the deferred call ``call_id`` of ``requests`` (the run's output) as ``by``,
    recorded in the ledger (the first decision recorded stands). Returns the value for
    ``DeferredToolResults.approvals[call_id]``; resume the run with the result's messages and
    those results: the call runs once (or, if the ledger holds a denial, the model reads it)."""
    guard, i, args = _decide(tool, requests, call_id)
    guard.decide(args, i, approve=True, by=by, note=note)
    return ToolApproved()


def reject(
    tool: Tool[Any], requests: DeferredToolRequests, call_id: str, *, by: str, note: str = ""
) -> ToolDenied | ToolApproved:
    """Deny the deferred call ``call_id`` of ``requests`` as ``by``, with ``note`` (the reason
    the model reads): recorded in the ledger — the call did not happen and will not; a later run
    asking the same call gets the denial, not a new question. Returns the value for
    ``DeferredToolResults.approvals[call_id]``: ``ToolDenied`` with the core's answer to the
    denial, or ``ToolApproved`` when the ledger already held an approval (which stands)."""
    guard, i, args = _decide(tool, requests, call_id)
    guard.decide(args, i, approve=False, by=by, note=note)
    denial = guard.denial(args, i)
    return ToolApproved() if denial is None else ToolDenied(denial)


__all__ = ["approve", "conversation_id", "oncely_tool", "reject"]
