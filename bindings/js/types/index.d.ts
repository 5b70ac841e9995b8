// Types of oncely: the facade over the oncely core component (wit/*.wit). Names follow the
// WIT contract; u64 times and counters are numbers (milliseconds since the Unix epoch). The WIT
// types that JS sees as the component gives them (enums, the verdicts, the claim token) are
// those of wit.d.ts, which scripts/mirrors writes from the component.

import type * as Wit from './wit.js';

// ---- canonical ----------------------------------------------------------------------------------

/** Why a document was rejected (wit: canonical.canon-error-kind). */
export type CanonErrorKind = Wit.Canonical.CanonErrorKind;

/**
 * The RFC 8785 canonical form of JSON text (a string, or its UTF-8 bytes). A string holding a
 * lone surrogate is sent to the core as WTF-8 so that it reports `lone-surrogate`.
 * @throws CanonicalizationError
 */
export function canonicalize(json: string | Uint8Array | ArrayBuffer): string;

/** The core's limits: 16 MiB of input, 128 levels of nesting. */
export function limits(): { maxInputBytes: number; maxDepth: number };

/** How many machine steps this process has computed (calls of the core's `effect.run`, each one
 * crossing into the core): a fresh effect takes three, a replay one. */
export function machineSteps(): number;

// ---- policy -------------------------------------------------------------------------------------

export type EffectClass = Wit.Policy.EffectClass;
export type KeyIdentity = Wit.Keys.KeyIdentity;
/** How an unknown outcome is found out, as written in policy JSON. */
export type ReconcilePath = 'none' | 'provider-idempotent' | 'manual' | { lookup: string };

/** A key spec: `only` and `ignore` are RFC 6901 JSON pointers into the arguments. */
export interface KeySpec {
  only?: string[];
  ignore: string[];
  identity: KeyIdentity;
}

/** An oncely policy document (the value of a tool's `_meta["oncely/policy"]`). */
export interface PolicyDocument {
  class: EffectClass;
  key?: Partial<KeySpec>;
  reconcile?: ReconcilePath | null;
  leaseMs?: number;
  maxCallMs?: number;
  reconcileAfterMs?: number;
  escalateAfterMs?: number;
  retentionMs?: number;
  /** A person approves a call before it runs: always, or when a condition on its arguments holds (docs/key-scheme.md). */
  approval?: 'always' | ApprovalRule;
}

/** When a person must approve a call, and how long an approval holds. */
export interface ApprovalRule {
  /** The condition on the arguments (the condition language of docs/key-scheme.md); absent: every call. */
  when?: Record<string, unknown>;
  expiresAfterMs?: number;
}

/** A policy read by the core: every field explicit; itself a valid policy document. */
export interface Policy {
  readonly class: EffectClass;
  readonly key?: KeySpec;
  readonly reconcile: ReconcilePath;
  readonly leaseMs: number;
  readonly maxCallMs: number;
  readonly reconcileAfterMs: number;
  readonly escalateAfterMs: number;
  readonly retentionMs: number;
  readonly approval?: { readonly when?: Record<string, unknown>; readonly expiresAfterMs: number };
}

/** Anything a policy can be given as: a parsed Policy, a policy document, or its JSON text. */
export type PolicyInput = Policy | PolicyDocument | string;

/** @throws PolicyError (undefined: the core's default policy) */
export function parsePolicy(doc?: PolicyInput): Policy;

/** The core's defaults: what every option left out means, the same in every host. */
export interface CoreDefaults {
  readonly waitMs: number;
  readonly maxAttempts: number;
  readonly settleEveryMs: number;
  readonly settleTimeoutMs: number;
  readonly dueBatch: number;
  readonly inDoubtAfterMs: number;
  /** How many rows a page of a listing holds when not told (`Ledger.list`'s limit 0): 100. */
  readonly pageSize: number;
  /** How long a provider middleware waits for a duplicate in flight before 409 (0). */
  readonly providerWaitMs: number;
  /** The largest keyed request body a provider middleware reads (bytes; 1 MiB). */
  readonly providerMaxBody: number;
  /** The policy of a tool given none: irreversible-external, every argument keyed. */
  readonly policy: Policy;
}
export function coreDefaults(): CoreDefaults;
export function defaultPolicy(cls: EffectClass): Policy;

