// A human's settlement and each entry's history, on the real stores (in memory, SQLite, and
// PostgreSQL when ONCELY_TEST_POSTGRES_URL is set): `resolve` names the entry version the person
// decided on and is refused as `changed` (nothing written) once the entry has moved; it returns the
// settlement id the entry keeps; `history()` is the entry, oldest first, at each write that changed
// its state, attempt, reason, reconciliation count or settlement (the claim, no heartbeat, the
// escalation, the settlement); a purge removes it. Every store appends the records the core
// marks (`row-write.history`): the same events leave the in-memory store the same history as
// SQLite's and PostgreSQL's statements do.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { happened, Ledger, LedgerError, MemoryStore, notHappened } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { databaseForSuite } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

const MANUAL = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: 'manual', leaseMs: 1000 };
const intent = (charge, tool = 'refund') => ({ scope: 'acme', run: 'r', step: 's', tool, args: { charge_id: charge } });
const WEEK = 7 * 24 * 3600 * 1000;

const isChanged = (e) => e instanceof LedgerError && e.kind === 'changed';

/**
 * Claim, heartbeat, the worker dies, a sweep escalates (manual reconciliation), a person settles
 * it, then its retention passes and it is purged; checks along the way. Returns the history just
 * before the purge, and the settlement's id.
 */
async function settleAndPurge(store, name) {
  let now = 10_000;
  const ledger = new Ledger(store, { owner: 'w1', clock: () => now });
  const { claim, outcome } = await ledger.begin(intent('ch_1'), MANUAL);
  assert.equal(outcome.tag, 'execute', name);
  const scope = 'acme';
  const key = claim.key;
  // Another entry of the scope: its history is its own, and stays when the first is purged.
  const other = (await ledger.begin(intent('ch_2', 'email'), MANUAL)).claim.key;
  // A heartbeat moves the lease only: nothing for the history.
  now += 100;
  assert.equal((await ledger.heartbeat(scope, key, outcome.val)).tag, 'recorded', name);
  // The worker dies; the sweep finds the lease over and, with manual reconciliation, escalates.
  now += 5_000;
  await ledger.sweep(scope);
  const seen = await ledger.get(scope, key);
  assert.equal(seen.state, 'escalated', name);
  assert.equal(seen.settlement, null, name);
  const before = await ledger.history(scope, key);

  // (a) Without the version the person saw: a TypeError, before anything is read or written.
  for (const who of [{ by: 'ops@acme' }, { by: 'ops@acme', version: '3' }, { by: 'ops@acme', version: -1 }, { by: 'ops@acme', version: 1.5 }]) {
    await assert.rejects(ledger.resolve(scope, key, notHappened(), who), (e) => e instanceof TypeError && /version is required/.test(e.message), `${name}: ${JSON.stringify(who)}`);
  }
  await assert.rejects(ledger.resolve(scope, key, notHappened()), TypeError, name);
  // A person who looked at an earlier version is refused, and nothing is written.
  now += 50;
  for (const stale of [seen.version - 1, seen.version + 1, 0]) {
    await assert.rejects(ledger.resolve(scope, key, notHappened(), { by: 'ops@acme', note: 'stale', version: stale }), isChanged, `${name}: version ${stale}`);
  }
  assert.deepEqual(await ledger.get(scope, key), seen, `${name}: a refused settlement writes nothing`);
  assert.deepEqual(await ledger.history(scope, key), before, `${name}: nor any history`);
  // The version they saw: settled, under the id the entry keeps.
  const settle = () => ledger.resolve(scope, key, happened({ refund: 're_1' }), { by: 'ops@acme', note: 'in the dashboard', version: seen.version });
  const id = await settle();
  assert.match(id, /^stl-[0-9a-f]{16}$/, name);
  const settled = await ledger.get(scope, key);
  assert.deepEqual([settled.state, settled.settlement, settled.resolvedBy, settled.version], ['done', id, 'ops@acme', seen.version + 1], name);
  assert.equal(settled.settlement, id, name);
  // The same verdict sent twice (a form submitted again) is refused: the entry is settled now.
  await assert.rejects(settle(), (e) => e instanceof LedgerError && e.kind === 'invalid-state', name);
  assert.deepEqual(await ledger.get(scope, key), settled, `${name}: a second settlement writes nothing`);
  // From then on the effect replays what the person recorded.
  const r = await ledger.effect(intent('ch_1'), MANUAL, () => assert.fail('must not run'));
  assert.deepEqual([r.value, r.replayed], [{ refund: 're_1' }, true], name);

  // (b) The history, oldest first: the claim (version 1, pending), no record for the heartbeat
  // (version 2), the escalation, and the settlement last, with its id and who settled it.
  const history = await ledger.history(scope, key);
  const versions = history.map((h) => h.version);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b), `${name}: oldest first`);
  assert.ok(history.every((h, i) => i === 0 || history[i - 1].at <= h.at), `${name}: times in order`);
  assert.deepEqual(history[0], {
    version: 1,
    at: 10_000,
    state: 'pending',
    attempt: 1,
    owner: 'w1',
    reconcileAttempts: 0,
    reason: null,
    resolvedBy: null,
    settlement: null,
  }, name);
  assert.ok(!versions.includes(2), `${name}: the heartbeat was kept: ${JSON.stringify(history)}`);
  const escalation = history.find((h) => h.state === 'escalated');
  assert.ok(escalation, `${name}: no escalation in ${JSON.stringify(history)}`);
  assert.deepEqual([escalation.version, escalation.reason, escalation.settlement], [seen.version, seen.reason, null], name);
  assert.deepEqual(history.at(-1), {
    version: settled.version,
    at: settled.updatedAt,
    state: 'done',
    attempt: 1,
    owner: 'w1',
    reconcileAttempts: 0,
    reason: settled.reason,
    resolvedBy: 'ops@acme',
    settlement: id,
  }, name);
  // The other entry (same scope, same sweep): its own claim and escalation.
  const otherHistory = await ledger.history(scope, other);
  assert.deepEqual(otherHistory.map((h) => [h.version, h.state]), [[1, 'pending'], [2, 'escalated']], name);
  assert.deepEqual(await ledger.history(scope, 'oncely1:none'), [], `${name}: no entry, no history`);
  assert.deepEqual(await ledger.history('elsewhere', key), [], `${name}: history is by scope`);

  // (c) A purge takes the history with the entry; the other entry's stays.
  now += WEEK + 1;
  assert.equal(await ledger.purgeExpired(scope), 1, name);
  assert.equal(await ledger.get(scope, key), null, name);
  assert.deepEqual(await ledger.history(scope, key), [], `${name}: the purge left history behind`);
  assert.deepEqual(await ledger.history(scope, other), otherHistory, name);
  // A new claim of the purged key starts a new history.
  now += 1;
  const again = await ledger.begin(intent('ch_1'), MANUAL);
  assert.equal(again.outcome.tag, 'execute', name);
  assert.deepEqual((await ledger.history(scope, key)).map((h) => [h.version, h.state, h.at]), [[1, 'pending', now]], name);
  return { history, id };
}

