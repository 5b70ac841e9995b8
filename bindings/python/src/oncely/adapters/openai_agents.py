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
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from typing import Any

from agents import FunctionTool, ModelBehaviorError, RunContextWrapper
from agents.function_schema import DocstringStyle, FuncSchema, function_schema
from agents.strict_schema import ensure_strict_json_schema
from agents.tool_context import ToolContext
from pydantic import BaseModel, ValidationError, create_model

from oncely.adapters._core import (
    CallRecord,
    Guard,
    PolicyLike,
    answer_for,
    as_ledger,
    unwrap_tool,
)


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
      ``timeout_seconds``, …).
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

    return FunctionTool(
        name=fs.name,
        description=fs.description or "",
        params_json_schema=fs.params_json_schema,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=strict_mode,
        **(tool_options or {}),
    )


__all__ = ["group_id", "oncely_function_tool"]
