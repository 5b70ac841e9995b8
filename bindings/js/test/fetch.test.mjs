// oncely/fetch against a real HTTP server (node:http on 127.0.0.1): the key goes out as
// Idempotency-Key; 2xx is done, a "not performed" 4xx is definite, and a timeout, a dropped
// connection, a refused connection, a 5xx or another 4xx are ambiguous. Then through the ledger:
// a refund whose reply is too slow, or whose server fails after paying, is paid once and settled
// by the provider's lookup.
import assert from 'node:assert/strict';
import { once as onEvent } from 'node:events';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { AmbiguousFailure, DefiniteFailure, happened, Ledger, MemoryStore, notHappened, ToolFailedError } from 'oncely';
import { classifyStatus, keyedFetch, NOT_PERFORMED } from 'oncely/fetch';
import { vectors } from './helpers/env.mjs';

// ---- the provider: pays every POST /refunds it gets (it does not deduplicate), keeps the key ----
const refunds = [];
const requests = [];
let server;
let base;

function send(res, status, body, type = 'application/json') {
  res.writeHead(status, { 'content-type': type });
  res.end(type === 'application/json' ? JSON.stringify(body) : body);
}

before(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let text = '';
    for await (const chunk of req) text += chunk;
    requests.push({ method: req.method, path: url.pathname, key: req.headers['idempotency-key'] ?? null, type: req.headers['content-type'] ?? null, body: text });
    const pay = () => {
      const r = { id: `re_${refunds.length + 1}`, ...JSON.parse(text || '{}'), key: req.headers['idempotency-key'] };
      refunds.push(r);
      return r;
    };
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));
    switch (url.pathname) {
      case '/refunds': // pays; answers after `delay` ms (if the client is still there)
        {
          const r = pay();
          await wait(Number(url.searchParams.get('delay') ?? 0));
          return send(res, 201, { id: r.id, status: 'succeeded' });
        }
      case '/refunds-then-503': // pays, then fails
        pay();
        return send(res, 503, { error: 'upstream unavailable' });
      case '/refunds-then-reset': // pays, then drops the connection
        pay();
        return req.socket.destroy();
      case '/lookup': {
        const r = refunds.find((x) => x.key === url.searchParams.get('key'));
        return send(res, 200, r ? { found: true, refund: { id: r.id, status: 'succeeded' } } : { found: false });
      }
      case '/status': // answers with the status asked for, performing nothing
        return send(res, Number(url.searchParams.get('code')), { error: `status ${url.searchParams.get('code')}` });
      case '/text':
        return send(res, 200, 'plain words', 'text/plain');
      case '/empty':
        res.writeHead(204);
        return res.end();
      default:
        return send(res, 404, { error: 'no such route' });
    }
  });
  server.listen(0, '127.0.0.1');
  await onEvent(server, 'listening');
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const KEY = 'oncely1:' + 'ab'.repeat(32);

test('2xx: the key goes out as Idempotency-Key; the body comes back parsed', async () => {
  const n = requests.length;
  const r = await keyedFetch(`${base}/refunds`, { method: 'POST', json: { charge_id: 'ch_1', amount_cents: 500 }, key: KEY });
  assert.deepEqual(r, { status: 201, body: { id: `re_${refunds.length}`, status: 'succeeded' } });
  assert.deepEqual(requests[n], { method: 'POST', path: '/refunds', key: KEY, type: 'application/json', body: '{"charge_id":"ch_1","amount_cents":500}' });
  assert.deepEqual(await keyedFetch(`${base}/text`, { key: KEY }), { status: 200, body: 'plain words' });
  assert.deepEqual(await keyedFetch(`${base}/empty`, { key: KEY, header: 'X-Request-Key' }), { status: 204, body: null });
  assert.equal(requests.at(-1).key, null, 'a renamed header replaces Idempotency-Key');
  await assert.rejects(keyedFetch(`${base}/text`, {}), /give the idempotency key/);
});

test('statuses are read as tests/vectors/http.json says (the same table as Python)', () => {
  const v = vectors('http.json');
  assert.deepEqual([...NOT_PERFORMED], v.notPerformed);
  assert.ok(v.cases.length > 40);
  for (const c of v.cases) assert.equal(classifyStatus(c.status), c.outcome, `HTTP ${c.status}`);
  assert.equal(classifyStatus(409, new Set([409])), 'not-performed');
  assert.equal(classifyStatus(404, [402]), 'unknown');
});

test('a "not performed" status is definite; 5xx, 409 and other statuses are ambiguous', async () => {
  for (const code of NOT_PERFORMED) {
    const e = await keyedFetch(`${base}/status?code=${code}`, { method: 'POST', key: KEY }).catch((x) => x);
    assert.ok(e instanceof DefiniteFailure, `${code}: ${e}`);
    assert.equal(e.status, code);
    assert.deepEqual(e.body, { error: `status ${code}` });
    assert.match(e.reason, new RegExp(`HTTP ${code} .*not performed`));
  }
  for (const code of [408, 409, 423, 425, 500, 502, 503, 504]) {
    const e = await keyedFetch(`${base}/status?code=${code}`, { method: 'POST', key: KEY }).catch((x) => x);
    assert.ok(e instanceof AmbiguousFailure, `${code}: ${e}`);
    assert.equal(e.status, code);
    assert.match(e.reason, /the server may have acted/);
  }
  // What a provider documents replaces the default list.
  const e = await keyedFetch(`${base}/status?code=409`, { key: KEY, notPerformed: [409] }).catch((x) => x);
  assert.ok(e instanceof DefiniteFailure);
  const f = await keyedFetch(`${base}/status?code=404`, { key: KEY, notPerformed: [409] }).catch((x) => x);
  assert.ok(f instanceof AmbiguousFailure);
});

