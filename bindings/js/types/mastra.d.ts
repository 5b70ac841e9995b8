// oncely/mastra: Mastra (@mastra/core 1.x) tools whose execute runs at most once per intent.
import type { OnceOptions } from './adapters.js';
export type { EffectRecord, IdentityPart, OncelyCall, OnceOptions } from './adapters.js';
export { oncelyCall } from './adapters.js';

/** What `run`, `scope` and `step` functions get. */
export interface MastraCall {
  args: unknown;
  /** The model's tool-call id (`context.agent.toolCallId`), when an agent called the tool. */
  toolCallId: string | undefined;
  /** Mastra's tool execution context (`agent`, `workflow`, `requestContext`, `abortSignal`, …). */
  context: any;
}

/**
 * Wrap a Mastra tool (`createTool({...})`, or the same object literal): a new `Tool` of the same
 * id, description and schemas whose `execute` runs through the ledger. The run is `options.run`
 * if given, else Mastra's conversation: the agent's memory thread (`context.agent.threadId`), the
 * server's `mastra__threadId`, or the workflow run (`context.workflow.runId`). `execute` gets the
 * execution context with `oncely` ({key, attempt, deadline, signal, toolCallId}) added and
 * `abortSignal` = `oncely.signal`. What the core answers is thrown as an AnsweredError: its
 * message, the core's reply text, is the tool error the model reads.
 */
export function once<T extends { id: string; execute?: (...args: any[]) => unknown }>(tool: T, options: OnceOptions<MastraCall>): T;
