// oncely/langchain: a LangChain.js tool (`tool(fn, { name, description, schema })` of
// `@langchain/core` 1.x, or any DynamicStructuredTool / DynamicTool) whose function runs through
// the ledger. The schema the model sees is the tool's own.
//
//   const refund = once(tool(async (args, config) =>
//     pay.refund(args, { idempotencyKey: config.oncely.key }), { name: 'refund', description, schema }),
//     { ledger, policy });
//
// The run is `options.run` if given, else LangGraph's thread (`config.configurable.thread_id`, as
// `createAgent` and any graph with a checkpointer pass it to tools): a graph resumed from its checkpoint
// on the same thread asks for the same effects and gets their results. The function gets its
// config with `oncely` = {key, attempt, deadline, signal, toolCallId} added and `signal` replaced
// by `oncely.signal` (aborted at the policy's deadline; `timeout` is taken out): a run's abort or
// timeout makes the tool call fail at once while the call goes on and is recorded.
//
// When the call fails with what the model should read (in doubt, a conflict, a definite failure,
// …: the core's answer), a tool called with a tool call returns a ToolMessage of status "error"
// whose content is the core's reply text (the reply as its artifact); called without one, it throws
// the AnsweredError.
//
// Approval (a policy with an `approval` rule), in a LangGraph.js graph (`@langchain/langgraph`):
// LangGraph's `interrupt()` is the ledger's request. When the core says a person is needed
// (`ledger.asksApproval`), the tool records the ledger's one request (the inbox lists it) and
// interrupts the graph with it (`{oncely: 'approval', tool, key, args, version}`); resume it with
// `new Command({ resume: { type: 'approve' } })` or `{ type: 'reject', message }` (`by`: who,
// default `approvedBy`; `key`: the request's, checked), or `true`/`false`. LangGraph hands resume
// values out in the order the tools of a task ask: with several gated calls in one ToolNode task,
// answer each with its `key` (createAgent runs each call as a task of its own). The decision is recorded in the ledger, then the call
// runs once, or the model reads the denial. A decision already in the ledger (the inbox, another
// worker) is not asked again, and the first one recorded stands. Outside a graph the call meets
// the ledger's request itself (the model reads "awaiting approval").

import { ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool, DynamicTool, StructuredTool } from '@langchain/core/tools';
import { AnsweredError } from '../errors.js';
import { answered, askPerson, decide, gated, prepare, runOnce } from './shared.js';

export { oncelyCall } from './shared.js';

const FIELDS = ['name', 'description', 'schema', 'responseFormat', 'returnDirect', 'verboseParsingErrors', 'metadata', 'tags', 'extras', 'defaultConfig', 'callbacks', 'verbose'];

/**
 * Wrap a LangChain tool so that its function runs at most once per intent.
 * @param tool a tool made by `tool()` (a DynamicStructuredTool, or a DynamicTool: its string input
 *   is keyed as `{"input": …}`)
 * @param options `{ledger, run, scope, step, policy, name, maxAttempts, waitMs, onEffect}`; `run`,
 *   `scope` and `step` are strings or functions of `{args, toolCallId, config}`
 */
export function once(tool, options) {
  const structured = tool instanceof DynamicStructuredTool;
  if (!(structured || tool instanceof DynamicTool) || typeof tool.func !== 'function') {
    const what = tool instanceof StructuredTool ? `a ${tool.constructor?.name ?? 'StructuredTool'} subclass` : typeof tool;
    throw new TypeError(`oncely/langchain: once(tool, options) wraps a tool made by tool() (DynamicStructuredTool or DynamicTool), got ${what}`);
  }
  const p = prepare('oncely/langchain', options, tool.name);
  const approvedBy = options.approvedBy ?? 'langgraph';
  const inner = tool.func;
  async function func(input, runManager, config = {}) {
    const args = structured ? input : { input };
    const toolCallId = config.toolCall?.id;
    const thread = config.configurable?.thread_id;
    const { signal, timeout: _timeout, ...rest } = config;
    const frameworkRun = thread === undefined || thread === null ? undefined : String(thread);
    try {
      if (gated(p)) {
        try {
          await askTheGraph(p, { args, ctx: { args, toolCallId, config }, frameworkRun }, approvedBy);
        } catch (e) {
          throw answered(e); // the graph's interrupt, and what is not the model's, as they are
        }
      }
      return await runOnce(
        p,
        { args, toolCallId, ctx: { args, toolCallId, config }, frameworkRun, signal },
        (oncely) => inner.call(tool, input, runManager, { ...rest, signal: oncely.signal, oncely }),
      );
    } catch (e) {
      if (!(e instanceof AnsweredError) || toolCallId === undefined || tool.responseFormat === 'content_and_artifact') throw e;
      return new ToolMessage({ content: e.reply.text, tool_call_id: toolCallId, name: tool.name, status: 'error', artifact: e.reply });
    }
  }
  /** @type {any} */
  const fields = {};
  for (const f of FIELDS) if (tool[f] !== undefined) fields[f] = tool[f];
  fields.func = func;
  return structured ? new DynamicStructuredTool(fields) : new DynamicTool(fields);
}

/**
 * Ask the graph's person about the ledger's request for this call, if the core says one is needed
 * (LangGraph's `interrupt()`: the graph stops here, and runs the tool again when resumed), and
 * record their decision in the ledger. Outside a graph, or without @langchain/langgraph: nothing.
 */
async function askTheGraph(p, call, approvedBy) {
  const asked = await askPerson(p, call);
  if (asked === null) return;
  let langgraph;
  try {
    langgraph = await import('@langchain/langgraph');
  } catch {
    return;
  }
  let reply;
  try {
    reply = langgraph.interrupt({ oncely: 'approval', tool: p.tool, key: asked.key, args: call.args, version: asked.version });
  } catch (e) {
    if (langgraph.isGraphInterrupt(e)) throw e;
    return; // not in a graph
  }
  const { approve, by, note } = decision(reply, approvedBy, asked.key);
  await decide(p, call, { approve, by, note });
}

/**
 * `{approve, by, note}` of a resume value for the request of `key`: true/false,
 * 'approve'/'reject', or `{type, message?, by?, key?}`. A value that names another key is refused:
 * a graph resumed with several answers gives them out in the order its tools ask.
 */
export function decision(reply, by, key) {
  if (typeof reply === 'boolean') return { approve: reply, by, note: '' };
  const r = typeof reply === 'string' ? { type: reply } : reply;
  if (r !== null && typeof r === 'object' && r.key !== undefined && r.key !== key) {
    throw new TypeError(`oncely/langchain: this resume value is for ${r.key}, not for ${key}`);
  }
  if (r !== null && typeof r === 'object' && ['approve', 'reject', 'deny'].includes(r.type)) {
    return { approve: r.type === 'approve', by: String(r.by || by), note: String(r.message ?? r.note ?? '') };
  }
  throw new TypeError(`oncely/langchain: resume an oncely approval with true/false, 'approve'/'reject', or { type: 'approve' | 'reject', message, by }, not ${JSON.stringify(reply)}`);
}
