// The README's quickstart, as an application that installed the package runs it (called by
// scripts/release-check.sh in a fresh project, on Node 20, 22 and 24; Deno and Bun run the
// memory-store half through edge-runtimes.mjs): intent keys equal to the golden vectors, then a
// refund through a ledger on the memory store and on SQLite (`oncely/sqlite` over the
// application's own better-sqlite3): run once, replayed, a lost reply reconciled by the
// provider's lookup, and, on SQLite, replayed again from the file by a new process's ledger.
//
//   node quickstart.mjs KEYS_JSON [SQLITE_FILE]
//
// KEYS_JSON is tests/vectors/keys.json; without SQLITE_FILE only the memory store runs. Exits
// non-zero on any failed assertion.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { goldenKeys, quickstart } from './quickstart-lib.mjs';

const [vectorsPath, sqliteFile] = process.argv.slice(2);
assert.ok(vectorsPath, 'usage: node quickstart.mjs KEYS_JSON [SQLITE_FILE]');

const n = goldenKeys(JSON.parse(readFileSync(vectorsPath, 'utf8')));
console.log(`   keys: ${n} golden vectors of tests/vectors/keys.json`);

const { MemoryStore } = await import('oncely');
const memory = await quickstart(new MemoryStore());
console.log(`   memory store: ${memory}`);

if (sqliteFile) {
  const { SqliteStore } = await import('oncely/sqlite');
  const sqlite = await quickstart(await SqliteStore.open(sqliteFile), { reopen: () => SqliteStore.open(sqliteFile) });
  console.log(`   sqlite (better-sqlite3 ${createRequire(import.meta.url)('better-sqlite3/package.json').version}): ${sqlite}`);
}
// Node loads the bundle (dist/), not the sources workerd reads (the cold start of
// docs/performance.md is measured on dist/).
for (const entry of ['oncely', 'oncely/sqlite']) {
  assert.match(import.meta.resolve(entry), /\/node_modules\/oncely\/dist\/[^/]+\.js$/, `${entry} resolves to dist/`);
}
console.log(`   ok (${process.release?.name ?? 'node'} ${process.version}, oncely from ${import.meta.resolve('oncely')})`);