test('a timeout, an abort, a dropped or refused connection are ambiguous', async () => {
  const slow = await keyedFetch(`${base}/refunds?delay=2000`, { method: 'POST', json: {}, key: KEY, timeoutMs: 100 }).catch((x) => x);
  assert.ok(slow instanceof AmbiguousFailure, String(slow));
  assert.match(slow.reason, /timed out; the server may have acted/);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  const aborted = await keyedFetch(`${base}/refunds?delay=2000`, { method: 'POST', json: {}, key: KEY, signal: ac.signal }).catch((x) => x);
  assert.ok(aborted instanceof AmbiguousFailure);
  assert.match(aborted.reason, /aborted/);
  const reset = await keyedFetch(`${base}/refunds-then-reset`, { method: 'POST', json: {}, key: KEY }).catch((x) => x);
  assert.ok(reset instanceof AmbiguousFailure, String(reset));
  assert.match(reset.reason, /failed/);
  // A port nothing listens on.
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await onEvent(closed, 'listening');
  const port = closed.address().port;
  closed.close();
  await onEvent(closed, 'close');
  const refused = await keyedFetch(`http://127.0.0.1:${port}/refunds`, { method: 'POST', key: KEY }).catch((x) => x);
  assert.ok(refused instanceof AmbiguousFailure, String(refused));
  assert.match(refused.reason, /ECONNREFUSED/);
});

// ---- through the ledger -------------------------------------------------------------------------

function ledgerWithLookup() {
  const ledger = new Ledger(new MemoryStore());
  ledger.reconciler('refund', async (req) => {
    const { body } = await keyedFetch(`${base}/lookup?key=${encodeURIComponent(req.key)}`, { key: req.key, timeoutMs: 2000 });
    return body.found ? happened(body.refund) : notHappened();
  });
  return ledger;
}
// One refund per run and arguments (no step: the identity is the run).
const POLICY = { class: 'irreversible-external', key: { identity: 'run' }, reconcile: { lookup: 'find_refund' }, maxCallMs: 2000 };
const intent = (run, args) => ({ scope: 'shop', run, tool: 'refund', args });

test('ledger: a reply too slow, a 503 after paying, a dropped connection -> one refund each, settled by the lookup; a repeat replays', async () => {
  for (const [run, path] of [
    ['slow', '/refunds?delay=1000'],
    ['503', '/refunds-then-503'],
    ['reset', '/refunds-then-reset'],
  ]) {
    const ledger = ledgerWithLookup();
    const before = refunds.length;
    const args = { charge_id: `ch_${run}`, amount_cents: 500 };
    const call = (key, c) => keyedFetch(`${base}${path}`, { method: 'POST', json: args, call: c, timeoutMs: 200 });
    const first = await ledger.effect(intent(run, args), POLICY, call);
    assert.equal(first.reconciled, true, run);
    assert.deepEqual(first.value, { id: `re_${before + 1}`, status: 'succeeded' });
    const again = await ledger.effect(intent(run, { amount_cents: 5e2, charge_id: `ch_${run}` }), POLICY, call);
    assert.equal(again.replayed, true);
    assert.deepEqual(again.value, first.value);
    assert.equal(refunds.length - before, 1, `${run}: the provider paid ${refunds.length - before} times`);
    assert.equal(refunds.at(-1).key, first.key);
    console.log(`# fetch: ${run}: ${refunds.length - before} refund`);
  }
});

test('ledger: a "not performed" 4xx is a definite failure, recorded; the deadline aborts the request', async () => {
  const ledger = ledgerWithLookup();
  const n = requests.length;
  const call = (key, c) => keyedFetch(`${base}/status?code=422`, { method: 'POST', json: {}, call: c });
  const e = await ledger.effect(intent('422', { charge_id: 'ch_x' }), POLICY, call, { maxAttempts: 1 }).catch((x) => x);
  assert.ok(e instanceof ToolFailedError, String(e));
  assert.match(e.reason, /HTTP 422 .*\(not performed\)/);
  assert.equal(requests.length - n, 1);
  assert.equal((await ledger.list('shop', { tool: 'refund', state: 'failed' })).length, 1);
  // The call's signal is the policy's deadline: a request still running then is aborted, in doubt.
  const before = refunds.length;
  const slow = (key, c) => keyedFetch(`${base}/refunds?delay=2000`, { method: 'POST', json: {}, call: c });
  const r = await ledger.effect(intent('deadline', { charge_id: 'ch_y' }), { ...POLICY, maxCallMs: 150 }, slow);
  assert.equal(r.reconciled, true);
  assert.equal(refunds.length - before, 1);
});
