// The scenarios every HTTP provider middleware passes (Hono on Node, Hono in workerd, Express),
// driven by Node's own fetch against a real server process. `server()` gives {base, events(),
// open(name)}: the server's URL, the handler runs it recorded (read from outside the server), and
// opening a gate a held handler waits at. The app is test/provider/hono-app.mjs or
// express-server.mjs: /refunds (key required, looked up when in doubt), /escalating (the default
// policy: a person settles), /notes (key optional), GET /refunds/:id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { until } from './server.mjs';

const JSON_TYPE = { 'content-type': 'application/json' };

export function post(base, path, body, { key, headers = {}, signal } = {}) {
  const h = { ...JSON_TYPE, ...headers };
  if (key !== undefined) h['idempotency-key'] = key;
  return fetch(`${base}${path}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: h, signal });
}

async function read(r) {
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: /json/.test(r.headers.get('content-type') ?? '') && text ? JSON.parse(text) : null };
}

const problemKind = (r) => r.json?.type?.split('#')[1];
const ranWith = async (s, key) => (await s.events()).filter((e) => e.arrived === undefined && e.key === key);

/** Send until the answer is no longer 409 request-in-progress (the first run still going). */
async function settled(send) {
  let last;
  await until('the first request to finish', async () => {
    last = await read(await send());
    if (last.status === 409 && problemKind(last) === 'request-in-progress') {
      assert.ok(Number(last.headers.get('retry-after')) >= 1, 'a 409 in progress says when to come back');
      return false;
    }
    return true;
  });
  return last;
}

export function httpScenarios(label, server) {
  test(`${label}: a client that times out retries and gets the response, byte for byte, from the one run`, async () => {
    const s = server();
    const key = randomUUID();
    const body = { charge: 'ch_timeout', amount: 500, sleepMs: 1500 };
    await assert.rejects(post(s.base, '/refunds', body, { key, signal: AbortSignal.timeout(300) }), (e) => e.name === 'TimeoutError');
    const r = await settled(() => post(s.base, '/refunds', body, { key }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('idempotent-replayed'), 'true');
    const runs = await ranWith(s, key);
    assert.equal(runs.length, 1, 'the handler ran once');
    // What the handler answered (c.json / res.json of this object), byte for byte.
    assert.equal(r.text, JSON.stringify({ id: runs[0].id, charge: 'ch_timeout', amount: 500 }));
    assert.equal(r.headers.get('location'), `/refunds/${runs[0].id}`);
    assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
    const again = await read(await post(s.base, '/refunds', body, { key }));
    assert.deepEqual([again.status, again.text, again.headers.get('idempotent-replayed')], [201, r.text, 'true']);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  test(`${label}: the same request with its JSON members reordered and reformatted is a replay`, async () => {
    const s = server();
    const key = randomUUID();
    const first = await read(await post(s.base, '/refunds', '{"charge":"ch_order","amount":500}', { key }));
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const second = await read(await post(s.base, '/refunds', '{\n  "amount" : 5e2 ,\t"charge":"ch_order" }', { key }));
    assert.deepEqual([second.status, second.text, second.headers.get('idempotent-replayed')], [201, first.text, 'true']);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  test(`${label}: two requests race with one key: the handler runs once, the other gets 409 with Retry-After`, async () => {
    const s = server();
    const key = randomUUID();
    const gate = randomUUID();
    const body = { charge: 'ch_race', amount: 500, gate };
    const answers = [];
    const both = Promise.all([0, 1].map(() => post(s.base, '/refunds', body, { key }).then(read).then((r) => (answers.push(r), r))));
    // One run holds the claim at the gate; the other is answered without waiting for it.
    await until('one of the two to be answered', () => answers.length === 1);
    assert.equal((await ranWith(s, key)).length, 1);
    const [busy] = answers;
    assert.deepEqual([busy.status, problemKind(busy), busy.headers.get('content-type')], [409, 'request-in-progress', 'application/problem+json'], busy.text);
    assert.ok(Number(busy.headers.get('retry-after')) >= 1);
    await s.open(gate);
    const [a, b] = await both;
    const fresh = a.status === 201 ? a : b;
    assert.deepEqual([a.status, b.status].sort(), [201, 409]);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    const later = await read(await post(s.base, '/refunds', body, { key }));
    assert.deepEqual([later.status, later.text, later.headers.get('idempotent-replayed')], [201, fresh.text, 'true']);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  test(`${label}: with waitMs, a concurrent duplicate waits for the first and gets its replay`, async () => {
    const s = server();
    const key = randomUUID();
    const gate = randomUUID();
    const body = { charge: 'ch_wait', amount: 9, gate };
    const answers = [];
    const send = () => post(s.base, '/waiting', body, { key }).then(read).then((r) => (answers.push(r), r));
    const first = send();
    await until('the first to hold the claim', async () => (await ranWith(s, key)).length === 1);
    const second = send();
    await until('the second to arrive', async () => (await s.events()).filter((e) => e.arrived === key).length === 2);
    assert.equal(answers.length, 0, 'the second waits: it is not refused');
    await s.open(gate);
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual([a.status, b.status, a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')], [201, 201, null, 'true'], b.text);
    assert.equal(b.text, a.text);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  test(`${label}: the same key with another body is refused 422, naming the differing member`, async () => {
    const s = server();
    const key = randomUUID();
    assert.equal((await post(s.base, '/refunds', { charge: 'ch_m', amount: 500 }, { key })).status, 201);
    const r = await read(await post(s.base, '/refunds', { charge: 'ch_m', amount: 700 }, { key }));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual([problemKind(r), r.json.status, r.json.pointer, r.json.part], ['idempotency-key-reused', 422, '/amount', 'body']);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  for (const fail of ['throw', '503']) {
    test(`${label}: a handler that ${fail === 'throw' ? 'raises' : 'answers 503'} leaves the key in doubt: retries get 409 outcome-in-doubt, never a second run`, async () => {
      const s = server();
      const key = randomUUID();
      const body = { charge: `ch_${fail}`, amount: 1, fail };
      const first = await read(await post(s.base, '/refunds', body, { key }));
      // The first caller gets the handler's own answer (the app's error handler, or its 503).
      assert.deepEqual([first.status, first.json], fail === 'throw' ? [500, { error: 'the bank exploded after paying' }] : [503, { error: 'upstream unavailable' }]);
      for (let i = 0; i < 2; i++) {
        const r = await read(await post(s.base, '/refunds', body, { key }));
        assert.deepEqual([r.status, problemKind(r)], [409, 'outcome-in-doubt'], r.text);
      }
      assert.equal((await ranWith(s, key)).length, 1, 'never run again blindly');
    });
  }

  test(`${label}: an in-doubt key whose lookup is not due yet: 409 outcome-in-doubt with Retry-After`, async () => {
    const s = server();
    const key = randomUUID();
    const body = { charge: 'ch_later', amount: 1, fail: '503' };
    assert.equal((await post(s.base, '/lookup-later', body, { key })).status, 503);
    const r = await read(await post(s.base, '/lookup-later', body, { key }));
    assert.deepEqual([r.status, problemKind(r)], [409, 'outcome-in-doubt'], r.text);
    const after = Number(r.headers.get('retry-after'));
    assert.ok(after >= 1 && after <= 10, `Retry-After ${after}: when the lookup is due`);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  test(`${label}: under the default policy a raising handler's key goes to a person: 409 outcome-escalated`, async () => {
    const s = server();
    const key = randomUUID();
    const body = { charge: 'ch_esc', amount: 1, fail: 'throw' };
    assert.equal((await post(s.base, '/escalating', body, { key })).status, 500);
    const r = await read(await post(s.base, '/escalating', body, { key }));
    assert.deepEqual([r.status, problemKind(r), r.headers.get('retry-after')], [409, 'outcome-escalated', null], r.text);
    assert.equal((await ranWith(s, key)).length, 1);
  });

  test(`${label}: a required key that is missing or malformed is refused 400; GET and unkeyed optional routes pass`, async () => {
    const s = server();
    const tenant = randomUUID();
    const missing = await read(await post(s.base, '/refunds', { charge: 'ch_nokey', amount: 1 }, { headers: { 'x-tenant': tenant } }));
    assert.deepEqual([missing.status, problemKind(missing)], [400, 'idempotency-key-missing'], missing.text);
    const bad = await read(await post(s.base, '/refunds', { charge: 'ch_nokey', amount: 1 }, { key: '"unterminated', headers: { 'x-tenant': tenant } }));
    assert.deepEqual([bad.status, problemKind(bad)], [400, 'idempotency-key-invalid'], bad.text);
    assert.equal((await s.events()).filter((e) => e.charge === 'ch_nokey').length, 0);
    // GET passes through (a key on it means nothing), every time.
    for (let i = 0; i < 2; i++) {
      const g = await read(await fetch(`${s.base}/refunds/re_1`, { headers: { 'idempotency-key': 'k-get' } }));
      assert.deepEqual([g.status, g.json, g.headers.get('idempotent-replayed')], [200, { id: 're_1' }, null]);
    }
    // A route where the key is optional: without one, each request runs.
    const note = { charge: `ch_note_${tenant}`, amount: 2 };
    for (let i = 0; i < 2; i++) assert.equal((await post(s.base, '/notes', note)).status, 201);
    assert.equal((await s.events()).filter((e) => e.charge === note.charge).length, 2);
  });

  test(`${label}: a keyed body over the middleware's limit (1 MiB) is refused 413, the handler not run`, async () => {
    const s = server();
    const charge = `ch_big_${randomUUID()}`;
    const big = JSON.stringify({ charge, amount: 1, pad: 'x'.repeat((1 << 20) + 1) });
    const r = await read(await post(s.base, '/refunds', big, { key: randomUUID() }));
    assert.deepEqual([r.status, problemKind(r)], [413, 'request-too-large'], r.text.slice(0, 200));
    // The same without a Content-Length (chunked): cut off at the limit all the same.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream({
      start(ctl) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) ctl.enqueue(bytes.subarray(i, i + 64 * 1024));
        ctl.close();
      },
    });
    const chunked = await read(await fetch(`${s.base}/refunds`, { method: 'POST', body: stream, duplex: 'half', headers: { ...JSON_TYPE, 'idempotency-key': randomUUID() } }));
    assert.deepEqual([chunked.status, problemKind(chunked)], [413, 'request-too-large'], chunked.text.slice(0, 200));
    assert.equal((await s.events()).filter((e) => e.charge === charge).length, 0);
  });

  test(`${label}: the scope keeps tenants apart: one key from two tenants is two effects`, async () => {
    const s = server();
    const key = randomUUID();
    const body = { charge: 'ch_tenants', amount: 3 };
    const a = await read(await post(s.base, '/refunds', body, { key, headers: { 'x-tenant': 'tenant-a' } }));
    const b = await read(await post(s.base, '/refunds', { ...body, amount: 4 }, { key, headers: { 'x-tenant': 'tenant-b' } }));
    assert.deepEqual([a.status, b.status, b.headers.get('idempotent-replayed')], [201, 201, null]);
    assert.equal((await ranWith(s, key)).length, 2);
  });
}
