// Each entry records the run and step of the claim that holds (or last held) it (`runId`,
// `stepId`; wit/ledger.wit), for the people who settle it: on the real stores (in memory, SQLite,
// and PostgreSQL when ONCELY_TEST_POSTGRES_URL is set). The key need not depend on them (a natural
// key): another run's claim of the same key while it is held, or a replay of its result, leaves
// them as they were; a new attempt after a definite failure takes the new claim's. A row written
// by a worker that does not know the columns (an older host) reads back with them empty.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DefiniteFailure, Ledger, MemoryStore } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { databaseForSuite } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

// A natural key: the charge, whatever the run and step.
const NATURAL = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: 'manual', leaseMs: 1000 };
const refund = (run, step, charge = 'ch_1') => ({ scope: 'acme', run, step, tool: 'refund', args: { charge_id: charge } });
const runStep = (e) => [e.runId, e.stepId];

/** Claims, failures, replays and an effect through `store`; checks the run and step at each. */
async function scenario(store, name) {
  let now = 10_000;
  const ledger = new Ledger(store, { owner: 'w1', clock: () => now });
  const scope = 'acme';

  // The first claim: its run and step, in the claim and in the entry.
  const first = await ledger.begin(refund('run-1', 'step-a'), NATURAL);
  assert.equal(first.outcome.tag, 'execute', name);
  assert.deepEqual(runStep(first.claim), ['run-1', 'step-a'], name);
  const key = first.claim.key;
  assert.deepEqual(runStep(await ledger.get(scope, key)), ['run-1', 'step-a'], name);

  // Another run claims the same key while it is held: in progress, and the entry is unchanged.
  now += 10;
  const busy = await ledger.begin(refund('run-2', 'step-b'), NATURAL);
  assert.equal(busy.claim.key, key, `${name}: the key is the charge's`);
  assert.deepEqual([busy.outcome.tag, ...runStep(busy.claim)], ['in-progress', 'run-2', 'step-b'], name);
  assert.deepEqual(runStep(await ledger.get(scope, key)), ['run-1', 'step-a'], name);

  // The effect definitely did not happen; the entry still names the claim that last held it.
  now += 10;
  await ledger.failDefinite(scope, key, first.outcome.val, 'card declined');
  const failed = await ledger.get(scope, key);
  assert.deepEqual([failed.state, ...runStep(failed)], ['failed', 'run-1', 'step-a'], name);

  // A new attempt, by another run and step: the entry takes the new claim's.
  now += 10;
  const second = await ledger.begin(refund('run-2', 'step-b'), NATURAL);
  assert.deepEqual([second.outcome.tag, second.outcome.val.attempt], ['execute', 2], name);
  const retried = await ledger.get(scope, key);
  assert.deepEqual([retried.state, retried.attempt, ...runStep(retried)], ['pending', 2, 'run-2', 'step-b'], name);
  now += 10;
  await ledger.complete(scope, key, second.outcome.val, { refund: 're_1' });

  // A third run replays the result: nothing is written, the entry keeps the second claim's.
  now += 10;
  const replay = await ledger.begin(refund('run-3', 'step-c'), NATURAL);
  assert.equal(replay.outcome.tag, 'replay', name);
  const done = await ledger.get(scope, key);
  assert.deepEqual([done.state, done.version, ...runStep(done)], ['done', retried.version + 1, 'run-2', 'step-b'], name);
  assert.deepEqual((await ledger.list(scope, { tool: 'refund' })).map(runStep), [['run-2', 'step-b']], name);

  // Through `effect`, a definite failure and its retry: the same.
  const other = refund('run-4', 'step-d', 'ch_2');
  await assert.rejects(ledger.effect(other, NATURAL, () => { throw new DefiniteFailure('declined'); }), name);
  const declined = (await ledger.list(scope, { state: 'failed' }))[0];
  assert.deepEqual([declined.attempt, ...runStep(declined)], [1, 'run-4', 'step-d'], name);
  now += 10;
  const r = await ledger.effect({ ...other, run: 'run-5', step: 'step-e' }, NATURAL, () => ({ refund: 're_2' }));
  assert.equal(r.key, declined.key, name);
  const ok = await ledger.get(scope, r.key);
  assert.deepEqual([ok.state, ok.attempt, ...runStep(ok)], ['done', 2, 'run-5', 'step-e'], name);

  // An intent without a run or step: both empty.
  const bare = await ledger.begin({ scope, tool: 'email', args: { to: 'a@b' } }, { ...NATURAL, key: { identity: 'scope' } });
  assert.equal(bare.outcome.tag, 'execute', name);
  assert.deepEqual(runStep(bare.claim), ['', ''], name);
  assert.deepEqual(runStep(await ledger.get(scope, bare.claim.key)), ['', ''], name);
  return key;
}

/** The columns of the entry table but the run and step: what an older host's INSERT names. */
const OLD_COLUMNS = [
  'scope', 'key', 'tool', 'fingerprint', 'args_canonical', 'state', 'version', 'attempt', 'owner', 'created_at', 'updated_at', 'lease_until',
  'in_doubt_since', 'next_reconcile_at', 'reconcile_attempts', 'result_json', 'reason', 'resolved_by', 'settlement', 'reconcile_kind',
  'reconcile_tool', 'lease_ms', 'max_call_ms', 'reconcile_after_ms', 'escalate_after_ms', 'retention_ms', 'due_at',
];

describe('entries record the run and step of their claim', () => {
  const suite = databaseForSuite('runstep');

  test('memory', async () => {
    await scenario(new MemoryStore(), 'memory');
  });

  test('sqlite (and an older host\'s row reads back with them empty)', async () => {
    const path = join(tempDir('runstep'), 'ledger.db');
    const store = await SqliteStore.open(path);
    let key;
    try {
      key = await scenario(store, 'sqlite');
    } finally {
      await store.close();
    }
    const db = new Database(path);
    try {
      const [run, step] = Object.values(db.prepare('SELECT run_id, step_id FROM oncely_effects WHERE key = ?').get(key));
      assert.deepEqual([run, step], ['run-2', 'step-b']);
      const cols = OLD_COLUMNS.join(', ');
      db.prepare(`INSERT INTO oncely_effects (${cols}) SELECT ${cols.replace(/\bkey\b/, "'old-' || key")} FROM oncely_effects WHERE key = ?`).run(key);
    } finally {
      db.close();
    }
    const again = await SqliteStore.open(path);
    try {
      assert.deepEqual(runStep(await again.get('acme', `old-${key}`)), ['', '']);
    } finally {
      await again.close();
    }
  });

  test('postgres (and an older host\'s row reads back with them empty)', async (t) => {
    if (suite.skip) return t.skip(suite.skip);
    const store = await suite.db.connect({ max: 2 });
    try {
      const key = await scenario(store, 'postgres');
      const c = new pg.Client({ connectionString: suite.db.url });
      await c.connect();
      try {
        const { rows } = await c.query('SELECT run_id, step_id FROM oncely.effects WHERE key = $1', [key]);
        assert.deepEqual(rows, [{ run_id: 'run-2', step_id: 'step-b' }]);
        const cols = OLD_COLUMNS.join(', ');
        await c.query(`INSERT INTO oncely.effects (${cols}) SELECT ${cols.replace(/\bkey\b/, "'old-' || key")} FROM oncely.effects WHERE key = $1`, [key]);
      } finally {
        await c.end();
      }
      assert.deepEqual(runStep(await store.get('acme', `old-${key}`)), ['', '']);
    } finally {
      await store.close();
    }
  });
});
