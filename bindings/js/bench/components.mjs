#!/usr/bin/env node
// Two builds of the core component side by side (e.g. before and after a size or speed change),
// each transpiled by the pinned jco, in one process: canonicalization of a 1 MiB
// object-and-number-dense document and of 2,000 short strings, and `keys.derive` on 200 B,
// 4 KiB and 64 KiB arguments. Each measure is the best of 5 batches; the builds alternate over
// --runs runs and the best per measure is printed (the least disturbed on a noisy machine).
//
//   node bindings/js/bench/components.mjs OLD.wasm NEW.wasm [--runs 3]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '3' } } });
if (positionals.length !== 2) {
  console.error('usage: components.mjs OLD.wasm NEW.wasm [--runs N]');
  process.exit(2);
}
const jco = fileURLToPath(new URL('../node_modules/@bytecodealliance/jco/src/jco.js', import.meta.url));

async function load(component) {
  const out = mkdtempSync(join(tmpdir(), 'oncely-components-'));
  execFileSync(process.execPath, [jco, 'transpile', resolve(component), '--name', 'c', '--instantiation', 'sync', '--no-nodejs-compat', '--no-typescript', '--quiet', '-o', out]);
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  const { instantiate } = await import(pathToFileURL(join(out, 'c.js')).href);
  return instantiate((p) => new WebAssembly.Module(readFileSync(join(out, p))), {});
}

function args(n) {
  const base = '{"charge_id":"ch_3PqR8s2eZvKYlo2C","amount":4999,"currency":"usd","reason":"requested_by_customer","metadata":{"order":"A-1042","agent":"support-bot"},"note":""}';
  return base.replace('"note":""', `"note":"${'x'.repeat(Math.max(0, n - base.length))}"`);
}
function mib() {
  const items = [];
  for (let len = 0, i = 0; len < (1 << 20) - 200; i++) {
    const s = `{"id":${i},"sku":"SKU-${String(i).padStart(6, '0')}","price":${(i * 7) % 1000}.${String(i % 100).padStart(2, '0')},"qty":${i % 9},"tags":["a","b\\u00e9","c"],"ok":true,"note":null}`;
    items.push(s);
    len += s.length + 1;
  }
  return `{"items":[${items.join(',')}]}`;
}
function best(fn, budgetMs) {
  for (let i = 0; i < 20; i++) fn();
  let b = Infinity;
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const t0 = performance.now();
    let t;
    do {
      fn();
      n++;
      t = performance.now();
    } while (t - t0 < budgetMs / 5);
    b = Math.min(b, (t - t0) / n);
  }
  return b;
}

const doc = mib();
const text = `[${Array.from({ length: 2000 }, (_, i) => JSON.stringify(`lorem ipsum dolor sit amet ${i}`)).join(',')}]`;
const measures = [
  ['canonicalize 1 MiB (MB/s)', (c) => doc.length / 1e3 / best(() => c.canonical.canonicalize(doc), 3000), Math.max],
  ['canonicalize 2,000 strings (MB/s)', (c) => text.length / 1e3 / best(() => c.canonical.canonicalize(text), 1500), Math.max],
  ...[200, 4096, 65536].map((n) => {
    const intent = { scope: 'acme', runId: 'run-7', stepId: 'refund-1', tool: 'refund', argsJson: args(n) };
    const spec = { only: undefined, ignore: ['/metadata/agent'], identity: 'step' };
    return [`derive ${n} B (µs)`, (c) => best(() => c.keys.derive(intent, spec), 1500) * 1e3, Math.min];
  }),
];
const cores = [await load(positionals[0]), await load(positionals[1])];
const results = cores.map(() => measures.map(([, , pick]) => (pick === Math.max ? 0 : Infinity)));
for (let run = 0; run < Number(values.runs); run++) {
  cores.forEach((c, k) => measures.forEach(([, measure, pick], m) => (results[k][m] = pick(results[k][m], measure(c)))));
}
console.log(`measure                              ${positionals[0].padStart(14)}  ${positionals[1].padStart(14)}`);
measures.forEach(([label], m) => console.log(`${label.padEnd(36)} ${results[0][m].toFixed(1).padStart(14)}  ${results[1][m].toFixed(1).padStart(14)}`));
