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
export function once<T extends { execute: (...args: any[]) => unknown; name?: string }>(toolOptions: T, options: OnceOptions<AgentsCall>): T & { name: string };
