#!/usr/bin/env node
// Per-call speed of two jco transpilations of the same core component, in one process, in
// alternating rounds (median reported): how the pinned jco version was chosen.
//
//   npx -y -p @bytecodealliance/jco@1.11.2 jco transpile target/wasm/oncely-core.wasm -o /tmp/jco-a \
//       --name oncely-core --instantiation sync --no-nodejs-compat --no-typescript -q
//   npx -y -p @bytecodealliance/jco@1.35.0 jco transpile … -o /tmp/jco-b …   (same flags)
//   node bindings/js/bench/jco-compare.mjs /tmp/jco-a /tmp/jco-b
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dirs = process.argv.slice(2, 4).map((d) => resolve(d));
if (dirs.length !== 2) {
  console.error('usage: jco-compare.mjs DIR_A DIR_B (two jco transpile outputs)');
  process.exit(2);
}

async function load(dir) {
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const { instantiate } = await import(pathToFileURL(join(dir, 'oncely-core.js')).href);
  return instantiate((p) => new WebAssembly.Module(readFileSync(join(dir, p))), {});
}

const cores = await Promise.all(dirs.map(load));

const small = JSON.stringify({ charge_id: 'ch_3PqZ8x2eZvKYlo2C1b9Xk', amount: 12999, currency: 'usd', reason: 'requested_by_customer', meta: { run: 'conv-7', tags: ['refund', 'vip'] } });
const large = JSON.stringify({ items: Array.from({ length: 900 }, (_, i) => ({ sku: `SKU-${i}`, name: `Item ${i} ✓`, qty: i % 3, price: 9.99 + i })) });
const intent = { scope: 'acme', runId: 'run-7', stepId: 'refund-1', tool: 'refund', argsJson: small };

function ops(c) {
  const spec = c.keys.defaultSpec();
  const policy = c.policy.parsePolicy('{"class":"irreversible-external","reconcile":"provider-idempotent"}');
  const claim = c.ledger.prepare(intent, policy, 'w1');
  const entry = c.ledger.handle(undefined, { tag: 'begin', val: claim }, 1000n).write.val;
  const done = c.ledger.handle(entry, { tag: 'complete', val: { token: { attempt: 1, owner: 'w1' }, resultJson: '{"ok":true}' } }, 1100n).write.val.entry;
  return {
    [`canonicalize ${small.length} B`]: () => c.canonical.canonicalize(small),
    [`canonicalize ${(large.length / 1024).toFixed(0)} KiB`]: () => c.canonical.canonicalize(large),
    [`keys.derive ${small.length} B`]: () => c.keys.derive(intent, spec),
    'ledger.prepare': () => c.ledger.prepare(intent, policy, 'w1'),
    'ledger.handle (begin → replay)': () => c.ledger.handle(done, { tag: 'begin', val: claim }, 2000n),
  };
}

const sets = cores.map(ops);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(f, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  return Number(process.hrtime.bigint() - t0) / n;
}

const versions = dirs.map((d) => d.split('/').pop());
console.log(`A = ${dirs[0]}\nB = ${dirs[1]}\n`);
console.log('operation                         A (µs/call)   B (µs/call)   B/A');
for (const name of Object.keys(sets[0])) {
  const [fa, fb] = [sets[0][name], sets[1][name]];
  for (let i = 0; i < 200; i++) fa(), fb();
  const n = Math.max(20, Math.round(3e7 / Math.max(time(fa, 20), time(fb, 20)) / 9));
  const ta = [];
  const tb = [];
  for (let r = 0; r < 9; r++) {
    ta.push(time(fa, n));
    tb.push(time(fb, n));
  }
  const [a, b] = [median(ta), median(tb)];
  console.log(`${name.padEnd(32)} ${(a / 1e3).toFixed(2).padStart(11)}   ${(b / 1e3).toFixed(2).padStart(11)}   ${(b / a).toFixed(2)}×`);
}
void versions;
