// The real stores pass the same conformance scenarios: ledger.json replayed through
// better-sqlite3 and PostgreSQL, racing workers execute once, and the schema and migration
// bookkeeping are the Rust host's (sqlx's `_sqlx_migrations`).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Ledger } from 'oncely';
import { PostgresStore } from 'oncely/postgres';
import { SqliteStore } from 'oncely/sqlite';
import { REPO } from './helpers/env.mjs';
import { replayLedgerVectors } from './helpers/ledger-vectors.mjs';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

const MIGRATION = '20261130000000_effects.sql';
const migrationFile = (dialect) => readFileSync(join(REPO, 'host/migrations', dialect, MIGRATION));
const sha384 = (bytes) => createHash('sha384').update(bytes).digest();

const POLICY = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: 'provider-idempotent', leaseMs: 60_000 };

/** The store's methods, without `close` (one pool serves every scenario). */
const borrow = (s) => Object.fromEntries(['get', 'insert', 'update', 'delete', 'list', 'unsettled', 'expired'].map((m) => [m, (...a) => s[m](...a)]));

/** N workers (each its own ledger/connection) race one effect; the tool must run once. */
async function race(stores, label) {
  let executions = 0;
  const intent = { scope: 'race', run: 'r', step: label, tool: 'charge', args: { charge_id: `ch_${label}`, amount: 1 } };
  const results = await Promise.all(
    stores.map((s, i) =>
      new Ledger(s, { owner: `w${i}` }).effect(intent, POLICY, async (key) => {
        executions++;
        await new Promise((r) => setTimeout(r, 30));
        return { by: `w${i}`, key };
      }),
    ),
  );
  assert.equal(executions, 1, `${label}: the tool ran ${executions} times`);
  assert.equal(results.filter((r) => !r.replayed).length, 1);
  assert.ok(results.every((r) => JSON.stringify(r.value) === JSON.stringify(results[0].value)));
  return results;
}

describe('SQLite (better-sqlite3)', () => {
  const dir = tempDir('sqlite');

  test('ledger.json: every scenario through a SQLite file', async () => {
    let n = 0;
    const steps = await replayLedgerVectors(() => SqliteStore.open(join(dir, `vectors-${n++}.db`)));
    assert.ok(steps > 50);
  });

  test('schema and _sqlx_migrations bookkeeping are the Rust host\'s', async () => {
    const path = join(dir, 'bookkeeping.db');
    await (await SqliteStore.open(path)).close();
    await (await SqliteStore.open(path)).close(); // a second open skips what is recorded
    const db = new Database(path);
    const rows = db.prepare('SELECT version, description, success, checksum, execution_time, installed_on FROM _sqlx_migrations').all();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].version, 20261130000000);
    assert.equal(rows[0].description, 'effects');
    assert.equal(rows[0].success, 1);
    assert.deepEqual(rows[0].checksum, sha384(migrationFile('sqlite')));
    assert.ok(rows[0].execution_time >= 0);
    assert.match(rows[0].installed_on, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // The bookkeeping table and the ledger table are what sqlx and the migration file create.
    const ref = new Database(':memory:');
    ref.exec(migrationFile('sqlite').toString('utf8'));
    const schema = (d, name) => d.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(name)?.sql;
    assert.equal(schema(db, 'oncely_effects'), schema(ref, 'oncely_effects'));
    assert.equal(schema(db, 'oncely_effects_by_state'), schema(ref, 'oncely_effects_by_state'));
    assert.match(schema(db, '_sqlx_migrations'), /checksum BLOB NOT NULL/);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    // A modified migration or a dirty one stops the open, as sqlx would.
    db.prepare('UPDATE _sqlx_migrations SET checksum = ?').run(Buffer.alloc(48));
    await assert.rejects(SqliteStore.open(path), /previously applied but has been modified/);
    db.prepare('UPDATE _sqlx_migrations SET checksum = ?, success = FALSE').run(sha384(migrationFile('sqlite')));
    await assert.rejects(SqliteStore.open(path), /partially applied/);
    db.close();
    ref.close();
  });

  test('racing workers on one file execute once', async () => {
    const path = join(dir, 'race.db');
    const stores = await Promise.all(Array.from({ length: 6 }, () => SqliteStore.open(path)));
    try {
      for (let round = 0; round < 5; round++) await race(stores, `sqlite-${round}`);
    } finally {
      for (const s of stores) await s.close();
    }
  });

  test('list, unsettled and expired follow the Rust queries', async () => {
    let now = 1_000;
    const store = await SqliteStore.open(join(dir, 'queries.db'));
    const l = new Ledger(store, { owner: 'w', clock: () => now });
    const p = { class: 'accumulating-write', retentionMs: 500 };
    for (const [i, tool] of ['a', 'b', 'a'].entries()) {
      now += 10;
      const { claim, outcome } = await l.begin({ scope: 's', run: 'r', step: `${i}`, tool, args: { i } }, p);
      if (i < 2) await l.complete('s', claim.key, outcome.val, { i });
    }
    assert.deepEqual((await l.list('s')).map((e) => e.tool + e.state), ['apending', 'bdone', 'adone']);
    assert.deepEqual((await l.list('s', { tool: 'a', state: 'done' })).length, 1);
    assert.deepEqual((await l.list('s', { limit: 1 })).length, 1);
    assert.deepEqual(await l.list('other'), []);
    assert.equal((await store.unsettled(null, 10)).length, 1);
    assert.equal((await store.unsettled('other', 10)).length, 0);
    assert.equal((await store.expired('s', now, 10)).length, 0);
    now += 1000;
    assert.equal((await store.expired(null, now, 10)).length, 2);
    assert.equal(await l.purgeExpired('s'), 2);
    await store.close();
  });
});

