// The ledger driver: the small loop that reads an entry, asks the core for the transition,
// applies the write atomically and retries on a lost race — and the API built on it. The
// decisions are all the core's (`ledger.handle`); this mirrors host/src/ledger.rs.

import { witHandle, witPrepare } from './core.js';
import {
  AmbiguousFailure,
  ConflictError,
  ContentionError,
  DefiniteFailure,
  EscalatedError,
  OncelyError,
  InDoubtError,
  InProgressError,
  StorageError,
  ToolFailedError,
} from './errors.js';
import { entryIn, outcomeOut, writeOut } from './wire.js';

/** How many lost compare-and-swap races in a row before giving up. */
const MAX_RACES = 64;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

function escalationLine(x) {
  return `${x.scope} ${x.key} (${x.tool}): ${x.reason}`;
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
  /**
   * @param store a store (MemoryStore, SqliteStore, PostgresStore, DurableObjectStore, or any
   *   object with the same methods)
   * @param options `owner`: this worker's id in claims; `clock`: () => ms since the epoch
   */
  constructor(store, { owner, clock } = {}) {
    if (!store || typeof store.get !== 'function') throw new TypeError('new Ledger(store): a store is required');
    this.store = store;
    this.owner = owner ?? defaultOwner();
    this.clock = clock ?? systemClock;
    this.reconcilers = new Map();
  }

  /** A ledger over the same store (and reconcilers) with another owner id. */
  withOwner(owner) {
    const l = new Ledger(this.store, { owner, clock: this.clock });
    l.reconcilers = this.reconcilers;
    return l;
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

  /** The driver: read, ask the core, write atomically; on a lost race, read again. */
  async drive(scope, key, event) {
    for (let i = 0; i < MAX_RACES; i++) {
      const current = await io('get', this.store.get(scope, key));
      const t = witHandle(current ? entryIn(current) : undefined, event, this.now());
      let applied = true;
      if (t.write !== undefined) {
        const w = writeOut(t.write);
        if (w.tag === 'insert') applied = await io('insert', this.store.insert(w.val));
        else if (w.tag === 'update') applied = await io('update', this.store.update(w.val.expectedVersion, w.val.entry));
        else applied = await io('delete', this.store.delete(w.val.scope, w.val.key, w.val.expectedVersion));
      }
      if (applied === true) return outcomeOut(t.outcome);
      if (applied !== false) throw new TypeError(`the store's ${t.write.tag} returned ${applied}; expected true or false`);
    }
    throw new ContentionError(MAX_RACES);
  }

  /**
   * Claim the key of `intent` before calling the tool. Returns the claim (`claim.key` is what
   * the provider should get) and what to do (see wit/ledger.wit).
   */
  async begin(intent, policy) {
    const claim = witPrepare(intent, policy, this.owner);
    const outcome = await this.drive(claim.scope, claim.key, { tag: 'begin', val: claim });
    return { claim: { scope: claim.scope, tool: claim.tool, key: claim.key, fingerprint: claim.fingerprint, argsCanonical: claim.argsCanonical, owner: claim.owner }, outcome };
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
    return this.drive(scope, key, { tag: 'reconciled', val: { attempt, verdict: checkVerdict(verdict, false) } });
  }

  /** A human's verdict on an in-doubt or escalated entry: happened(v) or notHappened(). */
  async resolve(scope, key, settlement, { by, note = '' } = {}) {
    return this.drive(scope, key, { tag: 'resolve', val: { settlement: checkVerdict(settlement, true), by: String(by ?? ''), note: String(note) } });
  }

  /** Delete one settled entry whose retention has passed. */
  async purge(scope, key) {
    return this.drive(scope, key, { tag: 'purge' });
  }

  /** Delete every settled entry whose retention has passed (of one scope, or all). */
  async purgeExpired(scope = null) {
    let purged = 0;
    for (;;) {
      const batch = await io('expired', this.store.expired(scope, this.now(), 500));
      if (batch.length === 0) return purged;
      let progressed = false;
      for (const e of batch) {
        // Another process may purge it first, or a claim may revive it: not an error.
        try {
          if ((await this.purge(e.scope, e.key)).tag === 'purged') {
            purged++;
            progressed = true;
          }
        } catch (err) {
          if (!(err instanceof OncelyError) || err.code !== 'ledger') throw err;
        }
      }
      if (!progressed) return purged;
    }
  }

  /** One entry, or null. */
  async get(scope, key) {
    return io('get', this.store.get(scope, key));
  }

  /** Entries of one scope, newest first: `{state, tool, limit}` (limit 0 or absent: 100). */
  async list(scope, filter = {}) {
    return io('list', this.store.list(scope, { state: filter.state ?? null, tool: filter.tool ?? null, limit: filter.limit ?? 0 }));
  }

  /**
   * Wait until `(scope, key)` is settled (done or failed) or needs a human, polling every
   * `everyMs`, for at most `timeoutMs`. Returns the entry as last seen.
   */
  async waitSettled(scope, key, { everyMs = 100, timeoutMs = 30_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.get(scope, key);
      const settled = e === null || e.state === 'done' || e.state === 'failed' || e.state === 'escalated';
      if (settled || Date.now() >= deadline) return e;
      await sleep(Math.min(everyMs, Math.max(0, deadline - Date.now())));
    }
  }

  /**
   * Time-driven work: expire leases, run the registered reconcilers of in-doubt entries,
   * escalate what is past its deadline. Never re-executes a tool.
   */
  async sweep(scope = null) {
    const report = { examined: 0, leasesExpired: 0, reconciled: 0, happened: 0, notHappened: 0, unknown: 0, escalated: [], errors: [] };
    for (const e of await io('unsettled', this.store.unsettled(scope, 10_000))) {
      report.examined++;
      let o;
      try {
        o = await this.drive(e.scope, e.key, { tag: 'sweep' });
      } catch (err) {
        report.errors.push(`${e.scope} ${e.key}: ${err.message}`);
        continue;
      }
      if (o.tag === 'reconcile') {
        if (e.state === 'pending') report.leasesExpired++;
        const r = this.reconcilers.get(o.val.tool);
        let verdict;
        if (r) {
          try {
            verdict = await r(o.val);
          } catch (err) {
            verdict = unknown(`the reconciler failed: ${err?.message ?? err}`);
          }
        } else {
          verdict = unknown(`no reconciler is registered for ${JSON.stringify(o.val.tool)} in this process`);
        }
        await this.#recordVerdict(o.val, verdict, report);
      } else if (o.tag === 'escalated') {
        if (e.state === 'pending') report.leasesExpired++;
        report.escalated.push(escalationLine(o.val));
      }
    }
    return report;
  }

  async #recordVerdict(req, verdict, report) {
    report.reconciled++;
    try {
      const o = await this.reconciled(req.scope, req.key, req.attempt, verdict);
      if (o.tag === 'escalated') report.escalated.push(escalationLine(o.val));
      else if (verdict.tag === 'happened') report.happened++;
      else if (verdict.tag === 'not-happened') report.notHappened++;
      else report.unknown++;
    } catch (err) {
      report.errors.push(`${req.scope} ${req.key}: ${err.message}`);
    }
  }

  /**
   * Run `tool` at most once per intent. `tool(key)` gets the idempotency key (pass it on to the
   * provider) and returns the result (stored as JSON; a replay returns it parsed). Throw
   * `DefiniteFailure` when the effect did NOT happen; anything else thrown is read as ambiguous
   * (the effect may have happened) and is reconciled — the registered reconciler, or, for
   * `provider-idempotent` tools, the same call again with the same key — never retried blindly.
   *
   * Returns `{value, key, replayed, reconciled}`. Options: `maxAttempts` (new attempts follow
   * only a definite "did not happen"; default 3), `waitMs` (how long to wait for another
   * worker's claim before InProgressError; default 30 s).
   */
  async effect(intent, policy, tool, { maxAttempts = 3, waitMs = 30_000 } = {}) {
    if (typeof tool !== 'function') throw new TypeError('ledger.effect(intent, policy, tool): tool is a function');
    maxAttempts = Math.max(1, maxAttempts);
    const claim = witPrepare(intent, policy, this.owner);
    const { scope, key } = claim;
    const deadline = Date.now() + waitMs;
    let executions = 0;
    let reconciled = false;
    let next = null;
    for (;;) {
      const outcome = next ?? (await this.drive(scope, key, { tag: 'begin', val: claim }));
      next = null;
      switch (outcome.tag) {
        case 'pass-through': {
          let value;
          try {
            value = await tool(key);
          } catch (e) {
            throw new ToolFailedError(e?.reason ?? e?.message ?? String(e), e);
          }
          return { value, key, replayed: false, reconciled: false };
        }
        case 'execute': {
          const token = outcome.val;
          executions++;
          let value;
          try {
            value = await tool(key);
          } catch (e) {
            if (e instanceof DefiniteFailure) {
              await this.failDefinite(scope, key, token, e.reason);
              throw new ToolFailedError(e.reason, e);
            }
            const reason = e instanceof AmbiguousFailure ? e.reason : `the tool threw: ${e?.message ?? e}`;
            next = await this.failAmbiguous(scope, key, token, reason);
            break;
          }
          await this.#recordCompletion(scope, key, token, JSON.stringify(value === undefined ? null : value));
          return { value, key, replayed: false, reconciled };
        }
        case 'replay':
          return { value: JSON.parse(outcome.val.resultJson), key, replayed: true, reconciled };
        case 'reconcile': {
          reconciled = true;
          const req = outcome.val;
          const r = this.reconcilers.get(req.tool);
          let verdict;
          if (r) {
            try {
              verdict = await r(req);
            } catch (e) {
              verdict = unknown(`the reconciler failed: ${e?.message ?? e}`);
            }
          } else if (req.path === 'provider-idempotent') {
            // The provider deduplicates by key: asking again is finding out.
            try {
              verdict = happened(await tool(key));
            } catch (e) {
              verdict = e instanceof DefiniteFailure ? notHappened() : unknown(e instanceof AmbiguousFailure ? e.reason : `the tool threw: ${e?.message ?? e}`);
            }
          } else {
            verdict = unknown(`no reconciler is registered for ${JSON.stringify(req.tool)}`);
          }
          const why = verdict.tag === 'unknown' ? verdict.val : '';
          const o = await this.reconciled(scope, key, req.attempt, verdict);
          if (o.tag === 'recorded' && o.val === 'in-doubt') throw new InDoubtError(key, why);
          if (o.tag === 'recorded' && o.val === 'failed' && executions >= maxAttempts) {
            throw new ToolFailedError(`the effect did not happen after ${executions} attempt(s)`);
          }
          if (o.tag === 'escalated') throw new EscalatedError(key, o.val.reason);
          // Done: the next begin replays it. Failed: the next begin executes anew.
          break;
        }
        case 'in-progress': {
          if (Date.now() >= deadline) throw new InProgressError(key, outcome.val.owner, outcome.val.state);
          const pause = Math.min(Math.max(outcome.val.retryAfterMs, 5), 250);
          await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
          break;
        }
        case 'escalated':
          throw new EscalatedError(key, outcome.val.reason);
        case 'conflict':
          throw new ConflictError(key, outcome.val.pointer);
        default:
          // recorded / purged / idle: only after an event other than begin; ask again.
          break;
      }
    }
  }

  // Record a result, retrying transient storage failures: the effect already happened, so
  // losing the record would leave it to reconciliation.
  async #recordCompletion(scope, key, token, json) {
    let last;
    for (let i = 0; i < 5; i++) {
      try {
        await this.completeJson(scope, key, token, json);
        return;
      } catch (e) {
        if (!(e instanceof StorageError)) throw e;
        last = e;
        await sleep(50 << i);
      }
    }
    throw new InDoubtError(key, `the tool succeeded but its result could not be recorded (${last?.message ?? ''}); the entry will be reconciled`, last);
  }
}

function tokenIn(t) {
  if (t === null || typeof t !== 'object' || typeof t.owner !== 'string' || !Number.isInteger(t.attempt)) {
    throw new TypeError('a claim token is {attempt, owner}');
  }
  return { attempt: t.attempt, owner: t.owner };
}
