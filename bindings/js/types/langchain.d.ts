// oncely/langchain: LangChain.js (@langchain/core 1.x) tools whose function runs at most once per intent.
import type { OnceOptions } from './adapters.js';
export type { EffectRecord, IdentityPart, OncelyCall, OnceOptions } from './adapters.js';
export { oncelyCall } from './adapters.js';

/** What `run`, `scope` and `step` functions get. */
export interface LangChainCall {
  args: unknown;
  toolCallId: string | undefined;
  /** The RunnableConfig the tool was called with (`configurable.thread_id`, `toolCall`, …). */
  config: any;
}

/**
 * Wrap a tool made by `tool()` (DynamicStructuredTool or DynamicTool): a new tool of the same
 * name, description and schema whose function runs through the ledger. The run is LangGraph's
 * `thread_id` when the call has one, else `options.run`. The function gets its config with
 * `oncely` ({key, attempt, deadline, signal, toolCallId}) added and `signal` = `oncely.signal`.
 * Called with a tool call, an AnsweredError is returned as a ToolMessage of status "error" (the
 * core's reply text; the reply as its artifact).
 */
export function once<T extends { name: string; invoke: (...args: any[]) => unknown }>(
  tool: T,
  options: OnceOptions<LangChainCall> & { approvedBy?: string },
): T;

/**
 * The decision of a LangGraph resume value for an oncely approval: `true`/`false`,
 * `'approve'`/`'reject'`, or `{ type: 'approve' | 'reject', message?, by? }` (`by` defaults to `by`).
 */
export function decision(reply: unknown, by: string, key: string): { approve: boolean; by: string; note: string };
