// examples/js/agent-loop.mjs, run as a user would (next to the installed package): the scripted
// agent's retries refund several times without oncely and exactly once with it — in memory and on
// a SQLite ledger.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PACKAGE_DIR, REPO } from './helpers/env.mjs';
import { tempDir } from './helpers/tmp.mjs';

function setup() {
  const dir = tempDir('example');
  mkdirSync(join(dir, 'node_modules/@oncely-dev'), { recursive: true });
  symlinkSync(realpathSync(PACKAGE_DIR), join(dir, 'node_modules/oncely'), 'dir');
  copyFileSync(join(REPO, 'examples/js/agent-loop.mjs'), join(dir, 'agent-loop.mjs'));
  return dir;
}

for (const db of [false, true]) {
  test(`agent-loop.mjs: the wrapper prevents the double refund (${db ? 'SQLite' : 'in memory'})`, () => {
    const dir = setup();
    const args = ['agent-loop.mjs', ...(db ? ['--db', join(dir, 'ledger.db')] : [])];
    const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const m = /refunds made\s+naive: (\d+) .*oncely: (\d+)/.exec(r.stdout);
    assert.ok(m, r.stdout);
    assert.ok(Number(m[1]) > 1, `the naive loop should refund more than once:\n${r.stdout}`);
    assert.equal(Number(m[2]), 1, r.stdout);
    assert.match(r.stdout, /oncely: refunded exactly once\./);
  });
}
