#!/usr/bin/env node
// Ledger cost per effect: oncely against the simplest correct hand-written ledger, in ONE run.
//
//   node bench/ledger.mjs [--postgres URL] [--workers 8] [--quick] [--rounds N] [--seconds S]
//                         [--json PATH]
//
// Two measures per backend, each in effects per second:
//   fresh   distinct intents. oncely: `ledger.effect(intent, policy, tool)` (claim `pending`,
//           call the tool, record the result). Baseline: derive a key (node:crypto SHA-256 of a
//           JSON string of the intent), INSERT a `pending` row under a unique (scope, key), call
//           the same no-op tool, UPDATE the row to `done` with the JSON result.
//   replay  the same intents again. oncely returns the recorded result (`replayed`); baseline:
//           SELECT by (scope, key) and JSON.parse the result.
// The baseline is correct (a conflicting INSERT falls back to the SELECT, a SELECT that finds
// nothing to the INSERT) and on each measure takes its shortest path, as if it knew whether the
// intent was new: the fastest a hand-written ledger of the same durability can be.
//
// Each backend runs with one worker and with `--workers` (default 8). SQLite: better-sqlite3;
// the driver is synchronous, so one worker is this process and N workers are N child processes
// on the same two files, each with its own store and baseline; the baseline has its own file with
// oncely's settings (WAL, synchronous = FULL, WITHOUT ROWID primary key) and prepared statements.
// PostgreSQL (--postgres or $ONCELY_TEST_POSTGRES_URL): pg, N concurrent async loops in this
// process, each side with a pool of N connections and named (prepared) statements, on the same
// server.
//
// Method: rounds alternate between the contenders (the order flips every round); in each round
// each contender runs for --seconds and its rate is recorded. Reported: the MEDIAN rate of each
// over the rounds (best also shown), ratio = oncely ÷ baseline of the medians; "paired" is the
// median of the per-round ratios (a check on drift); CPU µs per effect is this process's CPU
// (process.cpuUsage) over all rounds, not the database server's. The machine is shared: trust
// the ratios, not the absolute rates.
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Ledger, parsePolicy } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { PostgresStore } from 'oncely/postgres';

