// oncely/mastra: a Mastra tool (`createTool({ id, description, inputSchema, execute })` of
// `@mastra/core/tools`, 1.x) whose `execute` runs through the ledger. The schema the model sees is
// the tool's own: the key is not a parameter, the model never sees it.
//
//   const refund = once(createTool({ id: 'refund', description, inputSchema,
//     execute: async (args, { oncely }) => pay.refund(args, { idempotencyKey: oncely.key, signal: oncely.signal }) }),
//     { ledger, policy });
//
// The run is `options.run` if given, else Mastra's own conversation: the memory thread the agent
// was called with (`agent.generate(…, { memory: { thread, resource } })`, the tool's
// `context.agent.threadId`; the server's reserved `mastra__threadId` in the request context), or,
// for a tool run as a workflow step, the workflow run (`context.workflow.runId`, which a resumed
// run keeps). Never the agent call's own `runId` (new for every generate) nor the model's
// tool-call id (new for every ask): a re-ask on the same thread, in this process or another, is
// the same run. `resourceId` (the user) is not the conversation.
//
// `execute(input, context)` gets Mastra's execution context with `oncely` = {key, attempt,
// deadline, signal, toolCallId} added and `abortSignal` replaced by `oncely.signal` (aborted at
// the policy's deadline). The caller's abort (`abortSignal` given to generate/stream) makes the
// tool call give up waiting at once — Mastra then leaves the call incomplete — while the call goes
// on and is recorded; asked again, the model gets its result. When the call fails with what the
// model should read (in doubt, a conflict, a definite failure, …: the core's answer), `execute`
// throws an AnsweredError whose message, the core's reply text, is what Mastra's tool error
// shows the model (an `error-text` tool result). What the core does not answer propagates.
//
// The input the ledger keys is the input Mastra validated (the wrapped tool is a Mastra `Tool`
// that validates first, as `createTool` does); a tool given as a `Tool` validates it once more in
// its own execute, as Mastra's Tool does for any direct call.

import { Tool } from '@mastra/core/tools';
import { prepare, runOnce } from './shared.js';

export { oncelyCall } from './shared.js';

/**
 * The conversation a Mastra tool call belongs to: the agent's memory thread, the server's thread,
 * or the workflow run; undefined when it has none.
 * @param {any} context Mastra's tool execution context
 * @returns {string | undefined}
 */
function conversationOf(context) {
  const thread = context?.agent?.threadId ?? context?.requestContext?.get?.('mastra__threadId') ?? context?.workflow?.runId;
  return typeof thread === 'string' && thread !== '' ? thread : undefined;
}

/**
 * Wrap a Mastra tool so that its `execute` runs at most once per intent.
 * @param tool the tool (`createTool({...})`, or the same object literal: `{id, description,
 *   inputSchema, execute, …}`)
 * @param options `{ledger, run, scope, step, policy, name, maxAttempts, waitMs, onEffect}`; `run`,
 *   `scope` and `step` are strings or functions of `{args, toolCallId, context}` (`context`:
 *   Mastra's execution context, `requestContext` and `agent` included)
 * @returns a new Mastra `Tool` of the same id, description and schemas
 */
export function once(tool, options) {
  if (tool === null || typeof tool !== 'object' || typeof tool.execute !== 'function') {
    throw new TypeError('oncely/mastra: once(tool, options) wraps a tool with an execute function (createTool({ id, description, inputSchema, execute }))');
  }
  const p = prepare('oncely/mastra', options, tool.id);
  const inner = tool.execute;
  /**
   * @param {any} args the input Mastra validated
   * @param {any} context Mastra's execution context
   */
  async function execute(args, context = {}) {
    const toolCallId = context?.agent?.toolCallId || undefined;
    const ctx = { args, toolCallId, context };
    return runOnce(p, { args, toolCallId, ctx, frameworkRun: conversationOf(context), signal: context?.abortSignal }, (oncely) =>
      inner.call(tool, args, { ...context, abortSignal: oncely.signal, oncely }),
    );
  }
  // Everything of the tool is kept (id, description, schemas, approval, MCP and provider options);
  // only `execute` is new. A Tool's schemas are standard schemas already: the new Tool keeps them.
  const { execute: _theirs, ...fields } = tool;
  return new Tool({ ...fields, execute });
}