/** MCP ToolAnnotations hints. */
export interface ToolAnnotations {
  readOnlyHint?: boolean | null;
  destructiveHint?: boolean | null;
  idempotentHint?: boolean | null;
  openWorldHint?: boolean | null;
}
export function classify(annotations?: ToolAnnotations): EffectClass;

export interface ResolvedTool {
  name: string;
  policy: Policy;
  classSource: Wit.Policy.ClassSource;
}
/** @throws PolicyError */
export function resolveTool(tool: object | string): ResolvedTool;

export interface Finding {
  severity: Wit.Policy.Severity;
  tool: string | null;
  code: string;
  message: string;
}
export interface ManifestReport {
  passed: boolean;
  tools: ResolvedTool[];
  findings: Finding[];
}
/**
 * The release gate over an MCP tool list (`{tools: […]}`, a JSON-RPC response, or an array).
 * @throws PolicyError when the document holds no tool list
 */
export function checkTools(list: object | unknown[] | string): ManifestReport;

// ---- keys ---------------------------------------------------------------------------------------

/**
 * What an agent meant to do. `args`: a JSON value, or JSON text. A value is written as JSON
 * with nothing dropped or converted: `undefined`, functions, symbols, holes in arrays, NaN,
 * ±Infinity and objects that are not plain objects or arrays (Map, Set, Date, class instances;
 * toJSON is not called) are refused as `invalid-args`; a BigInt is a JSON integer (the core
 * refuses one a double cannot hold exactly).
 */
export interface Intent {
  scope: string;
  run?: string;
  step?: string;
  tool: string;
  args: unknown;
}

/** A derived key (`key`: `oncely1:` + 64 lowercase hex digits) and what it was derived from. */
export type DerivedKey = Wit.Keys.DerivedKey;

/**
 * An intent with no step (absent or "") is named by the core (`identify`): no scope is the scope
 * "default", and a key of identity `step` is keyed by `run`; with no run, only a natural key
 * (identity `scope`) is keyed, anything else is refused (IdentityError `no-run`).
 * @throws KeyDerivationError | EncodingError | IdentityError
 */
export function deriveKey(intent: StepLessIntent & { policy?: PolicyInput }): DerivedKey;
/** `deriveKey(intent).key`, computed without the fingerprint (one SHA-256 pass). @throws KeyDerivationError | EncodingError | IdentityError */
export function intentKey(intent: StepLessIntent & { policy?: PolicyInput }): string;

/** An intent as `deriveKey`, `intentKey` and `ledger.effect` take it: the scope may be absent too. */
export type StepLessIntent = Omit<Intent, 'scope'> & { scope?: string };

// ---- agent (wit/agent.wit) ----------------------------------------------------------------------

/** What a host knows about one tool call (wit: agent.call-context); absent, null and "" name nothing. */
export interface CallContext {
  /** The tool's name, for the errors' sentences. */
  tool: string;
  /** The identity of the tool's key spec (default `step`). */
  keyIdentity?: KeyIdentity;
  scope?: string | null;
  run?: string | null;
  step?: string | null;
  /** The framework's conversation id (LangGraph's thread id). */
  conversation?: string | null;
  /** An MCP request's `_meta` as JSON text. */
  metaJson?: string | null;
  /** An MCP request's `params.idempotencyKey`. */
  paramsKey?: string | null;
  /** The MCP session's id. */
  session?: string | null;
  defaultScope?: string | null;
  defaultRun?: string | null;
}

export type Origin = Wit.Agent.Origin;

