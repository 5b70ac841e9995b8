// A worker that stalls while it holds a claim (a GC pause, a stopped VM, a slow connect), on a
// SQLite file and on PostgreSQL, with two workers on separate connections and a real clock: the
// twin of host/tests/stall.rs. The rules (docs/reliability.md, "A stalled worker"): a call never
// starts once its claim's lease has run out; a lookup's "did not happen" is believed only once the
// stalled attempt can no longer be in flight (its lease's end plus maxCallMs); a call longer than
// the lease keeps its claim by heartbeats; past the grace, a lookup cannot see a call that lands
// later (the residual case, pinned as it is) unless the provider deduplicates by the key.
//
// A stall is modelled as a paused process would be: everything worker A does waits — its tool and
// every storage operation, its heartbeats' included. Timings: lease 500 ms, maxCallMs 1,500 ms (the
// grace ends 2,000 ms after the claim); worker B arrives at 700 ms.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { happened, LedgerError, Ledger, notHappened } from 'oncely';
import { PostgresStore } from 'oncely/postgres';
import { SqliteStore } from 'oncely/sqlite';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

const LEASE_MS = 500;
const MAX_CALL_MS = 1500;
const B_AT = 700;
const INTENT = { scope: 'acme', run: 'run-1', step: 'refund-1', tool: 'refund', args: { charge_id: 'ch_1', amount: 500 } };

/** A store whose every operation waits while its worker is paused. */
class Paused {
  constructor(inner) {
    this.inner = inner;
    this.until = 0;
    this.afterInsert = 0;
  }
  pause(ms) {
    this.until = Date.now() + ms;
  }
  async wait() {
    const left = this.until - Date.now();
    if (left > 0) await sleep(left);
  }
  async get(scope, key) {
    await this.wait();
    return this.inner.get(scope, key);
  }
  async insert(e, opts) {
    await this.wait();
    const applied = await this.inner.insert(e, opts);
    if (this.afterInsert) {
      // The worker stalls right after its claim.
      this.pause(this.afterInsert);
      this.afterInsert = 0;
      await this.wait();
    }
    return applied;
  }
  async update(v, e, opts) {
    await this.wait();
    return this.inner.update(v, e, opts);
  }
  async delete(scope, key, v) {
    await this.wait();
    return this.inner.delete(scope, key, v);
  }
  list(scope, filter) {
    return this.inner.list(scope, filter);
  }
  due(scope, now, limit) {
    return this.inner.due(scope, now, limit);
  }
}

/** What the provider executed, by key; a deduplicating one executes a key once. */
function provider(dedupes) {
  const executed = [];
  const byKey = new Map();
  return {
    executed,
    byKey,
    refund(key) {
      if (dedupes && byKey.has(key)) return byKey.get(key);
      executed.push(key);
      const r = { refund_id: `re_${executed.length}` };
      byKey.set(key, r);
      return r;
    },
  };
}

const policy = (reconcile, leaseMs = LEASE_MS, maxCallMs = MAX_CALL_MS) => ({
  class: 'irreversible-external',
  key: {},
  reconcile: reconcile === 'lookup' ? { lookup: 'find_refund' } : 'provider-idempotent',
  leaseMs,
  maxCallMs,
  reconcileAfterMs: 100,
  escalateAfterMs: 60_000,
});

function backends() {
  const opened = [];
  return {
    sqlite: {
      async open() {
        const s = await SqliteStore.open(join(this.dir, 'ledger.db'));
        opened.push(s);
        return s;
      },
      fresh() {
        this.dir = tempDir('stall');
      },
    },
    postgres: {
      async open() {
        const s = await PostgresStore.connect(this.db.url, { max: 4 });
        opened.push(s);
        return s;
      },
      async fresh() {
        this.db = await freshDatabase('stall');
      },
    },
    async closeAll() {
      for (const s of opened.splice(0)) await s.close();
    },
  };
}

