// PostgreSQL for tests: a fresh database per test file on the server at ONCELY_TEST_POSTGRES_URL
// (scripts/with-postgres starts a throwaway one), or a cluster of a test's own that it may
// restart (tests/pg/start.sh --with-dir, tests/pg/restart.sh). Without a server: a failure when
// ONCELY_REQUIRE_POSTGRES=1 or CI is set, else a loud skip with the reason.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { PostgresStore } from 'oncely/postgres';
import { REPO } from './env.mjs';

export const PG_URL = process.env.ONCELY_TEST_POSTGRES_URL;
const required = process.env.ONCELY_REQUIRE_POSTGRES === '1' || !!process.env.CI;
const run = promisify(execFile);

function unavailable(reason) {
  if (reason && required) throw new Error(`PostgreSQL is required (ONCELY_REQUIRE_POSTGRES=1 or CI) but ${reason}`);
  if (reason) console.warn(`\n*** SKIPPING PostgreSQL tests: ${reason} ***\n`);
  return reason;
}

/**
 * Whether PostgreSQL tests can run. Returns a skip reason, or null. Throws when PostgreSQL is
 * required and unavailable.
 */
export async function postgresUnavailable() {
  let reason = null;
  if (!PG_URL) reason = 'ONCELY_TEST_POSTGRES_URL is not set (run under scripts/with-postgres)';
  else {
    const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
    } catch (e) {
      reason = `cannot reach PostgreSQL at ${PG_URL}: ${e.message}`;
    } finally {
      await c.end().catch(() => {});
    }
  }
  return unavailable(reason);
}

/**
 * Create a fresh database; returns {name, url, connect(options), drop()}. `connect` opens a
 * PostgresStore on it that `drop` closes (if the test did not) BEFORE the database is dropped:
 * `DROP DATABASE … WITH (FORCE)` would otherwise terminate the live pool's connections under it
 * ("terminating connection due to administrator command").
 */
export async function freshDatabase(tag) {
  const name = `oncely_js_${tag}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  const stores = [];
  return {
    name,
    url: u.toString(),
    async connect(options) {
      const store = await PostgresStore.connect(u.toString(), options);
      stores.push(store);
      return store;
    },
    async drop() {
      for (const s of stores.splice(0)) await s.close();
      const a = new pg.Client({ connectionString: PG_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/**
 * In a describe: a fresh database for its tests, dropped after them. Returns `{skip, db}`, set
 * once the describe's `before` has run: `skip` the reason PostgreSQL tests cannot run (or null),
 * `db` what freshDatabase returned (or null).
 */
export function databaseForSuite(tag) {
  const pg = { skip: null, db: null };
  before(async () => {
    pg.skip = await postgresUnavailable();
    if (!pg.skip) pg.db = await freshDatabase(tag);
  });
  after(async () => {
    if (pg.db) await pg.db.drop();
  });
  return pg;
}

/**
 * A throwaway cluster of the test's own, for tests that restart the server (never the shared one
 * of ONCELY_TEST_POSTGRES_URL, which other tests use): `{url, dir}`, or `{skip}` with the reason
 * (throws instead when PostgreSQL is required). It stops when this process exits.
 */
export async function ownCluster() {
  try {
    const { stdout } = await run(join(REPO, 'tests/pg/start.sh'), ['--with-dir', String(process.pid)], { timeout: 120_000 });
    const [url, dir] = stdout.trim().split('\n');
    return { url, dir };
  } catch (e) {
    return { skip: unavailable(`no server of the test's own could be started: ${e.stderr?.trim() || e.message}`) };
  }
}

/**
 * Restart the cluster in `dir` (from ownCluster) with `pg_ctl -m mode` (`fast` or `immediate`),
 * down `downSeconds`; resolves once it accepts connections again.
 */
export async function restartPostgres(dir, mode, downSeconds = 0) {
  await run(join(REPO, 'tests/pg/restart.sh'), [dir, mode, String(downSeconds)], { timeout: 120_000 });
}
