// One ledger, two languages: JS workers (node processes running test/helpers/worker.mjs) and Rust
// workers (the test-only binary `oncely-test-worker`) share a SQLite file — or a PostgreSQL database,
// or a Redis server — and an effect
// still runs once. Each opens a ledger the other created (the migration bookkeeping must satisfy
// sqlx), a claim left pending by a crashed Rust worker is reconciled by a JS worker, and a
// person's settlement made with either host (the JS API, `oncely ledger resolve`) is the other's:
// the same version check, the same settlement id and the same history.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { happened, Ledger, notHappened } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { cliExec, execArgs } from './helpers/cli.mjs';
import { requireCli, requireTestWorker } from './helpers/env.mjs';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { redisStore, redisUnavailable, redisUrl } from './helpers/redis.mjs';
import { tempDir } from './helpers/tmp.mjs';

const WORKER = fileURLToPath(new URL('./helpers/worker.mjs', import.meta.url));
const POLICY = JSON.stringify({ class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: 'provider-idempotent', leaseMs: 60000 });

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (status) => resolve({ status, out, err }));
  });
}

const jsWorker = (o) =>
  run(process.execPath, [
    WORKER,
    `--db=${o.db}`, `--scope=${o.scope}`, `--run=${o.run}`, `--step=${o.step}`, `--tool=${o.tool}`, `--args=${o.args}`,
    `--policy=${o.policy}`, `--owner=${o.owner}`, `--marker=${o.marker}`, `--sleep-ms=${o.sleepMs ?? 0}`, `--wait-ms=${o.waitMs ?? 30000}`,
  ]);
const rustWorker = (o) => run(requireTestWorker(), execArgs(o));

const lines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** JS and Rust workers started together on one intent: one execution, one answer. */
async function race(db, dir, round, { js = 3, rust = 3, rustDelayMs = 0 } = {}) {
  const marker = join(dir, `marker-${round}`);
  const o = { db, scope: 'interop', run: `run-${round}`, step: 'pay', tool: 'charge', args: JSON.stringify({ charge_id: `ch_${round}`, cents: 100 }), policy: POLICY, marker, sleepMs: 300 };
  const procs = [
    ...Array.from({ length: js }, (_, i) => jsWorker({ ...o, owner: `js-${i}` })),
    ...Array.from({ length: rust }, (_, i) => new Promise((r) => setTimeout(r, rustDelayMs)).then(() => rustWorker({ ...o, owner: `rust-${i}` }))),
  ];
  const results = await Promise.all(procs);
  for (const r of results) assert.equal(r.status, 0, `a worker failed: ${r.err}`);
  const answers = results.map((r) => JSON.parse(r.out));
  const executed = lines(marker);
  assert.equal(executed.length, 1, `round ${round}: executed ${executed.length} times: ${executed.join(' | ')}`);
  const [key, owner] = executed[0].split(' ');
  assert.ok(answers.every((a) => a.key === key), 'every worker derived the same key');
  assert.deepEqual(answers.filter((a) => !a.replayed).length, 1);
  assert.ok(answers.every((a) => a.value.by === owner), 'every worker got the executing worker\'s result');
  return owner;
}

/**
 * A Rust worker claims, calls the tool and dies before recording; a JS worker on the ledger at
 * `db` (its store from `open`) reconciles the claim instead of calling again, and Rust replays what
 * JS reconciled.
 */
async function crashedRustReconciledByJs(db, marker, open) {
  const policy = JSON.stringify({ class: 'irreversible-external', key: { only: ['/charge_id'] }, reconcile: { lookup: 'find_charge' }, leaseMs: 400 });
  const intent = { scope: 'interop', run: 'r', step: 'crash', tool: 'charge', args: '{"charge_id":"ch_crash"}' };
  const crashed = await rustWorker({ db, ...intent, policy, owner: 'rust', marker, crashAfterCall: true });
  assert.equal(crashed.status, 137, crashed.err);
  assert.equal(lines(marker).length, 1);
  const store = await open();
  try {
    const ledger = new Ledger(store, { owner: 'js' });
    // The lookup: did the charge with this key happen? (The marker is the provider's record.)
    ledger.reconciler('charge', async (req) => {
      const hit = lines(marker).find((l) => l.startsWith(`${req.key} `));
      return hit ? happened({ by: hit.split(' ')[1], found: true }) : notHappened();
    });
    const r = await ledger.effect(intent, policy, () => assert.fail('must not execute again'), { waitMs: 10_000 });
    assert.deepEqual([r.replayed, r.reconciled, r.value], [true, true, { by: 'rust', found: true }]);
    assert.equal(lines(marker).length, 1);
    assert.equal((await ledger.get('interop', r.key)).state, 'done');
  } finally {
    await store.close();
  }
  // And Rust replays what JS reconciled.
  const again = cliExec({ db, ...intent, policy, owner: 'rust-2', marker });
  assert.deepEqual([again.status, again.result?.replayed, again.result?.value], [0, true, { by: 'rust', found: true }]);
  assert.equal(lines(marker).length, 1);
}

