"""CrewAI: a tool whose calls run at most once per intent (``pip install 'oncely[crewai]'``).

::

    import oncely
    from crewai import Agent, Crew, Task
    from oncely.adapters.crewai import oncely_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    tools = [oncely_tool(refund, scope="acme")]
    agent = Agent(role="support", goal="refunds", backstory="...", tools=tools)
    task = Task(description="refund $5 of ch_1", expected_output="the refund", agent=agent)
    Crew(agents=[agent], tasks=[task]).kickoff()   # the run: this crew's id

:func:`oncely_tool` wraps an oncely tool (``@ledger.tool``) or a plain function (sync or
``async def``, with ``ledger=`` and ``policy=``) as a CrewAI ``BaseTool``. Its ``args_schema``
is the function's parameters WITHOUT the key parameter (``idempotency_key``): the model never
sees it. ``run`` and ``arun`` both run the effect (an ``async def`` tool is awaited; CrewAI's
agents call ``run``, which runs it to completion, in a thread of its own when the calling
thread already has an event loop running).

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here (a string, or a function of the
:class:`CrewCall`), else the execution CrewAI runs the tool in: the outermost Flow's id (its
``state.id``, which ``@persist`` keeps and ``kickoff(inputs={"id": ...})`` resumes) when the
crew runs inside a Flow, else the Crew's ``id`` (the same across the task's retries, and kept
by a crew restored from its checkpoint); else refused (:class:`~oncely.IdentityError`, a
``LookupError``) unless the key is natural. An agent's own executor (a Flow of its own, new for
every task) and the task id (new for every task) are never the run. No step unless given, so
the same tool with the same arguments in one flow or crew run is one effect — a model re-asking
after an error, a retried task, a resumed flow get the first result.

CrewAI gives a tool no tool-call id (its agents keep the model's id to themselves): the audit
record (``audit=``, logger ``oncely.adapters``) has ``tool_call_id=None``; nothing would key it.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed, awaiting approval, denied), the tool returns
CrewAI's own tool-error form, a ``ToolFailure`` whose message is the core's answer
(``agent.answer``: ``oncely: …``, read by the model verbatim), ``retryable`` whether the
identical call may be sent again, and ``details`` the reply's code and key; the agent's
``tool_failure_policy`` decides what else happens (recorded and emitted by default; ``raise``
stops the task). Such a failure is never put in the crew's tool cache, so a re-ask reaches the
ledger. Other errors (storage, the ledger) are raised: CrewAI's agent then shows the model its
own "Error executing tool" text, or stops under ``tool_failure_policy="raise"``.

A caller's timeout (an agent's ``max_execution_time``) does not stop a call the ledger claimed
(the core's rule, as with LangGraph's step timeout): CrewAI runs a tool call in a thread, which
its sync kickoff waits for and its async kickoff's ``asyncio.wait_for`` leaves running, so the
call runs to its result and is recorded; the same crew or flow asking again gets that result.

Approval: CrewAI has no tool-call confirmation step (``human_input`` reviews a task's final
answer, not a call). A policy with an ``approval`` rule meets the ledger's request itself: the
model reads "awaiting approval" (the inbox lists the request); decide in the inbox or with
``ledger.approve``/``ledger.deny``, and the same call asked again in the run runs once, or the
model reads the denial.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crewai import Crew, Flow
from crewai.agents.agent_executor import AgentExecutor
from crewai.context import get_current_task_id
from crewai.events.event_bus import crewai_event_bus
from crewai.tools import BaseTool
from crewai.tools.tool_failure import ToolFailure
from crewai.utilities.crew.crew_context import get_crew_context
from pydantic import BaseModel, PrivateAttr, create_model
from pydantic_core import to_jsonable_python

from oncely.adapters._core import (
    CallRecord,
    Guard,
    PolicyLike,
    as_ledger,
    reply_for,
    unwrap_tool,
)


@dataclass(frozen=True)
class CrewCall:
    """What CrewAI knows of the execution a tool call runs in (it passes a tool no context of
    its own): read when the call runs, given to ``run=`` and ``step=`` functions."""

    flow_id: str | None
    """The outermost Flow's id (``state.id``), when the crew runs inside a Flow."""
    crew_id: str | None
    """The Crew's ``id``, when the call runs in a crew."""
    task_id: str | None
    """The Task's id (new for every task: never the run)."""

    @property
    def conversation(self) -> str | None:
        """The execution that is one run: the outermost Flow, else the Crew."""
        return self.flow_id or self.crew_id


def crew_call() -> CrewCall:
    """The :class:`CrewCall` of the execution this code runs in: the entities of CrewAI's
    runtime state (what its checkpoints hold), outermost first, else the crew's context."""
    flow_id: str | None = None
    crew_id: str | None = None
    state = crewai_event_bus.runtime_state
    for entity in state.root if state is not None else []:
        if isinstance(entity, AgentExecutor):
            continue  # an agent's own executor: new for every task
        if isinstance(entity, Flow) and flow_id is None and crew_id is None:
            flow_id = str(entity.flow_id) or None
        elif isinstance(entity, Crew) and crew_id is None:
            crew_id = str(entity.id)
    if crew_id is None:
        ctx = get_crew_context()
        crew_id = None if ctx is None or not ctx.id else str(ctx.id)
    return CrewCall(flow_id, crew_id, get_current_task_id())


