"""LlamaIndex: a ``FunctionTool`` whose calls run at most once per intent
(``pip install 'oncely[llama-index]'``).

::

    import oncely
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.memory import Memory
    from oncely.adapters.llama_index import oncely_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    agent = FunctionAgent(tools=[oncely_tool(refund, scope="acme")], llm=llm)
    await agent.run("refund ch_1", memory=Memory.from_defaults(session_id="conversation-7"))

:func:`oncely_tool` wraps an oncely tool (``@ledger.tool``) or a plain function (sync or
``async def``, with ``ledger=`` and ``policy=``) in an :class:`OncelyTool`, a LlamaIndex
``FunctionTool``. Its schema (``metadata.fn_schema``) and the signature in its description are
the function's parameters WITHOUT the key parameter (``idempotency_key``): the model never sees
it. The arguments are validated by that schema before they are keyed (``500.0`` for an ``int``
is ``500``). ``acall`` (what LlamaIndex's agents call) and ``call`` both run the effect (an
``async def`` tool is awaited; a sync one runs in a worker thread under ``acall``).

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here (a string, or a function of the step's
workflow ``Context``, ``None`` outside a workflow), else the agent's conversation: the session of
its memory in the workflow's context (``Memory``'s ``session_id``; a ``ChatMemoryBuffer``'s
``chat_store_key`` unless it is the default ``"chat_history"``, which every conversation shares),
else refused (:class:`~oncely.IdentityError`, a ``LookupError``) unless the key is natural. The
workflow's ``run_id`` is not the run: it is new for every ``agent.run`` (one turn). A run saved
with ``ctx.to_dict(serializer=PickleSerializer())`` keeps its memory, so the run resumed from it
(``Context.from_dict``, in another process) has the same session (LlamaIndex's JSON serializer
leaves the memory out, and the resumed agent then fails for want of it). No step unless given, so
the same tool with the same arguments in one session is one effect — a model re-asking with a new
tool-call id, and a workflow resumed from its serialized ``Context``, get the first result. The
tool-call id (the agent's ``ToolCall`` event's ``tool_id``) is recorded for audit (``audit=``,
logger ``oncely.adapters``), never keyed.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed), the tool returns LlamaIndex's tool-error form,
a ``ToolOutput`` with ``is_error=True`` whose content is the core's answer (``agent.answer``:
``oncely: …``) — what the agent puts in the tool message the model reads. Other errors (storage,
no run) raise, as any tool's do: an agent then makes them an error ``ToolOutput`` itself
(``exception`` keeps the error). A caller that stops waiting (the workflow's ``timeout``, a
cancelled handler) does not stop a claimed call: it runs to its result and is recorded (the
core's rule), so the next ask gets that result.

Approval (a policy with an ``approval`` rule), inside a workflow: LlamaIndex's human-in-the-loop
events are the ledger's request. When the core says a person is needed (``Ledger.asks_approval``),
the tool records the ledger's one request (the inbox lists it) and waits for the person
(``ctx.wait_for_event``): the stream gets an ``InputRequiredEvent`` with ``oncely="approval"``,
``tool``, ``key``, ``args`` and ``version``; answer it with ``handler.ctx.send_event(
HumanResponseEvent(response="approve" | "reject", key=<the request's key>, by=..., message=...))``
(``by`` defaults to ``approved_by``). The decision is recorded in the ledger, then the call runs
once, or the model reads the denial. A decision already in the ledger (the inbox, another worker)
is not asked again, and the first one recorded stands. Outside a workflow the call meets the
ledger's request itself (the model reads "awaiting approval").
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, get_origin

from llama_index.core.memory.types import DEFAULT_CHAT_STORE_KEY
from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput
from llama_index.core.tools.utils import create_schema_from_function
from pydantic import BaseModel
from pydantic_core import to_jsonable_python
from workflows import Context
from workflows.errors import WorkflowRuntimeError
from workflows.events import HumanResponseEvent, InputRequiredEvent

from oncely.adapters._core import (
    CallRecord,
    Guard,
    Identity,
    PolicyLike,
    answer_for,
    as_ledger,
    unwrap_tool,
)

StepContext = Context | None
"""What ``run=`` and ``step=`` get: the workflow step's ``Context`` (``None`` outside one)."""


def step_context() -> Context | None:
    """The ``Context`` of the workflow step running this call, if any."""
    try:
        return Context.get_step_context()
    except WorkflowRuntimeError:
        return None


def tool_call_id() -> str | None:
    """The model's id for the call being run: the ``tool_id`` of the agent's ``ToolCall`` event
    the current step is handling (``None`` outside an agent's step)."""
    try:
        from workflows.runtime.types.results import StepWorkerStateContextVar

        event = StepWorkerStateContextVar.get().event
    except (ImportError, LookupError):
        return None
    value = getattr(event, "tool_id", None)
    return None if value in (None, "") else str(value)


