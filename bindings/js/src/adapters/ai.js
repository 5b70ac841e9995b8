// oncely/ai: a Vercel AI SDK tool (`tool({ description, inputSchema, execute })`, ai 7) whose
// `execute` runs through the ledger. The schema the model sees is the tool's own: the key is not a
// parameter, the model never sees it. The AI SDK names a tool by its key in `tools: { … }` and
// has no conversation id of its own: give `name` and `run`.
//
//   const refund = once(tool({ description, inputSchema, execute: async (args, { oncely }) =>
//     pay.refund(args, { idempotencyKey: oncely.key, signal: oncely.signal }) }),
//     { ledger, name: 'refund', run: chatId, policy });
//
// `execute(input, options)` gets the AI SDK's options with `oncely` = {key, attempt, deadline,
// signal, toolCallId} added and `abortSignal` replaced by `oncely.signal` (aborted at the policy's
// deadline). The AI SDK's own abort (its `timeout`, the caller's `abortSignal`) makes the step see a
// tool error at once while the call goes on and is recorded; the model asking again gets its result.
// An execute that streams preliminary results is run to its end: its last result is the one
// recorded and returned. When the call fails with what the model should read (in doubt, a
// conflict, a definite failure, …: the core's answer), `execute` throws an AnsweredError whose
// message, the core's reply text, is what the SDK's tool error shows the model.
//
// Approval (a policy with an `approval` rule): the AI SDK's tool approval is the ledger's request.
// The wrapped tool's `needsApproval` asks the core (`ledger.asksApproval`) and, when a person is
// needed, records the ledger's one request (the inbox lists it); generateText ends its step with a
// `tool-approval-request`. Answer it with `respond(request, { approved, by, reason }, { tools })`
// from this module: it records the decision in the ledger and returns the `tool-approval-response`
// part to send back (in a `tool` message); approved, the call runs once; denied, the model reads
// the SDK's execution-denied with the ledger's reason. A response built by hand that approves is
// recorded by the call itself (`approvedBy`) before it runs. A decision already in the ledger (the
// inbox) is not asked again, and the first one recorded stands. (A `toolApproval` given to
// generateText decides instead of the tool's `needsApproval`: leave the oncely tools out of it.)

import { askPerson, decide, denialText, gated, held, prepare, replyTo, runOnce } from './shared.js';

export { oncelyCall } from './shared.js';

/**
 * Wrap an AI SDK tool so that its `execute` runs at most once per intent.
 * @param tool the tool (`tool({...})`, or the same object literal)
 * @param options `{ledger, name, run, scope, step, policy, maxAttempts, waitMs, onEffect}`;
 *   `run`, `scope` and `step` are strings or functions of `{args, toolCallId, options}` (`options`:
 *   the AI SDK's execution options, `context` included)
 */
export function once(tool, options) {
  if (tool === null || typeof tool !== 'object' || typeof tool.execute !== 'function') {
    throw new TypeError('oncely/ai: once(tool, options) wraps a tool with an execute function (tool({ description, inputSchema, execute }))');
  }
  const p = prepare('oncely/ai', options, undefined);
  const inner = tool.execute;
  const approvedBy = options.approvedBy ?? 'ai-sdk';
  async function execute(args, frameworkOptions = {}) {
    const toolCallId = frameworkOptions.toolCallId;
    if (gated(p) && approvedIn(frameworkOptions.messages, toolCallId)) {
      // Approved with a response built by hand: the ledger records it before the call.
      const by = typeof approvedBy === 'function' ? approvedBy({ args, toolCallId, options: frameworkOptions }) : approvedBy;
      await decide(p, { args, ctx: { args, toolCallId, options: frameworkOptions } }, { approve: true, by, note: `approved in the chat (tool call ${toolCallId})` });
    }
    return runOnce(
      p,
      { args, toolCallId, ctx: { args, toolCallId, options: frameworkOptions }, frameworkRun: undefined, signal: frameworkOptions.abortSignal },
      async (oncely) => lastOf(await inner.call(tool, args, { ...frameworkOptions, abortSignal: oncely.signal, oncely })),
    );
  }
  const out = { ...tool, execute };
  if (gated(p)) {
    const theirs = tool.needsApproval ?? false;
    out.needsApproval = async (input, frameworkOptions = {}) => {
      const asked = typeof theirs === 'function' ? await theirs(input, frameworkOptions) : theirs;
      const call = { args: input, ctx: { args: input, toolCallId: frameworkOptions.toolCallId, options: frameworkOptions } };
      try {
        return Boolean(asked) || (await askPerson(p, call)) !== null;
      } catch (e) {
        // A call the core answers (no run, arguments not keyed): execute answers the model.
        if (replyTo(e) !== null) return Boolean(asked);
        throw e;
      }
    };
  }
  out[TOOL] = p;
  return out;
}

