"""LangChain and LangGraph: a tool whose calls run at most once per intent
(``pip install 'oncely[langchain]'``; LangGraph is optional).

::

    import oncely
    from oncely.adapters.langchain import oncely_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    refund_tool = oncely_tool(refund, scope="acme")   # a LangChain BaseTool
    # graph.invoke(..., {"configurable": {"thread_id": "conversation-7"}})

:func:`oncely_tool` wraps an oncely tool (``@ledger.tool``), a plain function (sync or
``async def``, with ``ledger=`` and ``policy=``) or an existing LangChain tool. The tool's schema
is the function's parameters WITHOUT the key parameter (``idempotency_key``): the model never
sees it. ``invoke`` and ``ainvoke`` both run the effect (an ``async def`` tool is awaited;
a sync one runs in a worker thread under ``ainvoke``).

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here, else the LangGraph thread
(``config["configurable"]["thread_id"]``), else refused (:class:`~oncely.IdentityError`, a
``LookupError``) unless the key is natural; no step unless given, so the same tool with the same
arguments in one thread is one effect — a model re-asking with a new tool-call id, and a graph
resumed from its checkpoint, get the first result. The tool-call id is recorded for audit
(``audit=``, logger ``oncely.adapters``), never keyed.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed), the model reads the core's answer
(``agent.answer``: ``oncely: …``) as an error ``ToolMessage``; storage errors propagate.

Approval (a policy with an ``approval`` rule), in a LangGraph graph: LangGraph's ``interrupt()``
is the ledger's request. When the core says a person is needed (``Ledger.asks_approval``), the
tool records the ledger's one request (the inbox lists it) and interrupts the graph with it
(``{"oncely": "approval", "tool", "key", "args", "version"}``); resume it with
``Command(resume=...)``: ``{"type": "approve"}`` or ``{"type": "reject", "message": why}``
(``"by"``: who, default ``approved_by``; ``"key"``: the request's, checked), or
``True``/``False``. LangGraph hands resume values out in the order the tools of a task ask: with
several gated calls in one ``ToolNode`` task, answer each with its ``"key"`` (``create_agent``
runs each call as a task of its own). The decision is recorded in
the ledger, then the call runs once, or the model reads the denial. A decision already in the
ledger (the inbox, another worker) is not asked again, and the first one recorded stands. Outside
a graph the call meets the ledger's request itself (the model reads "awaiting approval").
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langchain_core.tools.base import FILTERED_ARGS, create_schema_from_function
from pydantic import BaseModel, PrivateAttr, create_model
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
from oncely.types import ApprovalRequest

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "oncely_langchain_tool_call_id", default=None
)

Invoke = Callable[[dict[str, Any], RunnableConfig, str], Any]
"""How the guarded tool is called: (arguments, config, key) -> value (or an awaitable)."""


def thread_id(config: RunnableConfig | None) -> str | None:
    """The LangGraph thread of a config (``configurable.thread_id``), if any."""
    configurable = (config or {}).get("configurable") or {}
    value = configurable.get("thread_id")
    return None if value in (None, "") else str(value)


class OncelyTool(BaseTool):
    """A LangChain tool whose calls go through an oncely ledger (made by :func:`oncely_tool`)."""

    handle_tool_error: bool | str | Callable[[ToolException], str] | None = True
    """The ledger's answers (``oncely: …``) reach the model as error ToolMessages."""

    _guard: Guard[RunnableConfig] = PrivateAttr()
    _invoke: Invoke | None = PrivateAttr(default=None)
    _ainvoke: Invoke | None = PrivateAttr(default=None)
    _approved_by: str = PrivateAttr(default="langgraph")

    @property
    def guard(self) -> Guard[RunnableConfig]:
        """The guard: ledger, policy, scope, run and step rules."""
        return self._guard

    # Remember the tool-call id for the audit record: LangChain gives it to run(), not _run().
    def run(self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kw: Any) -> Any:
        token = _CALL_ID.set(tool_call_id)
        try:
            return super().run(tool_input, *args, tool_call_id=tool_call_id, **kw)
        finally:
            _CALL_ID.reset(token)

    async def arun(
        self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kw: Any
    ) -> Any:
        token = _CALL_ID.set(tool_call_id)
        try:
            return await super().arun(tool_input, *args, tool_call_id=tool_call_id, **kw)
        finally:
            _CALL_ID.reset(token)

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs.pop("run_manager", None)
        if args:  # a string input to a one-field schema
            fields = list(self.tool_call_schema.model_json_schema().get("properties", {}))  # type: ignore[union-attr]
            kwargs = {fields[0]: args[0], **kwargs}
        return kwargs

    def _run(self, *args: Any, config: RunnableConfig, **kwargs: Any) -> Any:
        arguments = self._arguments(args, kwargs)
        if self._invoke is None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(self._guarded_async(arguments, config))
            raise RuntimeError(
                f"the oncely tool {self.name!r} is async: call it with ainvoke inside an event loop"
            )
        return self._guarded_sync(arguments, config)

    async def _arun(self, *args: Any, config: RunnableConfig, **kwargs: Any) -> Any:
        arguments = self._arguments(args, kwargs)
        if self._ainvoke is None:
            return await asyncio.to_thread(self._guarded_sync, arguments, config)
        return await self._guarded_async(arguments, config)

    def _decided(self, args: dict[str, Any], i: Identity, asked: ApprovalRequest | None) -> None:
        """Ask the graph's person about the ledger's request ``asked`` (LangGraph's
        ``interrupt()``: the graph stops here, and runs the tool again when resumed) and record
        their decision in the ledger. Outside a graph, nothing: the call meets the request."""
        if asked is None:
            return
        try:
            from langgraph.types import interrupt
        except ImportError:
            return
        request = {
            "oncely": "approval",
            "tool": self._guard.name,
            "key": asked.key,
            "args": args,
            "version": asked.version,
        }
        try:
            reply = interrupt(request)
        except RuntimeError:  # not in a graph (no runnable context)
            return
        approve, by, note = _decision(reply, self._approved_by, asked.key)
        self._guard.decide(args, i, approve=approve, by=by, note=note)

    def _guarded_sync(self, arguments: dict[str, Any], config: RunnableConfig) -> Any:
        invoke = self._invoke
        assert invoke is not None
        call_id = _CALL_ID.get()
        i = self._guard.identity(config, thread_id(config), call_id)
        try:
            if self._guard.gated:
                args = to_jsonable_python(arguments)
                self._decided(args, i, self._guard.ask(args, i))
            r = self._guard.run_sync(
                lambda key: invoke(arguments, config, key),
                to_jsonable_python(arguments),
                i,
                call_id,
            )
        except Exception as e:
            raise _answer(e) from e
        return r.value

    async def _guarded_async(self, arguments: dict[str, Any], config: RunnableConfig) -> Any:
        ainvoke = self._ainvoke
        assert ainvoke is not None
        call_id = _CALL_ID.get()
        i = self._guard.identity(config, thread_id(config), call_id)
        try:
            if self._guard.gated:
                args = to_jsonable_python(arguments)
                asked = await asyncio.to_thread(self._guard.ask, args, i)
                run = contextvars.copy_context().run
                await asyncio.to_thread(run, self._decided, args, i, asked)
            r = await self._guard.run_async(
                lambda key: ainvoke(arguments, config, key),
                to_jsonable_python(arguments),
                i,
                call_id,
            )
        except Exception as e:
            raise _answer(e) from e
        return r.value


