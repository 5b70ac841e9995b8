// oncely/restate: an effect inside Restate's `ctx.run` (@restatedev/restate-sdk 1.x) keyed by the
// invocation's own identity, so that the run Restate re-executes after a crash meets the ledger's
// entry instead of paying again.
//
//   import { run } from 'oncely/restate';
//
//   const refund = await run(ctx, 'refund', ({ run, step }) =>
//     ledger.effect({ scope: 'acme', run, step, tool: 'refund', args }, policy, (key) => pay(args, key))
//       .then((r) => r.value));
//
// `run(ctx, name, action, options)` is `ctx.run(name, () => action(identity), options)` with
// `identity` = {run, step}:
//
// - run = the invocation id (`ctx.request().id`): unique per invocation, the same for every retry
//   of it and after a suspension; a request re-sent with the same `idempotency-key` header attaches
//   to the same invocation (the same id); a workflow's `run` handler is one invocation per workflow
//   id. A request re-sent WITHOUT an idempotency key is a new invocation: another run.
// - step = `<name>#<n>`: the name of the `ctx.run` and how many runs of that name this invocation
//   has started through this function, this one included ("refund#1", "refund#2", …). Restate
//   re-executes a handler from its start and requires it to be deterministic, so the n-th run of a
//   name is the same run in every attempt; the count is taken when `run` is called, not in the
//   action (an action whose result is in the journal is not executed again). Two refunds of the
//   same charge in one invocation are two effects; the same run re-executed is one.
//
// Why Restate alone pays twice: it journals a run's result after the action returns. A service
// killed after the provider paid and before that entry (the process died, the connection was lost)
// leaves the entry unwritten; Restate retries the invocation, replays the journal and executes the
// action again. Through the ledger the re-executed action meets its entry: the recorded result, or
// the dead attempt's claim, settled by the tool's reconciler once its lease has expired.
//
// `options.byStep: false`: the identity has no step (the same tool with the same arguments in the
// invocation is one effect wherever it is called). The other options are ctx.run's own (retries,
// serde), handed on. Outside a Restate handler (no `ctx.request().id`) it throws a TypeError.

const STEPS = new WeakMap();

/**
 * The identity of the next `ctx.run` of `name` in the invocation `ctx` serves, counting it.
 * @param {any} ctx Restate's handler context
 * @param {string} name
 * @returns {{run: string, step: string}}
 */
function next(ctx, name) {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError("oncely/restate: run(ctx, name, action) needs the run's name: it is the step (e.g. 'refund')");
  }
  const id = typeof ctx?.request === 'function' ? ctx.request()?.id : undefined;
  if (typeof id !== 'string' || id === '') {
    throw new TypeError("oncely/restate: ctx is not a Restate handler's context (ctx.request().id is the run): call run(ctx, …) in a handler");
  }
  let counts = STEPS.get(ctx);
  if (counts === undefined) STEPS.set(ctx, (counts = new Map()));
  const n = (counts.get(name) ?? 0) + 1;
  counts.set(name, n);
  return { run: id, step: `${name}#${n}` };
}

/**
 * `ctx.run(name, () => action(identity), options)`, `identity` = {run: the invocation id, step:
 * `<name>#<n>`} (no step with `options.byStep: false`); what `ctx.run` returns.
 * @param {any} ctx Restate's handler context (a Service's, a Virtual Object's or a Workflow's)
 * @param {string} name the run's name (its step)
 * @param {(identity: {run: string, step?: string}) => any} action
 * @param {{byStep?: boolean} & Record<string, unknown>} [options] `byStep`, then ctx.run's own options
 */
export function run(ctx, name, action, options = {}) {
  if (typeof action !== 'function') throw new TypeError('oncely/restate: run(ctx, name, action): action must be a function');
  const { byStep = true, ...runOptions } = options ?? {};
  const { run: id, step } = next(ctx, name);
  const identity = byStep ? { run: id, step } : { run: id };
  return Object.keys(runOptions).length > 0 ? ctx.run(name, () => action(identity), runOptions) : ctx.run(name, () => action(identity));
}
