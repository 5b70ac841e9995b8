// The ledger: the API over the core's machines (wit/effect.wit). Every decision (claims, retries,
// waits, reconciliation, what a failure or an unencodable result means) is the core's; the
// interpreter in machine.js only reads and writes rows, calls the tool and reconcilers, sleeps,
// and returns or raises what the core says. This mirrors host/src/ledger.rs.

import { answer, coreDefaults, prepareCheck, witAsksApproval, witClaim, witDecisionOf, witIdentified, witIntent, witPrepare } from './core.js';
import {
  ConflictError,
  AwaitingApprovalError,
  ContentionError,
  DeniedError,
  EscalatedError,
  OncelyError,
  InDoubtError,
  InProgressError,
  LedgerError,
  ResultNotRecordedError,
  StorageError,
  ToolFailedError,
} from './errors.js';
import { Events } from './events.js';
import { runMachine } from './machine.js';
import { text } from './wtf8.js';
import { decisionOut, entryIn, outcomeOut, requestOut } from './wire.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Due rows one sweep or purge pass tends at most (every host uses the same number). */

/** The system clock: milliseconds since the Unix epoch. */
export const systemClock = () => Date.now();

// ---- verdicts and settlements -----------------------------------------------------------------

/** A reconciler's verdict, or a human's settlement: the effect happened; `value` is its result. */
export function happened(value) {
  const json = JSON.stringify(value === undefined ? null : value);
  return { tag: 'happened', val: json };
}

/** The effect did not happen: a new attempt may execute. */
export function notHappened() {
  return { tag: 'not-happened' };
}

/** A reconciler could not tell (the provider could not say, or could not be reached). */
export function unknown(reason) {
  return { tag: 'unknown', val: String(reason) };
}

function checkVerdict(v, settlement) {
  const ok =
    v !== null &&
    typeof v === 'object' &&
    ((v.tag === 'happened' && typeof v.val === 'string') ||
      v.tag === 'not-happened' ||
      (!settlement && v.tag === 'unknown' && typeof v.val === 'string'));
  if (!ok) {
    const what = settlement ? 'happened(value) or notHappened()' : 'happened(value), notHappened() or unknown(reason)';
    throw new TypeError(`expected ${what}, got ${JSON.stringify(v)}`);
  }
  return v.tag === 'not-happened' ? { tag: 'not-happened' } : { tag: v.tag, val: v.val };
}

function defaultOwner() {
  const pid = globalThis.process?.pid;
  const rnd = globalThis.crypto?.randomUUID ? globalThis.crypto.randomUUID().slice(0, 8) : Math.random().toString(16).slice(2, 10);
  return pid !== undefined ? `pid${pid}-${rnd}` : `worker-${rnd}`;
}

// Storage calls: a driver or database failure becomes a StorageError (nothing was recorded).
async function io(what, p) {
  try {
    return await p;
  } catch (e) {
    if (e instanceof OncelyError) throw e;
    throw new StorageError(`${what}: ${e?.message ?? e}`, e);
  }
}

/** A ledger: the core's rules over a store. */
export class Ledger {
  /** Where its decisions go (events.js): hooks and OpenTelemetry; shared with its withOwner copies. */
  #events;

  /**
   * @param store a store (MemoryStore, SqliteStore, PostgresStore, DurableObjectStore, or any
   *   object with the same methods)
   * @param {{owner?: string, clock?: () => number, sleep?: (ms: number) => Promise<void>,
   *   onEvent?: Function, openTelemetry?: any}} [options] `owner`: this worker's id in claims;
   *   `clock`: () => ms since the epoch; `sleep`: (ms) => Promise, how the core's waits are
   *   slept (tests and simulations pair it with their clock; default: a timer); `onEvent`: a
   *   hook for every decision (as `onEvent(hook)`); `openTelemetry`: where decisions go besides
   *   hooks — absent, the global API of `@opentelemetry/api` when it is installed; `false`,
   *   nowhere; or that API module itself (where it cannot be imported by name, as in a bundled
   *   Worker)
   */
  constructor(store, { owner, clock, sleep: sleepFn, onEvent, openTelemetry } = {}) {
    if (!store || typeof store.get !== 'function') throw new TypeError('new Ledger(store): a store is required');
    this.store = store;
    this.owner = owner === undefined || owner === null ? defaultOwner() : text('owner', owner);
    this.clock = clock ?? systemClock;
    this.sleep = sleepFn ?? sleep;
    this.reconcilers = new Map();
    this.#events = new Events(openTelemetry);
    if (onEvent !== undefined && onEvent !== null) this.#events.add(onEvent);
  }

