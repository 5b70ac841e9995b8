"""smolagents: a tool whose calls run at most once per intent (``pip install smolagents``).

::

    import oncely
    from smolagents import ToolCallingAgent
    from oncely.adapters.smolagents import oncely_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        \"\"\"Refund part of a charge.

        Args:
            charge_id: The charge to refund.
            amount: How much, in cents.
        \"\"\"
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    agent = ToolCallingAgent(tools=[oncely_tool(refund, scope="acme")], model=model)
    with oncely.context(run="conversation-7"):      # smolagents names no conversation
        agent.run("refund $5 of ch_1")

:func:`oncely_tool` wraps an oncely tool (``@ledger.tool``), a plain function (sync or
``async def``, with ``ledger=`` and ``policy=``) or a smolagents ``Tool`` (``@tool`` or a
``Tool`` subclass, whose ``forward`` may be ``async def``; with ``ledger=`` and ``policy=``) as
a smolagents ``Tool``. Its ``inputs`` are what ``@tool`` makes of the function (type hints, the
docstring's ``Args:``) WITHOUT the key parameter (``idempotency_key``): the model never sees it.
smolagents calls tools synchronously (``ToolCallingAgent`` runs several calls of one step in
threads, ``CodeAgent`` from its Python executor); an ``async def`` function is run to its result
on an event loop of its own (in a worker thread when the calling thread already runs one),
through the ledger's async path.

Identity (the core's ``agent.identify``, docs/choosing-keys.md): smolagents has no conversation
id — an agent run has its memory (a list of steps, no id), its ``state`` (the caller's
``additional_args``) and step numbers that start again at 1 every run, and it persists nothing
— so the run must be given: ``run=`` here (a string, or a function of the :class:`SmolCall`:
e.g. ``lambda c: c.state["conversation"]`` with ``agent.run(task, additional_args={
"conversation": ...})``), or ``oncely.context(run=...)`` around ``agent.run`` (a
``ToolCallingAgent`` only: a ``CodeAgent`` runs its code in a thread of its own, without the
caller's context); else the call is refused (:class:`~oncely.IdentityError`, a ``LookupError``)
unless the key is natural. No step unless given, so the same tool with the same arguments in one
run is one effect — a model re-asking with a new tool-call id, and a process that runs the
conversation again after a crash, get the first result. smolagents gives a tool neither its
agent nor the tool-call id; the adapter reads them from the frames that called it
(``ToolCallingAgent.process_tool_calls``'s ``tool_call``; a ``CodeAgent``'s executor state):
the id is recorded for audit (``audit=``, logger ``oncely.adapters``), never keyed, and is
``None`` when a ``CodeAgent`` or other code calls the tool.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed, awaiting approval, denied), the tool raises
:class:`OncelyAnswer`, whose message is the core's answer (``agent.answer``: ``oncely: …``):
smolagents' own tool-error form, an ``AgentToolExecutionError`` ("Error executing tool …:
OncelyAnswer: oncely: …") kept as the step's ``error`` and shown to the model in the next
step's messages (a ``CodeAgent``'s: "Code execution failed at line …: OncelyAnswer: oncely:
…"). smolagents adds its own "Please try again or use another tool": an identical call asked
again meets the core's record, never a second effect. Other errors (no run, storage, the ledger)
are raised as any tool's are: smolagents shows the model its own error text with them, and the
effect is not answered.

A caller's timeout or cancellation does not stop a call the ledger claimed (the core's rule):
smolagents cannot cancel a running tool — ``agent.interrupt()`` stops the agent between steps,
a ``ToolCallingAgent`` waits for every call of its step, and a caller that stops waiting for
``agent.run`` (a thread's timeout, ``asyncio.wait_for`` around ``asyncio.to_thread``) leaves it
running, as a ``CodeAgent``'s own execution timeout leaves its code's thread — so the call runs
to its result and is recorded; the same run asking again gets it.

Approval: smolagents has no tool-call confirmation step. A policy with an ``approval`` rule meets
the ledger's request itself: the model reads "awaiting approval" (the inbox lists the request);
decide in the inbox or with ``ledger.approve``/``ledger.deny``, and the same call asked again in
the run runs once, or the model reads the denial.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from smolagents import MultiStepAgent, Tool  # type: ignore[import-untyped]
from smolagents.memory import ToolCall  # type: ignore[import-untyped]
from smolagents.tools import get_json_schema  # type: ignore[import-untyped]

from oncely.adapters._core import (
    CallRecord,
    Guard,
    PolicyLike,
    as_ledger,
    reply_for,
    unwrap_tool,
)
from oncely.types import Reply


@dataclass(frozen=True)
class SmolCall:
    """What smolagents knows of one tool call (it passes a tool no context of its own): read
    from the frames that called the tool, given to ``run=`` and ``step=`` functions."""

    agent: Any
    """The ``ToolCallingAgent`` running the tool, or ``None`` (a ``CodeAgent`` runs its code in a
    thread of its own, which its frames do not reach; other code)."""
    tool_call_id: str | None
    """The model's id for this call (``ToolCallingAgent``), or ``None``."""
    state: dict[str, Any] = field(default_factory=dict)
    """The agent's ``state`` (a ``ToolCallingAgent``'s), or the variables a ``CodeAgent``'s code
    runs with (which hold its agent's state): both hold the ``additional_args`` the caller gave
    ``agent.run``."""


