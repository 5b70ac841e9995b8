"""Strands Agents: a tool whose calls run at most once per intent
(``pip install 'oncely[strands]'``).

::

    import oncely
    from strands import Agent
    from strands.session import FileSessionManager
    from oncely.adapters.strands import oncely_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    agent = Agent(
        tools=[oncely_tool(refund, scope="acme")],
        session_manager=FileSessionManager(session_id="conversation-7", storage_dir="sessions"),
    )
    agent("refund $5 of ch_1")

:func:`oncely_tool` is Strands' ``@tool`` for an oncely tool (``@ledger.tool``), a plain
function or a ``@tool`` function (sync or ``async def``, with ``ledger=`` and ``policy=``; a
parameter ``agent`` gets the agent, and with ``context=True`` a parameter ``tool_context`` gets
the ``ToolContext``, as with ``@tool``). Its ``tool_spec`` is the one ``@tool`` makes, WITHOUT
the key parameter (``idempotency_key``): the model never sees it. Sync and async functions both
run the effect (a sync one in a worker thread, as Strands runs ``@tool`` functions).

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here (a string, or a function of the
``ToolContext``: e.g. a conversation id the caller passed in ``invocation_state``), else the
agent's session — the ``session_id`` of its session manager (``FileSessionManager``,
``S3SessionManager``, …), which Strands persists the conversation under — else refused
(:class:`~oncely.IdentityError`, a ``LookupError``) unless the key is natural. An agent without a
session manager has only a random id of its own instance, which no resumed or re-created agent
shares: it is not a run. No step unless given, so the same tool with the same arguments in one
session is one effect — a model re-asking with a new ``toolUseId``, and an agent resumed from its
session, get the first result (a new ``Agent`` with the session's id restores the conversation,
and ``agent()`` runs a last tool use that has no result again). The ``toolUseId`` is recorded
for audit (``audit=``, logger ``oncely.adapters``), never keyed.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed), the model reads the core's answer
(``agent.answer``: ``oncely: …``) as Strands' tool error: a ``toolResult`` with ``status:
"error"``, its exception given to hooks (``AfterToolCallEvent.exception``). Other errors (no run,
storage, arguments the schema refuses) are raised as any tool's are: Strands reports them to the
model as its own error result (``Error: …``) with the exception, and the effect is not answered.

A caller's timeout or cancellation (``asyncio.wait_for`` around ``invoke_async``, a cancelled
task) does not stop a claimed call: it runs to its result and is recorded (the ledger's rule), and
the call asked again gets that result. ``agent.cancel()`` is Strands' own: it stops before tools
run, and a tool that has started runs to completion.

Approval (a policy with an ``approval`` rule): Strands' interrupt is the ledger's request. When
the core says a person is needed (``Ledger.asks_approval``), the tool records the ledger's one
request (the inbox lists it) and interrupts the agent with it (``tool_context.interrupt``, name
``oncely-approval``, reason ``{"oncely": "approval", "tool", "key", "args", "version"}``): the
agent stops with ``stop_reason == "interrupt"``. Resume it with
``agent([{"interruptResponse": {"interruptId": interrupt.id, "response": ...}}])``:
``{"type": "approve"}`` or ``{"type": "reject", "message": why}`` (``"by"``: who, default
``approved_by``; ``"key"``: the request's, checked), or ``True``/``False``. The decision is
recorded in the ledger, then the call runs once, or the model reads the denial. A decision
already in the ledger (the inbox, another worker) is not asked again, and the first one recorded
stands.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any, cast

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_jsonable_python
from strands.tools.decorator import FunctionToolMetadata
from strands.types.events import ToolResultEvent
from strands.types.tools import AgentTool, ToolContext, ToolGenerator, ToolResult, ToolSpec, ToolUse

from oncely.adapters._core import (
    CallRecord,
    Guard,
    Identity,
    PolicyLike,
    answer_for,
    as_ledger,
    unwrap_tool,
)

INTERRUPT = "oncely-approval"
"""The name of the interrupt an approval asks with (``Interrupt.name``)."""


def session_id(agent: Any) -> str | None:
    """The session an agent's conversation is persisted under (its session manager's
    ``session_id``), if it has a session manager."""
    manager = getattr(agent, "_session_manager", None)
    value = getattr(manager, "session_id", None)
    return None if value in (None, "") else str(value)


class _Metadata(FunctionToolMetadata):
    """``@tool``'s metadata of a function, the key parameter left out of the schema."""

    def __init__(self, func: Callable[..., Any], context_param: str | None, key: str) -> None:
        self._key = key
        super().__init__(func, context_param)

    def _is_special_parameter(self, param_name: str) -> bool:
        return param_name == self._key or super()._is_special_parameter(param_name)