const { values: opt } = parseArgs({
  options: {
    postgres: { type: 'string', default: process.env.ONCELY_TEST_POSTGRES_URL ?? '' },
    'no-sqlite': { type: 'boolean', default: false },
    workers: { type: 'string', default: '8' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    // Internal: run as one of the SQLite worker processes (the directory of the two files, a tag).
    child: { type: 'string' },
    tag: { type: 'string', default: 'p0' },
  },
});
const ROUNDS = Number(opt.rounds ?? (opt.quick ? 7 : 15));
const SECONDS = Number(opt.seconds ?? (opt.quick ? 0.3 : 0.6));
const WORKERS = Number(opt.workers);
const GOALS = { fresh: 0.8, replay: 0.5 };

const SCOPE = 'bench';
const RUN = 'run-1';
const TOOL = 'refund';
const POLICY = parsePolicy({ class: 'irreversible-external', key: {}, reconcile: 'provider-idempotent' });
const RESULT = { refund_id: 're_1', status: 'succeeded' };
const refund = async (_key) => RESULT; // the tool: a no-op, the same on both sides
// Keys in sorted order, so JSON.stringify is the canonical text on the baseline side too.
const argsOf = (i) => ({ amount: 500, charge_id: `ch_${i}`, currency: 'usd' });

// ---- the baseline: a hand-written ledger -----------------------------------------------------

const keyOf = (scope, run, step, tool, argsText) =>
  createHash('sha256').update(JSON.stringify([scope, run, step, tool, argsText])).digest('hex');

function settled(row, key) {
  if (row.state !== 'done') throw new Error(`${key} is ${row.state}: in progress elsewhere`);
  return JSON.parse(row.result);
}

class SqliteBaseline {
  constructor(path) {
    const db = new Database(path, { timeout: 30_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(`CREATE TABLE IF NOT EXISTS baseline_effects (
      scope TEXT NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
      state TEXT NOT NULL, result TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
      PRIMARY KEY (scope, key)) WITHOUT ROWID`);
    this.db = db;
    this.insert = db.prepare(
      "INSERT INTO baseline_effects (scope, key, tool, args, state, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (scope, key) DO NOTHING",
    );
    this.update = db.prepare("UPDATE baseline_effects SET state = 'done', result = ?, updated_at = ? WHERE scope = ? AND key = ?");
    this.select = db.prepare('SELECT state, result FROM baseline_effects WHERE scope = ? AND key = ?');
  }

  /** Run `fn` at most once per intent; returns {value, replayed}. */
  async effect(fn, { scope, run, step, tool, args }, assumeNew) {
    const argsText = JSON.stringify(args);
    const key = keyOf(scope, run, step, tool, argsText);
    if (!assumeNew) {
      const row = this.select.get(scope, key);
      if (row) return { value: settled(row, key), replayed: true };
    }
    const now = Date.now();
    if (this.insert.run(scope, key, tool, argsText, now, now).changes !== 1) {
      return { value: settled(this.select.get(scope, key), key), replayed: true };
    }
    const value = await fn(key);
    this.update.run(JSON.stringify(value), Date.now(), scope, key);
    return { value, replayed: false };
  }

  close() {
    this.db.close();
  }
}

class PostgresBaseline {
  static async connect(url, max) {
    const pool = new pg.Pool({ connectionString: url, max });
    pool.on('error', () => {});
    await pool.query(`CREATE TABLE IF NOT EXISTS baseline_effects (
      scope TEXT NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
      state TEXT NOT NULL, result TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
      PRIMARY KEY (scope, key))`);
    return new PostgresBaseline(pool);
  }

  constructor(pool) {
    this.pool = pool;
  }

  #q(name, text, values) {
    return this.pool.query({ name: `baseline_${name}`, text, values });
  }

  #select(scope, key) {
    return this.#q('select', 'SELECT state, result FROM baseline_effects WHERE scope = $1 AND key = $2', [scope, key]);
  }

  async effect(fn, { scope, run, step, tool, args }, assumeNew) {
    const argsText = JSON.stringify(args);
    const key = keyOf(scope, run, step, tool, argsText);
    if (!assumeNew) {
      const { rows } = await this.#select(scope, key);
      if (rows.length) return { value: settled(rows[0], key), replayed: true };
    }
    const now = Date.now();
    const ins = await this.#q(
      'insert',
      "INSERT INTO baseline_effects (scope, key, tool, args, state, created_at, updated_at) VALUES ($1, $2, $3, $4, 'pending', $5, $6) ON CONFLICT (scope, key) DO NOTHING",
      [scope, key, tool, argsText, now, now],
    );
    if (ins.rowCount !== 1) return { value: settled((await this.#select(scope, key)).rows[0], key), replayed: true };
    const value = await fn(key);
    await this.#q('update', "UPDATE baseline_effects SET state = 'done', result = $1, updated_at = $2 WHERE scope = $3 AND key = $4", [
      JSON.stringify(value),
      Date.now(),
      scope,
      key,
    ]);
    return { value, replayed: false };
  }

  close() {
    return this.pool.end();
  }
}

// ---- the runner ------------------------------------------------------------------------------

/**
 * `workers` async loops, each with its own intents (steps `<tag>w0-…`, `<tag>w1-…`); each side
 * keeps the count of intents it made, for replays.
 */
function makeRunner(ledger, baseline, workers, tag = '') {
  const made = { oncely: new Array(workers).fill(0), baseline: new Array(workers).fill(0) };
  const cursor = { oncely: new Array(workers).fill(0), baseline: new Array(workers).fill(0) };
  const intent = (w, i) => ({ scope: SCOPE, run: RUN, step: `${tag}w${w}-s${i}`, tool: TOOL, args: argsOf(i) });

  async function loop(who, measure, w, deadline) {
    const fresh = measure === 'fresh';
    if (!fresh && made[who][w] === 0) throw new Error('replay before any fresh effect');
    let n = 0;
    for (;;) {
      let i;
      if (fresh) i = made[who][w]++;
      else i = cursor[who][w]++ % made[who][w];
      const it = intent(w, i);
      const r = who === 'oncely' ? await ledger.effect(it, POLICY, refund) : await baseline.effect(refund, it, fresh);
      if (r.replayed === fresh) throw new Error(`${who} ${measure}: replayed=${r.replayed} for ${it.step}`);
      n++;
      if (performance.now() >= deadline) return n;
    }
  }

  /** Run one side for `seconds`: [effects, elapsed s, CPU s of this process]. */
  async function batch(who, measure, seconds) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const ns = await Promise.all(Array.from({ length: workers }, (_, w) => loop(who, measure, w, t0 + seconds * 1000)));
    const dt = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    return [ns.reduce((a, b) => a + b, 0), dt, (c.user + c.system) / 1e6];
  }

  const total = (who) => made[who].reduce((a, b) => a + b, 0);
  return { batch, total };
}

