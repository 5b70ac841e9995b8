// The Hono provider in a real Node server (@hono/node-server): node hono-server.mjs DB DIR.
// Prints "listening PORT" once it serves on 127.0.0.1.
import { serve } from '@hono/node-server';
import { Ledger } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { providerApp } from './hono-app.mjs';
import { withLookup } from './behaviour.mjs';
import { fileProbe } from './probe.mjs';

const [db, dir] = process.argv.slice(2);
const ledger = withLookup(new Ledger(await SqliteStore.open(db), { owner: `hono-${process.pid}` }));
const app = providerApp({ ledger, probe: fileProbe(dir) });
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`listening ${info.port}`));