/** Which intent a call is, and the key identity to key it with (wit: agent.identity). */
export interface Identity {
  scope: string;
  /** null only for a natural key (identity `scope`): give the intent an empty run then. */
  run: string | null;
  /** null: give the intent an empty step. */
  step: string | null;
  keyIdentity: KeyIdentity;
  scopeFrom: Origin;
  runFrom: Origin | null;
  stepFrom: Origin | null;
}

/** The scope, run and step of a tool call (the core's rule). @throws IdentityError | EncodingError */
export function identify(call: CallContext): Identity;

/** What went wrong with a call (wit: agent.failure), the core's records with numbers for u64. */
export type Failure =
  | { tag: 'effect'; val: { tag: Wit.Effect.EffectError['tag']; val?: unknown } }
  | { tag: 'key'; val: { kind: KeyDerivationError['kind']; at?: string | null; canon?: CanonErrorInfo | null; message: string } }
  | { tag: 'canon'; val: { kind: CanonErrorKind; offset: number; line?: number; column?: number; message: string } };

/** What the model reads for a call that did not simply return (wit: agent.reply). */
export interface Reply {
  code: Wit.Agent.ReplyCode;
  /** The sentence the model reads, starting with `oncely:`. */
  text: string;
  key: string | null;
  /** For `conflict`: where the arguments first differ. */
  pointer: string | null;
  /** For `in-progress`: when to look again (ms). */
  retryAfterMs: number | null;
  /** Whether sending the identical call again can help. */
  repeatable: boolean;
}

/** The core's answer to a failure; null for what is not the model's business (raise it). */
export function answer(failure: Failure): Reply | null;

/**
 * The core's answer to a thrown error: an effect's typed error (from `ledger.effect`), a
 * KeyDerivationError or a CanonicalizationError; null for anything else (storage, the ledger, a
 * bug), which is raised as it is.
 */
export function replyTo(error: unknown): Reply | null;
/** One call to the core for a batch; each result stands alone (errors are returned). */
export function deriveKeys(intents: Intent[], options?: { policy?: PolicyInput }): Array<DerivedKey | KeyDerivationError>;

export interface Difference {
  part: Wit.Keys.IntentPart;
  pointer: string | null;
  a: string | null;
  b: string | null;
  effect: Wit.Keys.DifferenceEffect;
}
export interface Explanation {
  verdict: Wit.Keys.Verdict;
  keyA: DerivedKey;
  keyB: DerivedKey;
  differences: Difference[];
}
/** Why two intents do or don't share a key (spec: options.policy, else a.policy, else default). */
export function explain(a: Intent & { policy?: PolicyInput }, b: Intent, options?: { policy?: PolicyInput }): Explanation;

// ---- ledger -------------------------------------------------------------------------------------

export type EntryState = Wit.Ledger.EntryState;

/** One row of the ledger (wit: ledger.entry). Stores keep every field and hand it back unchanged. */
export type Entry = Wit.Js.Ledger.Entry;

/**
 * One record of an entry's history (`Ledger.history`): the entry as one write left it. Kept for
 * the claim and for every write that changed the state, attempt, reason, reconciliation count or
 * settlement (not for heartbeats); removed with the entry.
 */
export interface HistoryRecord {
  /** The entry's version after the write. */
  version: number;
  /** When (ms since the epoch: the entry's `updatedAt`). */
  at: number;
  state: EntryState;
  attempt: number;
  owner: string;
  reconcileAttempts: number;
  reason: string | null;
  /** Who settled it, for a human's settlement. */
  resolvedBy: string | null;
  /** The settlement's id, for a human's settlement. */
  settlement: string | null;
}

/** What `Ledger.list` selects. */
export interface ListFilter {
  state?: EntryState | null;
  tool?: string | null;
  /** 0 or absent: the core's page size (`coreDefaults().pageSize`, 100). */
  limit?: number;
}

/** What a store's `list` is given: the ledger always says how many rows at most. */
export interface StoreListFilter {
  state: EntryState | null;
  tool: string | null;
  limit: number;
}

