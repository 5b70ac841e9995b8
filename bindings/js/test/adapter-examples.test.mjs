// examples/js/{ai-sdk,openai-agents,langchain,fetch}.mjs, run as a user would: each next to the
// installed package and its framework (copied under the package's directory here, or the
// installed tarball's app, so that `oncely` and the frameworks resolve as they do for a user).
// Bare, the scripted re-ask pays twice; through oncely, once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { REPO } from './helpers/env.mjs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '../.tmp/examples');

function runExample(name) {
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(REPO, 'examples/js', name), join(dir, name));
  const r = spawnSync(process.execPath, [join(dir, name)], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${name}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

for (const name of ['ai-sdk.mjs', 'openai-agents.mjs', 'langchain.mjs']) {
  test(`${name}: the model's re-ask pays twice bare, once through oncely`, () => {
    const out = runExample(name);
    assert.match(out, /refunds made {3}bare: 2 {3}oncely: 1\n/, out);
    console.log(`# ${name}: ${out.trim().split('\n').at(-1)}`);
  });
}

test('fetch.mjs: a refund whose answer came too late is reconciled, its repeat replayed: one refund', () => {
  const out = runExample('fetch.mjs');
  assert.match(out, /reconciled through the lookup/);
  assert.match(out, /refunds made: 1, each with its Idempotency-Key: oncely1:/);
});
