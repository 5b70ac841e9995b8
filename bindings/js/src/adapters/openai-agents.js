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
//
// Approval (a policy with an `approval` rule): the SDK's approval interruption is the ledger's
// request. `needsApproval` asks the core (`ledger.asksApproval`) and, when a person is needed,
// records the ledger's one request for the call (the inbox lists it); the run stops with the SDK's
// interruption. Decide with `approve(state, item, {by})` and `reject(state, item, {by, note})` from
// this module (they record the decision in the ledger and in the run's state at once), in the
// inbox, or with the SDK's own `state.approve(item)` (the call then records the approval,
// `approvedBy`, before it runs). A decision already in the ledger is not asked again: approved, the
// call runs; denied, the model reads the denial. The first decision recorded stands.

import { AnsweredError } from '../errors.js';
import { canonicalize } from '../core.js';
import { askPerson, decide, denialText, gated, pin, prepare, replyTo, runOnce } from './shared.js';

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
  const approvedBy = options.approvedBy ?? 'openai-agents';
  async function execute(args, runContext, details) {
    const toolCallId = details?.toolCall?.callId;
    const name = toolOptions.name ?? p.tool;
    if (gated(p) && toolCallId !== undefined && runContext?.isToolApproved?.({ toolName: name, callId: toolCallId }) === true) {
      // Approved with the SDK's own state.approve: the ledger records it before the call.
      const by = typeof approvedBy === 'function' ? approvedBy({ args, toolCallId, runContext, details }) : approvedBy;
      await decide(p, { args, ctx: { args, toolCallId, runContext, details } }, { approve: true, by, note: `approved in the run's interruption (tool call ${toolCallId})` });
    }
    return runOnce(
      p,
      { args, toolCallId, ctx: { args, toolCallId, runContext, details }, frameworkRun: undefined, signal: details?.signal },
      (oncely) => inner.call(toolOptions, args, runContext, { ...details, signal: oncely.signal, oncely }),
    );
  }
  const out = { ...toolOptions, name: toolOptions.name ?? p.tool, execute };
  if (gated(p)) {
    const theirs = toolOptions.needsApproval ?? false;
    const needsApproval = async (runContext, input, callId) => {
      const asked = typeof theirs === 'function' ? await theirs(runContext, input, callId) : theirs;
      const name = toolOptions.name ?? p.tool;
      const call = { args: input, ctx: { args: input, toolCallId: callId, runContext, details: undefined } };
      let ours;
      try {
        ours = (await askPerson(p, call)) !== null;
      } catch (e) {
        // A call the core answers (no run, arguments not keyed): execute answers the model.
        if (replyTo(e) !== null) return Boolean(asked);
        throw e;
      }
      if (ours && callId !== undefined) {
        // Kept by call id, tool and arguments (a provider may reuse call ids), the identity
        // named now (not the run's context).
        ASKED.set(askedKey(callId, name, input), { p, call: pin(p, call) });
        // Runs never resumed: the oldest go first (a call is named again from its item).
        while (ASKED.size > ASKED_MAX) ASKED.delete(ASKED.keys().next().value);
      }
      return Boolean(asked) || ours;
    };
    needsApproval[TOOL] = p;
    out.needsApproval = needsApproval;
  }
  if (toolOptions.errorFunction !== null && !(toolOptions.errorFunction === undefined && toolOptions.outputSchema !== undefined)) {
    const own = toolOptions.errorFunction;
    out.errorFunction = (runContext, error, details) => {
      if (error instanceof AnsweredError) return error.reply.text;
      return own === undefined ? SDK_ERROR_TEXT : own(runContext, error, details);
    };
  }
  return out;
}

// The calls a wrapped tool's needsApproval asked a person about, by tool-call id: what approve()
// and reject() record their decision on (kept while the process runs; after a restart the call is
// named again from the interruption's item).
const ASKED = new Map();
const ASKED_MAX = 10_000;
const askedKey = (callId, tool, args) => JSON.stringify([callId, tool, canonicalize(JSON.stringify(args ?? {}))]);
const TOOL = Symbol('oncely.tool');

/**
 * @param {any} state
 * @param {any} item
 * @param {boolean} approve
 * @param {{by: string, note?: string}} who
 */
async function decided(state, item, approve, { by, note = '' }) {
  if (typeof by !== 'string' || by === '') throw new TypeError(`oncely/openai-agents: ${approve ? 'approve' : 'reject'}(state, item, { by }): say who decided`);
  const callId = item?.rawItem?.callId;
  const args = typeof item?.arguments === 'string' ? JSON.parse(item.arguments || '{}') : item?.arguments;
  const at = askedKey(callId, item?.toolName, args);
  let asked = ASKED.get(at);
  if (asked === undefined) {
    const t = item?.agent?.tools?.find((x) => x?.name === item.toolName && x?.needsApproval?.[TOOL]);
    if (t === undefined) throw new TypeError(`oncely/openai-agents: ${item?.toolName} is not a tool wrapped with once()`);
    const runContext = state?._context;
    asked = { p: t.needsApproval[TOOL], call: { args, ctx: { args, toolCallId: callId, runContext, details: undefined } } };
  }
  const id = await decide(asked.p, asked.call, { approve, by, note });
  ASKED.delete(at);
  return { id, asked };
}

/**
 * Approve the interrupted call `item` as `by`: recorded in the ledger (resolves to the decision's
 * id; null when the ledger already held a decision, which stands) and in `state`
 * (`state.approve(item)`); resume the run with `run(agent, state)`.
 */
/** @param {any} state @param {any} item @param {{by: string, note?: string}} options */
export async function approve(state, item, options) {
  const { id } = await decided(state, item, true, options);
  state.approve(item);
  return id;
}

/**
 * Deny the interrupted call `item` as `by`, with `note` (the reason the model reads): recorded in
 * the ledger — the call did not happen and will not; a later run asking the same call gets the
 * denial, not a new question — and in `state` (`state.reject(item)`, its message the core's answer
 * to the denial). Resolves to the decision's id (null when the ledger already held a decision).
 */
/** @param {any} state @param {any} item @param {{by: string, note?: string}} options */
export async function reject(state, item, options) {
  const { id, asked } = await decided(state, item, false, options);
  const message = await denialText(asked.p, asked.call);
  state.reject(item, message === null ? {} : { message });
  return id;
}

/** What the SDK's own default `errorFunction` tells the model (it reads no error's message). */
const SDK_ERROR_TEXT = 'An error occurred while running the tool. Please try again.';
