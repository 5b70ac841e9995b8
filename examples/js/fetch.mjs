#!/usr/bin/env node
// oncely/fetch: an HTTP provider called with the key as Idempotency-Key, its answers in the
// ledger's words. A local server (127.0.0.1) plays a payment API that pays every POST it gets and
// answers the first one too late; it has a lookup by key. The first refund times out, is
// reconciled through the lookup, and the same intent asked again is a replay: one refund.
//
//   npm install oncely && node fetch.mjs
import { once as onEvent } from 'node:events';
import { createServer } from 'node:http';
import { happened, Ledger, MemoryStore, notHappened } from 'oncely';
import { keyedFetch } from 'oncely/fetch';

const refunds = [];
const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  let body = '';
  for await (const c of req) body += c;
  const json = (status, v) => (res.writeHead(status, { 'content-type': 'application/json' }), res.end(JSON.stringify(v)));
  if (req.method === 'POST' && url.pathname === '/refunds') {
    const r = { id: `re_${refunds.length + 1}`, key: req.headers['idempotency-key'], ...JSON.parse(body) };
    refunds.push(r);
    if (refunds.length === 1) await new Promise((ok) => setTimeout(ok, 1000)); // the answer comes too late
    return json(201, { id: r.id, status: 'succeeded' });
  }
  if (url.pathname === '/refunds/by-key') {
    const r = refunds.find((x) => x.key === url.searchParams.get('key'));
    return r ? json(200, { id: r.id, status: 'succeeded' }) : json(404, { error: 'no such refund' });
  }
  json(404, { error: 'no route' });
});
server.listen(0, '127.0.0.1');
await onEvent(server, 'listening');
const api = `http://127.0.0.1:${server.address().port}`;

const ledger = new Ledger(new MemoryStore());
// Reconcile an unknown outcome: ask the provider for the refund made with the key.
ledger.reconciler('refund', async (req) => {
  try {
    return happened((await keyedFetch(`${api}/refunds/by-key?key=${encodeURIComponent(req.key)}`, { key: req.key })).body);
  } catch (e) {
    if (e.status === 404) return notHappened();
    throw e; // anything else: still unknown
  }
});
const policy = { class: 'irreversible-external', key: { identity: 'run' }, reconcile: { lookup: 'find_refund' } };

for (const args of [{ charge_id: 'ch_1', amount_cents: 500 }, { amount_cents: 5e2, charge_id: 'ch_1' }]) {
  const r = await ledger.effect({ scope: 'shop', run: 'conv-7', tool: 'refund', args }, policy, (key, call) =>
    keyedFetch(`${api}/refunds`, { method: 'POST', json: args, call, timeoutMs: 200 }),
  );
  console.log(`refund ${JSON.stringify(args)} -> ${JSON.stringify(r.value)}${r.replayed ? ' (from the ledger' + (r.reconciled ? ', reconciled through the lookup' : '') + ')' : ''}`);
}
console.log(`\nrefunds made: ${refunds.length}, each with its Idempotency-Key: ${refunds.map((r) => r.key.slice(0, 20) + '…').join(', ')}`);
server.closeAllConnections();
server.close();
process.exit(refunds.length === 1 ? 0 : 1);
