"""Temporal: the oncely calls of an activity keyed by the activity's own identity.

::

    from temporalio import activity
    from oncely.engines.temporal import activity_context

    @activity.defn
    @activity_context()                  # under @activity.defn: entered inside the activity
    async def refund_activity(charge_id: str, amount: int) -> dict:
        return await refund(charge_id, amount)  # an oncely tool (@ledger.tool)

    # or, inside the activity:  with activity_context(): ...

What ``activity.info()`` gives, and what of it is keyed:

- **run** = ``workflow_id``: the business id the workflow was started with. It stays the same
  across activity retries, worker crashes, workflow task replays, a reset (``temporal workflow
  reset``) and continue-as-new;
- **step** = ``activity_id``: by default the position of the activity among the commands the
  workflow scheduled ("1", "2", …; or the ``activity_id=`` given to ``execute_activity``). The
  same for every attempt of the activity, and, because workflow code is deterministic, for the
  activity the replayed or reset workflow schedules again;
- never keyed: ``workflow_run_id`` (a NEW one after a reset and for each continue-as-new run: a
  reset workflow re-running a payment would pay again), ``attempt`` (counts the retries),
  ``task_token`` (one per attempt), timestamps.

An activity not started by a workflow (a standalone activity: ``workflow_id`` is ``None``) is
keyed by run = its ``activity_id`` and no step.

Why Temporal alone pays twice: an activity is retried when its result does not reach the
server: the worker died after the provider paid (start-to-close or heartbeat timeout), the
completion was lost, the activity raised after paying. Each attempt calls the provider again.
With oncely the next attempt finds the ledger's entry: the recorded result, or the dead
attempt's claim, settled by the tool's reconciler once its lease has expired.

Stable while: the workflow id is not reused for another intent (a workflow id reused after the
execution closed, ``WorkflowIdReusePolicy.ALLOW_DUPLICATE``, is the same run to oncely), and a
workflow that continues-as-new does not schedule the same call again at the same position in
each run: its activity ids start again at "1", so give ``activity_id=`` (e.g. ``f"refund-{n}"``)
or put what differs in the arguments. Several namespaces on one ledger: give each its ``scope``.
"""

from __future__ import annotations

from oncely.engines import EngineContext, EngineContextError


def run_and_step() -> tuple[str, str | None]:
    """``(workflow id, activity id)`` of the Temporal activity running now (``(activity id,
    None)`` for a standalone activity). Raises :class:`~oncely.engines.EngineContextError` (a
    :class:`LookupError`) outside an activity (in workflow code, in a client, outside
    Temporal)."""
    from temporalio import activity

    if not activity.in_activity():
        raise EngineContextError(
            "oncely.engines.temporal: called outside a Temporal activity: call the oncely tool "
            "inside an activity (put @activity_context() under @activity.defn), never in "
            "workflow code"
        )
    info = activity.info()
    if info.workflow_id is None:
        return str(info.activity_id), None
    return str(info.workflow_id), str(info.activity_id)


def activity_context(*, scope: str | None = None, by_step: bool = True) -> EngineContext:
    """``oncely.context(run=<workflow id>, step=<activity id>)`` (and ``scope`` when given) for
    the oncely calls inside it: a context manager, or a decorator of an activity function (sync
    or ``async def``) placed UNDER ``@activity.defn``. The identity is read when the block is
    entered; see :func:`run_and_step` for the errors. ``by_step=False``: the run only (see
    :mod:`oncely.engines`)."""
    return EngineContext(run_and_step, scope, by_step)


__all__ = ["activity_context", "run_and_step"]
