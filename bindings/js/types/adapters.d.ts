// What the framework adapters (oncely/ai, oncely/openai-agents, oncely/langchain) share.
import type { Call, Ledger, PolicyInput } from './index.js';

/** What a wrapped tool's function gets as `oncely` (read it with `oncelyCall`). */
export interface OncelyCall extends Call {
  /** The model's tool-call id: for the record only, never part of the key. */
  readonly toolCallId: string | undefined;
}

/** One call that went through the ledger (`onEffect`). */
export interface EffectRecord {
  tool: string;
  key: string;
  scope: string;
  run: string | null;
  step: string | null;
  toolCallId: string | null;
  /** The result came from the ledger: the tool was not called now. */
  replayed: boolean;
  /** An unknown outcome was settled by reconciliation in this call. */
  reconciled: boolean;
}

/** A part of the intent: a string, or a function of the call returning one (undefined: none). */
export type IdentityPart<Ctx> = string | ((call: Ctx) => string | undefined | null);

export interface OnceOptions<Ctx> {
  ledger: Ledger;
  /** The tool's policy (default `{class: "irreversible-external"}`: all arguments keyed). */
  policy?: PolicyInput;
  /** The tenant (default "default"). */
  scope?: IdentityPart<Ctx>;
  /**
   * The conversation, thread or job. Needed unless the framework gives one or the key is natural
   * (`identity: "scope"`): the core refuses the call otherwise (IdentityError `no-run`).
   */
  run?: IdentityPart<Ctx>;
  /**
   * Only for two intended identical effects in one run. Without a step, a policy keyed by `step`
   * is keyed by `run`: the same tool with the same arguments in the same run is one effect.
   */
  step?: IdentityPart<Ctx>;
  /** The tool's name in the ledger (default: the tool's own). */
  name?: string;
  /** `ledger.effect`'s option: attempts after a definite "did not happen". */
  maxAttempts?: number;
  /** `ledger.effect`'s option: how long a repeat waits for a call in flight (ms, default 30000). */
  waitMs?: number;
  /**
   * Told of every call that got its result through the ledger, fresh or replayed, when it settles
   * (also after the framework stopped waiting for it): an audit log of which tool-call id got
   * which key. A failed call is not told. What it throws is the call's error.
   */
  onEffect?: (effect: EffectRecord) => void;
}

/**
 * A wrapped tool's call fails with an AnsweredError (the core's reply, what the model reads) for
 * what the core answers; with the error itself for the rest (storage, the ledger, a bug).
 */
export type { AnsweredError, IdentityError, Reply } from './index.js';

/** The `oncely` member of a wrapped tool's options/details/config. @throws TypeError when absent */
export function oncelyCall(from: unknown): OncelyCall;
