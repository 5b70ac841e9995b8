#!/usr/bin/env node
// A JS worker for the cross-process and cross-language tests, the twin of the Rust host's test
// worker `oncely-test-worker` (host/src/bin/oncely-test-worker.rs): run one effect through the
// ledger at --db (a SQLite path or a postgres:// URL) whose "tool" appends "<key> <owner>" to
// --marker; print {"key","replayed","reconciled","value"}.
//
//   worker.mjs --db DB --scope S --run R --step T --tool N --args JSON --policy JSON --owner O
//              --marker FILE [--sleep-ms N] [--wait-ms N] [--crash-after-call]
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Ledger } from 'oncely';

const { values: a } = parseArgs({
  options: {
    db: { type: 'string' },
    scope: { type: 'string' },
    run: { type: 'string' },
    step: { type: 'string' },
    tool: { type: 'string' },
    args: { type: 'string' },
    policy: { type: 'string' },
    owner: { type: 'string' },
    marker: { type: 'string' },
    'sleep-ms': { type: 'string', default: '0' },
    'wait-ms': { type: 'string', default: '30000' },
    'crash-after-call': { type: 'boolean', default: false },
  },
});

async function open(db) {
  if (/^postgres(ql)?:\/\//.test(db)) {
    const { PostgresStore } = await import('oncely/postgres');
    return PostgresStore.connect(db, { max: 2 });
  }
  const { SqliteStore } = await import('oncely/sqlite');
  return SqliteStore.open(db);
}

const store = await open(a.db);
const ledger = new Ledger(store, { owner: a.owner });
try {
  const r = await ledger.effect(
    { scope: a.scope, run: a.run, step: a.step, tool: a.tool, args: a.args },
    a.policy,
    async (key) => {
      appendFileSync(a.marker, `${key} ${a.owner}\n`);
      const ms = Number(a['sleep-ms']);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      if (a['crash-after-call']) process.exit(137);
      return { by: a.owner };
    },
    { waitMs: Number(a['wait-ms']) },
  );
  process.stdout.write(JSON.stringify({ key: r.key, replayed: r.replayed, reconciled: r.reconciled, value: r.value }) + '\n');
} catch (e) {
  process.stderr.write(`worker ${a.owner}: ${e.message}\n`);
  process.exitCode = 2;
} finally {
  await store.close();
}
