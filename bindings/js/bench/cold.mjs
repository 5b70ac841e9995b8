#!/usr/bin/env node
// Cold start: importing oncely and a first key in a fresh Node process, against the named peer.
//
//   node bench/cold.mjs [--rounds 21]
//   node bench/cold.mjs --modules   where the time goes: the files `import 'oncely'` loads on
//                                   Node (dist/, scripts/bundle.mjs) imported one by one, leaves
//                                   first, in one process
//
// Each round starts fresh processes, alternating: one imports `oncely` (the package as its
// `exports` give it: the core module compiled at import) and derives a first key; one imports the
// npm `canonicalize` package and node:crypto and hashes the same arguments (the peer: what a
// hand-rolled key costs). The time is taken inside the process, from before the import to after
// the key, so Node's own start is left out of both. Prints the medians, the difference and the
// goal (issue 26: oncely <= 20 ms).
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '21' }, modules: { type: 'boolean', default: false } } });
const rounds = Number(values.rounds);

const ONCELY = `
const t0 = performance.now();
const { intentKey } = await import('oncely');
intentKey({ scope: 'acme', run: 'run-7', step: 'refund-1', tool: 'refund', args: { charge_id: 'ch_1', amount: 500 } });
console.log(performance.now() - t0);
`;

const PEER = `
const t0 = performance.now();
const { default: canonicalize } = await import('canonicalize');
const { createHash } = await import('node:crypto');
createHash('sha256').update('acme\\0run-7\\0refund-1\\0refund\\0' + canonicalize({ charge_id: 'ch_1', amount: 500 })).digest('hex');
console.log(performance.now() - t0);
`;

// Run from this package's directory, so that `oncely` and `canonicalize` resolve as a user's would.
const once = (code) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: new URL('..', import.meta.url) }).toString().trim());

// Each file `import 'oncely'` loads on Node (dist/index.js and the chunks it reaches, leaves
// first), timed alone after the ones before it (so each line is what that file adds), then the
// first key.
const MODULES = `
import { readFileSync } from 'node:fs';
const order = [];
const visit = (f) => {
  if (order.includes(f)) return;
  for (const m of readFileSync('dist/' + f, 'utf8').matchAll(/from ?"\\.\\/([^"]+)"/g)) visit(m[1]);
  order.push(f);
};
visit('index.js');
const out = [];
for (const f of order) {
  const t = performance.now();
  await import(new URL('dist/' + f, 'file://' + process.cwd() + '/').href);
  const kb = (readFileSync('dist/' + f).length / 1024).toFixed(0);
  out.push('dist/' + f + ' (' + kb + ' KiB) ' + (performance.now() - t).toFixed(1) + ' ms');
}
const { intentKey } = await import('oncely');
const t = performance.now();
intentKey({ scope: 'acme', run: 'run-7', step: 'refund-1', tool: 'refund', args: { charge_id: 'ch_1', amount: 500 } });
out.push('the first key ' + (performance.now() - t).toFixed(1) + ' ms');
console.log(out.join('\\n'));
`;

if (values.modules) {
  once(ONCELY);
  console.log(execFileSync(process.execPath, ['--input-type=module', '-e', MODULES], { cwd: new URL('..', import.meta.url) }).toString().trim());
  process.exit(0);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

once(ONCELY);
once(PEER);
const mine = [];
const peer = [];
for (let i = 0; i < rounds; i++) {
  mine.push(once(ONCELY));
  peer.push(once(PEER));
}
const m = median(mine);
const b = median(peer);
console.log(`\ncold start (Node ${process.versions.node}), median of ${rounds} fresh processes (import + first key, in-process)`);
console.log(`  import oncely + intentKey: ${m.toFixed(1)} ms (goal <= 20 ms)`);
console.log(`  import canonicalize, node:crypto + a hash: ${b.toFixed(1)} ms`);
console.log(`  oncely - peer: ${(m - b).toFixed(1)} ms`);