async function rounds(runner) {
  await runner.batch('oncely', 'fresh', 0.2); // warm-up: JIT, statements, pages
  await runner.batch('baseline', 'fresh', 0.2);
  const out = {};
  for (const m of ['fresh', 'replay']) {
    out[m] = { oncely: { rates: [], n: 0, cpu: 0 }, baseline: { rates: [], n: 0, cpu: 0 } };
    for (let r = 0; r < ROUNDS; r++) {
      for (const who of r % 2 === 0 ? ['oncely', 'baseline'] : ['baseline', 'oncely']) {
        const [n, dt, cpu] = await runner.batch(who, m, SECONDS);
        const acc = out[m][who];
        acc.rates.push(n / dt);
        acc.n += n;
        acc.cpu += cpu;
      }
    }
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

function summarize(backend, workers, res) {
  return Object.entries(res).map(([measure, by]) => {
    const o = median(by.oncely.rates);
    const b = median(by.baseline.rates);
    return {
      host: 'js',
      backend,
      measure,
      workers,
      oncely: o,
      baseline: b,
      ratio: o / b,
      goal: GOALS[measure],
      paired_ratio: median(by.oncely.rates.map((x, i) => x / by.baseline.rates[i])),
      oncely_cpu_us: (by.oncely.cpu / by.oncely.n) * 1e6,
      baseline_cpu_us: (by.baseline.cpu / by.baseline.n) * 1e6,
      oncely_best: Math.max(...by.oncely.rates),
      baseline_best: Math.max(...by.baseline.rates),
      rounds: by.oncely.rates.length,
      stat: 'median',
    };
  });
}

const int = (x) => Math.round(x).toLocaleString('en-US');
function printRows(rows) {
  console.log(
    `${'backend'.padEnd(9)} ${'measure'.padEnd(7)} ${'workers'.padStart(7)} ${'oncely/s'.padStart(9)} ${'baseline/s'.padStart(10)} ${'ratio'.padStart(6)} ${'goal'.padStart(6)} ${'paired'.padStart(7)}  ${'CPU µs/effect'.padStart(15)}  ${'best /s'.padStart(16)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.backend.padEnd(9)} ${r.measure.padEnd(7)} ${String(r.workers).padStart(7)} ${int(r.oncely).padStart(9)} ${int(r.baseline).padStart(10)} ${(r.ratio.toFixed(2) + 'x').padStart(6)} ${('>=' + r.goal).padStart(6)} ${(r.paired_ratio.toFixed(2) + 'x').padStart(7)}  ${`${int(r.oncely_cpu_us)} / ${int(r.baseline_cpu_us)}`.padStart(15)}  ${`${int(r.oncely_best)} / ${int(r.baseline_best)}`.padStart(16)}`,
    );
  }
  console.log('(oncely / baseline; ratio = median oncely rate / median baseline rate; paired = median of per-round ratios; CPU = the host processes on each side, not the database server)');
}

const countDone = (db, table) => db.prepare(`SELECT count(*) AS n FROM ${table} WHERE state = 'done'`).get().n;

/** Each fresh effect left exactly one `done` row on its side of the two SQLite files in `dir`. */
function checkSqlite(dir, total) {
  for (const [who, file, table] of [['oncely', 'oncely.db', 'oncely_effects'], ['baseline', 'baseline.db', 'baseline_effects']]) {
    const db = new Database(join(dir, file), { readonly: true });
    const n = countDone(db, table);
    db.close();
    if (n !== total(who)) throw new Error(`sqlite ${who}: ${n} done rows for ${total(who)} fresh effects`);
  }
}

async function benchSqlite(dir) {
  const store = await SqliteStore.open(join(dir, 'oncely.db'));
  const baseline = new SqliteBaseline(join(dir, 'baseline.db'));
  const runner = makeRunner(new Ledger(store), baseline, 1);
  const res = await rounds(runner);
  baseline.close();
  store.db.close();
  checkSqlite(dir, runner.total);
  return res;
}

/**
 * `procs` child processes (this script with --child), each with its own store and baseline on
 * the same two SQLite files in `dir`, driven together: a round's rate is the sum of theirs.
 */
async function benchSqliteProcs(dir, procs) {
  mkdirSync(dir);
  (await SqliteStore.open(join(dir, 'oncely.db'))).db.close(); // migrate once, before the race
  new SqliteBaseline(join(dir, 'baseline.db')).close();
  const children = Array.from({ length: procs }, (_, k) => fork(fileURLToPath(import.meta.url), ['--child', dir, '--tag', `p${k}`]));
  const replies = children.map((c) => {
    const queue = [];
    const waiting = [];
    c.on('message', (m) => (waiting.length ? waiting.shift().resolve(m) : queue.push(m)));
    c.on('exit', (code) => {
      for (const w of waiting.splice(0)) w.reject(new Error(`a sqlite worker exited (${code})`));
    });
    return () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((resolve, reject) => waiting.push({ resolve, reject })));
  });
  const ask = async (msg) => {
    children.forEach((c) => c.send(msg));
    const got = await Promise.all(replies.map((next) => next()));
    const failed = got.find((m) => m.error);
    if (failed) throw new Error(`a sqlite worker failed: ${failed.error}`);
    return got;
  };
  await Promise.all(replies.map((next) => next())); // ready
  const runner = {
    async batch(who, measure, seconds) {
      const got = await ask({ who, measure, seconds });
      const n = got.reduce((a, m) => a + m.n, 0);
      const rate = got.reduce((a, m) => a + m.n / m.dt, 0);
      return [n, n / rate, got.reduce((a, m) => a + m.cpu, 0)];
    },
  };
  const res = await rounds(runner);
  const made = { oncely: 0, baseline: 0 };
  for (const m of await ask({ end: true })) for (const who of Object.keys(made)) made[who] += m.made[who];
  checkSqlite(dir, (who) => made[who]);
  return res;
}

