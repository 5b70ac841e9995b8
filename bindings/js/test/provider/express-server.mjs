// The Express 5 provider in a real Node server: node express-server.mjs DB DIR.
// Prints "listening PORT" once it serves on 127.0.0.1.
import express from 'express';
import { Ledger } from 'oncely';
import { once, rawBody } from 'oncely/express';
import { SqliteStore } from 'oncely/sqlite';
import { behave, REFUND_POLICY, withLookup } from './behaviour.mjs';
import { fileProbe } from './probe.mjs';

const [db, dir] = process.argv.slice(2);
const ledger = withLookup(new Ledger(await SqliteStore.open(db), { owner: `express-${process.pid}` }));
const probe = fileProbe(dir);
const scope = (req) => req.get('x-tenant') ?? 'tenant-1';
const app = express();
const handler = async (req, res) => {
  const body = req.body; // keyed: set by once(), which read the raw body; unkeyed: by express.json()
  const r = await behave(probe, { route: req.path, key: req.oncely?.clientKey ?? null, body });
  if (r.kind === 'throw') throw new Error('the bank exploded after paying'); // Express 5: to the error handler
  if (r.kind === '503') return res.status(503).json({ error: 'upstream unavailable' });
  res.status(201).location(`/refunds/${r.id}`).json({ id: r.id, charge: body.charge, amount: body.amount });
};
app.post('/refunds', once({ ledger, scope, tool: 'refund', policy: REFUND_POLICY, required: true }), handler);
// A concurrent duplicate waits for the first (up to 30 s); arrivals recorded as in hono-app.mjs.
const arriving = async (req) => {
  await probe.record({ arrived: req.get('idempotency-key') ?? null });
  return scope(req);
};
app.post('/waiting', once({ ledger, scope: arriving, tool: 'waiting', waitMs: 30_000 }), handler);
// Looked up by a reconciler this process does not have (the sweeper's, 10 s after the failure).
app.post('/lookup-later', once({ ledger, scope, tool: 'refund-later', policy: { reconcile: { lookup: 'refund-later' } } }), handler);
app.post('/escalating', once({ ledger, scope }), handler);
app.post('/notes', once({ ledger, scope }), express.json(), handler); // a parser after once(): unkeyed bodies
app.get('/refunds/:id', once({ ledger, scope, tool: 'refund', policy: REFUND_POLICY, required: true }), (req, res) => res.json({ id: req.params.id }));
// A body parser before once(): with `verify: rawBody` the raw bytes are keyed; without, refused.
app.post('/parsed', express.json({ verify: rawBody }), once({ ledger, scope, tool: 'parsed' }), (req, res) =>
  res.status(201).json({ amount: req.body.amount, raw: Buffer.from(req.rawBody).toString('utf8') }),
);
app.post('/parsed-without-raw', express.json(), once({ ledger, scope, tool: 'parsed' }), (req, res) => res.json({}));
// eslint-disable-next-line no-unused-vars
app.use((err, req, res, next) => res.status(500).json({ error: err.message, code: err.code }));
const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
