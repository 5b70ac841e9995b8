"""DBOS: the oncely calls of a DBOS step keyed by the step's own identity.

::

    from dbos import DBOS
    from oncely.engines.dbos import step_context

    @DBOS.step()
    @step_context()                      # under @DBOS.step(): entered inside the step
    def refund_step(charge_id: str, amount: int) -> dict:
        return refund(charge_id, amount) # an oncely tool (@ledger.tool)

    # or, inside the step:  with step_context(): refund(charge_id, amount)

- **run** = the workflow id (``DBOS.workflow_id``): what DBOS recovers a workflow by, on this
  machine after a restart or on another executor; set it with ``SetWorkflowID`` to your
  business id (one refund request, one order), or DBOS makes a UUID;
- **step** = the step's function id (``DBOS.step_id``): the step's position in the workflow (1,
  2, …), the same when the recovered workflow re-executes the step and for each of its automatic
  retries (``retries_allowed``; ``DBOS.step_status.current_attempt`` counts them, and is never
  keyed). Two calls of the same step function at two positions are two effects (a second
  installment); the same call re-executed is one.

Why DBOS alone pays twice: it records a step's output after the step returns. A worker killed
after the provider paid and before that record leaves the workflow PENDING without the step's
output; recovery (``DBOS.launch()`` of the next process, or another executor) re-executes the
step. With oncely the re-executed step finds the ledger's entry: the recorded result, or the
dead worker's claim, settled by the tool's reconciler once its lease has expired.

Stable while: the workflow id is not reused for another intent, and the workflow's code is
deterministic in its steps (DBOS's own rule: recovery matches steps by function id).
``DBOS.fork_workflow`` starts a NEW workflow id: its re-run steps are new effects (as a fork
means). A child workflow started without an id gets one derived from the parent's id and the
call's position, so it is stable too.
"""

from __future__ import annotations

from oncely.engines import EngineContext, EngineContextError


def run_and_step() -> tuple[str, str]:
    """``(workflow id, step's function id)`` of the DBOS step running now. Raises
    :class:`~oncely.engines.EngineContextError` (a :class:`LookupError`) outside a step of a
    workflow (in a workflow's own body, in a transaction, in a step called outside any
    workflow, outside DBOS)."""
    from dbos import DBOS

    workflow = DBOS.workflow_id
    step = DBOS.step_id
    if workflow is None or step is None:
        where = "outside any DBOS workflow" if workflow is None else "in a workflow, not a step"
        raise EngineContextError(
            f"oncely.engines.dbos: called {where}: call the oncely tool inside a @DBOS.step() "
            "of a workflow (put @step_context() under @DBOS.step())"
        )
    return str(workflow), str(step)


def step_context(*, scope: str | None = None, by_step: bool = True) -> EngineContext:
    """``oncely.context(run=<workflow id>, step=<the step's function id>)`` (and ``scope`` when
    given) for the oncely calls inside it: a context manager, or a decorator of a step's
    function (sync or ``async def``) placed UNDER ``@DBOS.step()``. The identity is read when
    the block is entered; see :func:`run_and_step` for the errors. ``by_step=False``: the run
    only (see :mod:`oncely.engines`)."""
    return EngineContext(run_and_step, scope, by_step)


__all__ = ["run_and_step", "step_context"]