class OncelyAgentTool(AgentTool):
    """A Strands tool whose calls go through an oncely ledger (made by :func:`oncely_tool`)."""

    def __init__(
        self,
        guard: Guard[ToolContext[Any]],
        spec: ToolSpec,
        meta: _Metadata,
        fn: Callable[..., Any],
        key_param: str | None,
        approved_by: str,
    ) -> None:
        super().__init__()
        self._guard = guard
        self._spec = spec
        self._meta = meta
        self._fn = fn
        self._key_param = key_param
        self._approved_by = approved_by
        self._is_async = inspect.iscoroutinefunction(fn)

    @property
    def guard(self) -> Guard[ToolContext[Any]]:
        """The guard: ledger, policy, scope, run and step rules."""
        return self._guard

    @property
    def tool_name(self) -> str:
        return self._spec["name"]

    @property
    def tool_spec(self) -> ToolSpec:
        return self._spec

    @property
    def tool_type(self) -> str:
        return "function"

    def _context(
        self, tool_use: ToolUse, invocation_state: dict[str, Any], given: Any
    ) -> ToolContext[Any]:
        if isinstance(given, ToolContext):
            return given
        agent = invocation_state.get("agent")
        return ToolContext(
            tool_use=tool_use,
            agent=agent,
            invocation_state=invocation_state,
            cancel_signal=getattr(agent, "cancel_signal", None) or threading.Event(),
        )

    async def stream(
        self, tool_use: ToolUse, invocation_state: dict[str, Any], **kwargs: Any
    ) -> ToolGenerator:
        """Run the call through the ledger; the last event is its ``ToolResultEvent``."""
        call_id = tool_use.get("toolUseId")
        ctx = self._context(tool_use, invocation_state, kwargs.get("_tool_context"))
        arguments = self._meta.validate_input(dict(tool_use.get("input") or {}))
        intent_args = to_jsonable_python(arguments)
        self._meta.inject_special_parameters(arguments, tool_use, invocation_state, ctx)
        i = self._guard.identity(ctx, session_id(ctx.agent), call_id)
        key_param, fn = self._key_param, self._fn

        def call(key: str) -> Any:
            return fn(**arguments, **({key_param: key} if key_param else {}))

        try:
            if self._guard.gated:
                await self._approved(ctx, intent_args, i)
            if self._is_async:
                r = await self._guard.run_async(call, intent_args, i, call_id)
            else:
                r = await asyncio.to_thread(self._guard.run_sync, call, intent_args, i, call_id)
        except Exception as e:
            text = answer_for(e)
            if text is None:
                raise
            error: ToolResult = {
                "toolUseId": str(call_id),
                "status": "error",
                "content": [{"text": text}],
            }
            yield ToolResultEvent(error, exception=e)
            return
        yield ToolResultEvent(_result(str(call_id), r.value))

    async def _approved(self, ctx: ToolContext[Any], args: dict[str, Any], i: Identity) -> None:
        """Ask the agent's person about the ledger's request for this call, if the core says a
        person is needed: Strands' interrupt stops the agent here (``InterruptException``), and
        the call runs again when the agent is resumed, when ``interrupt()`` returns the person's
        response; the decision is recorded in the ledger (the first one recorded stands)."""
        asked = await asyncio.to_thread(self._guard.ask, args, i)
        if asked is None:
            return
        reason = {
            "oncely": "approval",
            "tool": self._guard.name,
            "key": asked.key,
            "args": args,
            "version": asked.version,
        }
        reply = ctx.interrupt(INTERRUPT, reason=reason)
        approve, by, note = _decision(reply, self._approved_by, asked.key)
        await asyncio.to_thread(
            lambda: self._guard.decide(args, i, approve=approve, by=by, note=note)
        )

    def get_display_properties(self) -> dict[str, str]:
        properties = super().get_display_properties()
        properties["Function"] = getattr(self._fn, "__name__", self.tool_name)
        return properties


