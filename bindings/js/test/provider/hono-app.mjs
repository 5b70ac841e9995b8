// The Hono provider of the tests, the same app on Node (@hono/node-server) and in workerd. `ledger`:
// a Ledger or `(c) => Ledger`; `probe` (or `(c) => probe`): where handler runs are counted and gates wait.
import { Hono } from 'hono';
import { once } from 'oncely/hono';
import { behave, REFUND_POLICY } from './behaviour.mjs';

export function providerApp({ ledger, probe }) {
  const app = new Hono();
  app.onError((e, c) => c.json({ error: e.message }, 500));
  const scope = (c) => c.req.header('x-tenant') ?? 'tenant-1';
  const handler = async (c) => {
    const body = await c.req.json(); // still readable: once() read the body with arrayBuffer()
    const r = await behave(typeof probe === 'function' ? probe(c) : probe, { route: c.req.path, key: c.get('oncely')?.clientKey ?? null, body });
    if (r.kind === 'throw') throw new Error('the bank exploded after paying');
    if (r.kind === '503') return c.json({ error: 'upstream unavailable' }, 503);
    return c.json({ id: r.id, charge: body.charge, amount: body.amount }, 201, { location: `/refunds/${r.id}` });
  };
  app.post('/refunds', once({ ledger, scope, tool: 'refund', policy: REFUND_POLICY, required: true }), handler);
  // A concurrent duplicate waits for the first (up to 30 s) and gets its replay; each arrival is
  // recorded (by the scope function, before the ledger is asked) so the test knows it is there.
  const arriving = async (c) => {
    const p = typeof probe === 'function' ? probe(c) : probe;
    await p.record({ arrived: c.req.header('idempotency-key') ?? null });
    return scope(c);
  };
  app.post('/waiting', once({ ledger, scope: arriving, tool: 'waiting', waitMs: 30_000 }), handler);
  // Looked up by a reconciler this process does not have (the sweeper's, 10 s after the failure).
  app.post('/lookup-later', once({ ledger, scope, tool: 'refund-later', policy: { reconcile: { lookup: 'refund-later' } } }), handler);
  app.post('/escalating', once({ ledger, scope }), handler);
  app.post('/notes', once({ ledger, scope }), handler);
  app.get('/refunds/:id', once({ ledger, scope, tool: 'refund', policy: REFUND_POLICY, required: true }), (c) => c.json({ id: c.req.param('id') }));
  return app;
}
