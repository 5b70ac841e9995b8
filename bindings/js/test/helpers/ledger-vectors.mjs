// Replays tests/vectors/ledger.json through a real store with the core's event machine: each
// step's event goes through Ledger (`effect.run(start(event))`: the machine reads the row, applies
// the rule, writes with insert-if-absent or compare-and-swap) at the step's `now`, and the
// outcome, the stored state and version are checked; every row written must read back field for
// field. A store's history (`history(scope, key)`) is checked against what the rows written say
// it must hold, and can be collected step by step to compare two stores.
import assert from 'node:assert/strict';
import { DeniedError, deriveKey, Ledger, LedgerError, MemoryStore } from 'oncely';
import { vectors } from './env.mjs';

/** Wraps a store and remembers the last row written for each (scope, key). */
class Recording {
  constructor(inner) {
    this.inner = inner;
    this.last = new Map();
    this.lost = 0;
  }
  get(s, k) {
    return this.inner.get(s, k);
  }
  async insert(e, options) {
    assert.equal(e.version, 1, 'an insert writes version 1');
    const ok = await this.inner.insert(e, options);
    if (!ok) this.lost++;
    if (ok) this.last.set(`${e.scope}\u0000${e.key}`, structuredClone(e));
    return ok;
  }
  async update(v, e, options) {
    const cur = await this.inner.get(e.scope, e.key);
    if (cur && cur.version === v) {
      assert.equal(e.version, v + 1, 'an update writes the next version');
      assert.deepEqual([e.fingerprint, e.argsCanonical, e.tool], [cur.fingerprint, cur.argsCanonical, cur.tool], 'key and fingerprint are fixed at claim');
    }
    const ok = await this.inner.update(v, e, options);
    if (!ok) this.lost++;
    if (ok) this.last.set(`${e.scope}\u0000${e.key}`, structuredClone(e));
    return ok;
  }
  async delete(s, k, v) {
    const ok = await this.inner.delete(s, k, v);
    if (!ok) this.lost++;
    if (ok) this.last.delete(`${s}\u0000${k}`);
    return ok;
  }
  list(...a) {
    return this.inner.list(...a);
  }
  due(...a) {
    return this.inner.due(...a);
  }
  history(...a) {
    return this.inner.history(...a);
  }
}

function outcomeJson(o) {
  const v = o.val;
  switch (o.tag) {
    case 'execute':
      return { outcome: 'execute', attempt: v.attempt, owner: v.owner };
    case 'replay':
      return { outcome: 'replay', result: v.resultJson, attempt: v.attempt };
    case 'in-progress':
      return { outcome: 'in-progress', owner: v.owner, in_state: v.state, retry_after_ms: v.retryAfterMs };
    case 'reconcile':
      return { outcome: 'reconcile', attempt: v.attempt, escalate_at: v.escalateAt };
    case 'escalated':
      return { outcome: 'escalated', attempt: v.attempt };
    case 'conflict':
      return { outcome: 'conflict', pointer: v.pointer };
    case 'recorded':
      return { outcome: 'recorded', state: v };
    case 'settled':
      return { outcome: 'settled', id: v };
    case 'idle':
      return { outcome: 'idle', next: v };
    case 'awaiting-approval':
      return { outcome: 'awaiting-approval', args: v.argsCanonical };
    case 'denied':
      return { outcome: 'denied', by: v.by, reason: v.reason };
    default:
      return { outcome: o.tag };
  }
}

const token = (b) => ({ attempt: b.attempt, owner: b.owner });

/** What `ledger.decisionOf` says, as the vectors write it (a step's `expect.decision`). */
function decisionJson(d) {
  if (d === null) return null;
  if (d.tag === 'asked') return 'asked';
  if (d.tag === 'approved') return { approved: { by: d.val.by, unused: d.val.unused } };
  return { denied: { by: d.val.by, reason: d.val.reason } };
}

/** The fields of a history record (types/index.d.ts, HistoryRecord). */
const RECORD_FIELDS = ['at', 'attempt', 'owner', 'reason', 'reconcileAttempts', 'resolvedBy', 'settlement', 'state', 'version'];

/**
 * Replay every scenario; `open(name)` returns a fresh store for one scenario (and `close()` on
 * the store, if any, is called at the end). Returns the number of steps checked. A store with
 * `history` has it checked after every step (its last record is the row as last written when
 * that write was one the history keeps); `trace`, an array, gets `[step, history]` for every
 * step (to compare stores: the same events must leave the same history everywhere).
 */