for (const backend of ['sqlite', 'postgres']) {
  describe(`stalled worker (${backend})`, () => {
    const b = backends();
    const be = b[backend];
    let skip = null;
    before(async () => {
      if (backend === 'postgres') skip = await postgresUnavailable();
    });
    after(() => b.closeAll());

    // Worker A runs the intent (stalling `afterClaim` ms after its claim, or `stall` ms in its
    // tool, or calling slowly for `slow` ms while alive); worker B runs it at 700 ms.
    async function race(t, reconcile, dedupes, { afterClaim = 0, stall = 0, slow = 0, leaseMs = LEASE_MS, maxCallMs = MAX_CALL_MS, bAt = B_AT } = {}) {
      await be.fresh();
      const p = provider(dedupes);
      const worker = async (owner) => {
        const store = new Paused(await be.open());
        const l = new Ledger(store, { owner });
        if (reconcile === 'lookup') l.reconciler('refund', async (req) => (p.byKey.has(req.key) ? happened(p.byKey.get(req.key)) : notHappened()));
        return l;
      };
      const [a, wb] = [await worker('a'), await worker('b')];
      a.store.afterInsert = afterClaim;
      // A's tool runs to its end even when A abandons it at its deadline (it ignores its signal,
      // as a stalled call would): the test waits for that too.
      let aTool = Promise.resolve();
      const first = a
        .effect(INTENT, policy(reconcile, leaseMs, maxCallMs), (key) => {
          aTool = (async () => {
            if (stall) {
              a.store.pause(stall);
              await sleep(stall);
            }
            if (slow) await sleep(slow);
            return p.refund(key);
          })();
          return aTool;
        }, { waitMs: 10_000 })
        .then((v) => v, (e) => e);
      await sleep(bAt);
      const second = await wb.effect(INTENT, policy(reconcile, leaseMs, maxCallMs), async (key) => p.refund(key), { waitMs: 10_000 });
      const got = await first;
      await aTool;
      const entry = await wb.get('acme', second.key);
      return { a: got, b: second, p, entry };
    }

    test('a worker stalled between its claim and its call never calls on the expired lease', async (t) => {
      if (skip) return t.skip(skip);
      const { a, b, p, entry } = await race(t, 'lookup', false, { afterClaim: 1000 });
      assert.equal(p.executed.length, 1);
      assert.deepEqual(a.value, b.value);
      assert.equal(entry.state, 'done');
      assert.ok(entry.attempt >= 2, `attempt ${entry.attempt}`);
    });

    test('a stall inside the call within the grace executes once', async (t) => {
      if (skip) return t.skip(skip);
      const { a, b, p } = await race(t, 'lookup', false, { stall: 1100 });
      assert.equal(p.executed.length, 1, 'a stall within the grace must not execute twice');
      assert.deepEqual(a.value, b.value);
      assert.deepEqual([a.replayed, b.replayed], [false, true]);
    });

    test('a stall past the grace is the residual case: two executions, the late completion refused', async (t) => {
      if (skip) return t.skip(skip);
      const { a, b, p } = await race(t, 'lookup', false, { stall: 4000 });
      assert.equal(p.executed.length, 2, 'the residual case, as documented');
      assert.ok(a instanceof LedgerError, String(a));
      assert.deepEqual([b.replayed, b.reconciled], [false, true]);
    });

    test('a provider that deduplicates by the key fences a stall of any length', async (t) => {
      if (skip) return t.skip(skip);
      const { a, b, p } = await race(t, 'provider-idempotent', true, { stall: 4000 });
      assert.equal(p.executed.length, 1);
      assert.ok(b.reconciled);
      assert.deepEqual(a.value, b.value);
    });

    test('a long call keeps its claim by heartbeats', async (t) => {
      if (skip) return t.skip(skip);
      // Lease 1,500 ms (a heartbeat every 500); the call takes 2,500; B arrives at 1,800, after
      // the first lease's end.
      const { b, p, entry } = await race(t, 'lookup', false, { slow: 2500, leaseMs: 1500, maxCallMs: 3000, bAt: 1800 });
      assert.equal(p.executed.length, 1);
      assert.deepEqual([b.replayed, b.reconciled], [true, false]);
      assert.equal(entry.attempt, 1);
      assert.ok(entry.version >= 4, `heartbeats were written (version ${entry.version})`);
    });
  });
}

test('the tool gets its call: key, attempt, deadline and an abort signal; abandoned at the deadline', async () => {
  const store = await SqliteStore.open(join(tempDir('stall-call'), 'ledger.db'));
  try {
    const l = new Ledger(store, { owner: 'w' });
    let seen;
    await l.effect({ ...INTENT, args: { charge_id: 'ch_2' } }, { ...policy('lookup'), maxCallMs: 5000 }, async (key, call) => {
      seen = call;
      return 1;
    });
    assert.equal(seen.attempt, 1);
    assert.ok(seen.key.startsWith('oncely1:'));
    assert.ok(seen.deadline > Date.now() && seen.deadline <= Date.now() + 5000);
    assert.equal(seen.signal.aborted, false);
    // A call that outlives its deadline is abandoned (ambiguous: in doubt), its signal aborted.
    let signal;
    const started = Date.now();
    await assert.rejects(
      l.effect({ ...INTENT, args: { charge_id: 'ch_3' } }, { ...policy('lookup'), maxCallMs: 200 }, async (key, call) => {
        signal = call.signal;
        await sleep(30_000, undefined, { signal: call.signal });
      }, { waitMs: 0 }),
      (e) => e.name === 'InDoubtError' && /deadline/.test(String(e.cause?.message ?? e.cause)),
    );
    assert.ok(Date.now() - started < 5000);
    assert.equal(signal.aborted, true);
  } finally {
    await store.close();
  }
});

test('heartbeats beat on through a storage error (the first beat\'s write fails; the claim is kept)', async () => {
  const inner = await SqliteStore.open(join(tempDir('stall-beat'), 'ledger.db'));
  let armed = false;
  let updates = 0;
  // The store as the ledger sees it, but the first update while armed (a heartbeat's) throws.
  const store = new Proxy(inner, {
    get(t, p) {
      if (p === 'update') {
        return async (v, e, opts) => {
          if (armed && ++updates === 1) throw new Error('the database is restarting');
          return t.update(v, e, opts);
        };
      }
      const v = t[p];
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
  try {
    const l = new Ledger(store, { owner: 'w' });
    // Lease 300 ms: a heartbeat every 100 ms through a 1 s call.
    const r = await l.effect({ ...INTENT, args: { charge_id: 'ch_beat' } }, { ...policy('lookup'), leaseMs: 300, maxCallMs: 3000 }, async () => {
      armed = true;
      await sleep(1000);
      armed = false;
      return { ok: true };
    });
    assert.deepEqual(r.value, { ok: true });
    assert.ok(updates >= 3, `${updates} heartbeat writes: the beats stopped at the failure`);
    const e = await l.get(INTENT.scope, r.key);
    assert.equal(e.state, 'done');
    assert.equal(e.attempt, 1);
  } finally {
    await inner.close();
  }
});
