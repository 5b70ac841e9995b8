// PostgreSQL goes away in the middle of a stream of effects: a cluster of the test's own is
// restarted with `pg_ctl -m fast` and then with `-m immediate` (kept down two seconds) while three
// concurrent workers of this process run effects through one ledger (fresh keys, and repeats of
// settled ones). What must hold:
//
// - a call in flight fails with a StorageError that says what happened (connection terminated,
//   refused, the server starting up, …), within a few seconds; or, if the tool already ran and its
//   result could not be recorded, with an InDoubtError;
// - nothing is executed twice (the test counts executions per key, as the provider would), and
//   every effect that returned a result is `done` in the ledger with that result;
// - an effect whose call failed is recoverable: a retry of the same intent once the server is back
//   replays it, reconciles it, or (it never ran) runs it — once;
// - the process keeps running (no unhandled 'error' event from a dropped connection ends it) and,
//   once the server is back, every call succeeds and every worker has succeeded again within a
//   bounded time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InDoubtError, InProgressError, Ledger, StorageError, happened, notHappened } from 'oncely';
import { PostgresStore } from 'oncely/postgres';
import pg from 'pg';
import { ownCluster, restartPostgres } from './helpers/pg.mjs';

/** When the server last started (a restart changes it). */
async function serverStarted(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT pg_postmaster_start_time()::text AS t')).rows[0].t;
  } finally {
    await c.end();
  }
}

