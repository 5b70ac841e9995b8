"""OpenAI Agents SDK: a ``FunctionTool`` whose calls run at most once per intent
(``pip install 'oncely[openai-agents]'``).

::

    import oncely
    from agents import Agent, RunConfig, Runner
    from oncely.adapters.openai_agents import oncely_function_tool

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        "Refund part of a charge."
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    agent = Agent(name="support", tools=[oncely_function_tool(refund, scope="acme")])
    Runner.run_sync(agent, "refund ch_1", run_config=RunConfig(group_id="conversation-7"))

:func:`oncely_function_tool` is ``function_tool`` for an oncely tool (``@ledger.tool``) or a
plain function (sync or ``async def``, with ``ledger=`` and ``policy=``; a first parameter
typed ``ToolContext``/``RunContextWrapper`` gets the context, as with ``function_tool``). Its
JSON schema is the function's parameters WITHOUT the key parameter (``idempotency_key``).

Identity (the core's ``agent.identify``, docs/choosing-keys.md): run =
``oncely.context(run=...)``, else ``run=`` given here (a string, or a function of the
``ToolContext``), else the run's ``RunConfig.group_id`` (the SDK's "conversation or thread" id),
else refused (:class:`~oncely.IdentityError`, a ``LookupError``) unless the key is natural; no
step unless given, so the same tool with the same arguments in one conversation is one effect — a
model re-asking with a new call id gets the first result. The call id is recorded for audit
(``audit=``, logger ``oncely.adapters``), never keyed.

When a keyed call does not simply return (unknown outcome, conflict, in progress, escalated, a
definite failure, arguments that cannot be keyed), the tool's output is the core's answer
(``agent.answer``: ``oncely: …``), which the model reads; storage errors propagate.

Approval (a policy with an ``approval`` rule): the SDK's own approval step is the ledger's.
The tool's ``needs_approval`` asks the core (``Ledger.asks_approval``) and, when a person is
needed, records the ledger's one request for the call (the inbox lists it); the run stops with
the SDK's interruption. The SDK gives ``needs_approval`` no ``RunConfig``, so the run must be
named otherwise there (``run=`` or ``oncely.context(run=...)``); named only by ``group_id``, the
call meets the ledger's request itself (the model reads "awaiting approval"). Decide with
:func:`approve` and :func:`reject` (they record the decision in the ledger and in the run's
state at once), in the inbox, or with ``state.approve(item)`` (the call then records the
approval, ``approved_by``, before it runs). A decision already in the
ledger is not asked again: approved, the call runs; denied, the model reads the denial.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from typing import Any

from agents import FunctionTool, ModelBehaviorError, RunContextWrapper, RunState, ToolApprovalItem
from agents.function_schema import DocstringStyle, FuncSchema, function_schema
from agents.strict_schema import ensure_strict_json_schema
from agents.tool_context import ToolContext
from pydantic import BaseModel, ValidationError, create_model

from oncely.adapters._core import (
    CallRecord,
    Guard,
    Identity,
    PolicyLike,
    answer_for,
    as_ledger,
    log,
    unwrap_tool,
)
from oncely.errors import IdentityError

# The calls an oncely tool's ``needs_approval`` asked a person about, by tool-call id: what
# ``approve`` and ``reject`` record their decision on (kept while the process runs).
_asked: dict[tuple[str, str, str], tuple[Guard[Any], Identity, dict[str, Any]]] = {}
# At most this many (a call asked about again by another process is named from its item).
_ASKED_MAX = 10_000
# The attribute of a tool's ``on_invoke_tool`` holding its guard, for a call asked about in
# another process (``approve(..., run=...)``).
_GUARD = "_oncely_guard"


def group_id(ctx: RunContextWrapper[Any]) -> str | None:
    """The run's ``RunConfig.group_id`` (the conversation), if any."""
    run_config = getattr(ctx, "run_config", None)
    value = getattr(run_config, "group_id", None)
    return None if value in (None, "") else str(value)


def _without(fs: FuncSchema, name: str) -> FuncSchema:
    """The function's schema without the parameter ``name`` (the key)."""
    if name not in fs.signature.parameters:
        return fs
    model = fs.params_pydantic_model
    fields: Any = {n: (f.annotation, f) for n, f in model.model_fields.items() if n != name}
    smaller: type[BaseModel] = create_model(
        model.__name__, __config__=model.model_config, __doc__=model.__doc__, **fields
    )
    schema = smaller.model_json_schema()
    if fs.strict_json_schema:
        schema = ensure_strict_json_schema(schema)
    params = [p for p in fs.signature.parameters.values() if p.name != name]
    return FuncSchema(
        name=fs.name,
        description=fs.description,
        params_pydantic_model=smaller,
        params_json_schema=schema,
        signature=fs.signature.replace(parameters=params),
        takes_context=fs.takes_context,
        strict_json_schema=fs.strict_json_schema,
        return_annotation=fs.return_annotation,
    )


