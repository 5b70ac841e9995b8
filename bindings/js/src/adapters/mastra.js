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
// `context.agent.threadId`; the server's reserved `mastra__threadId` in the request context; the
// memory thread the request context carries, all a durable agent's recovered run has), or,
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
// Approval (a policy with an `approval` rule): Mastra's tool approval is the ledger's request. The
// wrapped tool's `requireApproval` asks the core (`ledger.asksApproval`) and, when a person is
// needed, records the ledger's one request (the inbox lists it); the agent suspends its run with
// `finishReason: 'suspended'` and the call in `suspendPayload`. Answer it with
// `respond(suspendPayload, { approved, by, reason }, { tools, thread })` from this module: it
// records the decision in the ledger and says what the ledger holds (`{approved, reason}`), which
// the caller gives Mastra: `agent.approveToolCallGenerate({ runId, toolCallId, … })`, or
// `agent.declineToolCallGenerate({ runId, toolCallId, reason, … })` (the model reads the ledger's
// reason). A call approved in Mastra without `respond` is recorded by the call itself
// (`approvedBy`, default 'mastra') before it runs: an agent runs a tool whose approval it asked
// only once a person approved it. A decision already in the ledger (the inbox) is not asked again,
// and the first one recorded stands; a denial in the ledger is what the model reads.
//
// The input the ledger keys is the input Mastra validated (the wrapped tool is a Mastra `Tool`
// that validates first, as `createTool` does); a tool given as a `Tool` validates it once more in
// its own execute, as Mastra's Tool does for any direct call.

import { RequestContext } from '@mastra/core/request-context';
import { Tool } from '@mastra/core/tools';
import { askPerson, decide, denialText, gated, held, prepare, replyTo, runOnce } from './shared.js';

export { oncelyCall } from './shared.js';

/**
 * The conversation a Mastra tool call belongs to: the agent's memory thread, the server's thread,
 * or the workflow run; undefined when it has none.
 * @param {any} context Mastra's tool execution context
 * @returns {string | undefined}
 */
function conversationOf(context) {
  const values = context?.requestContext;
  // The agent's thread; the server's; the memory thread of the request context (what Mastra's
  // parseMemoryRequestContext reads: a durable agent's run recovered after a crash has only this).
  const thread = context?.agent?.threadId ?? values?.get?.('mastra__threadId') ?? values?.get?.('MastraMemory')?.thread?.id ?? context?.workflow?.runId;
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
  const approvedBy = options.approvedBy ?? 'mastra';
  /**
   * @param {any} args the input Mastra validated
   * @param {any} context Mastra's execution context
   */
  async function execute(args, context = {}) {
    const toolCallId = context?.agent?.toolCallId || undefined;
    const ctx = { args, toolCallId, context };
    const frameworkRun = conversationOf(context);
    if (gated(p) && context?.agent) await approvedInMastra(p, { args, ctx, frameworkRun }, approvedBy, toolCallId);
    return runOnce(p, { args, toolCallId, ctx, frameworkRun, signal: context?.abortSignal }, (oncely) =>
      inner.call(tool, args, { ...context, abortSignal: oncely.signal, oncely }),
    );
  }
  // Everything of the tool is kept (id, description, schemas, MCP and provider options); only
  // `execute` is new, and `requireApproval` when the policy may ask a person. A Tool's schemas are
  // standard schemas already: the new Tool keeps them.
  const { execute: _execute, needsApprovalFn: _needs, ...fields } = tool;
  if (gated(p)) {
    const theirs = tool.needsApprovalFn ?? tool.requireApproval ?? false;
    fields.requireApproval = async (input, approvalContext) => {
      const asked = typeof theirs === 'function' ? await theirs(input, approvalContext) : theirs;
      try {
        return Boolean(asked) || (await askPerson(p, approvalCall(input, approvalContext))) !== null;
      } catch (e) {
        // A call the core answers (no run, arguments not keyed): execute answers the model.
        if (replyTo(e) !== null) return Boolean(asked);
        throw e;
      }
    };
  }
  const out = new Tool({ ...fields, execute });
  // A per-call approval check Mastra set on the tool (an MCP server's) stays, but for a gated
  // policy, whose requireApproval asks it first.
  if (!gated(p) && typeof tool.needsApprovalFn === 'function') out.needsApprovalFn = tool.needsApprovalFn;
  Object.defineProperty(out, TOOL, { value: p });
  return out;
}

const TOOL = Symbol('oncely.tool');

/**
 * A call as Mastra's approval check sees it (`requireApproval(input, { requestContext, … })`, the
 * request context as a plain object): the conversation is the memory thread Mastra put there.
 */
function approvalCall(args, approvalContext) {
  const requestContext = new RequestContext(Object.entries(approvalContext?.requestContext ?? {}));
  const context = { ...approvalContext, requestContext };
  return { args, ctx: { args, toolCallId: undefined, context }, frameworkRun: conversationOf(context) };
}

/** The agent runs this call: a request the ledger holds for it was approved in Mastra; record it. */
async function approvedInMastra(p, call, by, toolCallId) {
  try {
    if ((await askPerson(p, call)) === null) return; // none needed, or the ledger holds a decision
  } catch (e) {
    if (replyTo(e) !== null) return; // the call answers the model
    throw e;
  }
  await decide(p, call, { approve: true, by, note: `approved in Mastra (tool call ${toolCallId})` });
}

/**
 * Answer a suspended tool call's approval (`result.suspendPayload` of a suspended generate, or the
 * `tool-call-approval` chunk's payload: `{toolCallId, toolName, args}`) as `by`: the decision is
 * recorded in the ledger first (approved: the call runs once when Mastra resumes it; denied, with
 * `reason`: it did not happen and will not). Resolves to `{approved, reason, decision}`: what the
 * ledger holds (a decision it held already stands), to give Mastra's `approveToolCallGenerate` or
 * `declineToolCallGenerate` (`reason`: the ledger's, what the model reads); `decision`: the
 * ledger's id, null when it already held one.
 * @param {any} request
 * @param {{approved: boolean, by: string, reason?: string}} answer
 * @param {{tools: Record<string, any>, thread?: string, requestContext?: any}} where `tools`: the
 *   agent's tools (the request's is found by its name); `thread`: the memory thread of the run;
 *   `requestContext`: what `run`, `scope` and `step` functions read
 */
export async function respond(request, { approved, by, reason = '' }, { tools, thread, requestContext }) {
  if (typeof by !== 'string' || by === '') throw new TypeError('oncely/mastra: respond(request, { approved, by }): say who decided');
  const t = tools?.[request?.toolName];
  const p = t?.[TOOL];
  if (p === undefined) throw new TypeError(`oncely/mastra: ${request?.toolName} is not a tool wrapped with once()`);
  const args = typeof request.args === 'string' ? JSON.parse(request.args) : request.args;
  const context = { agent: { toolCallId: request.toolCallId, threadId: thread }, requestContext: requestContext ?? new RequestContext() };
  const call = { args, ctx: { args, toolCallId: request.toolCallId, context }, frameworkRun: conversationOf(context) };
  const decision = gated(p) ? await decide(p, call, { approve: approved === true, by, note: reason }) : null;
  // What the ledger holds now (this decision, or one it held already, which stands); with none
  // (the tool's own requireApproval asked, not its policy), the person's answer as given.
  const holds = gated(p) ? await held(p, call) : null;
  const denial = holds === 'denied' ? await denialText(p, call) : null;
  const yes = holds === null ? approved === true : holds === 'approved';
  return { approved: yes, reason: denial ?? (yes ? undefined : reason || undefined), decision };
}