  /** A ledger over the same store (reconcilers and event hooks) with another owner id. */
  withOwner(owner) {
    const l = new Ledger(this.store, { owner, clock: this.clock, sleep: this.sleep, openTelemetry: false });
    l.reconcilers = this.reconcilers;
    l.#events = this.#events;
    return l;
  }

  /**
   * Call `hook(event)` with every decision of this ledger and of its `withOwner` copies, as it is
   * made: `{kind, scope, key, tool, detail}`, `kind` one of EVENT_KINDS (claimed, executed,
   * replayed, conflict, in-doubt, reconciled, escalated, resolved; `tool` is "" where the call
   * that decided does not know it). It runs inline: keep it quick. What it throws (or rejects
   * with) never reaches the effect: it goes to `onError(err, event)` (default: console.error).
   * Returns the function that removes the hook.
   * @param hook
   * @param {{onError?: Function}} [options]
   */
  onEvent(hook, { onError } = {}) {
    return this.#events.add(hook, onError);
  }

  /** Now, by this ledger's clock. */
  now() {
    const t = Math.floor(this.clock());
    if (!Number.isSafeInteger(t) || t < 0) throw new RangeError(`the clock returned ${t}; expected ms since the Unix epoch`);
    return t;
  }

  /** Register the reconciler of `tool`: `async (request) => happened(v) | notHappened() | unknown(r)`. */
  reconciler(tool, fn) {
    if (typeof fn !== 'function') throw new TypeError('a reconciler is a function');
    this.reconcilers.set(tool, fn);
    return this;
  }

  /**
   * Unregister the reconciler of `tool`; whether one was registered. From then on a sweep leaves
   * its in-doubt entries alone (a person settles them), and a reconciliation already asked for
   * records the outcome as still unknown.
   */
  removeReconciler(tool) {
    return this.reconcilers.delete(tool);
  }

  // Run one of the core's machines against the store (machine.js), with this ledger's clock,
  // reconcilers and `tool`; its finish and what it left ({finish, value, row}). The events of its
  // steps go to hooks and OpenTelemetry. While the OpenTelemetry API loads (once, at the first
  // ledger), it waits for it, so that no decision misses it.
  #run(command, tool = noTool, signal = undefined) {
    const loading = this.#events.pending();
    if (loading !== null) return loading.then(() => this.#run(command, tool, signal));
    return runMachine(command, {
      store: this.store,
      signal,
      deliver: (events) => this.#events.deliver(events),
      now: () => this.now(),
      sleep: (ms) => this.sleep(ms),
      tool,
      beat: async (scope, key, token) => {
        // The core's machine for `heartbeat(token)`: whether to beat on. False once the core
        // refuses it (the claim moved on); a storage error beats on (wit/effect.wit, call-tool).
        try {
          await this.#run({ tag: 'event', val: { scope, key, event: { tag: 'heartbeat', val: token } } });
          return true;
        } catch (e) {
          return e instanceof StorageError;
        }
      },
      reconcile: async (req, m) => {
        // The input the core takes after `call-reconciler`: the verdict, or why there is none.
        const r = this.reconcilers.get(req.tool);
        if (!r) return { tag: 'no-reconciler' };
        let verdict;
        try {
          verdict = await r(requestOut(req));
        } catch (e) {
          m.cause = e;
          return { tag: 'reconciler-failed', val: String(e?.message ?? e) };
        }
        return { tag: 'verdict', val: checkVerdict(verdict, false) };
      },
      raise: errorOf,
    });
  }

