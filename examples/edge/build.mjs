#!/usr/bin/env node
// Bundle the edge example for workerd and write its config:
//
//   node build.mjs [--port 8787] [--pay-port 8788] [--out dist]
//   node_modules/.bin/workerd serve dist/config.capnp      # then: curl -X POST 127.0.0.1:8787/keys …
//
// Needs `esbuild`, `workerd` and `oncely` installed next to it (npm i -D esbuild workerd
// and the oncely package). The bundle keeps the core's .wasm as its own module (Workers compile
// WebAssembly only from modules, never from bytes at run time), resolved with the `workerd`
// export condition, as wrangler does. With wrangler, `wrangler.toml` here does the same.

import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Bundle one Worker entry into `outDir` (ESM; `.wasm` imports kept as sibling modules, whose
 * names are returned). `packageDir`, when given, is the oncely package to bundle (else normal
 * resolution from this folder).
 */
export async function bundleWorker(entry, outDir, { esbuild, packageDir } = {}) {
  esbuild ??= await import('esbuild');
  mkdirSync(outDir, { recursive: true });
  const nodePaths = [];
  if (packageDir) {
    const mods = join(outDir, '.modules');
    rmSync(mods, { recursive: true, force: true });
    mkdirSync(join(mods, '@oncely-dev'), { recursive: true });
    symlinkSync(resolve(packageDir), join(mods, 'oncely'), 'dir');
    nodePaths.push(mods);
  }
  const wasm = new Set();
  await esbuild.build({
    entryPoints: [entry],
    outfile: join(outDir, basename(entry)),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker'],
    external: ['cloudflare:*'],
    nodePaths,
    logLevel: 'warning',
    plugins: [
      {
        name: 'wasm-modules',
        setup(b) {
          b.onResolve({ filter: /\.wasm$/ }, (args) => {
            const file = resolve(args.resolveDir, args.path);
            copyFileSync(file, join(outDir, basename(file)));
            wasm.add(basename(file));
            return { path: `./${basename(file)}`, external: true };
          });
        },
      },
    ],
  });
  return { module: basename(entry), wasm: [...wasm] };
}

/**
 * Build the example into `outDir`: the Worker, FlakyPay, and `config.capnp` serving them on
 * 127.0.0.1:`port` and 127.0.0.1:`payPort`, with Durable Object storage in `outDir/storage`.
 * `extra` ({services, sockets, definitions}: capnp snippets) lets a test add its own workers.
 */
export async function build({ outDir = join(here, 'dist'), port = 8787, payPort = 8788, esbuild, packageDir, extra = {} } = {}) {
  outDir = resolve(outDir);
  const main = await bundleWorker(join(here, 'worker.js'), outDir, { esbuild, packageDir });
  const pay = await bundleWorker(join(here, 'flakypay.js'), outDir, { esbuild, packageDir });
  mkdirSync(join(outDir, 'storage'), { recursive: true });
  const modules = (b) =>
    [`(name = "${b.module}", esModule = embed "${b.module}")`, ...b.wasm.map((w) => `(name = "${w}", wasm = embed "${w}")`)].join(',\n    ');
  const config = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .edge),
    (name = "pay", worker = .pay),
    (name = "storage", disk = (path = ${JSON.stringify(join(outDir, 'storage'))}, writable = true)),
    ${(extra.services ?? []).join(',\n    ')}
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:${port}", http = (), service = "main"),
    (name = "pay-http", address = "127.0.0.1:${payPort}", http = (), service = "pay"),
    ${(extra.sockets ?? []).join(',\n    ')}
  ],
);

const edge :Workerd.Worker = (
  modules = [
    ${modules(main)}
  ],
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [ (className = "LedgerObject", uniqueKey = "oncely-edge-example-ledger", enableSql = true) ],
  durableObjectStorage = (localDisk = "storage"),
  bindings = [
    (name = "LEDGER", durableObjectNamespace = "LedgerObject"),
    (name = "PAY", service = "pay"),
  ],
);

const pay :Workerd.Worker = (
  modules = [
    ${modules(pay)}
  ],
  compatibilityDate = "2025-09-01",
);
${(extra.definitions ?? []).join('\n')}
`;
  writeFileSync(join(outDir, 'config.capnp'), config);
  return { outDir, config: join(outDir, 'config.capnp') };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8787' }, 'pay-port': { type: 'string', default: '8788' }, out: { type: 'string' } } });
  const r = await build({ outDir: values.out, port: Number(values.port), payPort: Number(values['pay-port']) });
  console.log(`built ${r.config}\nrun: workerd serve ${r.config}`);
}