/** What the core says of a write (`row-write`). */
export interface WriteOptions {
  /** The write appends the written row to the entry's history. */
  history?: boolean;
  /**
   * The write leaves a claim the tool will be called under: a store that can wait for its
   * replicas (a Redis `WAIT`) waits for this write before it returns.
   */
  claims?: boolean;
}

/**
 * The storage a ledger needs: insert-if-absent, compare-and-swap on `version`, every query by
 * scope. Stores never decide anything.
 */
export interface Store {
  get(scope: string, key: string): Promise<Entry | null>;
  /** `history`: whether the write appends to the entry's history (the core says; see `history`). */
  insert(entry: Entry, options?: WriteOptions): Promise<boolean>;
  update(expectedVersion: number, entry: Entry, options?: WriteOptions): Promise<boolean>;
  delete(scope: string, key: string, expectedVersion: number): Promise<boolean>;
  list(scope: string, filter: StoreListFilter): Promise<Entry[]>;
  /** Entries (of one scope, or all) with `dueAt <= now`, by `dueAt`, at most `limit`. */
  due(scope: string | null, now: number, limit: number): Promise<Entry[]>;
  /**
   * The history of `(scope, key)`, oldest first (empty when there is no entry); needed only by
   * `Ledger.history`. A store keeps it beside the row in the same atomic write: a write the core
   * marks `{history: true}` (an insert, or an update that changes `state`, `attempt`, `reason`,
   * `reconcileAttempts` or `settlement`) appends the written row's record; a delete removes the
   * key's history. The SQL stores append it in the write's own statement.
   */
  history?(scope: string, key: string): Promise<HistoryRecord[]>;
  close?(): Promise<void>;
}

/** The stores this package ships: every `Store` method, `history()` and `close()` included. */
export interface ShippedStore extends Store {
  history(scope: string, key: string): Promise<HistoryRecord[]>;
  close(): Promise<void>;
}

/** An in-memory store (tests, single-process demos). */
export interface MemoryStore extends ShippedStore {}
export class MemoryStore {}

/** The slice of a Durable Object's `ctx.storage` the store uses. */
export interface DurableObjectStorageLike {
  sql: { exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] } };
  transactionSync<T>(fn: () => T): T;
}

/** A store in a Cloudflare Durable Object's SQLite storage (the Rust host's SQLite schema). */
export interface DurableObjectStore extends ShippedStore {}
export class DurableObjectStore {
  static open(storage: DurableObjectStorageLike): Promise<DurableObjectStore>;
  constructor(storage: DurableObjectStorageLike);
}

export type ClaimToken = Wit.Ledger.ClaimToken;

export interface Claim {
  scope: string;
  tool: string;
  /** The intent's run (recorded on the entry, for people). */
  runId: string;
  /** The intent's step (recorded on the entry, for people). */
  stepId: string;
  key: string;
  fingerprint: string;
  argsCanonical: string;
  owner: string;
}

export type ReconcileRequest = Wit.Js.Ledger.ReconcileRequest;

export type Escalation = Wit.Js.Ledger.Escalation;

/** What to do after an event (see wit/ledger.wit, "Call protocol"). */
export type Outcome =
  | { tag: 'execute'; val: ClaimToken }
  | { tag: 'replay'; val: { resultJson: string; attempt: number; recordedAt: number } }
  | { tag: 'in-progress'; val: { owner: string; state: EntryState; retryAfterMs: number } }
  | { tag: 'reconcile'; val: ReconcileRequest }
  | { tag: 'escalated'; val: Escalation }
  | { tag: 'conflict'; val: { key: string; pointer: string; storedFingerprint: string; givenFingerprint: string } }
  | { tag: 'pass-through' }
  | { tag: 'recorded'; val: EntryState }
  /** A human's settlement was recorded under this id (`resolve`). */
  | { tag: 'settled'; val: string }
  | { tag: 'purged' }
  | { tag: 'idle'; val: number | null }
  /** The call waits for a person's approval (the request, recorded or found). */
  | Extract<Wit.Js.Ledger.Outcome, { tag: 'awaiting-approval' }>
  /** A person denied the call. */
  | Extract<Wit.Js.Ledger.Outcome, { tag: 'denied' }>;

