#!/usr/bin/env node
// Writes `dist/` — committed, like gen/ — the package's sources bundled for Node (and Deno and
// Bun), which is what the package's `exports` give every runtime but workerd:
//
//   dist/index.js, dist/sqlite.js, dist/adapters/ai.js, …   one file per entry of `exports`
//   dist/chunk-*.js                                         the code entries share (one copy of
//                                                            each module, so one `Ledger` class
//                                                            and one set of error classes
//                                                            whichever entries an app imports)
//
// Why: Node's module loader pays for every module, and `import 'oncely'` reached 18 of them;
// bundled, it reads 5 files (docs/performance.md, "Cold start (Node)"). The sources stay as they are in src/ and ship too: workerd's bundlers read them (the
// `workerd` and `worker` conditions), and the `oncely-source` condition points at them while
// developing (`node --conditions=oncely-source --test test/x.test.mjs` runs the tests on src/
// without bundling first). Peer packages and Node's built-ins stay imports.
//
//   node scripts/bundle.mjs           rewrite dist/ (npm run build and scripts/component run it)
//   node scripts/bundle.mjs --check   exit 1 unless the committed dist/ is exactly what src/ and
//                                     gen/ give (bindings/js/test.sh runs it)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFiles, staleFiles } from './tree.mjs';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
if (!existsSync(join(pkg, 'node_modules/esbuild/package.json'))) {
  console.error('bundle: esbuild is not installed; run `npm ci` in bindings/js first');
  process.exit(2);
}
const esbuild = await import('esbuild');

// Every entry of `exports` whose Node target is in src/.
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const entryPoints = [];
for (const [subpath, target] of Object.entries(manifest.exports)) {
  const source = typeof target === 'object' ? target['oncely-source'] : undefined;
  if (source === undefined) continue;
  if (!source.startsWith('./src/')) throw new Error(`bundle: exports["${subpath}"]["oncely-source"] is not in src/`);
  entryPoints.push(join(pkg, source));
}

const dist = join(pkg, 'dist');
const scratch = check ? mkdtempSync(join(tmpdir(), 'oncely-dist-')) : null;
const out = check ? join(scratch, 'dist') : dist;
rmSync(out, { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: pkg,
  entryPoints,
  outbase: join(pkg, 'src'),
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Peer packages (better-sqlite3, pg, the frameworks) stay the app's; `#core-module` is this
  // package's own import and is bundled, with the conditions of Node.
  packages: 'external',
  // Whitespace and syntax minified (about 40 % less to parse at import), names kept: a stack trace
  // still names the functions of src/.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// The core module is read relative to the file that reads it (`../gen/core/…`): that file must
// sit directly in dist/, as its source sits directly in src/.
const wasmPath = '../gen/core/oncely-core.core.wasm';
const readers = listFiles(out).filter((f) => readFileSync(join(out, f), 'utf8').includes(wasmPath));
if (readers.length !== 1 || readers[0].includes(sep)) {
  console.error(`bundle: the core module must be read by one file at the top of dist/, found ${readers.join(', ') || 'none'}`);
  process.exit(2);
}

if (!check) {
  console.log(`bundle: dist/ written (${entryPoints.length} entries, ${listFiles(out).length} files)`);
  process.exit(0);
}

const stale = staleFiles(out, dist);
rmSync(scratch, { recursive: true, force: true });
if (stale.length > 0) {
  console.error(`bundle --check: bindings/js/dist/ is not what src/ and gen/ give (${stale.join(', ')}); run \`npm run build\` in bindings/js and commit the result`);
  process.exit(1);
}
console.log(`bundle --check: bindings/js/dist/ matches src/ and gen/ (${listFiles(dist).length} files)`);
