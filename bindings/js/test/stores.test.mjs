// The real stores pass the same conformance scenarios: ledger.json replayed through
// better-sqlite3 and PostgreSQL (each step leaving the history the in-memory store keeps), racing
// workers execute once, and the schema and migration bookkeeping are the Rust host's (sqlx's layout, in oncely's own table: `_oncely_migrations` on
// SQLite, `oncely._sqlx_migrations` on PostgreSQL; an application's own `_sqlx_migrations` is
// never touched).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Ledger } from 'oncely';
import { DynamoDBStore } from 'oncely/dynamodb';
import { PostgresStore } from 'oncely/postgres';
import { SqliteStore } from 'oncely/sqlite';
import { REPO } from './helpers/env.mjs';
import { memoryTrace, replayLedgerVectors } from './helpers/ledger-vectors.mjs';
import { dropTables, dynamodbUnavailable, freshTable, rawClient } from './helpers/dynamodb.mjs';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

/** The migrations, in the order they apply: [version, description, file]. */
const MIGRATIONS = [
  [20261130000000, 'effects', '20261130000000_effects.sql'],
  [20261201000000, 'due at', '20261201000000_due_at.sql'],
  [20261202000000, 'max call', '20261202000000_max_call.sql'],
  [20261203000000, 'history', '20261203000000_history.sql'],
  [20261204000000, 'run step', '20261204000000_run_step.sql'],
  [20261205000000, 'waiting', '20261205000000_waiting.sql'],
  [20261206000000, 'history in row', '20261206000000_history_in_row.sql'],
  [20261207000000, 'history by write', '20261207000000_history_by_write.sql'],
  [20261208000000, 'approval', '20261208000000_approval.sql'],
  [20261209000000, 'awaiting', '20261209000000_awaiting.sql'],
];
const migrationFile = (dialect, n = 0) => readFileSync(join(REPO, 'migrations', dialect, MIGRATIONS[n][2]));
const sha384 = (bytes) => createHash('sha384').update(bytes).digest();

/** An application's own sqlx migration, recorded where sqlx records it by default. */
const APP_ROW = { version: 1, description: 'create users', checksum: Buffer.alloc(48, 7) };
const APP_ROW_SQL = (table, [a, b, c]) => `INSERT INTO ${table} ( version, description, success, checksum, execution_time ) VALUES ( ${a}, ${b}, TRUE, ${c}, 42 )`;
const APP_SQLX_TABLE_SQLITE = `CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL,
  installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL, checksum BLOB NOT NULL, execution_time BIGINT NOT NULL)`;
const APP_SQLX_TABLE_POSTGRES = `CREATE TABLE public._sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL,
  installed_on TIMESTAMPTZ NOT NULL DEFAULT now(), success BOOLEAN NOT NULL, checksum BYTEA NOT NULL, execution_time BIGINT NOT NULL)`;

const POLICY = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: 'provider-idempotent', leaseMs: 60_000 };

/** The store's methods, without `close` (one pool serves every scenario). */
const borrow = (s) => Object.fromEntries(['get', 'insert', 'update', 'delete', 'list', 'due', 'history'].map((m) => [m, (...a) => s[m](...a)]));

/**
 * A replay reads the four columns its rule compares (`recorded`), never the whole row; a row that
 * is not the effect's record (the same key, other arguments: a conflict) is then read whole; a
 * fresh effect's one read finds nothing and its claim follows.
 */
async function replayReads(store, label) {
  const reads = { get: 0, recorded: 0 };
  const counting = {
    ...borrow(store),
    get: (...a) => ((reads.get += 1), store.get(...a)),
    recorded: (...a) => ((reads.recorded += 1), store.recorded(...a)),
  };
  const seen = () => {
    const r = { ...reads };
    reads.get = reads.recorded = 0;
    return r;
  };
  const l = new Ledger(counting, { owner: 'w' });
  const intent = (amount) => ({ scope: 'narrow', run: 'r', step: label, tool: 'charge', args: { charge_id: `ch_${label}`, amount } });
  const first = await l.effect(intent(500), POLICY, async () => ({ id: 're_1' }));
  assert.equal(first.replayed, false);
  assert.deepEqual(seen(), { get: 0, recorded: 1 }, 'a fresh effect: one replay read, nothing found');
  const again = await l.effect(intent(500), POLICY, async () => ({ id: 're_2' }));
  assert.equal(again.replayed, true);
  assert.deepEqual(again.value, { id: 're_1' });
  assert.deepEqual(seen(), { get: 0, recorded: 1 }, 'a replay reads the four columns only');
  const whole = await store.get('narrow', first.key);
  assert.deepEqual(await store.recorded('narrow', first.key), { state: whole.state, fingerprint: whole.fingerprint, tool: whole.tool, resultJson: whole.resultJson });
  assert.equal(await store.recorded('narrow', 'no-such-key'), null);
  await assert.rejects(l.effect(intent(700), POLICY, async () => ({ id: 're_3' })), (e) => e.name === 'ConflictError');
  assert.deepEqual(seen(), { get: 1, recorded: 1 }, 'not this effect\'s record: then the whole row');
}

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

