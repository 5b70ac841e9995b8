// A URL that names several PostgreSQL servers (libpq's form, which pg does not read):
// `postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`. Two clusters of the test's own
// stand in for a primary and its replica: a server with `default_transaction_read_only` on
// answers `SHOW transaction_read_only` with `on`, as a hot standby does. What must hold: the
// store opens on the first server the attributes accept (skipping one that is down or
// read-only); when that server dies and the other becomes writable (a promotion), the next call
// goes there; bad attributes are a clear error. The chaos harness's `failover` phase
// (tests/chaos/chaos.py) does the same with a real streaming replica and `pg_ctl promote`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { PostgresStore } from 'oncely/postgres';
import pg from 'pg';
import { REPO } from './helpers/env.mjs';
import { ownCluster } from './helpers/pg.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const hostPort = (url) => new URL(url).host;

async function exec(url, sql) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const serverPort = async (store) => (await store.pool.query('SELECT inet_server_port() AS p')).rows[0].p;

async function deadPort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

test('a multi-host URL keeps the writable server and follows a promotion', { timeout: 120_000 }, async (t) => {
  const a = await ownCluster();
  if (a.skip) return t.skip(a.skip);
  const b = await ownCluster();
  if (b.skip) return t.skip(b.skip);
  const [pa, pb] = [hostPort(a.url), hostPort(b.url)];
  const port = (hp) => Number(hp.split(':')[1]);
  const opened = [];
  const open = async (url) => {
    const s = await PostgresStore.connect(url);
    opened.push(s);
    return s;
  };
  t.after(() => Promise.all(opened.map((s) => s.close())));
  // Both hold the ledger's schema (a replica would: it streams the primary's); b is read-only.
  await (await open(b.url)).close();
  await exec(b.url, 'ALTER SYSTEM SET default_transaction_read_only = on');
  await exec(b.url, 'SELECT pg_reload_conf()');
  await sleep(300);

  // read-write: b comes first but is read-only, so a is kept.
  const rw = await open(`postgres://postgres@${pb},${pa}/postgres?target_session_attrs=read-write`);
  assert.equal(await serverPort(rw), port(pa));
  // A host that is down is skipped, with any attributes (`any`, the default: the first that
  // answers) or read-write. (Opening on a read-only server fails: it migrates the schema.)
  const dead = await deadPort();
  const any = await open(`postgres://postgres@127.0.0.1:${dead},${pa}/postgres`);
  assert.equal(await serverPort(any), port(pa));
  const skip = await open(`postgres://postgres@127.0.0.1:${dead},${pa}/postgres?target_session_attrs=read-write`);
  assert.equal(await serverPort(skip), port(pa));
  // Bad attributes, and no server that will do, are errors that say why.
  await assert.rejects(PostgresStore.connect(`postgres://postgres@${pa},${pb}/postgres?target_session_attrs=standby`), /target_session_attrs=standby is not supported/);
  await assert.rejects(
    PostgresStore.connect(`postgres://postgres@127.0.0.1:${dead},${pb}/postgres?target_session_attrs=read-write`),
    (e) => e.message.includes(`127.0.0.1:${dead}`) && e.message.includes('read-only'),
  );

  // The failover: a dies, b is promoted (made writable). The next call on the store opened with
  // a,b finds b and its pool connects there from then on.
  const store = await open(`postgres://postgres@${pa},${pb}/postgres?target_session_attrs=read-write`);
  assert.equal(await serverPort(store), port(pa));
  await promisify(execFile)(join(REPO, 'tests/pg/stop.sh'), [a.dir]);
  await exec(b.url, 'ALTER SYSTEM RESET default_transaction_read_only');
  await exec(b.url, 'SELECT pg_reload_conf()');
  await sleep(300);
  const started = performance.now();
  let last;
  while (performance.now() - started < 15_000) {
    try {
      assert.equal(await store.get('acme', 'k'), null);
      last = undefined;
      break;
    } catch (e) {
      last = e;
    }
  }
  assert.equal(last, undefined, `the store did not follow the promotion: ${last}`);
  assert.ok(performance.now() - started < 5000, `following took ${performance.now() - started} ms`);
  assert.equal(await serverPort(store), port(pb));
});