/** A call that waits for a person's approval (`ledger.approval-request`; times in ms). */
export type ApprovalRequest = Wit.Js.Ledger.ApprovalRequest;

/** Where a call stands with a person (`ledger.decision-of`). */
export type HeldDecision = Wit.Js.Ledger.HeldDecision;

/** A reconciler's verdict or a human's settlement. */
export type Verdict = Wit.Ledger.ReconcileVerdict;
export type Settlement = Wit.Ledger.Settlement;

/** The effect happened; `value` (serialized as JSON) is its result. */
export function happened(value: unknown): { tag: 'happened'; val: string };
/** The effect did not happen: a new attempt may execute. */
export function notHappened(): { tag: 'not-happened' };
/** Still unknown: the reason. */
export function unknown(reason: string): { tag: 'unknown'; val: string };

export type Reconciler = (request: ReconcileRequest) => Promise<Verdict> | Verdict;

/** What a tool call gets besides its key. */
export interface Call {
  /** The idempotency key: pass it on to the provider (its Idempotency-Key). */
  readonly key: string;
  /** The attempt the call runs under (1 for the first); null for a provider-idempotent tool called again as reconciliation. */
  readonly attempt: number | null;
  /** The call's deadline (ms since the epoch): the policy's maxCallMs after the claim; null when none. */
  readonly deadline: number | null;
  /** Aborted at the deadline (give it to fetch); undefined when the call has no deadline. */
  readonly signal: AbortSignal | undefined;
}

/** Raw ledger events, for `Ledger.drive` (the WIT event variant). */
export type LedgerEvent = { tag: string; val?: unknown };

export interface EffectResult<T> {
  value: T;
  key: string;
  /** The result came from the ledger, not from calling the tool now. */
  replayed: boolean;
  /** This call settled an unknown outcome by reconciliation. */
  reconciled: boolean;
}

export interface SweepReport {
  examined: number;
  leasesExpired: number;
  reconciled: number;
  happened: number;
  notHappened: number;
  unknown: number;
  escalated: string[];
  /** Settled entries past their retention, deleted. */
  purged: number;
  /** Entries the core skipped (and why); they are untouched. */
  errors: string[];
}

export interface SweeperOptions {
  /** Pause between the end of one pass and the start of the next (5000; a positive finite number). */
  everyMs?: number;
  /** The scope to sweep; null or absent: every scope. */
  scope?: string | null;
  /** Each pass's report (called, not awaited); what it throws or rejects goes to onError. */
  onReport?: (report: SweepReport) => unknown;
  /** A failed pass (a StorageError) or a failing onReport; default: console.error. The loop goes on. */
  onError?: (err: unknown) => unknown;
}

/** A background sweeper (`Ledger.startSweeper`). */
export interface Sweeper {
  /** Stop the loop; resolves once a pass in flight has finished, and no pass starts after. Idempotent. */
  stop(): Promise<void>;
  /** True until stop() is called. */
  readonly running: boolean;
}

export const systemClock: () => number;

/** The kind of a ledger decision: the same names in every oncely library. */
export type EventKind =
  | 'claimed' | 'executed' | 'replayed' | 'conflict' | 'in-doubt' | 'reconciled' | 'escalated' | 'resolved'
  | 'awaiting-approval' | 'approved' | 'denied';

/** Every kind, in that order. */
export const EVENT_KINDS: readonly EventKind[];