/** `list` and `due` give the rows and the order of the Rust host's queries. */
async function listAndDue(store) {
  let now = 1_000;
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
  // due_at is the core's: the pending claim at its lease's end, the settled ones at retention.
  const due = async (scope, at) => (await store.due(scope, at, 10)).map((e) => e.tool + e.state);
  assert.deepEqual(await due(null, now), []);
  assert.deepEqual(await due('s', now + 500), ['adone', 'bdone']);
  assert.deepEqual(await due('other', now + 1_000_000), []);
  assert.deepEqual(await due(null, now + 1_000_000), ['adone', 'bdone', 'apending']);
  assert.deepEqual((await store.due(null, now + 1_000_000, 1)).length, 1);
  now += 1000;
  assert.equal(await l.purgeExpired('s'), 2);
  assert.deepEqual((await l.list('s')).map((e) => e.tool + e.state), ['apending']);
}

describe('SQLite (better-sqlite3)', () => {
  const dir = tempDir('sqlite');

  test('ledger.json: every scenario through a SQLite file; its writes keep the in-memory store\'s history', async () => {
    let n = 0;
    const trace = [];
    const steps = await replayLedgerVectors(() => SqliteStore.open(join(dir, `vectors-${n++}.db`)), { trace });
    assert.ok(steps > 50);
    assert.deepEqual(trace, await memoryTrace());
  });

  test('schema and _oncely_migrations bookkeeping are the Rust host\'s', async () => {
    const path = join(dir, 'bookkeeping.db');
    await (await SqliteStore.open(path)).close();
    await (await SqliteStore.open(path)).close(); // a second open skips what is recorded
    const db = new Database(path);
    const rows = db.prepare('SELECT version, description, success, checksum, execution_time, installed_on FROM _oncely_migrations ORDER BY version').all();
    assert.equal(rows.length, MIGRATIONS.length);
    for (const [i, [version, description]] of MIGRATIONS.entries()) {
      assert.equal(rows[i].version, version);
      assert.equal(rows[i].description, description);
      assert.equal(rows[i].success, 1);
      assert.deepEqual(rows[i].checksum, sha384(migrationFile('sqlite', i)));
      assert.ok(rows[i].execution_time >= 0);
      assert.match(rows[i].installed_on, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    }
    // The bookkeeping table and the ledger table are what sqlx and the migration files, in order, create.
    const ref = new Database(':memory:');
    for (const i of MIGRATIONS.keys()) ref.exec(migrationFile('sqlite', i).toString('utf8'));
    const schema = (d, name) => d.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(name)?.sql;
    assert.equal(schema(db, 'oncely_effects'), schema(ref, 'oncely_effects'));
    // The history: a view over each row's records (each write appends its own; no trigger is left).
    const objects = (d) => d.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name LIKE 'oncely_history%' ORDER BY name").all();
    assert.deepEqual(objects(db), objects(ref));
    assert.deepEqual(objects(db).map((o) => `${o.type} ${o.name}`), [
      'view oncely_history',
    ]);
    assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all(), []);
    assert.equal(schema(db, 'oncely_effects_by_state'), undefined);
    assert.equal(schema(db, 'oncely_effects_by_due'), schema(ref, 'oncely_effects_by_due'));
    assert.match(schema(db, 'oncely_effects_by_due'), /due_at/);
    assert.match(schema(db, '_oncely_migrations'), /checksum BLOB NOT NULL/);
    assert.equal(schema(db, '_sqlx_migrations'), undefined, 'the name an application\'s own sqlx migrations use stays free');
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    // A modified migration or a dirty one stops the open, as sqlx would.
    db.prepare('UPDATE _oncely_migrations SET checksum = ?').run(Buffer.alloc(48));
    await assert.rejects(SqliteStore.open(path), /previously applied but has been modified/);
    db.prepare('UPDATE _oncely_migrations SET checksum = ?, success = FALSE').run(sha384(migrationFile('sqlite')));
    await assert.rejects(SqliteStore.open(path), /partially applied/);
    db.close();
    ref.close();
  });

  test('an application\'s own _sqlx_migrations in the same file is left alone', async () => {
    const path = join(dir, 'shared-with-app.db');
    const app = new Database(path);
    app.exec(APP_SQLX_TABLE_SQLITE);
    app.prepare(APP_ROW_SQL('_sqlx_migrations', ['?', '?', '?'])).run(APP_ROW.version, APP_ROW.description, APP_ROW.checksum);
    const before = app.prepare('SELECT * FROM _sqlx_migrations').all();
    await (await SqliteStore.open(path)).close();
    await (await SqliteStore.open(path)).close();
    assert.deepEqual(app.prepare('SELECT * FROM _sqlx_migrations').all(), before);
    const ours = app.prepare('SELECT version, checksum FROM _oncely_migrations').all();
    assert.deepEqual(ours, MIGRATIONS.map(([version], i) => ({ version, checksum: sha384(migrationFile('sqlite', i)) })));
    app.close();
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

  test('a replay reads the four columns its rule compares, not the row', async () => {
    const store = await SqliteStore.open(join(dir, 'narrow.db'));
    try {
      await replayReads(store, 'sqlite');
    } finally {
      await store.close();
    }
  });

  test('list and due follow the Rust queries', async () => {
    const store = await SqliteStore.open(join(dir, 'queries.db'));
    await listAndDue(store);
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

  test('ledger.json: every scenario through oncely.effects; its writes keep the in-memory store\'s history', async (t) => {
    if (skip) return t.skip(skip);
    const store = await db.connect();
    try {
      const trace = [];
      const steps = await replayLedgerVectors(async () => {
        // The history lives in the rows: it is emptied with the table.
        await store.pool.query('TRUNCATE oncely.effects');
        return borrow(store);
      }, { trace });
      assert.ok(steps > 50);
      assert.deepEqual(trace, await memoryTrace());
    } finally {
      await store.close();
    }
  });

  test('a replay reads the four columns its rule compares, not the row', async (t) => {
    if (skip) return t.skip(skip);
    const store = await db.connect();
    try {
      await replayReads(store, 'postgres');
    } finally {
      await store.close();
    }
  });

  test('concurrent openers migrate once; bookkeeping is sqlx\'s', async (t) => {
    if (skip) return t.skip(skip);
    const fresh = await freshDatabase('migrate');
    try {
      const stores = await Promise.all(Array.from({ length: 5 }, () => fresh.connect({ max: 2 })));
      for (const s of stores) await s.close();
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      try {
        const { rows } = await c.query('SELECT version, description, success, checksum, execution_time FROM oncely._sqlx_migrations ORDER BY version');
        assert.equal(rows.length, MIGRATIONS.length);
        for (const [i, [version, description]] of MIGRATIONS.entries()) {
          assert.equal(rows[i].version, String(version));
          assert.equal(rows[i].description, description);
          assert.equal(rows[i].success, true);
          assert.deepEqual(rows[i].checksum, sha384(migrationFile('postgres', i)));
        }
        const cols = await c.query(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = 'oncely' AND table_name = 'effects' ORDER BY ordinal_position",
        );
        assert.equal(cols.rows.length, 30);
        assert.deepEqual(cols.rows.slice(-4).map((r) => r.column_name), ['settlement', 'run_id', 'step_id', 'history']);
        const history = await c.query(
          "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'oncely' AND table_name = 'history' ORDER BY ordinal_position",
        );
        assert.deepEqual(history.rows.map((r) => r.column_name), ['scope', 'key', 'version', 'at', 'state', 'attempt', 'owner', 'reconcile_attempts', 'reason', 'resolved_by', 'settlement']);
        // The history is a view over each row's records; each write appends its own (no trigger).
        const view = await c.query("SELECT 1 FROM information_schema.views WHERE table_schema = 'oncely' AND table_name = 'history'");
        assert.equal(view.rows.length, 1);
        const triggers = await c.query("SELECT tgname FROM pg_trigger WHERE tgrelid = 'oncely.effects'::regclass AND NOT tgisinternal ORDER BY tgname");
        assert.deepEqual(triggers.rows, []);
        const types = await c.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '_sqlx_migrations' AND table_schema = 'oncely'");
        assert.deepEqual(Object.fromEntries(types.rows.map((r) => [r.column_name, r.data_type])), {
          version: 'bigint',
          description: 'text',
          installed_on: 'timestamp with time zone',
          success: 'boolean',
          checksum: 'bytea',
          execution_time: 'bigint',
        });
        // Nothing lands in `public`, where an application's own sqlx migrations live.
        const pub = await c.query("SELECT to_regclass('public._sqlx_migrations') AS public, to_regclass('oncely._sqlx_migrations') AS oncely");
        assert.deepEqual(pub.rows[0], { public: null, oncely: 'oncely._sqlx_migrations' });
        await c.query('UPDATE oncely._sqlx_migrations SET checksum = $1', [Buffer.alloc(48)]);
        await assert.rejects(fresh.connect(), /previously applied but has been modified/);
      } finally {
        await c.end();
      }
    } finally {
      await fresh.drop();
    }
  });

  test('an application\'s own public._sqlx_migrations is left alone', async (t) => {
    if (skip) return t.skip(skip);
    const fresh = await freshDatabase('appsqlx');
    try {
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      try {
        await c.query(APP_SQLX_TABLE_POSTGRES);
        await c.query(APP_ROW_SQL('public._sqlx_migrations', ['$1', '$2', '$3']), [APP_ROW.version, APP_ROW.description, APP_ROW.checksum]);
        const before = (await c.query('SELECT * FROM public._sqlx_migrations')).rows;
        for (let i = 0; i < 2; i++) await (await fresh.connect({ max: 1 })).close();
        assert.deepEqual((await c.query('SELECT * FROM public._sqlx_migrations')).rows, before);
        const ours = (await c.query('SELECT version, checksum FROM oncely._sqlx_migrations ORDER BY version')).rows;
        assert.deepEqual(ours, MIGRATIONS.map(([version], i) => ({ version: String(version), checksum: sha384(migrationFile('postgres', i)) })));
      } finally {
        await c.end();
      }
    } finally {
      await fresh.drop();
    }
  });

  test('a server that drops idle connections does not end the process (regression: no pool error listener)', async (t) => {
    if (skip) return t.skip(skip);
    const seen = [];
    const store = await db.connect({ max: 3, onError: (e) => seen.push(e) });
    try {
      await Promise.all([1, 2, 3].map(() => store.get('s', 'k'))); // three idle connections
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      let terminated;
      try {
        const { rows } = await admin.query(
          "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ''",
        );
        terminated = rows.length;
        assert.ok(terminated >= 1, 'no idle connection of the store was found to terminate');
      } finally {
        await admin.end();
      }
      // Every dropped connection reports on the pool, which discards it.
      for (let i = 0; i < 250 && seen.length < terminated; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(seen.length, terminated, 'the pool reported an error for each dropped connection');
      assert.match(String(seen[0].message), /terminat/);
      assert.equal(await store.get('s', 'k'), null); // a new connection serves the next query
    } finally {
      await store.close();
    }
  });

  test('a server that drops the connection a store is migrating on does not end the process (regression: no error listener on the checked-out client)', async (t) => {
    if (skip) return t.skip(skip);
    await (await db.connect()).close(); // migrated: a second open reads the bookkeeping table
    const locker = new pg.Client({ connectionString: db.url });
    const admin = new pg.Client({ connectionString: db.url });
    await locker.connect();
    await admin.connect();
    try {
      // The opener blocks on the bookkeeping table, holding its checked-out client...
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE oncely._sqlx_migrations IN ACCESS EXCLUSIVE MODE');
      const seen = [];
      const opening = PostgresStore.connect(db.url, { max: 1, onError: (e) => seen.push(e) });
      // Its failure is awaited below; handled from now on, since it may come before the
      // termination's own query returns here (else an unhandled rejection, for an instant).
      const failed = assert.rejects(opening, /terminat/);
      let pid;
      for (let i = 0; i < 500 && !pid; i++) {
        const { rows } = await admin.query(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid NOT IN ($1, pg_backend_pid())",
          [locker.processID],
        );
        pid = rows[0]?.pid;
        if (!pid) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(pid, 'the opener never waited on the lock');
      // ...which the server now drops: the open fails, and the process lives on.
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await failed;
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
      await admin.end();
    }
    await new Promise((r) => setTimeout(r, 100)); // the dropped client's 'error' comes after the rejection
    await (await db.connect()).close();
  });

  test('racing workers (separate pools) execute once', async (t) => {
    if (skip) return t.skip(skip);
    const stores = await Promise.all(Array.from({ length: 6 }, () => db.connect({ max: 2 })));
    try {
      for (let round = 0; round < 5; round++) await race(stores, `pg-${round}`);
    } finally {
      for (const s of stores) await s.close();
    }
  });
});

// The same suite on DynamoDB (moto's server mode under scripts/with-dynamodb), each test on a
// table of its own; the layout is the Python store's (test/dynamodb.test.mjs crosses languages).
describe('DynamoDB (@aws-sdk/client-dynamodb)', () => {
  let skip = null;
  before(async () => {
    skip = await dynamodbUnavailable();
  });
  after(async () => {
    if (!skip) await dropTables();
  });

  test('ledger.json: every scenario through a DynamoDB table; its writes keep the in-memory store\'s history', async (t) => {
    if (skip) return t.skip(skip);
    const trace = [];
    const opened = [];
    try {
      const steps = await replayLedgerVectors(async () => {
        const s = await DynamoDBStore.open(freshTable('vectors'));
        opened.push(s);
        return borrow(s);
      }, { trace });
      assert.ok(steps > 50);
      assert.deepEqual(trace, await memoryTrace());
    } finally {
      for (const s of opened) await s.close();
    }
  });

  test('a replay reads the four columns its rule compares, not the item', async (t) => {
    if (skip) return t.skip(skip);
    const store = await DynamoDBStore.open(freshTable('narrow'));
    try {
      await replayReads(store, 'dynamodb');
    } finally {
      await store.close();
    }
  });

  test('list and due follow the Rust queries', async (t) => {
    if (skip) return t.skip(skip);
    const store = await DynamoDBStore.open(freshTable('queries'));
    try {
      await listAndDue(store);
    } finally {
      await store.close();
    }
  });

  test('racing workers (separate clients) execute once', async (t) => {
    if (skip) return t.skip(skip);
    const location = freshTable('race');
    const stores = await Promise.all(Array.from({ length: 6 }, () => DynamoDBStore.open(location)));
    try {
      for (let round = 0; round < 5; round++) await race(stores, `dynamodb-${round}`);
    } finally {
      for (const s of stores) await s.close();
    }
  });

  test('the open makes the table (keys, sparse due indexes) and refuses one of another layout', async (t) => {
    if (skip) return t.skip(skip);
    const location = freshTable('layout');
    await (await DynamoDBStore.open(location)).close();
    await (await DynamoDBStore.open(location)).close(); // a second open finds it as it should be
    const table = new URL(location).host;
    const c = rawClient();
    try {
      const { DescribeTableCommand, CreateTableCommand } = await import('@aws-sdk/client-dynamodb');
      const d = (await c.send(new DescribeTableCommand({ TableName: table }))).Table;
      const ks = (k) => k.map((x) => `${x.AttributeName}:${x.KeyType}`);
      assert.deepEqual(ks(d.KeySchema), ['scope:HASH', 'key:RANGE']);
      const idx = Object.fromEntries(d.GlobalSecondaryIndexes.map((g) => [g.IndexName, [ks(g.KeySchema), g.Projection.ProjectionType]]));
      assert.deepEqual(idx, { scope_due: [['scope:HASH', 'due_at:RANGE'], 'KEYS_ONLY'], due: [['due_shard:HASH', 'due_at:RANGE'], 'KEYS_ONLY'] });
      const other = freshTable('other');
      await c.send(new CreateTableCommand({
        TableName: new URL(other).host,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }));
      await assert.rejects(DynamoDBStore.open(other), /is not a ledger's: its key must be scope \(partition\) and key \(sort\)/);
    } finally {
      c.destroy();
    }
    await assert.rejects(DynamoDBStore.open('dynamodb://ab'), /must be 3 to 255/);
    await assert.rejects(DynamoDBStore.open(`${location}&consistent=no`), /unknown option consistent/);
  });
});
