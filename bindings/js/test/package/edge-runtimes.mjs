// The package's core paths in Deno and Bun, from the installed package (called by
// scripts/release-check.sh in a fresh project with the application's own hono): the intent keys
// (the golden vectors), the README's quickstart through a ledger on the memory store, and the
// Hono provider middleware (`oncely/hono`) serving requests through `app.fetch` in-process: a
// keyed POST runs its handler once, a repeat is replayed byte for byte, the same key with another
// body is refused with the first differing pointer, a request without a key is refused.
// (oncely/sqlite is not run here: it drives better-sqlite3, a Node addon neither runtime loads;
// workerd has its own tests, test/edge.test.mjs and test/provider-hono-workerd.test.mjs.)
//
//   deno run --allow-read --allow-env edge-runtimes.mjs KEYS_JSON
//   bun edge-runtimes.mjs KEYS_JSON
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { Ledger, MemoryStore } from 'oncely';
import { once } from 'oncely/hono';
import { goldenKeys, quickstart } from './quickstart-lib.mjs';

const runtime = globalThis.Deno ? `deno ${globalThis.Deno.version.deno}` : globalThis.Bun ? `bun ${globalThis.Bun.version}` : `node ${process.version}`;
const vectorsPath = (globalThis.Deno?.args ?? process.argv.slice(2))[0];
assert.ok(vectorsPath, 'usage: edge-runtimes.mjs KEYS_JSON');

const n = goldenKeys(JSON.parse(readFileSync(vectorsPath, 'utf8')));
console.log(`   keys: ${n} golden vectors of tests/vectors/keys.json`);
console.log(`   memory store: ${await quickstart(new MemoryStore())}`);

// The provider side: Hono, in-process.
let runs = 0;
const app = new Hono();
app.post('/refunds', once({ ledger: new Ledger(new MemoryStore()), scope: 'acme', required: true }), async (c) => {
  const body = await c.req.json();
  runs++;
  return c.json({ id: `re_${runs}`, charge: body.charge, amount: body.amount, key: c.get('oncely').key }, 201);
});
const post = (body, key) =>
  app.fetch(new Request('http://provider.test/refunds', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body,
  }));

const first = await post('{"charge":"ch_1","amount":500}', 'client-key-1');
assert.equal(first.status, 201);
const firstBody = await first.text();
assert.equal(first.headers.get('idempotent-replayed'), null);
const made = JSON.parse(firstBody);
assert.equal(made.id, 're_1');
assert.match(made.key, /^oncely1:[0-9a-f]{64}$/);

// The same request in other words (members reordered, whitespace): replayed, the handler not run.
const again = await post('{ "amount": 500, "charge": "ch_1" }', 'client-key-1');
assert.equal(again.status, 201);
assert.equal(again.headers.get('idempotent-replayed'), 'true');
assert.equal(await again.text(), firstBody);

const other = await post('{"charge":"ch_1","amount":700}', 'client-key-1');
assert.equal(other.status, 422);
assert.match(other.headers.get('content-type') ?? '', /problem\+json/);
const problem = await other.json();
assert.equal(problem.pointer, '/amount');

const keyless = await post('{"charge":"ch_1","amount":500}', null);
assert.equal(keyless.status, 400);
assert.equal(runs, 1, 'the handler ran more than once');
console.log(`   hono (app.fetch): 201, replayed 201 (same bytes), 422 at ${problem.pointer}, 400 without a key; the handler ran ${runs} time`);
console.log(`   ok (${runtime})`);
