// oncely/hono in a real Node server process (test/provider/hono-server.mjs, a SQLite ledger file),
// driven by Node's fetch: timeouts and retries, reordered JSON, races, mismatches, handlers that
// fail, required keys, GET. The handler runs are counted in a file the server appends to.
import { after, before } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpScenarios } from './helpers/provider-http.mjs';
import { startServer } from './helpers/server.mjs';
import { tempDir } from './helpers/tmp.mjs';
import { fileProbeReader } from './provider/probe.mjs';

let srv;
let probe;

before(async () => {
  const dir = tempDir('hono');
  probe = fileProbeReader(dir);
  srv = await startServer(fileURLToPath(new URL('./provider/hono-server.mjs', import.meta.url)), [join(dir, 'ledger.db'), dir]);
});

after(() => srv?.stop());

httpScenarios('hono on node', () => ({ base: srv.base, events: probe.events, open: probe.open }));
