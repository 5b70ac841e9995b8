// The provider middleware's options: bad ones are typed errors when the middleware is configured
// (not at the first request), and the defaults name the operation after its route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from 'express';
import { Hono } from 'hono';
import { ConfigurationError, Ledger, MemoryStore } from 'oncely';
import { once as onceExpress } from 'oncely/express';
import { once as onceHono } from 'oncely/hono';
import { once as onceMcp } from 'oncely/mcp';

const ledger = new Ledger(new MemoryStore(), { owner: 'options' });

test('bad options are refused when the middleware is made: TypeError for a wrong shape, ConfigurationError for a policy a provider cannot have', () => {
  for (const once of [onceHono, onceExpress, (o) => onceMcp(() => ({ content: [] }), { tool: 't', ...o })]) {
    assert.throws(() => once(), TypeError);
    assert.throws(() => once({ scope: 's' }), /options\.ledger must be an oncely Ledger/);
    assert.throws(() => once({ ledger }), /options\.scope is required/);
    assert.throws(() => once({ ledger, scope: '' }), /options\.scope is required/);
    assert.throws(() => once({ ledger, scope: 's', waitMs: -1 }), /waitMs/);
    assert.throws(() => once({ ledger, scope: 's', required: 'yes' }), /required/);
    assert.throws(() => once({ ledger, scope: 's', policy: { reconcile: 'provider-idempotent' } }), (e) => e instanceof ConfigurationError && /this is the provider/.test(e.message));
    assert.throws(() => once({ ledger, scope: 's', policy: { key: { only: ['/a'] } } }), ConfigurationError);
    assert.throws(() => once({ ledger, scope: 's', policy: '{not json' }), ConfigurationError);
  }
  assert.throws(() => onceMcp(() => ({ content: [] }), { ledger, scope: 's' }), /options\.tool is required/);
  assert.throws(() => onceMcp('not a function', { ledger, scope: 's', tool: 't' }), TypeError);
});

test('the operation is named after the route by default (Hono: the handler\'s route template; Express: req.route)', async () => {
  const store = new MemoryStore();
  const l = new Ledger(store, { owner: 'names' });
  const app = new Hono();
  app.post('/refunds/:charge', onceHono({ ledger: l, scope: 'acct' }), (c) => c.json({ tool: c.get('oncely').tool }, 201));
  const r = await app.request('/refunds/ch_1', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' } });
  assert.deepEqual(await r.json(), { tool: 'POST /refunds/:charge' });
  assert.deepEqual((await l.list('acct')).map((e) => e.tool), ['POST /refunds/:charge']);

  const ex = express();
  const router = express.Router();
  router.post('/refunds/:charge', onceExpress({ ledger: l, scope: 'acct-x' }), (req, res) => res.status(201).json({ tool: req.oncely.tool }));
  ex.use('/v1', router);
  const srv = ex.listen(0, '127.0.0.1');
  await new Promise((ok) => srv.once('listening', ok));
  try {
    const res = await fetch(`http://127.0.0.1:${srv.address().port}/v1/refunds/ch_1`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' } });
    assert.deepEqual(await res.json(), { tool: 'POST /v1/refunds/:charge' });
  } finally {
    srv.close();
  }
});
