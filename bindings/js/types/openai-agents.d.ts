// oncely/openai-agents: OpenAI Agents JS (@openai/agents 0.20) tools whose execute runs at most once per intent.
import type { OnceOptions } from './adapters.js';
export type { EffectRecord, IdentityPart, OncelyCall, OnceOptions } from './adapters.js';
export { oncelyCall } from './adapters.js';

/** What `run`, `scope` and `step` functions get. */
export interface AgentsCall {
  args: unknown;
  toolCallId: string | undefined;
  /** The SDK's RunContext (your context is `runContext.context`). */
  runContext: any;
  details: any;
}

/**
 * Wrap the options of `tool()` (not a built tool): the same options whose `execute` runs through
 * the ledger; give the result to `tool()`. `execute` gets `details` with `oncely` ({key, attempt,
 * deadline, signal, toolCallId}) added and `signal` = `oncely.signal`. Its `errorFunction` gives
 * the model the core's reply text for an AnsweredError (yours, or the SDK's sentence, for any other
 * error; `null` is kept).
 */
export function once<T extends { execute: (...args: any[]) => unknown; name?: string }>(
  toolOptions: T,
  options: OnceOptions<AgentsCall> & { approvedBy?: string | ((call: AgentsCall) => string) },
): T & { name: string };

/** The run's state and an interruption's item, as the SDK gives them (`result.state`, `result.interruptions`). */
export interface ApprovalState {
  approve(item: any, options?: any): void;
  reject(item: any, options?: any): void;
}

/** Approve the interrupted call: recorded in the ledger and in `state`; the decision's id (null: the ledger's stands). */
export function approve(state: ApprovalState, item: any, who: { by: string; note?: string }): Promise<string | null>;
/** Deny the interrupted call, with `note` (the reason the model reads): recorded in the ledger and in `state`. */
export function reject(state: ApprovalState, item: any, who: { by: string; note?: string }): Promise<string | null>;
