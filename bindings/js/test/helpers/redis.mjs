// Redis for tests: the server at ONCELY_TEST_REDIS_URL (scripts/with-redis starts a throwaway
// one; tests/redis/cluster.sh a three-master cluster), each test on keys of its own prefix.
// Without a server: a failure when ONCELY_REQUIRE_REDIS=1 or CI is set, else a loud skip with
// the reason.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { RedisStore } from 'oncely/redis';
import { REPO } from './env.mjs';

export const REDIS_URL = process.env.ONCELY_TEST_REDIS_URL;
const required = process.env.ONCELY_REQUIRE_REDIS === '1' || !!process.env.CI;
const run = promisify(execFile);

/**
 * Whether Redis tests can run. Returns a skip reason, or null. Throws when Redis is required
 * and unavailable.
 */
export async function redisUnavailable() {
  let reason = null;
  if (!REDIS_URL) reason = 'ONCELY_TEST_REDIS_URL is not set (run under scripts/with-redis)';
  else {
    const c = new Redis(REDIS_URL.split('?')[0], { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.ping();
    } catch (e) {
      reason = `cannot reach Redis at ${REDIS_URL}: ${e.message}`;
    } finally {
      c.disconnect();
    }
  }
  if (reason && required) throw new Error(`Redis is required (ONCELY_REQUIRE_REDIS=1 or CI) but ${reason}`);
  if (reason) console.warn(`\n*** SKIPPING Redis tests: ${reason} ***\n`);
  return reason;
}

/** The test server's URL with oncely's query options (a fresh `prefix` unless given). */
export function redisUrl(query = {}, base = REDIS_URL) {
  const u = new URL(base);
  if (!('prefix' in query)) u.searchParams.set('prefix', `t${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, String(v));
  return u.toString();
}

/** A store on the test server (the durability warning kept for the test to read, not printed). */
export async function redisStore(query = {}, options = {}) {
  const heard = [];
  const store = await RedisStore.connect(redisUrl(query), { onDurability: (d) => heard.push(d), ...options });
  return Object.assign(store, { heard });
}

/**
 * A throwaway server of the test's own (tests/redis/start.sh with `args`: `--replica-of PORT`,
 * `--tls`), stopped when this process exits; its URL.
 */
export async function startRedis(args = []) {
  const { stdout } = await run(join(REPO, 'tests/redis/start.sh'), [...args, String(process.pid)]);
  return stdout.trim();
}
