// oncely/express in a real Node server process (test/provider/express-server.mjs, a SQLite ledger file),
// driven by Node's fetch: timeouts and retries, reordered JSON, races, mismatches, handlers that
// fail, required keys, GET. The handler runs are counted in a file the server appends to.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpScenarios, post } from './helpers/provider-http.mjs';
import { startServer } from './helpers/server.mjs';
import { tempDir } from './helpers/tmp.mjs';
import { fileProbeReader } from './provider/probe.mjs';

let srv;
let probe;

before(async () => {
  const dir = tempDir('express');
  probe = fileProbeReader(dir);
  srv = await startServer(fileURLToPath(new URL('./provider/express-server.mjs', import.meta.url)), [join(dir, 'ledger.db'), dir]);
});

after(() => srv?.stop());

httpScenarios('express on node', () => ({ base: srv.base, events: probe.events, open: probe.open }));

test('express: the raw bytes are keyed, not req.body: two amounts JSON.parse rounds alike are two requests', async () => {
  const key = randomUUID();
  const first = await post(srv.base, '/parsed', '{"amount":12345678901234567890}', { key });
  assert.equal(first.status, 201);
  const body = await first.json();
  assert.deepEqual(body, { amount: 12345678901234567000, raw: '{"amount":12345678901234567890}' });
  const replay = await post(srv.base, '/parsed', '{"amount":12345678901234567890}', { key });
  assert.deepEqual([replay.status, replay.headers.get('idempotent-replayed')], [201, 'true']);
  // JSON.parse makes this the same number; the bytes (the fingerprint) differ: refused.
  const other = await post(srv.base, '/parsed', '{"amount":12345678901234567891}', { key });
  assert.equal(other.status, 422, await other.clone().text());
  assert.equal((await other.json()).part, 'body');
  // A parser before once() without verify: rawBody is a configuration error, not a guess.
  const bad = await post(srv.base, '/parsed-without-raw', { amount: 1 }, { key: randomUUID() });
  const err = await bad.json();
  assert.deepEqual([bad.status, err.code], [500, 'configuration']);
  assert.match(err.error, /verify: rawBody/);
});
