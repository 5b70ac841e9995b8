"""Google ADK (Agent Development Kit): a ``FunctionTool`` whose calls run at most once per
intent (``pip install 'oncely[google-adk]'``).

::

    import oncely
    from google.adk.agents import LlmAgent
    from oncely.adapters.google_adk import oncely_function_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    agent = LlmAgent(name="support", model=..., tools=[oncely_function_tool(refund, scope="acme")])
    # runner.run_async(user_id="u1", session_id="conversation-7", new_message=...)

:func:`oncely_function_tool` is ADK's ``FunctionTool`` for an oncely tool (``@ledger.tool``) or a
plain function (sync or ``async def``, with ``ledger=`` and ``policy=``; a parameter named
``tool_context`` or typed ``ToolContext`` gets the context, as with ``FunctionTool``). Its
declaration (what the model sees) is the function's parameters WITHOUT the key parameter
(``idempotency_key``); a key the model sends anyway is dropped. ADK's own argument validation,
missing-argument answer and confirmation step run first, as for any ``FunctionTool``.

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here (a string, or a function of the
``ToolContext``), else the ADK session (``tool_context.session.id``: the conversation, which the
session service keeps, so a run resumed from a ``DatabaseSessionService`` or
``SqliteSessionService`` is the same run), else refused (:class:`~oncely.IdentityError`, a
``LookupError``) unless the key is natural; no step unless given, so the same tool with the same
arguments in one session is one effect — a model re-asking with a new function-call id, and an
invocation resumed after a crash (ADK's resumability promises only at-least-once), get the first
result. The ``invocation_id`` (new for every user turn) is not the run. ADK keeps a session's id
unique within its app and user: if you name sessions yourself so that two users may share one,
give ``run=lambda ctx: f"{ctx.user_id}/{ctx.session.id}"`` (or a ``scope`` per tenant). The
function-call id is recorded for audit (``audit=``, logger ``oncely.adapters``), never keyed.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed), the function response is ADK's tool-error
form ``{"error": "oncely: …"}`` (the core's answer, ``agent.answer``), which the model reads —
as it reads ADK's own validation errors; storage errors propagate (ADK's ``on_tool_error``
callbacks see them). A caller that cancels the invocation (a timeout, a failed parallel call)
does not cancel a claimed call: it runs to its result and is recorded, and the next ask gets it.

Approval (a policy with an ``approval`` rule): ADK's tool confirmation is the ledger's request.
The tool's ``check_require_confirmation`` asks the core (``Ledger.asks_approval``) and, when a
person is needed, records the ledger's one request for the call (the inbox lists it); ADK then
asks with its ``adk_request_confirmation`` function call and the invocation pauses. The person's
``ToolConfirmation`` (``confirmed``; its ``payload`` may hold ``{"by": ..., "note": ...}``) is
recorded in the ledger when the call comes back, then the call runs once, or the model reads the
ledger's denial (``{"error": "oncely: … denied …"}``). A decision already in the ledger (the
inbox, another worker) is not asked again, and the first one recorded stands.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Callable
from typing import Any

from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from pydantic_core import to_jsonable_python

from oncely.adapters._core import (
    CallRecord,
    Guard,
    PolicyLike,
    answer_for,
    as_ledger,
    unwrap_tool,
)

_CONTEXT: contextvars.ContextVar[ToolContext | None] = contextvars.ContextVar(
    "oncely_google_adk_tool_context", default=None
)


def session_id(ctx: ToolContext | None) -> str | None:
    """The ADK session of a tool context (``tool_context.session.id``), if any."""
    try:
        value = None if ctx is None else ctx.session.id
    except AttributeError:  # a context without an invocation
        return None
    return None if value in (None, "") else str(value)


class OncelyFunctionTool(FunctionTool):
    """An ADK ``FunctionTool`` whose calls go through an oncely ledger (made by
    :func:`oncely_function_tool`)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        guard: Guard[ToolContext],
        *,
        name: str,
        description: str | None,
        key_param: str,
        require_confirmation: bool | Callable[..., bool],
        approved_by: str | Callable[[ToolContext], str],
    ) -> None:
        super().__init__(fn, require_confirmation=require_confirmation)
        self.name = name
        if description is not None:
            self.description = description
        self._guard = guard
        self._key_param = key_param
        self._takes_key = key_param in inspect.signature(fn).parameters
        self._ignore_params.append(key_param)  # not in the declaration, nor mandatory
        self._approved_by = approved_by
        self._is_async = inspect.iscoroutinefunction(fn)

    @property
    def guard(self) -> Guard[ToolContext]:
        """The guard: ledger, policy, scope, run and step rules."""
        return self._guard

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        declaration = super()._get_declaration()
        if declaration is not None:
            declaration.name = self.name
            declaration.description = self.description
        return declaration

    def _intent_args(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any] | None:
        """The arguments as the call keys them (ADK's preprocessing and validation, defaults
        filled in, no context and no key), or ``None`` when ADK refuses them (the call itself
        answers the model)."""
        values, errors = self._preprocess_args_with_validation(args)
        if errors:
            return None
        given = self._prepare_invocation_args(values, ctx)
        return self._intent_of(given)

    def _intent_of(self, given: dict[str, Any]) -> dict[str, Any]:
        shown = {k: v for k, v in given.items() if k not in self._ignore_params}
        if self._spec.has_signature:
            for p in self._spec.signature.parameters.values():
                if p.name in self._ignore_params or p.name in shown:
                    continue
                if p.default is not inspect.Parameter.empty and p.kind not in (
                    inspect.Parameter.VAR_POSITIONAL,
                    inspect.Parameter.VAR_KEYWORD,
                ):
                    shown[p.name] = p.default
        jsonable: dict[str, Any] = to_jsonable_python(shown)
        return jsonable

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        args = {k: v for k, v in args.items() if k != self._key_param}
        token = _CONTEXT.set(tool_context)
        try:
            return await super().run_async(args=args, tool_context=tool_context)
        finally:
            _CONTEXT.reset(token)

    async def _invoke_callable(
        self, target: Callable[..., Any], args_to_call: dict[str, Any]
    ) -> Any:
        if target is not self.func:  # ADK calling the user's require_confirmation
            return await super()._invoke_callable(target, args_to_call)
        ctx = _CONTEXT.get()
        assert ctx is not None  # set by run_async
        guard, fn, key_param = self._guard, self.func, self._key_param
        intent_args = self._intent_of(args_to_call)
        call_id = ctx.function_call_id
        i = guard.identity(ctx, session_id(ctx), call_id)

        def kwargs(key: str) -> dict[str, Any]:
            return {**args_to_call, key_param: key} if self._takes_key else args_to_call

        try:
            if self._is_async:

                async def acall(key: str) -> Any:
                    return await fn(**kwargs(key))

                r = await guard.run_async(acall, intent_args, i, call_id)
            else:
                # ADK's runner for sync tools (inline, or RunConfig's tool thread pool): a
                # cancelled invocation does not stop the call, which records its result.
                def run() -> Any:
                    return guard.run_sync(lambda key: fn(**kwargs(key)), intent_args, i, call_id)

                r = await super()._invoke_callable(run, {})
        except Exception as e:
            text = answer_for(e)
            if text is None:
                raise
            return {"error": text}
        return r.value

    # --- approval: ADK's tool confirmation is the ledger's request --------------------------

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        theirs = await super().check_require_confirmation(args, tool_context)
        if not self._guard.gated:
            return theirs
        args = {k: v for k, v in args.items() if k != self._key_param}
        intent_args = self._intent_args(args, tool_context)
        if intent_args is None:
            return theirs  # the call answers the model with ADK's validation errors
        guard = self._guard
        try:
            i = guard.identity(
                tool_context, session_id(tool_context), tool_context.function_call_id
            )
        except LookupError:
            return theirs  # the call itself is refused (no run)
        confirmation = tool_context.tool_confirmation
        if confirmation is not None:
            # The person answered ADK's question: the ledger records it, and the call meets it
            # (runs once, or the model reads the ledger's denial).
            by, note = self._decider(tool_context, confirmation.payload)
            approve = confirmation.confirmed

            def decide() -> str | None:
                return guard.decide(intent_args, i, approve=approve, by=by, note=note)

            await asyncio.to_thread(decide)
            return False if theirs is False or approve else theirs
        try:
            asked = await asyncio.to_thread(guard.ask, intent_args, i)
        except Exception as e:
            if answer_for(e) is None:
                raise
            return theirs  # the call answers the model (arguments not keyed)
        return theirs or asked is not None

    def _decider(self, ctx: ToolContext, payload: Any) -> tuple[str, str]:
        who = self._approved_by
        by = who if isinstance(who, str) else who(ctx)
        note = f"confirmed in ADK's tool confirmation (function call {ctx.function_call_id})"
        if isinstance(payload, dict):
            by = str(payload.get("by") or by)
            note = str(payload.get("note") or payload.get("message") or note)
        return by, note


