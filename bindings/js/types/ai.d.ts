// oncely/ai: Vercel AI SDK (ai 7) tools whose execute runs at most once per intent.
import type { OnceOptions } from './adapters.js';
export type { EffectRecord, IdentityPart, OncelyCall, OnceOptions } from './adapters.js';
export { oncelyCall } from './adapters.js';

/** What `run`, `scope` and `step` functions get. */
export interface AiCall {
  args: unknown;
  toolCallId: string | undefined;
  /** The AI SDK's execution options (`toolCallId`, `messages`, `context`, …). */
  options: any;
}

/**
 * Wrap an AI SDK tool: the same tool (the model sees the same schema) whose `execute` runs through
 * the ledger. `execute` gets the SDK's options with `oncely` ({key, attempt, deadline, signal,
 * toolCallId}) added and `abortSignal` = `oncely.signal`. The AI SDK names tools by their key in
 * `tools`: give `name`.
 */
export function once<T extends { execute?: (input: any, options: any) => unknown }>(
  tool: T,
  options: OnceOptions<AiCall> & { name: string; approvedBy?: string | ((call: AiCall) => string) },
): T;

/** A `tool-approval-response` part, as generateText reads it in a `tool` message. */
export interface ToolApprovalResponsePart {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/**
 * Answer a `tool-approval-request` (from `result.content`) as `by`: recorded in the ledger first,
 * then returned as the part to send back. `decision`: the ledger's id (null when it already held
 * one, which stands: `part` says what it holds).
 */
export function respond(
  request: { approvalId: string; toolCall: { toolName: string; toolCallId: string; input: unknown } },
  answer: { approved: boolean; by: string; reason?: string },
  where: { tools: Record<string, unknown>; context?: unknown },
): Promise<{ part: ToolApprovalResponsePart; decision: string | null }>;