def oncely_function_tool(
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
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    strict_mode: bool = True,
    tool_options: dict[str, Any] | None = None,
    approved_by: str | Callable[[ToolContext[Any]], str] = "openai-agents",
    **options: Any,
) -> FunctionTool:
    """A ``FunctionTool`` that runs ``target`` at most once per intent.

    - ``target``: an oncely tool (``@ledger.tool``: its ledger, policy, name and options are
      used) or a plain function (sync or ``async def``; give ``ledger`` and ``policy``).
    - ``name``, ``description``: what the model sees (default: the function's name and
      docstring). An oncely tool keeps its own name in the ledger (keys, reconciler).
    - ``scope``: the tenant or namespace (else ``oncely.context(scope=...)``).
    - ``run``: a fixed run, or a function of the ``ToolContext``; default: the run's
      ``RunConfig.group_id``. ``oncely.context(run=...)`` overrides both.
    - ``step``: a function ``(tool_context, call_id) -> step or None``, for tools where two
      identical calls in one conversation are meant as two effects. Default: none (keyed by
      run). Returning the call id brings back the double effect a re-asking model causes.
    - ``audit``: called with a :class:`~oncely.adapters.CallRecord` for every call.
    - ``key_param``: the function's parameter that receives the key (left out of the schema;
      a function without it reads ``oncely.current_call().key``).
    - ``docstring_style``, ``use_docstring_info``, ``strict_mode``: as ``function_tool``'s;
      ``tool_options``: other ``FunctionTool`` fields (``is_enabled``, ``needs_approval``,
      ``timeout_seconds``, …). A policy with an ``approval`` rule sets ``needs_approval`` from
      the ledger (the module's docstring); one given here is asked too (either asks a person).
    - ``approved_by``: who the ledger records for an approval given with the SDK's own
      ``state.approve(item)`` (a name, or a function of the ``ToolContext``); :func:`approve`
      takes it as its ``by``.
    - ``options``: the ledger's effect options (``max_attempts``, ``wait``, ``definite``,
      ``encode``, ``decode``).
    """
    ledger, parsed, tool_name, fn, fn_key, fn_options = unwrap_tool(
        target, as_ledger(ledger), policy, name
    )
    key_param = fn_key or key_param
    takes_key = key_param in inspect.signature(fn).parameters
    fs = _without(
        function_schema(
            fn,
            docstring_style=docstring_style,
            name_override=name or tool_name,
            description_override=description,
            use_docstring_info=use_docstring_info,
            strict_json_schema=strict_mode,
        ),
        key_param,
    )
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
    is_async = inspect.iscoroutinefunction(fn)
    extra = dict(tool_options or {})
    gate = _Gate(guard, fs, extra.pop("needs_approval", False), approved_by)

    async def on_invoke_tool(ctx: ToolContext[Any], input: str) -> Any:
        try:
            data = json.loads(input) if input else {}
            values = fs.params_pydantic_model(**data)
        except (ValueError, ValidationError) as e:
            raise ModelBehaviorError(f"Invalid JSON input for tool {fs.name}: {e}") from e
        args, kwargs = fs.to_call_args(values)
        if fs.takes_context:
            args = [ctx, *args]
        intent_args = values.model_dump(mode="json")
        call_id = ctx.tool_call_id
        i = guard.identity(ctx, group_id(ctx), call_id)

        def call(key: str) -> Any:
            return fn(*args, **({**kwargs, key_param: key} if takes_key else kwargs))

        try:
            await gate.approved_in_run(ctx, intent_args, i)
            if is_async:
                r = await guard.run_async(call, intent_args, i, call_id)
            else:
                r = await asyncio.to_thread(guard.run_sync, call, intent_args, i, call_id)
        except Exception as e:
            text = answer_for(e)
            if text is None:
                raise
            return text
        return r.value

    if guard.gated:
        extra["needs_approval"] = gate.needs_approval
    elif gate.theirs is not False:
        extra["needs_approval"] = gate.theirs
    made = FunctionTool(
        name=fs.name,
        description=fs.description or "",
        params_json_schema=fs.params_json_schema,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=strict_mode,
        **extra,
    )
    setattr(on_invoke_tool, _GUARD, (guard, gate.intent_of))
    return made