def oncely_function_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[ToolContext], str | None] | None = None,
    step: Callable[[ToolContext, str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    require_confirmation: bool | Callable[..., bool] = False,
    approved_by: str | Callable[[ToolContext], str] = "google-adk",
    **options: Any,
) -> OncelyFunctionTool:
    """An ADK ``FunctionTool`` that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used) or a plain function (sync or ``async def``; give ``ledger`` and ``policy``).
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring). An oncely tool keeps its own name in the ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the ``ToolContext``; default: the ADK session id
      (``tool_context.session.id``). ``oncely.context(run=...)`` overrides both.
    - ``step``: a function ``(tool_context, function_call_id) -> step or None``, for tools
      where two identical calls in one session are meant as two effects. Default: none (keyed
      by run). Returning the function-call id brings back the double effect a re-asking model
      causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the
      declaration; a function without it reads ``oncely.current_call().key``).
    - ``require_confirmation``: as ``FunctionTool``'s. A policy with an ``approval`` rule asks
      the ledger too (the module's docstring); either asks a person.
    - ``approved_by``: who the ledger records for a confirmation whose payload names nobody (a
      name, or a function of the ``ToolContext``).
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError("an oncely tool returns one result: a generator cannot be keyed")
    guard: Guard[ToolContext] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    return OncelyFunctionTool(
        fn,
        guard,
        name=name or tool_name,
        description=description,
        key_param=fn_key or key_param,
        require_confirmation=require_confirmation,
        approved_by=approved_by,
    )


__all__ = ["OncelyFunctionTool", "oncely_function_tool", "session_id"]
