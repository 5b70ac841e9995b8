// oncely/dbos: an effect inside a DBOS step (@dbos-inc/dbos-sdk 5.x) keyed by the step's own
// identity, so that the step DBOS re-executes after a crash meets the ledger's entry instead of
// paying again.
//
//   import { runStep, stepIdentity } from 'oncely/dbos';
//
//   // in a workflow: DBOS.runStep(…) with the identity handed to the action
//   const refund = await runStep(({ run, step }) =>
//     ledger.effect({ scope: 'acme', run, step, tool: 'refund', args }, policy, (key) => pay(args, key))
//       .then((r) => r.value), { name: 'refund' });
//
//   // or in a step's own function (DBOS.registerStep, @DBOS.step()): const { run, step } = stepIdentity();
//
// - run = the workflow id (`DBOS.workflowID`): what DBOS recovers a workflow by, in the next
//   process (`DBOS.launch()`) or on another executor; start the workflow with your business id
//   (`DBOS.startWorkflow(fn, { workflowID })`, one refund request, one order), or DBOS makes a
//   UUID.
// - step = the step's function id (`DBOS.stepID`, as text: "0", "1", …: DBOS counts from 0): its position in the
//   workflow, the same when the recovered workflow re-executes the step and for each of its
//   automatic retries (`retriesAllowed`; `DBOS.stepStatus.currentAttempt` counts them and is never
//   keyed). Two calls of the same step at two positions are two effects (a second installment);
//   the same call re-executed is one.
//
// Why DBOS alone pays twice: it records a step's output after the step returns. A worker killed
// after the provider paid and before that record leaves the workflow PENDING without the step's
// output; recovery re-executes the step. Through the ledger the re-executed step meets its entry:
// the recorded result, or the dead worker's claim, settled by the tool's reconciler once its lease
// has expired.
//
// Stable while the workflow id is not reused for another intent and the workflow's code is
// deterministic in its steps (DBOS's own rule: recovery matches steps by function id).
// `DBOS.forkWorkflow` starts a NEW workflow id: its re-run steps are new effects, as a fork means.
//
// `byStep: false`: the identity has no step (the same tool with the same arguments in the
// workflow is one effect wherever it is called: an agent loop run as a workflow, whose model may
// re-ask in a later step). The identity is what the adapter gives; the core names the key from it
// (`agent.identify`, as for every other caller). Outside a step of a workflow (in the workflow's
// own body, in a step called outside any workflow, outside DBOS) it throws a TypeError.

import { DBOS } from '@dbos-inc/dbos-sdk';

/**
 * The identity of the DBOS step running now: `{run: <workflow id>, step: <function id>}` (no step
 * with `byStep: false`).
 * @param {{byStep?: boolean}} [options]
 * @returns {{run: string, step?: string}}
 */
export function stepIdentity({ byStep = true } = {}) {
  const run = DBOS.workflowID;
  const step = DBOS.isInStep() ? DBOS.stepID : undefined;
  if (typeof run !== 'string' || run === '' || step === undefined || step === null) {
    const where = typeof run !== 'string' || run === '' ? 'outside any DBOS workflow' : 'in a workflow, not in a step';
    throw new TypeError(
      `oncely/dbos: called ${where}: call the oncely effect inside a step of a workflow (runStep(action, config) in the workflow, or stepIdentity() in a registered step's function)`,
    );
  }
  return byStep ? { run, step: String(step) } : { run };
}

/**
 * `DBOS.runStep(() => action(identity), config)`, `identity` = {run: the workflow id, step: the
 * step's function id} (no step with `config.byStep: false`); what `DBOS.runStep` returns. Call it
 * in a workflow's body; `config` is DBOS's step config (`name`, `retriesAllowed`, `maxAttempts`, …)
 * handed on without `byStep`. The identity is read inside the step (a TypeError there when the
 * step does not run in a workflow).
 * @template R
 * @param {(identity: {run: string, step?: string}) => Promise<R> | R} action
 * @param {{byStep?: boolean, name?: string} & Record<string, unknown>} [config]
 * @returns {Promise<R>}
 */
export function runStep(action, config = {}) {
  if (typeof action !== 'function') throw new TypeError('oncely/dbos: runStep(action, config): action must be a function');
  const { byStep = true, ...stepConfig } = config ?? {};
  // DBOS names a step by its function's name, and checks it when a recovered workflow replays.
  stepConfig.name ??= action.name || 'oncely';
  return DBOS.runStep(async () => action(stepIdentity({ byStep })), stepConfig);
}
