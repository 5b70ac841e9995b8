// oncely/openai-agents: OpenAI Agents JS (`@openai/agents` 0.20) tool options whose `execute` runs
// through the ledger. Wrap the options you give `tool()`, not the tool it returns: a built tool
// turns its execute's errors into model-visible text inside itself, so a wrapper around it could
// not tell a timeout from a result. The parameters the model sees are the tool's own.
//
//   const refund = tool(once({ name: 'refund', description, parameters,
//     execute: async (args, runContext, details) => pay.refund(args, { idempotencyKey: details.oncely.key }) },
//     { ledger, run: (call) => call.runContext.context.conversationId, policy }));
//
// `execute(input, runContext, details)` gets `details` with `oncely` = {key, attempt, deadline,
// signal, toolCallId} added and `signal` replaced by `oncely.signal` (aborted at the policy's
// deadline). The SDK's own timeout (`timeoutMs`) or abort makes the model see its timeout at once
// while the call goes on and is recorded; the model asking again gets its result. The SDK gives a
// tool no conversation id: give `run` (a string, or a function of the call, e.g. reading your
// run context).
//
// When the call fails with what the model should read (in doubt, a conflict, a definite failure,
// …: the core's answer), the model reads the core's reply text: the tool's `errorFunction` is
// given it (your own `errorFunction` still handles every other error; without one, the SDK's
// fixed sentence does). `errorFunction: null` (raise every error) is kept.

import { AnsweredError } from '../errors.js';
import { prepare, runOnce } from './shared.js';

export { oncelyCall } from './shared.js';

/**
 * Wrap the options of an `@openai/agents` `tool()` so that its `execute` runs at most once per
 * intent; pass the result to `tool()`.
 * @param toolOptions `{name, description, parameters, execute, …}` as `tool()` takes them
 * @param options `{ledger, run, scope, step, policy, name, maxAttempts, waitMs, onEffect}`; `run`,
 *   `scope` and `step` are strings or functions of `{args, toolCallId, runContext, details}`
 */
export function once(toolOptions, options) {
  if (toolOptions !== null && typeof toolOptions === 'object' && toolOptions.type === 'function' && typeof toolOptions.invoke === 'function') {
    throw new TypeError('oncely/openai-agents: once() wraps the options of tool(), not a built tool: tool(once({ name, description, parameters, execute }, { ledger, run }))');
  }
  if (toolOptions === null || typeof toolOptions !== 'object' || typeof toolOptions.execute !== 'function') {
    throw new TypeError('oncely/openai-agents: once(toolOptions, options) wraps { name, description, parameters, execute }');
  }
  const inner = toolOptions.execute;
  const p = prepare('oncely/openai-agents', options, toolOptions.name ?? inner.name);
  async function execute(args, runContext, details) {
    const toolCallId = details?.toolCall?.callId;
    return runOnce(
      p,
      { args, toolCallId, ctx: { args, toolCallId, runContext, details }, frameworkRun: undefined, signal: details?.signal },
      (oncely) => inner.call(toolOptions, args, runContext, { ...details, signal: oncely.signal, oncely }),
    );
  }
  const out = { ...toolOptions, name: toolOptions.name ?? p.tool, execute };
  if (toolOptions.errorFunction !== null && !(toolOptions.errorFunction === undefined && toolOptions.outputSchema !== undefined)) {
    const own = toolOptions.errorFunction;
    out.errorFunction = (runContext, error, details) => {
      if (error instanceof AnsweredError) return error.reply.text;
      return own === undefined ? SDK_ERROR_TEXT : own(runContext, error, details);
    };
  }
  return out;
}

/** What the SDK's own default `errorFunction` tells the model (it reads no error's message). */
const SDK_ERROR_TEXT = 'An error occurred while running the tool. Please try again.';
