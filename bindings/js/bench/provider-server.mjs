// The server side of bench/provider.mjs: a Hono app in a real Node server (@hono/node-server),
// `POST /refunds` reading a JSON body and answering 201 with JSON, bare or behind oncely/hono.
//
//   node bench/provider-server.mjs bare          the app alone
//   node bench/provider-server.mjs DB            behind once() with a SQLite ledger in DB
//
// Prints "listening PORT" once it serves on 127.0.0.1.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Ledger } from 'oncely';
import { once } from 'oncely/hono';
import { SqliteStore } from 'oncely/sqlite';

const [db] = process.argv.slice(2);
const app = new Hono();
const refund = async (c) => {
  const body = await c.req.json();
  return c.json({ id: `re_${body.charge}`, charge: body.charge, amount: body.amount, status: 'succeeded' }, 201);
};
if (db === 'bare') {
  app.post('/refunds', refund);
} else {
  // The middleware's defaults, as a user would start: the route's tool, the core's policy.
  const ledger = new Ledger(await SqliteStore.open(db), { owner: `bench-${process.pid}` });
  app.post('/refunds', once({ ledger, scope: 'bench', required: true }), refund);
}
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`listening ${info.port}`));