const WORKERS = 3;
// A claim left pending by a call that failed is taken over (in doubt, then reconciled) once its
// lease is over: short, so the retries do not wait long.
const POLICY = { class: 'irreversible-external', key: {}, reconcile: { lookup: 'find_charge' }, leaseMs: 2000, maxCallMs: 1000, reconcileAfterMs: 0, escalateAfterMs: 600_000 };
const BACK_WITHIN_MS = 10_000; // after a restart, every worker must have succeeded again within this
const KNOWN = ['refused', 'terminat', 'shutting down', 'starting up', 'not yet accepting', 'recovery', 'closed', 'reset', 'timeout', 'eof', 'end of file', 'broken pipe'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const intent = (w, n) => ({ scope: 'acme', run: `run-${w}`, step: `charge-${n}`, tool: 'charge', args: { worker: w, n, cents: 100 + n } });

test('effects survive PostgreSQL restarts (pg_ctl -m fast, then -m immediate)', { timeout: 120_000 }, async (t) => {
  const cluster = await ownCluster();
  if (cluster.skip) return t.skip(cluster.skip);
  const t0 = performance.now();

  // The "provider": the result of every execution, per key.
  const executions = new Map();
  let serial = 0;
  const charge = async (key) => {
    const value = { charge_id: `ch_${serial++}`, key };
    executions.set(key, [...(executions.get(key) ?? []), value]);
    await sleep(10);
    return value;
  };
  const poolErrors = [];
  const store = await PostgresStore.connect(cluster.url, { onError: (e) => poolErrors.push(e) });
  t.after(() => store.close());
  const ledger = new Ledger(store, { owner: 'stream' });
  ledger.reconciler('charge', async (req) => {
    const found = executions.get(req.key);
    return found ? happened(found[0]) : notHappened();
  });
  const runOnce = (it) => ledger.effect(it, POLICY, charge, { waitMs: 10_000 });

  const log = { calls: [], storage: [], inDoubt: [], failed: [], returned: [], replays: 0 };
  let stop = false;
  async function worker(w) {
    for (let n = 1; !stop; n++) {
      // Every fourth call repeats an effect some worker already got a result for.
      const repeat = n % 4 === 0 && log.returned.length ? log.returned[(n / 4) % log.returned.length].intent : null;
      const it = repeat ?? intent(w, n);
      const start = performance.now();
      let failure = null;
      try {
        const res = await runOnce(it);
        if (repeat) {
          assert.ok(res.replayed, `worker ${w}: a repeat of a settled effect executed again`);
          log.replays++;
        } else log.returned.push({ intent: it, key: res.key, value: res.value });
      } catch (e) {
        if (e instanceof StorageError) log.storage.push({ message: e.message, took: performance.now() - start });
        else if (e instanceof InDoubtError) log.inDoubt.push(e.message);
        else throw e;
        failure = e.message;
        log.failed.push(it);
      }
      log.calls.push({ worker: w, start, end: performance.now(), failure });
      if (failure) await sleep(100); // as a caller would, before its next call
    }
  }

  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  let backFast, downImmediate, backImmediate;
  const started = [];
  try {
    await sleep(1500);
    started.push(await serverStarted(cluster.url));
    let at = performance.now();
    await restartPostgres(cluster.dir, 'fast');
    started.push(await serverStarted(cluster.url));
    backFast = performance.now();
    console.log(`restart fast took ${((backFast - at) / 1000).toFixed(2)} s`);
    await sleep(2500);
    at = downImmediate = performance.now();
    await restartPostgres(cluster.dir, 'immediate', 2);
    backImmediate = performance.now();
    started.push(await serverStarted(cluster.url));
    console.log(`restart immediate took ${((backImmediate - at) / 1000).toFixed(2)} s`);
    await sleep(2500);
  } finally {
    stop = true;
    await Promise.all(workers);
  }

  // Once the server is back every call succeeds (a connection it dropped is never handed out
  // again), and every worker has succeeded again within BACK_WITHIN_MS.
  const servedAgain = (back, until, what) => {
    const late = log.calls.filter((c) => c.start >= back && c.end <= until && c.failure).map((c) => c.failure);
    assert.deepEqual(late.slice(0, 3), [], `${what}: calls started after the server was back failed`);
    for (let w = 0; w < WORKERS; w++) {
      const ends = log.calls.filter((c) => c.worker === w && c.start >= back && !c.failure).map((c) => c.end);
      assert.ok(ends.length, `${what}: worker ${w} never succeeded again after the server came back`);
      assert.ok(Math.min(...ends) - back <= BACK_WITHIN_MS, `${what}: worker ${w} succeeded again only after ${Math.min(...ends) - back} ms`);
    }
  };
  servedAgain(backFast, downImmediate, 'after -m fast');
  servedAgain(backImmediate, performance.now(), 'after -m immediate');

  // Retry every intent whose call failed, as its caller would, now that the server is back.
  const outcomes = { replayed: 0, reconciled: 0, ran: 0 };
  const retried = new Set();
  for (const it of log.failed) {
    const id = `${it.run}/${it.step}`;
    if (retried.has(id)) continue;
    retried.add(id);
    const deadline = performance.now() + 15_000;
    let res;
    for (;;) {
      try {
        res = await runOnce(it);
        break;
      } catch (e) {
        if (!(e instanceof StorageError || e instanceof InDoubtError || e instanceof InProgressError) || performance.now() > deadline) throw e;
        console.log(`retry of ${it.step}: ${e.message}`);
        await sleep(200);
      }
    }
    outcomes[res.reconciled ? 'reconciled' : res.replayed ? 'replayed' : 'ran']++;
    if (!log.returned.some((r) => r.key === res.key)) log.returned.push({ intent: it, key: res.key, value: res.value });
  }

  // Nothing executed twice; every result returned is the one executed, and is what the ledger
  // holds for its key, done.
  for (const [key, results] of executions) assert.equal(results.length, 1, `${key} was executed ${results.length} times`);
  for (const { intent: it, key, value } of log.returned) {
    assert.deepEqual(executions.get(key)?.[0], value, `${it.step}: the result returned is not the one executed`);
    const entry = await ledger.get('acme', key);
    assert.equal(entry?.state, 'done', it.step);
    assert.deepEqual(JSON.parse(entry.resultJson), value, `${it.step}: the ledger holds another result`);
  }
  const everything = await ledger.list('acme', { limit: 100_000 });
  assert.equal(everything.length, log.returned.length, 'every entry is one that returned');
  assert.ok(everything.every((e) => e.state === 'done'));
  assert.equal(executions.size, log.returned.length, "every execution's effect returned");

  // The outage was seen (the test tested something), and the errors callers saw say what
  // happened, and came within a few seconds.
  // The server did go away twice (the test tested something): it started three times. Whether a
  // call failed depends on where each worker was; a call in its tool rides the outage out
  // (recording is retried for 7.55 s).
  assert.ok(started[0] !== started[1] && started[1] !== started[2], `the server was not restarted: ${started}`);
  console.log(`calls that saw the outage: ${log.storage.length} storage errors, ${log.inDoubt.length} in doubt`);
  for (const { message, took } of log.storage) {
    assert.ok(KNOWN.some((k) => message.toLowerCase().includes(k)), `a storage error that does not say what happened: ${message}`);
    assert.ok(took < 10_000, `a call took ${took} ms to fail: ${message}`);
  }

  const kinds = new Map();
  for (const { message } of log.storage) kinds.set(message.slice(0, 110), (kinds.get(message.slice(0, 110)) ?? 0) + 1);
  console.log(
    `${log.calls.length} calls (${log.replays} repeats replayed), ${log.returned.length} effects done, ${log.storage.length} storage errors, ` +
      `${log.inDoubt.length} in doubt, ${poolErrors.length} idle connections dropped; retried ${retried.size}: ${JSON.stringify(outcomes)}; ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s in all`,
  );
  for (const [k, n] of kinds) console.log(`  ${String(n).padStart(3)} × ${k}`);
  for (const m of log.inDoubt) console.log(`  ${m}`);
});
