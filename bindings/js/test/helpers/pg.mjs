// PostgreSQL for tests: a fresh database per test file on the server at ONCELY_TEST_POSTGRES_URL
// (scripts/with-postgres starts a throwaway one). Without it: a failure when ONCELY_REQUIRE_POSTGRES=1
// or CI is set, else a loud skip with the reason.
import pg from 'pg';

export const PG_URL = process.env.ONCELY_TEST_POSTGRES_URL;
const required = process.env.ONCELY_REQUIRE_POSTGRES === '1' || !!process.env.CI;

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
  if (reason && required) throw new Error(`PostgreSQL is required (ONCELY_REQUIRE_POSTGRES=1 or CI) but ${reason}`);
  if (reason) console.warn(`\n*** SKIPPING PostgreSQL tests: ${reason} ***\n`);
  return reason;
}

/** Create a fresh database; returns {url, drop()}. */
export async function freshDatabase(tag) {
  const name = `oncely_js_${tag}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: PG_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