def _no_failures(args: Any = None, result: Any = None) -> bool:
    """The tool's ``cache_function`` (CrewAI's tool cache): an oncely answer is never cached (a
    re-ask must reach the ledger); a result is. Module-level, so CrewAI can checkpoint it."""
    return not isinstance(result, ToolFailure)


def _failure(e: Exception) -> ToolFailure | None:
    """The core's answer to ``e`` in CrewAI's tool-error form, or ``None`` (not about the call:
    raised)."""
    reply = reply_for(e)
    if reply is None:
        return None
    details = {"oncely": reply.code.value, "key": reply.key}
    if reply.pointer is not None:
        details["pointer"] = reply.pointer
    return ToolFailure(message=reply.text, retryable=reply.repeatable, details=details)


class OncelyTool(BaseTool):
    """A CrewAI tool whose calls go through an oncely ledger (made by :func:`oncely_tool`)."""

    _guard: Guard[CrewCall] = PrivateAttr()
    _call: Callable[[dict[str, Any], str], Any] = PrivateAttr()
    _is_async: bool = PrivateAttr(default=False)

    @property
    def guard(self) -> Guard[CrewCall]:
        """The guard: ledger, policy, scope, run and step rules."""
        return self._guard

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        arguments = self._arguments(args, kwargs)
        if not self._is_async:
            return self._guarded_sync(arguments)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._guarded_async(arguments))
        # CrewAI calls run() from code on a running loop: the call gets a loop of its own in a
        # worker thread (with this context: the run, the crew) and runs to its result there.
        ctx = contextvars.copy_context()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(ctx.run, asyncio.run, self._guarded_async(arguments)).result()

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        arguments = self._arguments(args, kwargs)
        if self._is_async:
            return await self._guarded_async(arguments)
        ctx = contextvars.copy_context()
        return await asyncio.to_thread(ctx.run, self._guarded_sync, arguments)

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        if args:  # positional arguments, in the schema's order
            kwargs = {**dict(zip(self.args_schema.model_fields, args, strict=False)), **kwargs}
        return kwargs

    def _guarded_sync(self, arguments: dict[str, Any]) -> Any:
        call = self._call
        i = self._guard.identity(ctx := crew_call(), ctx.conversation, None)
        try:
            r = self._guard.run_sync(
                lambda key: call(arguments, key), to_jsonable_python(arguments), i, None
            )
        except Exception as e:
            failure = _failure(e)
            if failure is None:
                raise
            return failure
        return r.value

    async def _guarded_async(self, arguments: dict[str, Any]) -> Any:
        call = self._call
        i = self._guard.identity(ctx := crew_call(), ctx.conversation, None)
        try:
            r = await self._guard.run_async(
                lambda key: call(arguments, key), to_jsonable_python(arguments), i, None
            )
        except Exception as e:
            failure = _failure(e)
            if failure is None:
                raise
            return failure
        return r.value


def _schema(name: str, fn: Callable[..., Any], key_param: str) -> type[BaseModel]:
    """The arguments the model sees: the function's parameters without ``key_param``."""
    hints = typing.get_type_hints(fn)
    fields: dict[str, Any] = {}
    for p in inspect.signature(fn).parameters.values():
        if p.name in (key_param, "self") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = hints.get(p.name, Any)
        fields[p.name] = (annotation, ... if p.default is p.empty else p.default)
    model: type[BaseModel] = create_model(f"{name}_arguments", **fields)
    return model


def oncely_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[CrewCall], str | None] | None = None,
    step: Callable[[CrewCall, str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    tool_options: dict[str, Any] | None = None,
    **options: Any,
) -> OncelyTool:
    """A CrewAI tool that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used) or a plain function (sync or ``async def``; give ``ledger`` and ``policy``).
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring). An oncely tool keeps its own name in the ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the :class:`CrewCall`; default: the outermost
      Flow's id, else the Crew's id. ``oncely.context(run=...)`` overrides both.
    - ``step``: a function ``(crew_call, tool_call_id) -> step or None`` (CrewAI gives no
      tool-call id: it is ``None``), for tools where two identical calls in one run are meant
      as two effects. Default: none (keyed by run).
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the schema;
      a function without it reads ``oncely.current_call().key``).
    - ``tool_options``: other ``BaseTool`` fields (``result_as_answer``, ``max_usage_count``,
      ``tool_failure_policy``; ``cache_function``: by default an oncely answer is never cached,
      and one given here should say ``False`` for a ``ToolFailure``).
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    key_param = fn_key or key_param
    takes_key = key_param in inspect.signature(fn).parameters
    shown = name or tool_name
    extra = {"cache_function": _no_failures, **(tool_options or {})}

    def call(arguments: dict[str, Any], key: str) -> Any:
        return fn(**arguments, **({key_param: key} if takes_key else {}))

    guard: Guard[CrewCall] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    t = OncelyTool(
        name=shown,
        description=description or inspect.getdoc(fn) or shown,
        args_schema=_schema(shown, fn, key_param),
        **extra,
    )
    t._guard = guard
    t._call = call
    t._is_async = inspect.iscoroutinefunction(fn)
    return t


__all__ = ["CrewCall", "OncelyTool", "crew_call", "oncely_tool"]