def _result(call_id: str, value: Any) -> ToolResult:
    """A tool's value as Strands' ``@tool`` gives it to the model."""
    if isinstance(value, Mapping) and "status" in value and "content" in value:
        return cast(ToolResult, {**value, "toolUseId": call_id})
    if isinstance(value, str):
        text = value
    elif isinstance(value, BaseModel):
        try:
            text = value.model_dump_json()
        except PydanticSerializationError:
            text = str(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    return {"toolUseId": call_id, "status": "success", "content": [{"text": text}]}


def _decision(reply: Any, by: str, key: str) -> tuple[bool, str, str]:
    """(approve, by, note) of an interrupt response for the request of ``key``:
    ``True``/``False``, ``"approve"``/``"reject"``, or ``{"type": "approve" | "reject",
    "message"?, "by"?, "key"?}``. A response that names another key is refused."""
    if isinstance(reply, bool):
        return reply, by, ""
    if isinstance(reply, str):
        reply = {"type": reply}
    if isinstance(reply, Mapping) and reply.get("key") not in (None, key):
        raise TypeError(f"this interrupt response is for {reply['key']}, not for {key}")
    if isinstance(reply, Mapping) and reply.get("type") in ("approve", "reject", "deny"):
        note = str(reply.get("message") or reply.get("note") or "")
        return reply["type"] == "approve", str(reply.get("by") or by), note
    raise TypeError(
        "answer an oncely approval with True/False, 'approve'/'reject', or "
        f'{{"type": "approve" | "reject", "message": ..., "by": ...}}, not {reply!r}'
    )


def oncely_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[ToolContext[Any]], str | None] | None = None,
    step: Callable[[ToolContext[Any], str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    context: bool | str = False,
    approved_by: str = "strands",
    **options: Any,
) -> OncelyAgentTool:
    """A Strands ``AgentTool`` that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used), a plain function (sync or ``async def``; give ``ledger`` and ``policy``), or a
      function already made a tool with Strands' ``@tool`` (its function, name and description;
      give ``ledger`` and ``policy``, and ``context`` if it takes the ``ToolContext``).
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring, as ``@tool``). An oncely tool keeps its own name in the ledger (keys,
      reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the ``ToolContext``; default: the agent's session
      (its session manager's ``session_id``). ``oncely.context(run=...)`` overrides both.
    - ``step``: a function ``(tool_context, tool_use_id) -> step or None``, for tools where two
      identical calls in one session are meant as two effects. Default: none (keyed by run).
      Returning the ``toolUseId`` brings back the double effect a re-asking model causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the schema;
      a function without it reads ``oncely.current_call().key``).
    - ``context``: as ``@tool``'s: ``True`` (or a parameter's name) gives the function the
      ``ToolContext``.
    - ``approved_by``: who the ledger records for a decision given without ``"by"``.
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    if isinstance(target, AgentTool):
        # A function made a tool with Strands' @tool: its function, name and description.
        inner = getattr(target, "__wrapped__", None)
        if inner is None:
            raise TypeError(f"oncely_tool wraps a function or a @tool function, not {target!r}")
        name = name or target.tool_name
        description = description or target.tool_spec.get("description")
        target = inner
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    if inspect.isasyncgenfunction(fn) or inspect.isgeneratorfunction(fn):
        raise TypeError("oncely_tool: a streaming (generator) tool has no one result to record")
    key_param = fn_key or key_param
    takes_key = key_param in inspect.signature(fn).parameters
    if isinstance(context, bool):
        context_param = "tool_context" if context else None
    else:
        context_param = context.strip() or None
    meta = _Metadata(fn, context_param, key_param)
    spec = meta.extract_metadata()
    spec["name"] = name or tool_name
    if description is not None:
        spec["description"] = description
    guard: Guard[ToolContext[Any]] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    return OncelyAgentTool(guard, spec, meta, fn, key_param if takes_key else None, approved_by)


__all__ = ["INTERRUPT", "OncelyAgentTool", "oncely_tool", "session_id"]
