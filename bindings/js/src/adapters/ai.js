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

import { prepare, runOnce } from './shared.js';

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
  async function execute(args, frameworkOptions = {}) {
    const toolCallId = frameworkOptions.toolCallId;
    return runOnce(
      p,
      { args, toolCallId, ctx: { args, toolCallId, options: frameworkOptions }, frameworkRun: undefined, signal: frameworkOptions.abortSignal },
      async (oncely) => lastOf(await inner.call(tool, args, { ...frameworkOptions, abortSignal: oncely.signal, oncely })),
    );
  }
  return { ...tool, execute };
}

// An execute that streams (an async iterable of preliminary results) has the last one as its
// result: that is what is recorded, and what a replay returns.
async function lastOf(value) {
  if (value === null || typeof value !== 'object' || typeof value[Symbol.asyncIterator] !== 'function') return value;
  let last;
  for await (const v of value) last = v;
  return last;
}