/** One decision of a ledger, as `onEvent` hooks get it (frozen). */
export interface DecisionEvent {
  /**
   * `claimed`: a key was claimed, the tool is about to be called (`detail`: "attempt N by OWNER");
   * `executed`: the tool ran and its result was recorded; `replayed`: a repeat got the recorded
   * result; `conflict`: the key was used before with other arguments ("first difference at
   * \"/pointer\""); `in-doubt`: the outcome is unknown (the tool failed ambiguously, or a lease ran
   * out; `detail`: why); `reconciled`: a reconciliation answered (happened, not-happened or
   * unknown); `escalated`: only a person can settle it now (why); `resolved`: a person settled it
   * ("stl-… by WHO: happened" or "…: did not happen").
   */
  readonly kind: EventKind;
  readonly scope: string;
  readonly key: string;
  /** The tool; "" when the call that decided does not know it (complete, failAmbiguous, reconciled, resolve). */
  readonly tool: string;
  readonly detail: string;
}

/** What of `@opentelemetry/api` the ledger uses (give the module itself: `import * as api from '@opentelemetry/api'`). */
export interface OpenTelemetryApi {
  trace: { getActiveSpan(): unknown };
  metrics: { getMeterProvider(): unknown };
}

export interface LedgerOptions {
  /** This worker's id in claims (default: pid and a random suffix). */
  owner?: string;
  /** ms since the Unix epoch (default Date.now). */
  clock?: () => number;
  /** How the core's waits are slept (pair it with a simulated `clock`); default a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** A hook for every decision, as `ledger.onEvent(hook)`. */
  onEvent?: (event: DecisionEvent) => unknown;
  /**
   * Where decisions go besides hooks: absent, OpenTelemetry's global API when `@opentelemetry/api`
   * is installed (imported once, quietly skipped when missing); false, nowhere; or the API module
   * itself, where it cannot be imported by name (a bundled Worker).
   */
  openTelemetry?: false | OpenTelemetryApi;
}

/**
 * A ledger: the core's machines (wit/effect.wit) run over a store. Every decision is the core's;
 * the ledger reads and writes rows, calls the tool and reconcilers, and sleeps when told.
 */