def _decision(reply: Any, by: str, key: str) -> tuple[bool, str, str]:
    """(approve, by, note) of a resume value for the request of ``key``: ``True``/``False``,
    ``"approve"``/``"reject"``, or ``{"type": "approve" | "reject", "message"?, "by"?, "key"?}``
    (LangChain's human-in-the-loop decisions). A value that names another key is refused: a
    graph resumed with several answers gives them out in the order its tools ask, which a
    ``ToolNode`` running several calls at once does not fix."""
    if isinstance(reply, bool):
        return reply, by, ""
    if isinstance(reply, str):
        reply = {"type": reply}
    if isinstance(reply, Mapping) and reply.get("key") not in (None, key):
        raise TypeError(f"this resume value is for {reply['key']}, not for {key}")
    if isinstance(reply, Mapping) and reply.get("type") in ("approve", "reject", "deny"):
        note = str(reply.get("message") or reply.get("note") or "")
        return reply["type"] == "approve", str(reply.get("by") or by), note
    raise TypeError(
        "resume an oncely approval with True/False, 'approve'/'reject', or "
        f'{{"type": "approve" | "reject", "message": ..., "by": ...}}, not {reply!r}'
    )


def _answer(e: Exception) -> Exception:
    text = answer_for(e)
    return e if text is None else ToolException(text)


