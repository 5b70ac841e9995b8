// scripts/snippets: runs before a README block that sends a keyed request: `api`, a local
// stand-in for the provider (201 with the key it was sent), and the `ledger`, `intent`, `policy`
// and `args` a reader already has.
import { createServer } from 'node:http';
import * as snippetOncely from 'oncely';

const api = await new Promise((resolve) => {
  const server = createServer((req, res) => {
    res.writeHead(201, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ refund_id: 're_1', key: req.headers['idempotency-key'] }));
  });
  server.listen(0, '127.0.0.1', () => {
    server.unref();
    resolve(`http://127.0.0.1:${server.address().port}`);
  });
});
const ledger = new snippetOncely.Ledger(new snippetOncely.MemoryStore());
const policy = { class: 'irreversible-external', reconcile: 'provider-idempotent' };
const args = { charge_id: 'ch_1', amount: 500 };
const intent = { scope: 'acme', run: 'run-7', tool: 'refund', args };