  /** Apply one event (a WIT `event`) to `(scope, key)` with the core's event machine; its outcome. */
  async drive(scope, key, event) {
    const { finish } = await this.#run({ tag: 'event', val: { scope, key, event } });
    return outcomeOut(finish.val);
  }

  // Tend one due row: the core's note on what it did.
  async #tend(row, job) {
    const hasReconciler = job === 'sweep' && this.reconcilers.has(row.tool);
    const { finish } = await this.#run({ tag: 'tend', val: { scope: row.scope, key: row.key, job, hasReconciler } });
    return finish.val;
  }

  /**
   * Whether running `intent` under `policy` now would wait for a person's approval (the core's
   * `ledger.asks-approval` on the entry as it stands): the policy asks for one on these arguments,
   * and neither an approval that holds nor a denial is recorded. What an agent framework's own
   * approval step asks before it asks its person, so that the framework's decision and the
   * ledger's are one (the adapters; docs/choosing-keys.md).
   */
  async asksApproval(intent, policy) {
    const { intent: named, policy: p } = witIdentified(intent, policy);
    const claim = witClaim(named, p, this.owner);
    const current = await io('get', this.store.get(claim.scope, claim.key));
    return witAsksApproval(current ? entryIn(current) : undefined, claim, this.now());
  }

  /**
   * Record the request for a person's approval of running `intent` under `policy`, claiming
   * nothing (the core's `ask` event): what an agent framework's own approval step does before it
   * asks its person, so that the inbox lists the same one request and a person may decide in
   * either place. Resolves to the request (`{scope, key, tool, argsCanonical, version, since}`,
   * recorded now or found), or null when there is nothing to ask: a person approved the call
   * (the next effect runs under the approval), it ran, or the policy asks for no approval here.
   * Throws DeniedError when a person denied it.
   */
  async requestApproval(intent, policy) {
    const { intent: named, policy: p } = witIdentified(intent, policy);
    const claim = witClaim(named, p, this.owner);
    const o = await this.drive(claim.scope, claim.key, { tag: 'ask', val: claim });
    if (o.tag === 'awaiting-approval') return o.val;
    if (o.tag === 'denied') throw typedError({ tag: 'denied', val: o.val }, {});
    return null;
  }

  /**
   * What `entry` (as `get` gives it) holds of a person's approval (the core's
   * `ledger.decision-of`): `{tag: 'asked', val: request}` (waiting for a person), `{tag:
   * 'approved', val: {by, settlement, unused}}`, `{tag: 'denied', val: {key, by, reason,
   * settlement}}`, or null.
   */
  decisionOf(entry) {
    return decisionOut(witDecisionOf(entryIn(entry)));
  }

  /**
   * Claim the key of `intent` before calling the tool. Returns the claim (`claim.key` is what
   * the provider should get) and what to do (see wit/ledger.wit).
   */
  async begin(intent, policy) {
    const claim = witPrepare(intent, policy, this.owner);
    const outcome = await this.drive(claim.scope, claim.key, { tag: 'begin', val: claim });
    const { scope, tool, runId, stepId, key, fingerprint, argsCanonical, owner } = claim;
    return { claim: { scope, tool, runId, stepId, key, fingerprint, argsCanonical, owner }, outcome };
  }

  /** Record the result (a value, stored as JSON) of the attempt `token` holds. */
  async complete(scope, key, token, value) {
    return this.completeJson(scope, key, token, JSON.stringify(value === undefined ? null : value));
  }

  /** Record the result of the attempt `token` holds, as the text to replay verbatim. */
  async completeJson(scope, key, token, resultJson) {
    return this.drive(scope, key, { tag: 'complete', val: { token: tokenIn(token), resultJson: String(resultJson) } });
  }

  /** Record a definite failure: the effect did not happen. */
  async failDefinite(scope, key, token, reason) {
    return this.drive(scope, key, { tag: 'fail-definite', val: { token: tokenIn(token), reason: String(reason) } });
  }

  /** Record an ambiguous failure: the outcome is unknown. The answer is `reconcile` or `escalated`. */
  async failAmbiguous(scope, key, token, reason) {
    return this.drive(scope, key, { tag: 'fail-ambiguous', val: { token: tokenIn(token), reason: String(reason) } });
  }

  /** Extend the lease of a long call. */
  async heartbeat(scope, key, token) {
    return this.drive(scope, key, { tag: 'heartbeat', val: tokenIn(token) });
  }

  /** Report what a reconciliation of `attempt` found: happened(v), notHappened() or unknown(r). */
  async reconciled(scope, key, attempt, verdict) {
    const v = checkVerdict(verdict, false);
    return this.drive(scope, key, { tag: 'reconciled', val: { attempt, verdict: v } });
  }

  /**
   * A human's verdict on an in-doubt or escalated entry: happened(v) or notHappened(). `version`
   * (required) is the entry's version the person decided on (what `get` showed them): if the
   * entry has changed since, nothing is written and a LedgerError of kind `changed` is thrown
   * (look again). Resolves to the settlement's id (`stl-…`), kept in the entry (`settlement`)
   * and its history.
   * @param scope
   * @param key
   * @param settlement
   * @param {{by?: string, note?: string, version?: any}} [options] (`version` is checked here)
   */
  async resolve(scope, key, settlement, { by, note = '', version } = {}) {
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new TypeError(`ledger.resolve(scope, key, settlement, {by, note, version}): version is required: the entry's version the person decided on (an integer, from ledger.get), got ${shown(version)}`);
    }
    const resolution = { settlement: checkVerdict(settlement, true), by: String(by ?? ''), note: String(note), seenVersion: BigInt(version) };
    const outcome = await this.drive(scope, key, { tag: 'resolve', val: resolution });
    if (outcome.tag !== 'settled') throw new OncelyError('protocol', `resolve ended with ${outcome.tag}, not a settlement`);
    return outcome.val;
  }

  /**
   * A person approves the call that awaits approval (its policy's `approval`): the next ask of
   * the intent runs it once, while the approval holds. `version` (required) is the entry's
   * version the person decided on (AwaitingApprovalError and `get` give it): if the entry has
   * changed since, nothing is written and a LedgerError of kind `changed` is thrown. Resolves to
   * the decision's id, kept in the entry and its history.
   * @param {string} scope
   * @param {string} key
   * @param {{by?: string, note?: string, version?: any}} [options]
   */
  async approve(scope, key, options = {}) {
    return this.#decide('approve', scope, key, options);
  }

  /**
   * A person denies the call that awaits approval (or an approval not yet used): it will not
   * happen, and every later ask throws DeniedError with `note` as the reason. Options as `approve`.
   * @param {string} scope
   * @param {string} key
   * @param {{by?: string, note?: string, version?: any}} [options]
   */
  async deny(scope, key, options = {}) {
    return this.#decide('deny', scope, key, options);
  }

  /**
   * @param {'approve' | 'deny'} tag
   * @param {string} scope
   * @param {string} key
   * @param {{by?: string, note?: string, version?: any}} options
   */
  async #decide(tag, scope, key, { by, note = '', version } = {}) {
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new TypeError(`ledger.${tag}(scope, key, {by, note, version}): version is required: the entry's version the person decided on (an integer, from ledger.get), got ${shown(version)}`);
    }
    const decision = { by: String(by ?? ''), note: String(note), seenVersion: BigInt(version) };
    const outcome = await this.drive(scope, key, { tag, val: decision });
    if (outcome.tag !== 'settled') throw new OncelyError('protocol', `${tag} ended with ${outcome.tag}, not a settlement`);
    return outcome.val;
  }

  /** Delete one settled entry whose retention has passed. */
  async purge(scope, key) {
    return this.drive(scope, key, { tag: 'purge' });
  }

  /**
   * Delete every settled entry whose retention has passed (of one scope, or all): one pass over
   * the rows due now (at most the core's `dueBatch`). Entries due for other work are left to `sweep`; a
   * storage error ends the pass (run it again).
   */
  async purgeExpired(scope = null) {
    let purged = 0;
    for (const row of await io('due', this.store.due(scope, this.now(), coreDefaults().dueBatch))) {
      if ((await this.#tend(row, 'purge')).purged) purged++;
    }
    return purged;
  }

  /** One entry, or null. */
  async get(scope, key) {
    return io('get', this.store.get(scope, key));
  }

  /**
   * The history of one entry, oldest first (empty when there is none): `{version, at, state,
   * attempt, owner, reconcileAttempts, reason, resolvedBy, settlement}` as each write that
   * changed its state, attempt, reason, reconciliation count or settlement left it (heartbeats
   * are not kept; a purge removes it). Each store appends it in the write's own statement.
   */
  async history(scope, key) {
    if (typeof this.store.history !== 'function') throw new TypeError('ledger.history: this store has no history(scope, key) method');
    return io('history', this.store.history(scope, key));
  }

  /**
   * Entries of one scope, newest first: `{state, tool, limit}` (limit 0 or absent: the core's page
   * size, `coreDefaults().pageSize`).
   */
  async list(scope, filter = {}) {
    const limit = filter.limit || coreDefaults().pageSize;
    return io('list', this.store.list(scope, { state: filter.state ?? null, tool: filter.tool ?? null, limit }));
  }

  /**
   * Wait until `(scope, key)` is settled (done or failed), escalated or absent, looking every
   * `everyMs`, for at most `timeoutMs` (the pacing is the core's wait machine; absent: the core's
   * defaults, 50 ms and 30 s). Returns the entry as last seen.
   */
  async waitSettled(scope, key, { everyMs = undefined, timeoutMs = undefined } = {}) {
    const command = { tag: 'wait', val: { scope, key, everyMs: ms(everyMs), timeoutMs: ms(timeoutMs) } };
    return (await this.#run(command)).row;
  }

  /**
   * Time-driven work on every due entry (`dueAt <= now`): expire leases, run the registered
   * reconcilers of in-doubt entries, escalate what is past its deadline, purge settled entries
   * past their retention. Never calls a tool. Returns the tally of the core's notes; a storage
   * error ends the pass (run it again).
   */
  async sweep(scope = null) {
    /** @type {{[k: string]: any, escalated: string[], errors: string[]}} */
    const report = { examined: 0, leasesExpired: 0, reconciled: 0, happened: 0, notHappened: 0, unknown: 0, escalated: [], purged: 0, errors: [] };
    for (const row of await io('due', this.store.due(scope, this.now(), coreDefaults().dueBatch))) {
      const n = await this.#tend(row, 'sweep');
      report.examined++;
      report.leasesExpired += n.leaseExpired ? 1 : 0;
      report.purged += n.purged ? 1 : 0;
      if (n.reconciled !== undefined) {
        report.reconciled++;
        report[{ happened: 'happened', 'not-happened': 'notHappened', unknown: 'unknown' }[n.reconciled]]++;
      }
      if (n.escalated !== undefined) report.escalated.push(`${n.scope} ${n.key} (${n.tool}): ${n.escalated}`);
      if (n.skipped !== undefined) report.errors.push(`${n.scope} ${n.key}: ${n.skipped}`);
    }
    return report;
  }

  /**
   * Sweep in the background, so expired leases go in doubt and are escalated on time without
   * anyone running `sweep` by hand: one pass at once (a restarted worker tends what a crash
   * left), then one `everyMs` after each pass ends (passes never overlap). `onReport(report)`
   * gets each pass's report (called, not awaited); a failed pass (a StorageError) or a throwing `onReport` goes to
   * `onError(err)` (default: console.error) and the loop goes on. On Node the timer does not
   * keep the process alive. Returns `{stop(), running}`; `await stop()` waits for a pass in
   * flight, and no pass starts after it.
   * @param {{everyMs?: number, scope?: string | null, onReport?: Function, onError?: Function}}
   *   [options]
   */
  startSweeper({ everyMs = 5000, scope = null, onReport, onError } = {}) {
    if (typeof everyMs !== 'number' || !Number.isFinite(everyMs) || everyMs <= 0) {
      throw new TypeError(`startSweeper: everyMs is a positive finite number of milliseconds, got ${everyMs}`);
    }
    if (scope !== null && scope !== undefined && typeof scope !== 'string') throw new TypeError('startSweeper: scope is a string or null');
    for (const [name, fn] of [['onReport', onReport], ['onError', onError]]) {
      if (fn !== undefined && fn !== null && typeof fn !== 'function') throw new TypeError(`startSweeper: ${name} is a function`);
    }
    return new Sweeper(this, Math.min(everyMs, MAX_TIMER_MS), scope ?? null, onReport ?? null, onError ?? null);
  }

  /**
   * Run `tool` at most once per intent, as the core's effect machine says. `tool(key, call)` gets the
   * idempotency key (pass it on to the provider) and `call` = `{key, attempt, deadline, signal}`
   * (the deadline is the policy's `maxCallMs` after the claim, ms since the epoch; `signal`
   * aborts then: give it to `fetch`), and returns the result (stored as JSON; a replay returns
   * it parsed). While it runs, the claim is heartbeated every third of the lease; at the
   * deadline the call is abandoned as an ambiguous failure. A call never starts once its
   * claim's lease has run out (the worker stalled): the attempt is recorded as never executed
   * and the run claims again. Throw `DefiniteFailure` when the effect did NOT happen; anything
   * else thrown is read as ambiguous (the effect may have happened) and is reconciled — the
   * registered reconciler, or, for `provider-idempotent` tools, the same call again with the
   * same key — never retried blindly. A value JSON cannot encode (a BigInt, a cycle, undefined)
   * is recorded as happened without a result: ResultNotRecordedError, now and on every repeat.
   *
   * Returns `{value, key, replayed, reconciled}`. Options: `maxAttempts` (new attempts follow
   * only a definite "did not happen"; 0 or absent: the core's default, 3), `waitMs` (how long to
   * wait for another worker's claim before InProgressError; absent: the core's default, 30 s; 0:
   * do not wait), `approvalWaitMs` (when the call awaits a person's approval — its policy's
   * `approval` — how long to wait for their decision, looking every second: approved in time, the
   * call runs; denied, DeniedError; absent or 0, the default: AwaitingApprovalError at once),
   * `signal` (the caller's
   * AbortSignal: aborted before the claim is written, the effect stops with its reason and nothing
   * is claimed or called; once the claim is written, the call runs to its result or its deadline
   * and is recorded whatever the caller does — wit/effect.wit, "A caller that stops waiting").
   */
  async effect(intent, policy, tool, { maxAttempts = 0, waitMs = undefined, approvalWaitMs = undefined, signal = undefined } = {}) {
    if (typeof tool !== 'function') throw new TypeError('ledger.effect(intent, policy, tool): tool is a function');
    const hasReconciler = this.reconcilers.has(intent?.tool);
    const options = { owner: this.owner, maxAttempts, waitMs: ms(waitMs), hasReconciler, approvalWaitMs: ms(approvalWaitMs) };
    // An intent with no step is named by the core (agent.identify), as deriveKey names it.
    const { intent: named, policy: p } = witIdentified(intent, policy);
    const i = witIntent(named, prepareCheck(p, this.owner));
    const command = { tag: 'effect', val: { intent: i, policy: p, options } };
    const { finish, value } = await this.#run(command, tool, signal);
    const r = finish.val;
    const out = { value: r.source.tag === 'tool-value' ? value : JSON.parse(r.source.val), key: r.key, replayed: r.replayed, reconciled: r.reconciled };
    if (r.source.tag === 'recorded') Object.defineProperty(out, RECORDED, { value: r.source.val });
    return out;
  }
}

/** A duration option in ms as the core takes it: absent (undefined or null) is the core's default. */
function ms(v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`a duration in ms is a finite number >= 0, got ${v}`);
  return BigInt(Math.floor(v));
}

/** The longest delay setTimeout keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The loop of `Ledger.startSweeper`: a setTimeout chain of `sweep` passes. */
class Sweeper {
  #ledger;
  #everyMs;
  #scope;
  #onReport;
  #onError;
  #stopped = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  /** @type {Promise<void> | null} */
  #inFlight = null;

  constructor(ledger, everyMs, scope, onReport, onError) {
    this.#ledger = ledger;
    this.#everyMs = everyMs;
    this.#scope = scope;
    this.#onReport = onReport;
    this.#onError = onError;
    this.#pass();
  }

  /** True until `stop()` is called. */
  get running() {
    return !this.#stopped;
  }

  /** Stop the loop; resolves once a pass in flight has finished. Idempotent. */
  stop() {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    return this.#inFlight ?? Promise.resolve();
  }

  #pass() {
    this.#timer = null;
    if (this.#stopped) return;
    this.#inFlight = this.#sweepOnce().finally(() => {
      this.#inFlight = null;
      if (this.#stopped) return;
      const t = setTimeout(() => this.#pass(), this.#everyMs);
      // Node: a sweeper alone does not keep the process alive (workerd and browsers have no unref).
      if (typeof t?.unref === 'function') t.unref();
      this.#timer = t;
    });
  }

  // One pass; never rejects. onReport is called, not awaited (it cannot stall the loop, and a
  // stop() it awaits does not wait for itself); what it throws or rejects goes to onError.
  async #sweepOnce() {
    let report;
    try {
      report = await this.#ledger.sweep(this.#scope);
    } catch (e) {
      this.#fail(e);
      return;
    }
    if (this.#onReport) this.#call(this.#onReport, report, (e) => this.#fail(e));
  }

  #fail(err) {
    if (!this.#onError) console.error('oncely: sweep failed:', err);
    else this.#call(this.#onError, err, (e) => console.error('oncely: sweep failed:', err, '\nand onError failed on it:', e));
  }

  // fn(arg); a throw or a rejection goes to `failed`.
  #call(fn, arg, failed) {
    try {
      const r = fn(arg);
      if (typeof r?.then === 'function') r.then(undefined, failed);
    } catch (e) {
      failed(e);
    }
  }
}