export async function replayLedgerVectors(open, { trace } = {}) {
  const doc = vectors('ledger.json');
  assert.ok(doc.scenarios.length >= 15, 'expected the ledger scenarios');
  let steps = 0;
  for (const sc of doc.scenarios) {
    const raw = await open(sc.name);
    const store = new Recording(raw);
    let now = 0;
    const ledger = new Ledger(store, { owner: 'replay', clock: () => now });
    const intent = { scope: sc.intent.scope, run: sc.intent.run, step: sc.intent.step, tool: sc.intent.tool, args: sc.intent.args };
    const scope = intent.scope;
    // The scenario's one entry: the key of its intent (what `begin` claims).
    const key = deriveKey({ ...intent, policy: sc.policy }).key;
    try {
      for (const [i, step] of sc.steps.entries()) {
        const at = `${sc.name} step ${i}`;
        now = step.now;
        const want = step.expect;
        const before = await store.get(scope, key);
        let outcome;
        let error = null;
        try {
          const ev = step.event;
          if (ev === 'sweep') outcome = await ledger.drive(scope, key, { tag: 'sweep' });
          else if (ev === 'purge') outcome = await ledger.purge(scope, key);
          else {
            const [name, body] = Object.entries(ev)[0];
            switch (name) {
              case 'begin': {
                const r = await ledger.withOwner(body.owner).begin(body.args === undefined ? intent : { ...intent, args: body.args }, sc.policy);
                assert.equal(r.claim.key, key, `${at}: every begin of a scenario claims the one entry`);
                outcome = r.outcome;
                break;
              }
              case 'ask': {
                // Through the public call: the request, null (nothing to ask), or the denial.
                try {
                  const r = await ledger.withOwner(body.owner).requestApproval(body.args === undefined ? intent : { ...intent, args: body.args }, sc.policy);
                  outcome = r === null ? { tag: 'idle', val: null } : { tag: 'awaiting-approval', val: r };
                } catch (e) {
                  if (!(e instanceof DeniedError)) throw e;
                  outcome = { tag: 'denied', val: { key: e.key, by: e.by, reason: e.reason, settlement: e.settlement } };
                }
                break;
              }
              case 'heartbeat':
                outcome = await ledger.heartbeat(scope, key, token(body));
                break;
              case 'complete':
                outcome = await ledger.completeJson(scope, key, token(body), body.result);
                break;
              case 'fail_definite':
                outcome = await ledger.failDefinite(scope, key, token(body), body.reason);
                break;
              case 'fail_ambiguous':
                outcome = await ledger.failAmbiguous(scope, key, token(body), body.reason);
                break;
              case 'reconciled': {
                const verdict =
                  'happened' in body ? { tag: 'happened', val: body.happened } : 'not_happened' in body ? { tag: 'not-happened' } : { tag: 'unknown', val: body.unknown };
                outcome = await ledger.reconciled(scope, key, body.attempt, verdict);
                break;
              }
              case 'resolve': {
                const settlement = 'happened' in body ? { tag: 'happened', val: body.happened } : { tag: 'not-happened' };
                const id = await ledger.resolve(scope, key, settlement, { by: body.by, note: body.note, version: body.version });
                assert.match(id, /^stl-[0-9a-f]{16}$/, `${at}: a settlement id`);
                assert.equal((await store.get(scope, key)).settlement, id, `${at}: the entry keeps the settlement id`);
                outcome = { tag: 'settled', val: id };
                break;
              }
              case 'approve':
              case 'deny': {
                const id = await ledger[name](scope, key, { by: body.by, note: body.note, version: body.version });
                assert.match(id, /^stl-[0-9a-f]{16}$/, `${at}: a decision id`);
                assert.equal((await store.get(scope, key)).settlement, id, `${at}: the entry keeps the decision id`);
                outcome = { tag: 'settled', val: id };
                break;
              }
              default:
                throw new Error(`${at}: unknown event ${name}`);
            }
          }
        } catch (e) {
          if (!(e instanceof LedgerError)) throw e;
          error = e;
        }
        if (error) {
          assert.equal(want.error, error.kind, `${at}: ${error.message}`);
          assert.deepEqual(await store.get(scope, key), before, `${at}: a refused event writes nothing`);
        } else {
          assert.equal(want.error, undefined, `${at}: expected the error ${want.error}, got ${JSON.stringify(outcome)}`);
          const got = outcomeJson(outcome);
          assert.equal(got.outcome, want.outcome, `${at}: outcome`);
          for (const [k, v] of Object.entries(got)) {
            if (k in want) assert.deepEqual(v, want[k], `${at}: ${k} of ${JSON.stringify(got)}`);
          }
        }
        const e = await store.get(scope, key);
        assert.equal(e ? e.state : 'absent', want.state, `${at}: state`);
        if ('version' in want) assert.equal(e ? e.version : null, want.version, `${at}: version`);
        if ('decision' in want && e) assert.deepEqual(decisionJson(ledger.decisionOf(e)), want.decision, `${at}: decision-of`);
        if (e) assert.deepEqual(e, store.last.get(`${scope}\u0000${key}`), `${at}: the row reads back as written`);
        if (typeof raw.history === 'function') {
          const h = await store.history(scope, key);
          if (!e) assert.deepEqual(h, [], `${at}: no entry, no history`);
          else {
            assert.ok(
              h.length >= 1 && h[0].version === 1 && ['pending', 'awaiting-approval'].includes(h[0].state),
              `${at}: the history starts with the claim, or the request for approval: ${JSON.stringify(h)}`,
            );
            assert.ok(h.every((r, j) => j === 0 || (h[j - 1].version < r.version && h[j - 1].at <= r.at)), `${at}: oldest first`);
            const { at: time, ...kept } = h.at(-1);
            assert.ok(h.every((r) => RECORD_FIELDS.join() === Object.keys(r).sort().join()), `${at}: record fields: ${JSON.stringify(h)}`);
            // The last record is the row as written, when that write was one the history keeps.
            if (kept.version === e.version) assert.deepEqual([time, kept], [e.updatedAt, Object.fromEntries(Object.keys(kept).map((f) => [f, e[f]]))], at);
            else assert.ok(kept.version < e.version, `${at}: a record of a version not written yet`);
          }
          trace?.push([`${sc.name} #${i}`, h]);
        }
        // Alone on the store, every write the core asks for must apply at the first try.
        assert.equal(store.lost, 0, `${at}: a write did not apply with no other writer`);
        steps++;
      }
    } finally {
      await raw.close?.();
    }
  }
  return steps;
}

let memory = null;

/**
 * The `trace` of every scenario replayed on the in-memory store, which appends to the history when
 * the core marks a write so (`row-write.history`): a SQL store's trace equal to it shows that the
 * migrations' triggers and the core keep the same history.
 */
export async function memoryTrace() {
  if (memory === null) {
    memory = [];
    await replayLedgerVectors(() => new MemoryStore(), { trace: memory });
  }
  return memory;
}