def smol_call(frame: FrameType | None = None) -> SmolCall:
    """The :class:`SmolCall` of the code running now: the nearest agent on the stack and the
    ``ToolCall`` its ``process_tool_calls`` is running (in this thread, or in the worker thread
    it runs one of several calls in); else the state of the ``CodeAgent`` code that calls."""
    agent: Any = None
    call_id: str | None = None
    variables: Any = None
    f: FrameType | None = frame if frame is not None else sys._getframe(1)
    while f is not None:
        code = f.f_code
        names = code.co_varnames + code.co_freevars
        if variables is None and code.co_name in _EXECUTOR and "state" in names:
            variables = f.f_locals.get("state")
        me = f.f_locals.get("self") if "self" in names else None
        if isinstance(me, MultiStepAgent):
            if agent is not None and me is not agent:
                break  # an outer agent (this one is its managed agent): not this call's
            agent = me
            if code.co_name == "process_single_tool_call":
                call = f.f_locals.get("tool_call")
                call_id = str(call.id) if isinstance(call, ToolCall) else None
                break
        f = f.f_back
    state = getattr(agent, "state", None) if agent is not None else variables
    return SmolCall(agent, call_id, state if isinstance(state, dict) else {})


_EXECUTOR = ("_execute_code", "evaluate_python_code")
"""The functions of smolagents' local Python executor whose ``state`` is a ``CodeAgent``'s."""


class OncelyAnswer(Exception):
    """The core's answer to a call that did not simply return, raised as smolagents' tool error:
    its message (``str``) is the reply's text (``oncely: …``), which the model reads."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply.text)
        self.reply = reply


class OncelyTool(Tool):  # type: ignore[misc]
    """A smolagents tool whose calls go through an oncely ledger (made by :func:`oncely_tool`)."""

    skip_forward_signature_validation = True

    def __init__(
        self,
        guard: Guard[SmolCall],
        *,
        name: str,
        description: str,
        inputs: dict[str, dict[str, Any]],
        output_type: str,
        output_schema: dict[str, Any] | None,
        call: Callable[[dict[str, Any], str], Any],
        is_async: bool,
    ) -> None:
        self.name = name
        self.description = description
        self.inputs = inputs
        self.output_type = output_type
        self.output_schema = output_schema
        self._guard = guard
        self._call = call
        self._is_async = is_async
        super().__init__()
        self.is_initialized = True

    @property
    def guard(self) -> Guard[SmolCall]:
        """The guard: ledger, policy, scope, run and step rules."""
        return self._guard

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run the call through the ledger (what the agent calls, via ``Tool.__call__``)."""
        if args:  # positional arguments (a single-input tool's string), in the inputs' order
            kwargs = {**dict(zip(self.inputs, args, strict=False)), **kwargs}
        ctx = smol_call(sys._getframe(1))
        i = self._guard.identity(ctx, None, ctx.tool_call_id)
        call = self._call
        try:
            if not self._is_async:
                r = self._guard.run_sync(lambda key: call(kwargs, key), kwargs, i, ctx.tool_call_id)
                return r.value
            guarded = self._guard.run_async(
                lambda key: call(kwargs, key), kwargs, i, ctx.tool_call_id
            )
            return _complete(guarded).value
        except Exception as e:
            reply = reply_for(e)
            if reply is None:
                raise
            raise OncelyAnswer(reply) from e


