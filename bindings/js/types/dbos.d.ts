// oncely/dbos: an effect inside a DBOS step (@dbos-inc/dbos-sdk 5.x) keyed by the step's own
// identity. Typed structurally: it needs no DBOS types.

/** The identity of a DBOS step: the run (the workflow id) and the step (its function id). */
export interface DBOSIdentity {
  /** The workflow id (`DBOS.workflowID`): what DBOS recovers the workflow by. */
  run: string;
  /**
   * The step's function id (`DBOS.stepID`) as text ("0", "1", …): its position in the workflow, the
   * same for every retry and re-execution of the step; absent with `byStep: false`.
   */
  step?: string;
}

/**
 * The identity of the DBOS step running now. `byStep: false`: the run only. Throws a TypeError
 * outside a step of a workflow (in the workflow's own body, a step called outside any workflow,
 * outside DBOS).
 */
export function stepIdentity(options?: { byStep?: boolean }): DBOSIdentity;

/**
 * `DBOS.runStep(() => action(identity), config)`, in a workflow's body: the action gets the run
 * (the workflow id) and the step (its function id) to key its oncely effect by. `byStep: false`:
 * the run only. The rest of `config` is DBOS's step config (`name`: the config's, else the
 * action's name, else 'oncely'; `retriesAllowed`, `maxAttempts`, …). Returns what the step returns.
 */
export function runStep<R>(
  action: (identity: DBOSIdentity) => R | Promise<R>,
  config?: { byStep?: boolean; name?: string } & Record<string, unknown>,
): Promise<R>;
