#!/usr/bin/env node
// A JS worker for the cross-process and cross-language tests, the twin of the Rust host's test
// worker `oncely-test-worker` (tests/support/src/bin/oncely-test-worker.rs): run one effect
// through the ledger at --db (a SQLite path, a postgres:// URL or a dynamodb:// table) whose "tool" appends "<key> <owner>" to
// --marker; print {"key","replayed","reconciled","value"}.
//
//   worker.mjs --db DB --scope S --run R --step T --tool N --args JSON --policy JSON --owner O
//              --marker FILE [--sleep-ms N] [--wait-ms N] [--crash-after-call]
//              [--steps-file FILE] [--reconcile-from-marker]
//              [--stall-before-call-ms N] [--stall-after-claim-ms N] [--approval-wait-ms N]
//
// The options of the chaos harness (scripts/chaos), all off by default, are those of the Rust
// worker: --steps-file runs one effect per line (the step id) and prints one line each,
// {"step","key","replayed","reconciled","value"} or {"step","error","message"};
// --reconcile-from-marker registers a reconciler that looks the key up in MARKER;
// --stall-before-call-ms makes the tool sleep before it appends; --stall-after-claim-ms sleeps
// right after a claim (the insert of a new entry) is written.
import { appendFileSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Ledger, happened, notHappened, unknown } from 'oncely';

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
    'approval-wait-ms': { type: 'string', default: '0' },
    'crash-after-call': { type: 'boolean', default: false },
    'steps-file': { type: 'string' },
    'reconcile-from-marker': { type: 'boolean', default: false },
    'stall-before-call-ms': { type: 'string', default: '0' },
    'stall-after-claim-ms': { type: 'string', default: '0' },
  },
});

// The error codes the three workers print (the package's error codes; anything else is 'other').
const CODES = new Set(['in-progress', 'in-doubt', 'escalated', 'conflict', 'tool-failed', 'result-not-recorded', 'storage', 'ledger', 'contention', 'awaiting-approval', 'denied']);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function open(db) {
  if (/^postgres(ql)?:\/\//.test(db)) {
    const { PostgresStore } = await import('oncely/postgres');
    return PostgresStore.connect(db, { max: 2 });
  }
  if (db.startsWith('dynamodb://')) {
    const { DynamoDBStore } = await import('oncely/dynamodb');
    return DynamoDBStore.open(db);
  }
  const { SqliteStore } = await import('oncely/sqlite');
  return SqliteStore.open(db);
}

// The ledger's store, sleeping right after a claim (an insert) is written.
function stalling(inner, ms) {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'insert') {
        return async (entry) => {
          const claimed = await target.insert(entry);
          if (claimed) await sleep(ms);
          return claimed;
        };
      }
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

// The owner on the first line of MARKER that records `key`, or null.
function markerOwner(key) {
  let text;
  try {
    text = readFileSync(a.marker, 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
  for (const line of text.split('\n')) {
    if (line.startsWith(`${key} `)) return line.slice(key.length + 1);
  }
  return null;
}

const store = await open(a.db);
const stallAfterClaim = Number(a['stall-after-claim-ms']);
const ledger = new Ledger(stallAfterClaim > 0 ? stalling(store, stallAfterClaim) : store, { owner: a.owner });
if (a['reconcile-from-marker']) {
  ledger.reconciler(a.tool, async (req) => {
    try {
      const owner = markerOwner(req.key);
      return owner === null ? notHappened() : happened({ by: owner });
    } catch (e) {
      return unknown(`reading the marker: ${e.message}`);
    }
  });
}

const effect = (step) =>
  ledger.effect(
    { scope: a.scope, run: a.run, step, tool: a.tool, args: a.args },
    a.policy,
    async (key) => {
      const stall = Number(a['stall-before-call-ms']);
      if (stall > 0) await sleep(stall);
      appendFileSync(a.marker, `${key} ${a.owner}\n`);
      const ms = Number(a['sleep-ms']);
      if (ms > 0) await sleep(ms);
      if (a['crash-after-call']) process.exit(137);
      return { by: a.owner };
    },
    { waitMs: Number(a['wait-ms']), approvalWaitMs: Number(a['approval-wait-ms']) },
  );

try {
  if (a['steps-file'] === undefined) {
    const r = await effect(a.step);
    process.stdout.write(JSON.stringify({ key: r.key, replayed: r.replayed, reconciled: r.reconciled, value: r.value }) + '\n');
  } else {
    const steps = readFileSync(a['steps-file'], 'utf8').split('\n').filter((l) => l !== '');
    for (const step of steps) {
      let line;
      try {
        const r = await effect(step);
        line = { step, key: r.key, replayed: r.replayed, reconciled: r.reconciled, value: r.value };
      } catch (e) {
        line = { step, error: typeof e?.code === 'string' && CODES.has(e.code) ? e.code : 'other', message: String(e?.message ?? e) };
      }
      process.stdout.write(JSON.stringify(line) + '\n');
    }
  }
} catch (e) {
  process.stderr.write(`worker ${a.owner}: ${e.message}\n`);
  process.exitCode = 2;
} finally {
  await store.close();
}
