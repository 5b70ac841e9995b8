// The edge example in the real workerd binary (npm package `workerd`, started directly, serving
// on 127.0.0.1 only): its keys, canonical forms, explanations and checks equal the Rust CLI's;
// its refund runs once through a ledger in a Durable Object, with the same key and decisions as
// the Rust host's ledger; a person settles an entry nobody can reconcile, naming the version they
// saw; the Durable Object store passes the ledger conformance scenarios, its writes keeping the
// history the in-memory store keeps; and tests/vectors/adapters.json (the
// identity of a tool call, what the model reads) replays in workerd as on Node.
// workerd is stopped at the end. The package bundled is ONCELY_JS_PACKAGE (the installed tarball
// under test.sh) or bindings/js.
import { freePort, startWorkerd } from './helpers/workerd.mjs';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import * as esbuild from 'esbuild';
import { Ledger } from 'oncely';
import { build, bundleWorker } from '../../../examples/edge/build.mjs';
import { REFUND_POLICY } from '../../../examples/edge/policy.js';
import { cliCanon, cliCheck, cliExec, cliExplain, cliKey, cliKeysLines } from './helpers/cli.mjs';
import { PACKAGE_DIR, REPO, vectors } from './helpers/env.mjs';
import { keyRelations, replayAgentVectors } from './helpers/agent-vectors.mjs';
import { memoryTrace, replayLedgerVectors } from './helpers/ledger-vectors.mjs';
import { randomIntents, seed } from './helpers/random.mjs';
import { tempDir } from './helpers/tmp.mjs';

let workerd = null;
let base;
let pay;
let stores;

before(async () => {
  const dir = tempDir('edge');
  const storeWorker = await bundleWorker(fileURLToPath(new URL('./edge/store-worker.js', import.meta.url)), dir, { esbuild, packageDir: PACKAGE_DIR });
  workerd = await startWorkerd(async () => {
    const [port, payPort, storePort] = [await freePort(), await freePort(), await freePort()];
    const { config } = await build({
      outDir: dir,
      port,
      payPort,
      esbuild,
      packageDir: PACKAGE_DIR,
      extra: {
        services: ['(name = "stores", worker = .stores)'],
        sockets: [`(name = "stores-http", address = "127.0.0.1:${storePort}", http = (), service = "stores")`],
        definitions: [
          `const stores :Workerd.Worker = (
    modules = [ (name = "${storeWorker.module}", esModule = embed "${storeWorker.module}"), ${storeWorker.wasm.map((w) => `(name = "${w}", wasm = embed "${w}")`).join(', ')} ],
    compatibilityDate = "2025-09-01",
    durableObjectNamespaces = [ (className = "StoreObject", uniqueKey = "oncely-test-stores", enableSql = true) ],
    durableObjectStorage = (localDisk = "storage"),
    bindings = [ (name = "STORES", durableObjectNamespace = "StoreObject") ],
  );`,
        ],
      },
    });
    base = `http://127.0.0.1:${port}`;
    pay = `http://127.0.0.1:${payPort}`;
    stores = `http://127.0.0.1:${storePort}`;
    return { config, readyUrl: `${base}/ready` };
  }, dir);
});

after(async () => {
  await workerd?.stop();
});