/** One SQLite worker process: warm up, say ready, run the batches the parent asks for. */
async function sqliteChild(dir, tag) {
  try {
    const store = await SqliteStore.open(join(dir, 'oncely.db'));
    const baseline = new SqliteBaseline(join(dir, 'baseline.db'));
    const runner = makeRunner(new Ledger(store), baseline, 1, tag);
    await runner.batch('oncely', 'fresh', 0.2);
    await runner.batch('baseline', 'fresh', 0.2);
    process.on('message', async (m) => {
      try {
        if (m.end) {
          process.send({ made: { oncely: runner.total('oncely'), baseline: runner.total('baseline') } });
          baseline.close();
          store.db.close();
          process.disconnect();
          return;
        }
        const [n, dt, cpu] = await runner.batch(m.who, m.measure, m.seconds);
        process.send({ n, dt, cpu });
      } catch (e) {
        process.send({ error: String(e?.stack ?? e) });
      }
    });
    process.send({ ready: true });
  } catch (e) {
    process.send({ error: String(e?.stack ?? e) });
    process.disconnect();
  }
}

async function benchPostgres(base, workers) {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS oncely_bench_js');
  await admin.query('CREATE DATABASE oncely_bench_js');
  await admin.end();
  const url = base.replace(/\/[^/]*$/, '/oncely_bench_js');
  const store = await PostgresStore.connect(url, { max: workers });
  const baseline = await PostgresBaseline.connect(url, workers);
  const runner = makeRunner(new Ledger(store), baseline, workers);
  const res = await rounds(runner);
  for (const [who, table] of [['oncely', 'oncely.effects'], ['baseline', 'baseline_effects']]) {
    const { rows } = await baseline.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE state = 'done'`);
    if (rows[0].n !== runner.total(who)) throw new Error(`${who}: ${rows[0].n} done rows for ${runner.total(who)} fresh effects`);
  }
  await baseline.close();
  await store.pool.end();
  return res;
}

if (opt.child) {
  await sqliteChild(opt.child, opt.tag);
} else {
  console.log(
    `node ${process.version}, better-sqlite3 + pg; ${ROUNDS} rounds x ${SECONDS} s per contender per measure, median kept; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}`,
  );
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'oncely-bench-ledger-'));
  const report = (r) => {
    printRows(r);
    rows.push(...r);
  };
  try {
    if (!opt['no-sqlite']) {
      report(summarize('sqlite', 1, await benchSqlite(dir)));
      report(summarize('sqlite', WORKERS, await benchSqliteProcs(join(dir, 'many'), WORKERS)));
    }
    if (opt.postgres) {
      for (const workers of [1, WORKERS]) report(summarize('postgres', workers, await benchPostgres(opt.postgres, workers)));
    } else {
      console.log('postgres: skipped (no --postgres URL or $ONCELY_TEST_POSTGRES_URL)');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (opt.json) writeFileSync(opt.json, JSON.stringify({ host: 'js', rows }, null, 1));
}