def _without(schema: Any, name: str) -> Any:
    """An args schema (pydantic model or JSON schema) without the member ``name``."""
    if isinstance(schema, dict):
        props = {k: v for k, v in schema.get("properties", {}).items() if k != name}
        required = [r for r in schema.get("required", []) if r != name]
        return {**schema, "properties": props, "required": required}
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        if name not in schema.model_fields:
            return schema
        fields: Any = {n: (f.annotation, f) for n, f in schema.model_fields.items() if n != name}
        model = create_model(schema.__name__, __doc__=schema.__doc__, **fields)
        return model
    return schema


def oncely_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[RunnableConfig], str | None] | None = None,
    step: Callable[[RunnableConfig, str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    parse_docstring: bool = False,
    approved_by: str = "langgraph",
    **options: Any,
) -> OncelyTool:
    """A LangChain tool that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used), a plain function (sync or ``async def``; give ``ledger`` and ``policy``), or an
      existing LangChain ``BaseTool`` (give ``ledger`` and ``policy``; it reads the key with
      ``oncely.current_call().key``, or gets it in ``key_param`` if its schema has one).
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring). An oncely tool keeps its own name in the ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the RunnableConfig; default: the LangGraph thread
      id. ``oncely.context(run=...)`` overrides both.
    - ``step``: a function ``(config, tool_call_id) -> step or None``, for tools where two
      identical calls in one thread are meant as two effects. Default: none (keyed by run).
      Returning the tool-call id brings back the double effect a re-asking model causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the schema;
      a function without it reads ``oncely.current_call().key``).
    - ``approved_by``: who the ledger records for a decision resumed without ``"by"``.
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    ledger = as_ledger(ledger)
    if isinstance(target, BaseTool):
        made = _from_tool(
            target, ledger, policy, scope, run, step, name, description, audit, key_param, options
        )
        made._approved_by = approved_by
        return made
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(target, ledger, policy, name)
    key_param = fn_key or key_param
    takes_key = key_param in inspect.signature(fn).parameters
    shown = name or tool_name
    schema = create_schema_from_function(
        shown,
        fn,
        filter_args=[*FILTERED_ARGS, key_param],
        parse_docstring=parse_docstring,
    )
    desc = description or inspect.getdoc(fn) or shown

    def call(arguments: dict[str, Any], config: RunnableConfig, key: str) -> Any:
        return fn(**arguments, **({key_param: key} if takes_key else {}))

    guard: Guard[RunnableConfig] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    t = OncelyTool(name=shown, description=desc, args_schema=schema)
    t._guard = guard
    t._approved_by = approved_by
    if inspect.iscoroutinefunction(fn):
        t._ainvoke = call
    else:
        t._invoke = call
    return t


def _from_tool(
    inner: BaseTool,
    ledger: Any,
    policy: PolicyLike | None,
    scope: str | None,
    run: str | Callable[[RunnableConfig], str | None] | None,
    step: Callable[[RunnableConfig, str | None], str | None] | None,
    name: str | None,
    description: str | None,
    audit: Callable[[CallRecord], None] | None,
    key_param: str,
    options: Mapping[str, Any],
) -> OncelyTool:
    if ledger is None or policy is None:
        raise TypeError("wrapping a LangChain tool needs ledger=... and policy=...")
    schema = inner.args_schema if inner.args_schema is not None else inner.get_input_schema()
    takes_key = key_param in (inner.args or {})
    # The ledger must see the inner tool's errors: they say whether the effect happened.
    inner = inner.model_copy(update={"handle_tool_error": False, "handle_validation_error": False})
    sync = not (isinstance(inner, StructuredTool) and inner.func is None)

    def arguments_of(arguments: dict[str, Any], key: str) -> dict[str, Any]:
        return {**arguments, key_param: key} if takes_key else arguments

    def call(arguments: dict[str, Any], config: RunnableConfig, key: str) -> Any:
        return inner.invoke(arguments_of(arguments, key), config)

    async def acall(arguments: dict[str, Any], config: RunnableConfig, key: str) -> Any:
        return await inner.ainvoke(arguments_of(arguments, key), config)

    guard: Guard[RunnableConfig] = Guard(
        ledger,
        name=name or inner.name,
        policy=policy,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options=options,
    )
    t = OncelyTool(
        name=name or inner.name,
        description=description or inner.description,
        args_schema=_without(schema, key_param),
    )
    t._guard = guard
    t._invoke = call if sync else None
    t._ainvoke = acall
    return t


__all__ = ["OncelyTool", "oncely_tool", "thread_id"]