async function post(path, body, raw = false) {
  const r = await fetch(`${base}${path}`, { method: 'POST', body: raw ? body : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: r.headers.get('content-type')?.includes('json') && !raw ? JSON.parse(text) : text, text };
}

const fromWorker = (r) => (r.error ? { error: r.error.message } : r);

test('workerd: keys of the golden vectors and of random intents equal the CLI\'s', async () => {
  const { cases } = vectors('keys.json');
  for (const c of cases) {
    const { status, body } = await post('/keys', { intents: [c.intent], policy: c.policy });
    assert.equal(status, 200);
    assert.deepEqual(fromWorker(body.results[0]), cliKey(c.intent, c.policy), c.name);
    if (c.key) assert.equal(body.results[0].key, c.key, c.name);
  }
  const s = seed();
  console.log(`random intents: seed ${s}`);
  const intents = randomIntents(s, 300);
  const want = cliKeysLines(intents);
  const { body } = await post('/keys', { intents });
  assert.deepEqual(body.results.map(fromWorker), want, `seed ${s}`);
  assert.ok(want.filter((w) => !w.error).length > 200);
});

test('workerd: canonical forms, explanations and checks equal the CLI\'s', async () => {
  for (const c of vectors('canonical.json').cases) {
    const bytes = c.input_hex !== undefined ? Buffer.from(c.input_hex, 'hex') : Buffer.from(c.input, 'utf8');
    const r = await post('/canonicalize', bytes, true);
    const got = r.status === 200 ? r.text : { error: JSON.parse(r.text).error.message };
    assert.deepEqual(got, cliCanon(bytes), c.name);
  }
  for (const c of vectors('explain.json').cases) {
    const { body } = await post('/explain', { a: c.a, b: c.b, policy: c.policy });
    const want = cliExplain(c.a, c.b, c.policy);
    assert.deepEqual(
      [body.verdict, body.keyA.key, body.keyB.key, body.differences.map(({ part, pointer, a, b }) => ({ part, pointer, a, b }))],
      [want.verdict, want.key_a, want.key_b, want.differences.map(({ part, pointer, a, b }) => ({ part, pointer, a, b }))],
      c.name,
    );
  }
  for (const c of vectors('policy.json').manifests) {
    const want = cliCheck(c.manifest);
    const { status, body } = await post('/check', c.manifest);
    if (want.error) {
      assert.equal(status, 400, c.name);
      continue;
    }
    assert.deepEqual([body.passed, body.findings], [want.passed, want.findings], c.name);
  }
});

test('workerd: the refund runs once through the Durable Object ledger, as in the Rust host', async () => {
  const dir = tempDir('edge-rust');
  const db = join(dir, 'rust.db');
  const refund = (extra) => post('/refund', { scope: 'edge', run: 'run-1', step: 'refund-1', charge_id: 'ch_1', amount: 500, ...extra });
  const rust = (extra = {}) =>
    cliExec({ db, scope: 'edge', run: 'run-1', step: 'refund-1', tool: 'refund', args: JSON.stringify({ charge_id: 'ch_1', amount: 500 }), policy: REFUND_POLICY, owner: 'rust', marker: join(dir, 'marker'), ...extra });

  // First call executes; a retry from another run replays. The Rust host decides the same, with the same key.
  const a = await refund();
  const b = await refund({ run: 'run-2', step: 'retry' });
  const ra = rust();
  const rb = rust({ run: 'run-2', step: 'retry' });
  assert.equal(a.status, 200, a.text);
  assert.equal(ra.status, 0, ra.stderr);
  assert.deepEqual([a.body.key, a.body.replayed, a.body.reconciled], [ra.result.key, ra.result.replayed, ra.result.reconciled]);
  assert.deepEqual([b.body.key, b.body.replayed, b.body.reconciled], [rb.result.key, rb.result.replayed, rb.result.reconciled]);
  assert.deepEqual(b.body.value, a.body.value);
  assert.equal(a.body.key, cliKey({ scope: 'edge', run: 'run-1', step: 'refund-1', tool: 'refund', args: JSON.stringify({ charge_id: 'ch_1', amount: 500 }) }, REFUND_POLICY).key);
  // Same charge, another amount: a conflict at /amount, in both hosts.
  const c = await refund({ amount: 999 });
  const rc = rust({ args: JSON.stringify({ charge_id: 'ch_1', amount: 999 }) });
  assert.deepEqual([c.status, c.body.error.code, c.body.error.pointer], [409, 'conflict', '/amount']);
  assert.equal(rc.status, 2);
  assert.match(rc.stderr, /already ran with different arguments \(they first differ at "\/amount"\)/);
  assert.equal(c.body.error.message, rc.stderr.replace(/^oncely-test-worker: /, '').trim());

  // The provider loses its reply: the outcome is reconciled by lookup, not retried.
  const l = await refund({ charge_id: 'ch_2', simulate: 'lose-reply' });
  assert.deepEqual([l.status, l.body.replayed, l.body.reconciled], [200, true, true], l.text);
  // The provider declines: recorded as failed; the next request makes a new attempt.
  const d = await refund({ charge_id: 'ch_3', simulate: 'decline' });
  assert.deepEqual([d.status, d.body.error.code], [402, 'tool-failed']);
  const d2 = await refund({ charge_id: 'ch_3' });
  assert.deepEqual([d2.status, d2.body.replayed], [200, false]);
  const made = await (await fetch(`${pay}/refunds`)).json();
  assert.deepEqual(
    ['ch_1', 'ch_2', 'ch_3'].map((ch) => made.filter((m) => m.charge_id === ch).length),
    [1, 1, 1],
    'FlakyPay made each refund once',
  );

  // Ledger operations over HTTP.
  const entries = await (await fetch(`${base}/ledger/edge`)).json();
  assert.deepEqual(entries.map((e) => e.state).sort(), ['done', 'done', 'done']);
  assert.equal(entries.find((e) => e.key === l.body.key).reconcileAttempts, 1);
  assert.equal(entries.find((e) => e.key === d2.body.key).attempt, 2);
  const sweep = await post('/ledger/edge/sweep', {});
  assert.deepEqual([sweep.body.examined, sweep.body.errors], [0, []]);
  const purge = await post('/ledger/edge/purge', {});
  assert.deepEqual(purge.body, { purged: 0 });
  const done = entries.find((e) => e.key === a.body.key);
  const res = await post('/ledger/edge/resolve', { key: a.body.key, version: done.version, notHappened: true, by: 'ops' });
  assert.deepEqual([res.status, res.body.error.kind], [400, 'invalid-state']);

  // FlakyPay loses the reply and cannot be asked: in doubt, until a person settles what they saw.
  const u = await refund({ charge_id: 'ch_4', simulate: 'lose-track' });
  assert.deepEqual([u.status, u.body.error.code], [502, 'in-doubt'], u.text);
  const key = u.body.error.key;
  const [seen] = await (await fetch(`${base}/ledger/edge?state=in-doubt`)).json();
  assert.equal(seen.key, key);
  const decide = (extra) => post('/ledger/edge/resolve', { key, happened: { refund_id: 're_5' }, by: 'ops', note: 'in the dashboard', ...extra });
  const missing = await decide({});
  assert.equal(missing.status, 400);
  assert.match(missing.body.error.message, /version is required/);
  const stale = await decide({ version: seen.version - 1 });
  assert.deepEqual([stale.status, stale.body.error.code, stale.body.error.kind], [409, 'ledger', 'changed'], stale.text);
  const settled = await decide({ version: seen.version });
  assert.equal(settled.status, 200, settled.text);
  assert.match(settled.body.settlement, /^stl-[0-9a-f]{16}$/);
  const again = await decide({ version: seen.version });
  assert.deepEqual([again.status, again.body.error.kind], [400, 'invalid-state']);
  const [entry] = (await (await fetch(`${base}/ledger/edge?state=done`)).json()).filter((e) => e.key === key);
  assert.deepEqual([entry.settlement, entry.resolvedBy, entry.version], [settled.body.settlement, 'ops', seen.version + 1]);
  // Its history, kept by the Durable Object store's writes: the claim first, the settlement last.
  const history = await (await fetch(`${base}/ledger/edge/history?key=${encodeURIComponent(key)}`)).json();
  assert.deepEqual([history[0].version, history[0].state], [1, 'pending'], JSON.stringify(history));
  assert.ok(history.some((h) => h.state === 'in-doubt'), JSON.stringify(history));
  assert.deepEqual(
    [history.at(-1).version, history.at(-1).state, history.at(-1).settlement, history.at(-1).resolvedBy],
    [entry.version, 'done', settled.body.settlement, 'ops'],
  );
  // The refund replays what the person recorded; FlakyPay made it once.
  const r4 = await refund({ charge_id: 'ch_4' });
  assert.deepEqual([r4.status, r4.body.replayed, r4.body.value], [200, true, { refund_id: 're_5' }], r4.text);
  assert.equal((await (await fetch(`${pay}/refunds?charge_id=ch_4`)).json()).length, 1);
});

test('workerd: adapters.json: identities, keys and answers equal the cases (and Node\'s)', async () => {
  const doc = vectors('adapters.json');
  const r = await fetch(stores, { method: 'POST', body: JSON.stringify({ name: 'agent', method: 'agent-vectors', args: doc }) });
  assert.equal(r.status, 200);
  const { ok: got } = await r.json();
  assert.equal(got.identify.length, doc.identify.length);
  doc.identify.forEach((c, n) => assert.deepEqual(got.identify[n], c.expect, c.name));
  doc.answer.forEach((c, n) => assert.deepEqual(got.answer[n], c.expect, c.name));
  assert.deepEqual(keyRelations(doc, got.identify), []);
  assert.deepEqual(got, replayAgentVectors(doc));
});

test('workerd: a ledger\'s decisions reach its onEvent hook (no @opentelemetry/api in the bundle)', async () => {
  const r = await fetch(stores, { method: 'POST', body: JSON.stringify({ name: 'events', method: 'events' }) });
  const b = await r.json();
  assert.equal(b.error, undefined, b.error);
  const claimed = { detail: 'attempt 1 by edge-w1' };
  assert.deepEqual(
    b.ok.map((e) => (e.error ? e : { kind: e.kind, scope: e.scope, tool: e.tool, detail: e.detail.replace(/;.*/, '') })),
    [
      { kind: 'claimed', scope: 'edge', tool: 'pay', ...claimed },
      { kind: 'executed', scope: 'edge', tool: 'pay', detail: 'attempt 1' },
      { kind: 'replayed', scope: 'edge', tool: 'pay', detail: '' },
      { kind: 'claimed', scope: 'edge', tool: 'email', ...claimed },
      { kind: 'in-doubt', scope: 'edge', tool: 'email', detail: 'timed out' },
      { kind: 'escalated', scope: 'edge', tool: 'email', detail: 'attempt 1 failed ambiguously: timed out' },
      { error: 'escalated' },
    ],
  );
  assert.doesNotMatch(workerd.logs(), /oncely: /, 'nothing logged');
});

/** The store in a Durable Object, reached over HTTP. */
class RemoteStore {
  constructor(name) {
    this.name = name;
  }
  async call(method, args) {
    const r = await fetch(stores, { method: 'POST', body: JSON.stringify({ name: this.name, method, args }) });
    const b = await r.json();
    if (b.error) throw new Error(b.error);
    return b.ok;
  }
  get(s, k) {
    return this.call('get', [s, k]);
  }
  insert(e) {
    return this.call('insert', [e]);
  }
  update(v, e, opts) {
    return this.call('update', [v, e, opts]);
  }
  delete(s, k, v) {
    return this.call('delete', [s, k, v]);
  }
  list(s, f) {
    return this.call('list', [s, f]);
  }
  due(s, n, l) {
    return this.call('due', [s, n, l]);
  }
  history(s, k) {
    return this.call('history', [s, k]);
  }
}

test('workerd: the Durable Object store passes ledger.json (its writes keeping the history), races once, keeps sqlx\'s bookkeeping', async () => {
  let n = 0;
  const trace = [];
  const steps = await replayLedgerVectors(() => new RemoteStore(`vectors-${n++}`), { trace });
  assert.ok(steps > 50);
  assert.deepEqual(trace, await memoryTrace(), 'the Durable Object store keeps the in-memory store\'s history');
  // Racing ledgers over one Durable Object: the tool runs once.
  const store = new RemoteStore('race');
  let runs = 0;
  const intent = { scope: 'edge', run: 'r', step: 's', tool: 'charge', args: { charge_id: 'ch_race' } };
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      new Ledger(store, { owner: `w${i}` }).effect(intent, REFUND_POLICY, async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 30));
        return { by: i };
      }),
    ),
  );
  assert.equal(runs, 1);
  assert.equal(results.filter((r) => !r.replayed).length, 1);
  // The migration bookkeeping is sqlx's, checksum included.
  const m = await new RemoteStore('race').call('migrations', []);
  const sum = (file) => createHash('sha384').update(readFileSync(join(REPO, 'migrations/sqlite', file))).digest('hex').toUpperCase();
  assert.deepEqual(m, [
    { version: 20261130000000, description: 'effects', success: 1, checksum: sum('20261130000000_effects.sql') },
    { version: 20261201000000, description: 'due at', success: 1, checksum: sum('20261201000000_due_at.sql') },
    { version: 20261202000000, description: 'max call', success: 1, checksum: sum('20261202000000_max_call.sql') },
    { version: 20261203000000, description: 'history', success: 1, checksum: sum('20261203000000_history.sql') },
    { version: 20261204000000, description: 'run step', success: 1, checksum: sum('20261204000000_run_step.sql') },
    { version: 20261205000000, description: 'waiting', success: 1, checksum: sum('20261205000000_waiting.sql') },
    { version: 20261206000000, description: 'history in row', success: 1, checksum: sum('20261206000000_history_in_row.sql') },
    { version: 20261207000000, description: 'history by write', success: 1, checksum: sum('20261207000000_history_by_write.sql') },
    { version: 20261208000000, description: 'approval', success: 1, checksum: sum('20261208000000_approval.sql') },
    { version: 20261209000000, description: 'awaiting', success: 1, checksum: sum('20261209000000_awaiting.sql') },
  ]);
  // Rows carry the core's due time, and `due` selects by it.
  assert.equal((await store.due(null, Number.MAX_SAFE_INTEGER, 10)).length, 1);
  assert.equal((await store.due(null, 0, 10)).length, 0);
});