class _Gate:
    """A tool's approval step: the SDK's ``needs_approval`` asked of the ledger, and the SDK's
    own approval recorded in the ledger before the call."""

    def __init__(self, guard: Guard[Any], fs: FuncSchema, theirs: Any, approved_by: Any) -> None:
        self.guard, self.fs, self.theirs, self.approved_by = guard, fs, theirs, approved_by

    def intent_of(self, params: dict[str, Any]) -> dict[str, Any]:
        """The arguments as the call keys them (validated, defaults filled in)."""
        return self.fs.params_pydantic_model(**params).model_dump(mode="json")

    async def needs_approval(
        self, ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        asked = self.theirs if isinstance(self.theirs, bool) else self.theirs(ctx, params, call_id)
        if inspect.isawaitable(asked):
            asked = await asked
        try:
            args = self.intent_of(params)
            i = self.guard.identity(ctx, group_id(ctx), call_id)
            ours = await asyncio.to_thread(self.guard.ask, args, i) is not None
        except (ValueError, ValidationError):
            return bool(asked)  # the call itself refuses arguments it cannot read
        except IdentityError:
            # The SDK gives needs_approval no RunConfig: a run named only by its group_id is
            # not known here. The call then meets the ledger's request itself (the model reads
            # "awaiting approval"; the inbox lists it): give run= for the run's interruption.
            log.warning("oncely: %s: no run for the approval step; give run=", self.guard.name)
            return bool(asked)
        except Exception as e:
            if answer_for(e) is None:
                raise
            return bool(asked)  # the call answers the model (no run, arguments not keyed)
        if ours:
            _asked[_asked_key(call_id, self.fs.name, params)] = (self.guard, i, args)
            while len(_asked) > _ASKED_MAX:  # runs never resumed: the oldest go first
                del _asked[next(iter(_asked))]
        return bool(asked) or ours

    async def approved_in_run(self, ctx: ToolContext[Any], args: Any, i: Identity) -> None:
        """Approved with the SDK's own ``state.approve``: the ledger records it before the
        call (a decision it already holds stands)."""
        call_id = ctx.tool_call_id
        if not self.guard.gated or not ctx.is_tool_approved(ctx.tool_name, call_id):
            return
        who = self.approved_by
        by = who if isinstance(who, str) else who(ctx)
        note = f"approved in the run's interruption (tool call {call_id})"
        await asyncio.to_thread(lambda: self.guard.decide(args, i, approve=True, by=by, note=note))


async def _decide(
    item: ToolApprovalItem, *, approve: bool, by: str, note: str, run: str | None
) -> tuple[Guard[Any], Identity, dict[str, Any], str | None]:
    call_id = item.raw_item.call_id  # type: ignore[union-attr]
    params = json.loads(item.raw_item.arguments or "{}")  # type: ignore[union-attr]
    # The call asked about, by its id, tool and arguments (a provider may reuse call ids).
    asked_at = _asked_key(call_id, item.tool_name or "", params)
    asked = _asked.get(asked_at)
    if asked is None:
        # Asked by another process: the call's identity again, from the item and ``run``.
        found = next(
            (
                getattr(t.on_invoke_tool, _GUARD)
                for t in item.agent.tools
                if isinstance(t, FunctionTool)
                and t.name == item.tool_name
                and hasattr(t.on_invoke_tool, _GUARD)
            ),
            None,
        )
        if found is None:
            raise LookupError(f"{item.tool_name!r} is not a tool made by oncely_function_tool")
        guard, intent_of = found
        args = intent_of(params)
        i = guard.identity(None, run, call_id)
        asked = (guard, i, args)
    guard, i, args = asked
    decided = await asyncio.to_thread(
        lambda: guard.decide(args, i, approve=approve, by=by, note=note)
    )
    _asked.pop(asked_at, None)
    return guard, i, args, decided


def _asked_key(call_id: str, tool: str, params: Any) -> tuple[str, str, str]:
    return call_id, tool, json.dumps(params, sort_keys=True)


async def approve(
    state: RunState[Any, Any], item: ToolApprovalItem, *, by: str, note: str = "",
    run: str | None = None,
) -> str | None:  # fmt: skip
    """Approve the interrupted call ``item`` as ``by``: recorded in the ledger (the decision's
    id; ``None`` when the ledger already held a decision, which stands) and in ``state``
    (``state.approve(item)``); resume the run with ``Runner.run(agent, state)``. ``run``: the
    call's run when the question was asked by another process (the group id the run had)."""
    decided = (await _decide(item, approve=True, by=by, note=note, run=run))[3]
    state.approve(item)
    return decided


async def reject(
    state: RunState[Any, Any], item: ToolApprovalItem, *, by: str, note: str = "",
    run: str | None = None,
) -> str | None:  # fmt: skip
    """Deny the interrupted call ``item`` as ``by``, with ``note`` (the reason the model
    reads): recorded in the ledger — the call did not happen and will not; a later run asking
    the same call gets the denial, not a new question — and in ``state``
    (``state.reject(item)``, its message the core's answer to the denial; the SDK's own when
    the ledger holds an approval instead). Returns the decision's id (``None``
    when the ledger already held a decision, which stands)."""
    guard, i, args, decided = await _decide(item, approve=False, by=by, note=note, run=run)
    # What the model reads: the ledger's denial (this one, or the one it already held).
    state.reject(item, rejection_message=await asyncio.to_thread(guard.denial, args, i))
    return decided


__all__ = ["approve", "group_id", "oncely_function_tool", "reject"]