test('the shipped CLI has no test hook: `oncely ledger exec` is not a command', () => {
  for (const args of [['ledger', 'exec', '--help'], ['ledger', 'exec', '--crash-after-call']]) {
    const r = spawnSync(requireCli(), args, { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stdout);
    assert.match(r.stderr, /unrecognized subcommand 'exec'/);
  }
  assert.doesNotMatch(spawnSync(requireCli(), ['ledger', '--help'], { encoding: 'utf8' }).stdout, /exec/);
});

describe('SQLite shared by JS and Rust workers', () => {
  const dir = tempDir('interop');

  test('a ledger created by Rust opens in JS, and one created by JS opens in Rust', async () => {
    const intent = { scope: 'interop', run: 'r', step: 's', tool: 'charge', args: '{"charge_id":"ch_x","cents":1}' };
    // Rust first.
    const rustDb = join(dir, 'rust-first.db');
    const r1 = cliExec({ db: rustDb, ...intent, policy: POLICY, owner: 'rust', marker: join(dir, 'm1') });
    assert.equal(r1.status, 0, r1.stderr);
    const s1 = await SqliteStore.open(rustDb);
    const j1 = await new Ledger(s1, { owner: 'js' }).effect(intent, POLICY, () => assert.fail('replay expected'));
    await s1.close();
    assert.deepEqual([j1.key, j1.replayed, j1.value], [r1.result.key, true, { by: 'rust' }]);
    // JS first.
    const jsDb = join(dir, 'js-first.db');
    const s2 = await SqliteStore.open(jsDb);
    const j2 = await new Ledger(s2, { owner: 'js' }).effect(intent, POLICY, async () => ({ by: 'js' }));
    await s2.close();
    const r2 = cliExec({ db: jsDb, ...intent, policy: POLICY, owner: 'rust', marker: join(dir, 'm2') });
    assert.equal(r2.status, 0, `Rust could not use the JS-created ledger: ${r2.stderr}`);
    assert.deepEqual([r2.result.key, r2.result.replayed, r2.result.value], [j2.key, true, { by: 'js' }]);
    assert.equal(lines(join(dir, 'm2')).length, 0);
  });

  test('JS and Rust workers racing on a fresh file execute once', async () => {
    const db = join(dir, 'race.db');
    const winners = [];
    // Node starts slower than the Rust binary: alternate a head start so that each language wins.
    for (let round = 0; round < 4; round++) winners.push(await race(db, dir, round, { rustDelayMs: round % 2 ? 0 : 1500 }));
    console.log(`winners: ${winners.join(', ')}`);
    assert.ok(winners.some((w) => w.startsWith('js-')) && winners.some((w) => w.startsWith('rust-')), `winners: ${winners}`);
  });

  test('a claim left pending by a crashed Rust worker is reconciled by a JS worker, not re-executed', async () => {
    const db = join(dir, 'crash.db');
    await crashedRustReconciledByJs(db, join(dir, 'crash-marker'), () => SqliteStore.open(db));
  });

  test('a settlement made by either host is the other\'s: the version check, the id, the history', async () => {
    const db = join(dir, 'settle.db');
    const store = await SqliteStore.open(db);
    try {
      const ledger = new Ledger(store, { owner: 'js' });
      const policy = { class: 'irreversible-external', key: { only: ['/charge_id'] }, reconcile: 'manual', leaseMs: 20 };
      const claim = async (charge) => (await ledger.begin({ scope: 'interop', run: 'r', step: 's', tool: 'refund', args: { charge_id: charge } }, policy)).claim.key;
      const [byRust, byJs] = [await claim('ch_rust'), await claim('ch_js')];
      // The workers die; their leases run out; a sweep escalates both (manual reconciliation).
      await new Promise((r) => setTimeout(r, 60));
      await ledger.sweep('interop');
      const cli = (...args) => spawnSync(requireCli(), ['ledger', ...args, '--db', db, '--scope', 'interop', '--json'], { encoding: 'utf8' });
      // The Rust CLI refuses a stale version and writes nothing; the right one settles.
      const seen = await ledger.get('interop', byRust);
      assert.equal(seen.state, 'escalated');
      const resolve = (version) => cli('resolve', byRust, '--not-happened', '--by', 'rust-ops', '--version', String(version));
      const stale = resolve(seen.version - 1);
      assert.equal(stale.status, 2, stale.stdout);
      assert.match(stale.stderr, /changed since version/);
      assert.deepEqual(await ledger.get('interop', byRust), seen);
      const ok = resolve(seen.version);
      assert.equal(ok.status, 0, ok.stderr);
      const settled = await ledger.get('interop', byRust);
      assert.deepEqual([settled.state, settled.settlement, settled.resolvedBy], ['failed', JSON.parse(ok.stdout).settlement, 'rust-ops']);
      // JS settles the other; Rust reads it.
      const id = await ledger.resolve('interop', byJs, happened({ refund: 're_js' }), { by: 'js-ops', version: (await ledger.get('interop', byJs)).version });
      // Either host's history of either entry is the same.
      for (const key of [byRust, byJs]) {
        const shown = cli('show', key);
        assert.equal(shown.status, 0, shown.stderr);
        const rust = JSON.parse(shown.stdout);
        // The run and step of the claim JS wrote, as Rust shows them to the person settling it.
        assert.deepEqual([rust.run, rust.step], ['r', 's']);
        const history = rust.history.map((h) => ({
          version: h.version,
          at: h.at,
          state: h.state,
          attempt: h.attempt,
          owner: h.owner,
          reconcileAttempts: h.reconcile_attempts,
          reason: h.reason,
          resolvedBy: h.resolved_by,
          settlement: h.settlement,
        }));
        assert.deepEqual(history, await ledger.history('interop', key));
        assert.deepEqual([rust.settlement, history.at(-1).settlement], [(await ledger.get('interop', key)).settlement, rust.settlement]);
        if (key === byJs) assert.equal(rust.settlement, id);
      }
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL shared by JS and Rust workers', () => {
  let skip = null;
  let db = null;
  before(async () => {
    skip = await postgresUnavailable();
    if (!skip) db = await freshDatabase('interop');
  });
  after(async () => {
    if (db) await db.drop();
  });

  test('JS and Rust workers racing on a fresh database execute once', async (t) => {
    if (skip) return t.skip(skip);
    const dir = tempDir('interop-pg');
    for (let round = 0; round < 3; round++) await race(db.url, dir, round, { rustDelayMs: round % 2 ? 0 : 1500 });
    // Both languages' migrations agree: a JS store opens what the race created.
    const s = await db.connect();
    assert.equal((await s.list('interop', { state: null, tool: null, limit: 10 })).length, 3);
    await s.close();
  });
});

describe('Redis shared by JS and Rust workers', () => {
  let skip = null;
  before(async () => {
    skip = await redisUnavailable();
  });

  test('JS and Rust workers racing on one Redis ledger execute once; each reads what the other wrote', async (t) => {
    if (skip) return t.skip(skip);
    const dir = tempDir('interop-redis');
    const url = redisUrl();
    const winners = [];
    // Node starts slower than the Rust binary, and a JS worker on Redis first reads the server's
    // persistence: a longer head start, so that each language wins.
    for (let round = 0; round < 4; round++) winners.push(await race(url, dir, round, { rustDelayMs: round % 2 ? 0 : 4000 }));
    console.log(`winners: ${winners.join(', ')}`);
    assert.ok(winners.some((w) => w.startsWith('js-')) && winners.some((w) => w.startsWith('rust-')), `winners: ${winners}`);
    const s = await redisStore({ prefix: new URL(url).searchParams.get('prefix') });
    try {
      const entries = await s.list('interop', { state: null, tool: null, limit: 10 });
      assert.deepEqual(entries.map((e) => e.state), ['done', 'done', 'done', 'done']);
      for (const e of entries) {
        assert.deepEqual((await s.history('interop', e.key)).map((h) => h.state), ['pending', 'done']);
        assert.deepEqual(await s.recorded('interop', e.key), { state: 'done', fingerprint: e.fingerprint, tool: 'charge', resultJson: e.resultJson });
      }
    } finally {
      await s.close();
    }
  });

  test('a claim left pending by a crashed Rust worker is reconciled by a JS worker, and Rust replays it', async (t) => {
    if (skip) return t.skip(skip);
    const db = redisUrl();
    const prefix = new URL(db).searchParams.get('prefix');
    await crashedRustReconciledByJs(db, join(tempDir('interop-redis-crash'), 'crash-marker'), () => redisStore({ prefix }));
  });
});