export class Ledger {
  constructor(store: Store, options?: LedgerOptions);
  readonly store: Store;
  readonly owner: string;
  /** A ledger over the same store, reconcilers and event hooks, with another owner id. */
  withOwner(owner: string): Ledger;
  /**
   * Call `hook` with every decision of this ledger and of its withOwner copies, inline, as it is
   * made. What it throws or rejects with never reaches the effect: it goes to `onError` (default
   * console.error), once. Returns the function that removes the hook.
   */
  onEvent(hook: (event: DecisionEvent) => unknown, options?: { onError?: (error: unknown, event: DecisionEvent) => void }): () => void;
  now(): number;
  /** Register the reconciler of `tool`. */
  reconciler(tool: string, fn: Reconciler): this;
  /** Unregister the reconciler of `tool`; whether one was registered. */
  removeReconciler(tool: string): boolean;
  /** Apply one event with the core's event machine (read, the core's rule, write; a lost race reads again). */
  drive(scope: string, key: string, event: LedgerEvent): Promise<Outcome>;
  begin(intent: Intent, policy: PolicyInput): Promise<{ claim: Claim; outcome: Outcome }>;
  complete(scope: string, key: string, token: ClaimToken, value: unknown): Promise<Outcome>;
  completeJson(scope: string, key: string, token: ClaimToken, resultJson: string): Promise<Outcome>;
  failDefinite(scope: string, key: string, token: ClaimToken, reason: string): Promise<Outcome>;
  failAmbiguous(scope: string, key: string, token: ClaimToken, reason: string): Promise<Outcome>;
  heartbeat(scope: string, key: string, token: ClaimToken): Promise<Outcome>;
  reconciled(scope: string, key: string, attempt: number, verdict: Verdict): Promise<Outcome>;
  /**
   * A human's verdict on an in-doubt or escalated entry. `version` is the entry's version the
   * person decided on: if the entry has changed since, nothing is written and a LedgerError of
   * kind `'changed'` is thrown. Resolves to the settlement's id (`stl-…`, also `entry.settlement`).
   */
  resolve(scope: string, key: string, settlement: Settlement, who: { by: string; note?: string; version: number }): Promise<string>;
  /** A person approves the call that awaits approval; resolves to the decision's id. */
  approve(scope: string, key: string, who: { by: string; note?: string; version: number }): Promise<string>;
  /** A person denies the call that awaits approval (or an approval not yet used); resolves to the decision's id. */
  deny(scope: string, key: string, who: { by: string; note?: string; version: number }): Promise<string>;
  /**
   * Whether running `intent` under `policy` now would wait for a person's approval (the core's
   * `ledger.asks-approval` on the entry as it stands): what a framework's own approval step asks.
   */
  asksApproval(intent: StepLessIntent, policy: PolicyInput | undefined): Promise<boolean>;
  /**
   * Record the request for a person's approval of running `intent`, claiming nothing (the core's
   * `ask`): the request (recorded now or found), or null when there is nothing to ask (approved,
   * ran, or no approval asked for). Rejects with DeniedError when a person denied the call.
   */
  requestApproval(intent: StepLessIntent, policy: PolicyInput | undefined): Promise<ApprovalRequest | null>;
  /** What `entry` holds of a person's approval (the core's `ledger.decision-of`), or null. */
  decisionOf(entry: Entry): HeldDecision | null;
  /** The entry's history, oldest first (a TypeError for a store without `history`). */
  history(scope: string, key: string): Promise<HistoryRecord[]>;
  purge(scope: string, key: string): Promise<Outcome>;
  purgeExpired(scope?: string | null): Promise<number>;
  get(scope: string, key: string): Promise<Entry | null>;
  list(scope: string, filter?: ListFilter): Promise<Entry[]>;
  waitSettled(scope: string, key: string, options?: { everyMs?: number; timeoutMs?: number }): Promise<Entry | null>;
  /** Tend every due entry: expire leases, reconcile, escalate, purge past retention. Never calls a tool. */
  sweep(scope?: string | null): Promise<SweepReport>;
  /**
   * Sweep in the background (with the registered reconcilers): a pass at once, then one `everyMs`
   * after each pass ends (never overlapping). A failed pass goes to onError and the loop goes on;
   * on Node the timer does not keep the process alive.
   */
  startSweeper(options?: SweeperOptions): Sweeper;
  /**
   * Run `tool` at most once per intent, as the core's effect machine says; `tool(key)` gets the
   * idempotency key. Throw DefiniteFailure when the effect did not happen; anything else thrown
   * is ambiguous. A value JSON.stringify cannot encode (BigInt, a cycle, undefined) is recorded
   * without a result: ResultNotRecordedError. `maxAttempts` 0 or absent: the core's default (3).
   * An intent with no step is named by the core, as `deriveKey` names it (IdentityError `no-run`).
   */
  effect<T>(
    intent: StepLessIntent,
    policy: PolicyInput | undefined,
    tool: (key: string, call: Call) => Promise<T> | T,
    options?: { maxAttempts?: number; waitMs?: number; approvalWaitMs?: number; signal?: AbortSignal },
  ): Promise<EffectResult<T>>;
}

// ---- errors -------------------------------------------------------------------------------------

