// oncely/hono in the real workerd binary (npm package `workerd`, started directly, on 127.0.0.1
// only): the same Hono app as on Node (test/provider/hono-app.mjs), bundled with esbuild, its
// ledger a DurableObjectStore in a Durable Object reached from each request (`ledger: (c) => …`),
// driven by Node's fetch through the same scenarios as on Node. Handler runs are counted in a
// second Durable Object the test reads over HTTP. The package bundled is ONCELY_JS_PACKAGE (the
// installed tarball under test.sh) or bindings/js.
import { freePort, startWorkerd } from './helpers/workerd.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import * as esbuild from 'esbuild';
import { bundleWorker } from '../../../examples/edge/build.mjs';
import { PACKAGE_DIR } from './helpers/env.mjs';
import { httpScenarios } from './helpers/provider-http.mjs';
import { tempDir } from './helpers/tmp.mjs';

let workerd = null;
let base;

before(async () => {
  const dir = tempDir('hono-workerd');
  const w = await bundleWorker(fileURLToPath(new URL('./provider/hono-worker.js', import.meta.url)), dir, { esbuild, packageDir: PACKAGE_DIR });
  mkdirSync(join(dir, 'storage'));
  workerd = await startWorkerd(async () => {
    const port = await freePort();
    const config = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .provider),
    (name = "storage", disk = (path = ${JSON.stringify(join(dir, 'storage'))}, writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const provider :Workerd.Worker = (
  modules = [
    (name = "${w.module}", esModule = embed "${w.module}"),
    ${w.wasm.map((f) => `(name = "${f}", wasm = embed "${f}")`).join(',\n    ')}
  ],
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [
    (className = "LedgerObject", uniqueKey = "oncely-test-provider-ledger", enableSql = true),
    (className = "ProbeObject", uniqueKey = "oncely-test-provider-probe", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "storage"),
  bindings = [
    (name = "LEDGER", durableObjectNamespace = "LedgerObject"),
    (name = "PROBE", durableObjectNamespace = "ProbeObject"),
  ],
);
`;
    writeFileSync(join(dir, 'config.capnp'), config);
    base = `http://127.0.0.1:${port}`;
    return { config: join(dir, 'config.capnp'), readyUrl: `${base}/ready` };
  }, dir);
});

after(async () => {
  await workerd?.stop();
});

httpScenarios('hono in workerd', () => ({
  base,
  events: async () => (await fetch(`${base}/__probe/events`)).json(),
  open: async (name) => {
    const r = await fetch(`${base}/__probe/open?name=${encodeURIComponent(name)}`, { method: 'POST' });
    if (!r.ok) throw new Error(`open ${name}: ${r.status} ${await r.text()}\n${workerd.logs()}`);
  },
}));