function noTool() {
  throw new TypeError('the core asked for a tool call in a machine that has no tool');
}

/** The core's own error record (WIT `effect-error`) behind a typed error, for the provider's `refuse`. */
export const WIT_ERROR = Symbol('oncely.effect-error');

/** The recorded result (JSON text, verbatim) behind an effect's replayed value. */
export const RECORDED = Symbol('oncely.recorded');

/** The package's typed error for what the core raised (`m.cause`: what the store, tool or reconciler threw). */
function errorOf(e, m) {
  const err = typedError(e, m);
  Object.defineProperty(err, WIT_ERROR, { value: e });
  return err;
}

function typedError(e, m) {
  const v = e.val;
  if (e.tag === 'storage') return new StorageError(v, m.cause);
  if (e.tag === 'ledger') return new LedgerError(v);
  // The message: the core's sentence for the outcome (what the model reads), in every host.
  const o = { said: answer({ tag: 'effect', val: e })?.text, cause: m.cause };
  switch (e.tag) {
    case 'conflict':
      return new ConflictError(v.key, v.pointer, o);
    case 'in-progress':
      return new InProgressError(v.key, v.owner, Number(v.retryAfterMs), o);
    case 'in-doubt':
      return new InDoubtError(v.key, v.reason, v.retryAfterMs == null ? null : Number(v.retryAfterMs), o);
    case 'escalated':
      return new EscalatedError(v.key, v.reason, o);
    case 'tool-failed':
      return new ToolFailedError(v, o);
    case 'result-not-recorded':
      return new ResultNotRecordedError(v.key, v.reason, o);
    case 'contention':
      return new ContentionError(v, o);
    case 'awaiting-approval':
      return new AwaitingApprovalError(v.key, v.argsCanonical, Number(v.version), o);
    case 'denied':
      return new DeniedError(v.key, v.by, v.reason, v.settlement, o);
    default:
      return new OncelyError('protocol', `the core raised ${e.tag}, which this package does not know`);
  }
}

/** A value in a TypeError's message. */
function shown(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  return v !== null && typeof v === 'object' ? 'an object' : String(v);
}

function tokenIn(t) {
  if (t === null || typeof t !== 'object' || typeof t.owner !== 'string' || !Number.isInteger(t.attempt)) {
    throw new TypeError('a claim token is {attempt, owner}');
  }
  return { attempt: t.attempt, owner: t.owner };
}