export class OncelyError extends Error {
  readonly code: string;
}
export class CanonicalizationError extends OncelyError {
  readonly code: 'canon';
  readonly kind: CanonErrorKind;
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}
export interface CanonErrorInfo {
  kind: CanonErrorKind;
  offset: number;
  line: number;
  column: number;
  message: string;
}
/** The core could not name a tool call (`identify`); the message is the core's. */
export class IdentityError extends OncelyError {
  readonly code: 'identity';
  readonly kind: Wit.Agent.IdentityErrorKind;
  /** The `_meta` member concerned (`invalid-meta`). */
  readonly at: string | null;
}
/** A call as the model reads it: the message is `reply.text`; `cause` the typed error behind it. */
export class AnsweredError extends OncelyError {
  constructor(reply: Reply, cause?: unknown);
  readonly code: 'answered';
  readonly reply: Reply;
}
export class KeyDerivationError extends OncelyError {
  readonly code: 'key';
  readonly kind: 'invalid-args' | 'invalid-pointer' | 'missing-member' | 'pointer-into-array' | 'empty-field';
  readonly at: string | null;
  readonly canon: CanonErrorInfo | null;
}
export class PolicyError extends OncelyError {
  readonly code: 'policy';
  readonly at: string;
  readonly reason: string;
}
export class LedgerError extends OncelyError {
  readonly code: 'ledger';
  /** `changed`: a `resolve` named a version the entry has moved on from (look again). */
  readonly kind: 'not-found' | 'stale-token' | 'invalid-state' | 'already-settled' | 'retention-not-reached' | 'invalid-request' | 'changed';
  readonly state?: EntryState;
}
export class StorageError extends OncelyError {
  readonly code: 'storage';
}
export class ConflictError extends OncelyError {
  readonly code: 'conflict';
  readonly key: string;
  readonly pointer: string;
}
export class EscalatedError extends OncelyError {
  readonly code: 'escalated';
  readonly key: string;
  readonly reason: string;
}
/** The tool's policy asks a person to approve this call first, and nobody has yet; the tool was not called. */
export class AwaitingApprovalError extends OncelyError {
  readonly code: 'awaiting-approval';
  readonly key: string;
  /** The arguments a person decides on (canonical JSON). */
  readonly argsCanonical: string;
  /** The entry's version to decide on. */
  readonly version: number;
}
/** A person denied this call: it did not happen and will not. */
export class DeniedError extends OncelyError {
  readonly code: 'denied';
  readonly key: string;
  readonly by: string;
  readonly reason: string;
  /** The decision's id. */
  readonly settlement: string;
}
/** The outcome is unknown: every caller of an in-doubt entry gets this. */
export class InDoubtError extends OncelyError {
  readonly code: 'in-doubt';
  readonly key: string;
  readonly reason: string;
  /** When the next reconciliation is due (ms); null when not known. */
  readonly retryAfterMs: number | null;
}
/** Another worker holds a live claim and did not finish while we waited. */
export class InProgressError extends OncelyError {
  readonly code: 'in-progress';
  readonly key: string;
  readonly owner: string;
  /** When to look again (ms), as the core says (as long as the claim has run, never past its lease's end). */
  readonly retryAfterMs: number | null;
}
/** A provider middleware (oncely/hono, oncely/express, oncely/mcp) is misconfigured: a bug of the server. */
export class ConfigurationError extends OncelyError {
  readonly code: 'configuration';
}
export class ToolFailedError extends OncelyError {
  readonly code: 'tool-failed';
  readonly reason: string;
}
/** The effect happened but its result could not be encoded as JSON: recorded without one. */
export class ResultNotRecordedError extends OncelyError {
  readonly code: 'result-not-recorded';
  readonly key: string;
  readonly reason: string;
}
export class ContentionError extends OncelyError {
  readonly code: 'contention';
  readonly races: number;
}
export class CoreTrapError extends OncelyError {
  readonly code: 'trap';
}
/** An id (scope, run, step, tool, owner) holding a lone UTF-16 surrogate: it is not Unicode text. */
export class EncodingError extends OncelyError {
  readonly code: 'encoding';
  /** The core's kind for a lone surrogate. */
  readonly kind: 'lone-surrogate';
  readonly field: string;
  readonly index: number;
}
/** Thrown by a tool to say how it failed. */
export class ToolError extends Error {
  constructor(reason: string, options?: { cause?: unknown });
  readonly reason: string;
}
/** The effect did NOT happen. */
export class DefiniteFailure extends ToolError {}
/** You cannot tell whether the effect happened. */
export class AmbiguousFailure extends ToolError {}