/** A store per kind, each closed after the test. */
const STORES = {
  memory: async () => new MemoryStore(),
  sqlite: async () => SqliteStore.open(join(tempDir('settle'), 'ledger.db')),
};

describe('settlement and history', () => {
  const suite = databaseForSuite('settle');

  const runs = {};
  for (const [name, open] of Object.entries(STORES)) {
    test(`${name}: a stale version is refused as changed; the settlement id, the history, and the purge of both`, async () => {
      const store = await open();
      try {
        runs[name] = await settleAndPurge(store, name);
      } finally {
        await store.close();
      }
    });
  }

  test('postgres: a stale version is refused as changed; the settlement id, the history, and the purge of both', async (t) => {
    if (suite.skip) return t.skip(suite.skip);
    const store = await suite.db.connect({ max: 2 });
    try {
      runs.postgres = await settleAndPurge(store, 'postgres');
    } finally {
      await store.close();
    }
  });

  // (d) The in-memory store and the SQL stores keep the same records.
  test('the in-memory history equals the SQLite (and PostgreSQL) history for the same events', async (t) => {
    assert.ok(runs.memory && runs.sqlite, 'the memory and SQLite runs above must have passed');
    assert.deepEqual(runs.memory, runs.sqlite);
    // The id is derived by the core from scope, key and the version settled: the same everywhere.
    if (runs.postgres) assert.deepEqual(runs.memory, runs.postgres);
    else t.diagnostic(`PostgreSQL not compared: ${suite.skip}`);
  });
});