const TOOL = Symbol('oncely.tool');

/** The conversation approves the tool call `toolCallId` (a `tool-approval-response` for its request). */
function approvedIn(messages, toolCallId) {
  if (!Array.isArray(messages) || toolCallId === undefined) return false;
  const parts = messages.flatMap((m) => (Array.isArray(m?.content) ? m.content : []));
  const ids = new Set(parts.filter((c) => c?.type === 'tool-approval-request' && c.toolCallId === toolCallId).map((c) => c.approvalId));
  return parts.some((c) => c?.type === 'tool-approval-response' && ids.has(c.approvalId) && c.approved === true);
}

/**
 * Answer a `tool-approval-request` (from `result.content`) as `by`: the decision is recorded in the
 * ledger first (approved: the call runs once when the conversation goes on; denied, with `reason`:
 * it did not happen and will not), then returned as the `tool-approval-response` part to send back
 * in a `tool` message. `tools`: the tools given to generateText (the request's tool is found by its
 * name); `context`: what the tool's `run`, `scope` and `step` functions read as `options.context`.
 * Resolves to `{ part, decision }` (`decision`: the ledger's id; null when it already held one,
 * which stands: then `part` says what it holds).
 * @param {any} request
 * @param {{approved: boolean, by: string, reason?: string}} answer
 * @param {{tools: Record<string, any>, context?: any}} where
 */
export async function respond(request, { approved, by, reason = '' }, { tools, context }) {
  if (typeof by !== 'string' || by === '') throw new TypeError('oncely/ai: respond(request, { approved, by }): say who decided');
  const toolCall = request?.toolCall;
  const t = tools?.[toolCall?.toolName];
  const p = t?.[TOOL];
  if (p === undefined) throw new TypeError(`oncely/ai: ${toolCall?.toolName} is not a tool wrapped with once()`);
  const args = typeof toolCall.input === 'string' ? JSON.parse(toolCall.input) : toolCall.input;
  const call = { args, ctx: { args, toolCallId: toolCall.toolCallId, options: { toolCallId: toolCall.toolCallId, context } } };
  const decision = gated(p) ? await decide(p, call, { approve: approved === true, by, note: reason }) : null;
  // What the ledger holds now (this decision, or one it held already, which stands); with none
  // (the tool's own needsApproval asked, not its policy), the person's answer as given.
  const holds = gated(p) ? await held(p, call) : null;
  const denial = holds === 'denied' ? await denialText(p, call) : null;
  const part = { type: 'tool-approval-response', approvalId: request.approvalId, approved: holds === null ? approved === true : holds === 'approved' };
  if (denial !== null) part.reason = denial;
  else if (!part.approved && reason !== '') part.reason = reason;
  return { part, decision };
}

// An execute that streams (an async iterable of preliminary results) has the last one as its
// result: that is what is recorded, and what a replay returns.
async function lastOf(value) {
  if (value === null || typeof value !== 'object' || typeof value[Symbol.asyncIterator] !== 'function') return value;
  let last;
  for await (const v of value) last = v;
  return last;
}