async def session_id(ctx: Context | None) -> str | None:
    """The conversation of a workflow's context: its memory's session (``Memory.session_id``,
    or a ``ChatMemoryBuffer``'s ``chat_store_key`` unless it is the shared default)."""
    if ctx is None:
        return None
    memory = await ctx.store.get("memory", default=None)
    value = getattr(memory, "session_id", None)
    if value is None:
        value = getattr(memory, "chat_store_key", None)
        if value == DEFAULT_CHAT_STORE_KEY:
            value = None
    return None if value in (None, "") else str(value)


class OncelyTool(FunctionTool):
    """A LlamaIndex ``FunctionTool`` whose calls go through an oncely ledger (made by
    :func:`oncely_tool`)."""

    def __init__(
        self,
        guard: Guard[StepContext],
        invoke: Callable[[dict[str, Any], str, StepContext], Any],
        is_async: bool,
        metadata: ToolMetadata,
        approved_by: str,
    ) -> None:
        # ``fn`` and ``async_fn`` (what ``to_langchain_tool`` and the like call): through the
        # ledger too, returning the raw output (the core's answer for one that did not return).
        def sync_fn(**kwargs: Any) -> Any:
            return self.call(**kwargs).raw_output

        async def async_fn(**kwargs: Any) -> Any:
            return (await self.acall(**kwargs)).raw_output

        super().__init__(fn=sync_fn, async_fn=async_fn, metadata=metadata)
        self._guard = guard
        self._invoke = invoke
        self._is_async = is_async
        self._approved_by = approved_by

    @property
    def guard(self) -> Guard[StepContext]:
        """The guard: ledger, policy, scope, run and step rules."""
        return self._guard

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments, validated by the schema the model sees."""
        schema = self.metadata.fn_schema
        assert schema is not None
        fields = list(schema.model_fields)
        if args:  # positional, in the schema's order
            kwargs = {**dict(zip(fields, args, strict=False)), **kwargs}
        values = schema.model_validate(kwargs)
        return {n: getattr(values, n) for n in fields}

    @staticmethod
    def _intent_args(arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments as the call keys them (JSON values)."""
        jsonable: dict[str, Any] = to_jsonable_python(arguments)
        return jsonable

    def _output(self, raw: Any, arguments: Mapping[str, Any]) -> ToolOutput:
        return ToolOutput(
            blocks=self._parse_tool_output(raw),
            tool_name=self.metadata.get_name(),
            raw_input={"args": (), "kwargs": dict(arguments)},
            raw_output=raw,
        )

    def _error(self, text: str, arguments: Mapping[str, Any], e: Exception) -> ToolOutput:
        """LlamaIndex's tool-error form (what an agent makes of a tool's exception)."""
        return ToolOutput(
            content=text,
            tool_name=self.metadata.get_name(),
            raw_input=dict(arguments),
            raw_output=text,
            is_error=True,
            exception=e,
        )

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """Run the call (sync). Outside an event loop an ``async def`` tool runs in one of its
        own; inside a running loop (a workflow step) use ``acall``."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.acall(*args, **kwargs))
        if self._is_async:
            raise RuntimeError(
                f"the oncely tool {self.metadata.get_name()!r} is async: "
                "call it with acall inside an event loop"
            )
        # In a running loop the workflow's store cannot be read from sync code: the run is
        # oncely.context's or run='s.
        arguments = self._arguments(args, kwargs)
        ctx = step_context()
        call_id = tool_call_id()
        i = self._guard.identity(ctx, None, call_id)
        intent = self._intent_args(arguments)
        try:
            r = self._guard.run_sync(
                lambda key: self._invoke(arguments, key, ctx), intent, i, call_id
            )
        except Exception as e:
            text = answer_for(e)
            if text is None:
                raise
            return self._error(text, arguments, e)
        return self._output(r.value, arguments)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """Run the call (what LlamaIndex's agents await)."""
        arguments = self._arguments(args, kwargs)
        ctx = step_context()
        call_id = tool_call_id()
        i = self._guard.identity(ctx, await session_id(ctx), call_id)
        intent = self._intent_args(arguments)
        try:
            if self._guard.gated and ctx is not None:
                await self._decided(ctx, intent, i)
            if self._is_async:
                invoke = self._invoke

                def call(key: str) -> Awaitable[Any]:
                    result: Awaitable[Any] = invoke(arguments, key, ctx)
                    return result

                r = await self._guard.run_async(call, intent, i, call_id)
            else:
                r = await asyncio.to_thread(
                    self._guard.run_sync,
                    lambda key: self._invoke(arguments, key, ctx),
                    intent,
                    i,
                    call_id,
                )
        except Exception as e:
            text = answer_for(e)
            if text is None:
                raise  # storage, the workflow's own control flow (waiting for an event)
            return self._error(text, arguments, e)
        return self._output(r.value, arguments)

    async def _decided(self, ctx: Context, args: dict[str, Any], i: Identity) -> None:
        """Ask the workflow's person about the ledger's request (LlamaIndex's
        ``InputRequiredEvent``; the step is run again when the ``HumanResponseEvent`` comes) and
        record their decision in the ledger. Nothing when the ledger needs no one."""
        asked = await asyncio.to_thread(self._guard.ask, args, i)
        if asked is None:
            return
        fields: dict[str, Any] = {
            "prefix": f"approve {self._guard.name} {args}? ",
            "oncely": "approval",
            "tool": self._guard.name,
            "key": asked.key,
            "args": args,
            "version": asked.version,
        }
        request = InputRequiredEvent(**fields)
        reply = await ctx.wait_for_event(
            HumanResponseEvent,
            waiter_event=request,
            waiter_id=f"oncely-approval:{asked.key}",
            requirements={"key": asked.key},
            timeout=None,
        )
        approve, by, note = _decision(reply, self._approved_by)
        await asyncio.to_thread(
            lambda: self._guard.decide(args, i, approve=approve, by=by, note=note)
        )


def _decision(reply: HumanResponseEvent, by: str) -> tuple[bool, str, str]:
    """(approve, by, note) of a person's ``HumanResponseEvent``: ``response`` ``"approve"`` (or
    ``"yes"``) or ``"reject"`` (``"deny"``, ``"no"``); ``by`` and ``message`` optional."""
    said = str(reply.response).strip().lower()
    if said in ("approve", "approved", "yes", "y", "true"):
        approve = True
    elif said in ("reject", "rejected", "deny", "denied", "no", "n", "false"):
        approve = False
    else:
        raise ValueError(
            "answer an oncely approval with HumanResponseEvent(response='approve' or 'reject', "
            f"key=...), not {reply.response!r}"
        )
    note = str(reply.get("message") or reply.get("note") or "")
    return approve, str(reply.get("by") or by), note


def _is_context(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.split("[")[0].rsplit(".", 1)[-1] == "Context"
    return annotation is Context or get_origin(annotation) is Context


def oncely_tool(
    target: Any,
    *,
    ledger: Any = None,
    policy: PolicyLike | None = None,
    scope: str | None = None,
    run: str | Callable[[StepContext], str | None] | None = None,
    step: Callable[[StepContext, str | None], str | None] | None = None,
    name: str | None = None,
    description: str | None = None,
    audit: Callable[[CallRecord], None] | None = None,
    key_param: str = "idempotency_key",
    return_direct: bool = False,
    approved_by: str = "llama-index",
    **options: Any,
) -> OncelyTool:
    """A LlamaIndex tool that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used) or a plain function (sync or ``async def``; give ``ledger`` and ``policy``). A
      parameter annotated ``Context`` gets the workflow step's context, as with
      ``FunctionTool``.
    - ``name``, ``description``: what the model sees (default: the function's name, and its
      signature without the key and its docstring). An oncely tool keeps its own name in the
      ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the step's ``Context`` (``None`` outside a
      workflow); default: the session of the agent's memory. ``oncely.context(run=...)``
      overrides both.
    - ``step``: a function ``(context, tool_call_id) -> step or None``, for tools where two
      identical calls in one session are meant as two effects. Default: none (keyed by run).
      Returning the tool-call id brings back the double effect a re-asking model causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the schema;
      a function without it reads ``oncely.current_call().key``).
    - ``return_direct``: as ``FunctionTool``'s.
    - ``approved_by``: who the ledger records for a decision answered without ``by``.
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    key_param = fn_key or key_param
    sig = inspect.signature(fn)
    takes_key = key_param in sig.parameters
    ctx_param = next((p.name for p in sig.parameters.values() if _is_context(p.annotation)), None)
    hidden = [key_param, *([ctx_param] if ctx_param else []), "self"]
    shown = name or tool_name
    schema: type[BaseModel] = create_schema_from_function(shown, fn, ignore_fields=hidden)
    if description is None:
        params = [p for p in sig.parameters.values() if p.name not in hidden]
        description = f"{shown}{sig.replace(parameters=params)}\n{inspect.getdoc(fn) or ''}"
        description = description.strip()

    def invoke(arguments: dict[str, Any], key: str, ctx: StepContext) -> Any:
        extra: dict[str, Any] = {key_param: key} if takes_key else {}
        if ctx_param is not None:
            extra[ctx_param] = ctx
        return fn(**arguments, **extra)

    guard: Guard[StepContext] = Guard(
        ledger,
        name=tool_name,
        policy=parsed,
        scope=scope,
        run=run,
        step=step,
        audit=audit,
        options={**fn_options, **options},
    )
    metadata = ToolMetadata(
        name=shown, description=description, fn_schema=schema, return_direct=return_direct
    )
    return OncelyTool(guard, invoke, inspect.iscoroutinefunction(fn), metadata, approved_by)


__all__ = ["OncelyTool", "oncely_tool", "session_id", "step_context", "tool_call_id"]
