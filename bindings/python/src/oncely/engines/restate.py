"""Restate: the oncely calls inside a ``ctx.run`` keyed by the invocation's own identity.

::

    import restate
    from oncely.engines.restate import run_context

    @service.handler()
    async def refund(ctx: restate.Context, req: RefundRequest) -> dict:
        action = run_context(ctx, "refund", scope="acme")(refund_tool)  # an oncely tool
        options = restate.RunOptions()
        return await ctx.run_typed("refund", action, options, req.charge_id, req.amount)

    # or: step = run_context(ctx, "refund") in the handler, `with step:` inside the action

- **run** = the invocation id (``ctx.request().id``): unique per invocation, the same for every
  retry of it and after a suspension. A request sent again with the same ``idempotency-key``
  header attaches to the same invocation (the same id); a workflow's ``run`` handler is one
  invocation per workflow id. A request sent again WITHOUT an idempotency key is a new
  invocation: another run;
- **step** = ``<name>#<n>``: the run's name and how many runs of that name the invocation has
  started through :func:`run_context`, this one included (``refund#1``, ``refund#2``, …). Restate
  re-executes a handler from its start and requires it to be deterministic, so the n-th run of a
  name is the same run in every attempt. Two refunds of one charge in one invocation are two
  effects; the same run re-executed is one.

The count is taken when :func:`run_context` is CALLED, in the handler, beside ``ctx.run_typed``:
an action whose result is in the journal is not executed again, so a count taken inside it would
shift. Call it once per ``ctx.run``, in the same order.

Why Restate alone pays twice: it journals a run's result after the action returns. A service
killed after the provider paid and before that entry (the process died, the connection was
lost) leaves it unwritten; Restate retries the invocation, replays the journal and executes the
action again. Through an oncely tool the re-executed action meets the ledger's entry: the
recorded result, or the dead attempt's claim, settled by the tool's reconciler once its lease has
expired.

What an oncely tool raises inside the action (in doubt, a conflict, …) is an ordinary exception
to Restate: the run is retried by its retry policy (``RunOptions(max_attempts=...)``), and a
retry meets the ledger's entry too. This module imports nothing of Restate; it reads
``ctx.request().id``.
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol

from oncely.engines import EngineContext, EngineContextError


class RestateContext(Protocol):
    """What is read of Restate's handler context (``restate.Context``, an object's, a
    workflow's)."""

    def request(self) -> Any: ...


_STEPS: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


def next_run_and_step(ctx: RestateContext, name: str) -> tuple[str, str]:
    """``(invocation id, "<name>#<n>")`` of the next ``ctx.run`` of ``name`` in the invocation
    ``ctx`` serves, counting it. Raises :class:`~oncely.engines.EngineContextError` (a
    :class:`LookupError`) when ``ctx`` is not a handler's context, and :class:`ValueError`
    without a name."""
    if not isinstance(name, str) or not name:
        raise ValueError(
            "oncely.engines.restate: the run's name is the step: give it (e.g. 'refund')"
        )
    request = getattr(ctx, "request", None)
    try:
        invocation = request().id if callable(request) else None
    except Exception as e:  # the SDK's own refusal outside a handler
        raise EngineContextError(f"oncely.engines.restate: no invocation: {e}") from e
    if not isinstance(invocation, str) or not invocation:
        raise EngineContextError(
            "oncely.engines.restate: ctx is not a Restate handler's context (ctx.request().id "
            "is the run): call run_context(ctx, name) in a handler"
        )
    counts = _STEPS.setdefault(ctx, {})
    counts[name] = n = counts.get(name, 0) + 1
    return invocation, f"{name}#{n}"


def run_context(
    ctx: RestateContext, name: str, *, scope: str | None = None, by_step: bool = True
) -> EngineContext:
    """``oncely.context(run=<invocation id>, step="<name>#<n>")`` (and ``scope`` when given) for
    the oncely calls of one ``ctx.run`` of ``name``: a decorator of the action handed to
    ``ctx.run_typed`` (sync or ``async def``), or a context manager. The identity is taken when
    this is called (see :func:`next_run_and_step` for the errors); call it once per
    ``ctx.run``. ``by_step=False``: the run only (see :mod:`oncely.engines`)."""
    run, step = next_run_and_step(ctx, name)
    return EngineContext(lambda: (run, step), scope, by_step)


__all__ = ["RestateContext", "next_run_and_step", "run_context"]
