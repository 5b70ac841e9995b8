// dist/ (scripts/bundle.mjs): on Node every entry of the package resolves to its bundle, the
// bundles share one copy of every module (one `Ledger`, one set of error classes, whichever
// entries an app imports), and the `oncely-source` condition gives the sources instead. Runs on
// the working tree and on the installed tarball (PACKAGE_DIR).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { PACKAGE_DIR } from './helpers/env.mjs';

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
const entries = Object.entries(manifest.exports).filter(([, t]) => typeof t === 'object' && t['oncely-source'] !== undefined);
const specifier = (subpath) => 'oncely' + subpath.slice(1);

// Resolve every entry in a fresh Node process, from the package's directory (as an app's import
// of `oncely` resolves), with the given extra conditions.
function resolveAll(conditions) {
  const code = `console.log(JSON.stringify(${JSON.stringify(entries.map(([s]) => specifier(s)))}.map((s) => import.meta.resolve(s))))`;
  const r = spawnSync(process.execPath, [...conditions.map((c) => `--conditions=${c}`), '--input-type=module', '-e', code], { cwd: PACKAGE_DIR, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).map((u) => fileURLToPath(u));
}

test('on Node every entry of the package is its bundle in dist/', () => {
  assert.ok(entries.length >= 10, `entries: ${entries.map(([s]) => s)}`);
  const resolved = resolveAll([]);
  entries.forEach(([subpath, target], i) => {
    assert.equal(target.default, './dist/' + target['oncely-source'].slice('./src/'.length), subpath);
    assert.equal(resolved[i], join(PACKAGE_DIR, target.default), subpath);
  });
});

test('the oncely-source condition gives the sources', () => {
  const resolved = resolveAll(['oncely-source']);
  entries.forEach(([subpath, target], i) => assert.equal(resolved[i], join(PACKAGE_DIR, target['oncely-source']), subpath));
});

test('the bundles define each of the package’s classes once', () => {
  const dist = join(PACKAGE_DIR, 'dist');
  const text = readdirSync(dist, { recursive: true })
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(dist, f), 'utf8'))
    .join('\n');
  for (const name of ['Ledger', 'OncelyError', 'LedgerError', 'ConflictError', 'MemoryStore', 'SqliteStore', 'PostgresStore']) {
    // esbuild writes a class as `var Name=class …` (or keeps `class Name`).
    const defs = text.match(new RegExp(`\\b${name}=class\\b|(?<![=\\w])class ${name}\\b`, 'g')) ?? [];
    assert.equal(defs.length, 1, `class ${name} is defined ${defs.length} times in dist/`);
  }
});