describe('PostgreSQL (pg)', () => {
  let skip = null;
  let db = null;
  before(async () => {
    skip = await postgresUnavailable();
    if (!skip) db = await freshDatabase('stores');
  });
  after(async () => {
    if (db) await db.drop();
  });

  test('ledger.json: every scenario through oncely.effects', async (t) => {
    if (skip) return t.skip(skip);
    const store = await PostgresStore.connect(db.url);
    try {
      const steps = await replayLedgerVectors(async () => {
        await store.pool.query('TRUNCATE oncely.effects');
        return borrow(store);
      });
      assert.ok(steps > 50);
    } finally {
      await store.close();
    }
  });

  test('concurrent openers migrate once; bookkeeping is sqlx\'s', async (t) => {
    if (skip) return t.skip(skip);
    const fresh = await freshDatabase('migrate');
    try {
      const stores = await Promise.all(Array.from({ length: 5 }, () => PostgresStore.connect(fresh.url, { max: 2 })));
      for (const s of stores) await s.close();
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      try {
        const { rows } = await c.query('SELECT version, description, success, checksum, execution_time FROM _sqlx_migrations');
        assert.equal(rows.length, 1);
        assert.equal(rows[0].version, '20261130000000');
        assert.equal(rows[0].description, 'effects');
        assert.equal(rows[0].success, true);
        assert.deepEqual(rows[0].checksum, sha384(migrationFile('postgres')));
        const cols = await c.query(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = 'oncely' AND table_name = 'effects' ORDER BY ordinal_position",
        );
        assert.equal(cols.rows.length, 24);
        const types = await c.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '_sqlx_migrations' AND table_schema = 'public'");
        assert.deepEqual(Object.fromEntries(types.rows.map((r) => [r.column_name, r.data_type])), {
          version: 'bigint',
          description: 'text',
          installed_on: 'timestamp with time zone',
          success: 'boolean',
          checksum: 'bytea',
          execution_time: 'bigint',
        });
        await c.query('UPDATE _sqlx_migrations SET checksum = $1', [Buffer.alloc(48)]);
        await assert.rejects(PostgresStore.connect(fresh.url), /previously applied but has been modified/);
      } finally {
        await c.end();
      }
    } finally {
      await fresh.drop();
    }
  });

  test('racing workers (separate pools) execute once', async (t) => {
    if (skip) return t.skip(skip);
    const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresStore.connect(db.url, { max: 2 })));
    try {
      for (let round = 0; round < 5; round++) await race(stores, `pg-${round}`);
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