def _complete(coro: typing.Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to its result on a loop of its own (in a worker thread, with this context,
    when this thread already runs a loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    ctx = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(ctx.run, asyncio.run, coro).result()


def _shown(fn: Callable[..., Any], name: str, key_param: str) -> dict[str, Any]:
    """``@tool``'s JSON schema of ``fn`` without ``key_param`` (and ``self``)."""
    hints = typing.get_type_hints(fn)
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.name not in (key_param, "self")]

    def shown(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    shown.__name__ = name
    shown.__doc__ = inspect.getdoc(fn)
    shown.__annotations__ = {
        k: v for k, v in hints.items() if k in {p.name for p in params} or k == "return"
    }
    shown.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    schema: dict[str, Any] = get_json_schema(shown)["function"]
    return schema


def oncely_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[SmolCall], str | None] | None = None,
    step: Callable[[SmolCall, str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    **options: Any,
) -> OncelyTool:
    """A smolagents ``Tool`` that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used), a plain function (sync or ``async def``; give ``ledger`` and ``policy``), or a
      smolagents ``Tool`` (``@tool``, a ``Tool`` subclass; give ``ledger`` and ``policy``; it
      reads the key with ``oncely.current_call().key``, or gets it in ``key_param`` if its
      ``inputs`` have one). A function needs what ``@tool`` needs: type hints and a docstring
      whose ``Args:`` describes every parameter but the key.
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring). An oncely tool keeps its own name in the ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the :class:`SmolCall` (e.g. of the agent's
      ``state``). smolagents names no conversation: without this or ``oncely.context(run=...)``
      (which overrides both) a call is refused.
    - ``step``: a function ``(smol_call, tool_call_id) -> step or None``, for tools where two
      identical calls in one run are meant as two effects. Default: none (keyed by run).
      Returning the tool-call id brings back the double effect a re-asking model causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the inputs;
      a function without it reads ``oncely.current_call().key``).
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    if isinstance(target, Tool):
        return _from_tool(
            target, ledger, policy, scope, run, step, name, description, audit, key_param, options
        )
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    key_param = fn_key or key_param
    takes_key = key_param in inspect.signature(fn).parameters
    shown = name or tool_name
    schema = _shown(fn, shown, key_param)
    returns = schema.get("return") or {"type": "any"}

    def call(arguments: dict[str, Any], key: str) -> Any:
        return fn(**arguments, **({key_param: key} if takes_key else {}))

    guard: Guard[SmolCall] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    return OncelyTool(
        guard,
        name=shown,
        description=description or schema["description"] or shown,
        inputs=schema["parameters"]["properties"],
        output_type=returns["type"] if isinstance(returns.get("type"), str) else "any",
        output_schema=returns.get("schema"),
        call=call,
        is_async=inspect.iscoroutinefunction(fn),
    )


def _from_tool(
    inner: Any,
    ledger: Any,
    policy: PolicyLike | None,
    scope: str | None,
    run: str | Callable[[SmolCall], str | None] | None,
    step: Callable[[SmolCall, str | None], str | None] | None,
    name: str | None,
    description: str | None,
    audit: Callable[[CallRecord], None] | None,
    key_param: str,
    options: Mapping[str, Any],
) -> OncelyTool:
    ledger = as_ledger(ledger)
    if ledger is None or policy is None:
        raise TypeError("wrapping a smolagents Tool needs ledger=... and policy=...")
    takes_key = key_param in inner.inputs
    inputs = {k: dict(v) for k, v in inner.inputs.items() if k != key_param}

    def call(arguments: dict[str, Any], key: str) -> Any:
        return inner(**arguments, **({key_param: key} if takes_key else {}))

    guard: Guard[SmolCall] = Guard(
        ledger,
        name=inner.name,
        policy=policy,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options=options,
    )
    return OncelyTool(
        guard,
        name=name or inner.name,
        description=description or inner.description,
        inputs=inputs,
        output_type=inner.output_type,
        output_schema=getattr(inner, "output_schema", None),
        call=call,
        is_async=inspect.iscoroutinefunction(inspect.unwrap(inner.forward)),
    )


__all__ = ["OncelyAnswer", "OncelyTool", "SmolCall", "oncely_tool", "smol_call"]
