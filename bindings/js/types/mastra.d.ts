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
 * message, the core's reply text, is the tool error the model reads. With a policy that may ask a
 * person (`approval`), the tool's `requireApproval` asks the core and records the ledger's
 * request; a call Mastra approved without `respond` is recorded as approved by `approvedBy`
 * (default 'mastra') before it runs.
 */
export function once<T extends { id: string; execute?: (...args: any[]) => unknown }>(
  tool: T,
  options: OnceOptions<MastraCall> & { approvedBy?: string },
): T;

/** A suspended tool call's approval request: `result.suspendPayload`, or the `tool-call-approval` chunk's payload. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

/**
 * Record a person's answer to an approval request in the ledger, then say what the ledger holds:
 * give `approved` and `reason` to Mastra's `approveToolCallGenerate` / `declineToolCallGenerate`.
 * `decision`: the ledger's id, or null when it already held one (which stands).
 */
export function respond(
  request: ApprovalRequest,
  answer: { approved: boolean; by: string; reason?: string },
  where: { tools: Record<string, unknown>; thread?: string; requestContext?: unknown },
): Promise<{ approved: boolean; reason: string | undefined; decision: string | null }>;
