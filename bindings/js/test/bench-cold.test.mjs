// bench/cold.mjs (scripts/bench) still runs: the cold start against its peer, and where the time
// goes file by file in dist/. The times are the bench's to report, not this test's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const script = fileURLToPath(new URL('../bench/cold.mjs', import.meta.url));
const run = async (args) => (await promisify(execFile)(process.execPath, [script, ...args], { timeout: 120_000 })).stdout;
const ms = (line) => Number(/([\d.]+) ms/.exec(line)?.[1]);

test('bench/cold.mjs measures import oncely + a first key against the peer', async () => {
  const out = await run(['--rounds', '1']);
  const mine = out.split('\n').find((l) => l.includes('import oncely + intentKey'));
  const peer = out.split('\n').find((l) => l.includes('import canonicalize'));
  assert.ok(ms(mine) > 0 && ms(peer) > 0, out);
});

test('bench/cold.mjs --modules times every file of dist/ that import oncely loads, then the first key', async () => {
  const lines = (await run(['--modules'])).trim().split('\n');
  assert.ok(lines.length >= 3, lines.join('\n'));
  assert.match(lines.at(-2), /^dist\/index\.js \(\d+ KiB\) [\d.]+ ms$/);
  assert.ok(lines.slice(0, -2).every((l) => /^dist\/chunk-\w+\.js \(\d+ KiB\) [\d.]+ ms$/.test(l)), lines.join('\n'));
  assert.match(lines.at(-1), /^the first key [\d.]+ ms$/);
});
