// The TypeScript declarations compile against a usage file (strict mode, nodenext resolution of
// the package by its name, so through package.json "exports" and its "types" conditions).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

test('the .d.ts files type-check a usage of the whole API', () => {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  assert.ok(existsSync(tsc), 'typescript is a devDependency: run npm ci');
  const r = spawnSync(process.execPath, [tsc, '-p', fileURLToPath(new URL('./types/tsconfig.json', import.meta.url))], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
});
