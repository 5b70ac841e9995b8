// The background sweeper (`ledger.startSweeper`): with nobody calling `sweep`, a claim whose
// worker died is reconciled by the registered reconciler, a manual one escalates when its lease
// runs out and one its reconciler cannot settle escalates at its policy's escalateAfterMs, over
// the in-memory store and SQLite; a failing pass goes to onError (or console.error) and the loop
// goes on; stop() waits for a pass in flight and no pass starts after it; on Node the timer does
// not keep the process alive. Real clocks and timers: positive checks poll with a generous deadline.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { happened, Ledger, MemoryStore, StorageError, unknown } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { tempDir } from './helpers/tmp.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Wait until `cond()` holds, looking every 10 ms, for at most `ms` (this box is noisy). */
async function until(cond, what, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await sleep(10);
  }
}

const intent = (charge) => ({ scope: 'acme', run: 'run-1', step: charge, tool: 'refund', args: { charge_id: charge } });
const LOOKUP = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: { lookup: 'find_refund' }, leaseMs: 5 };
const MANUAL = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: 'manual', leaseMs: 5, escalateAfterMs: 150 };
const UNKNOWABLE = { ...LOOKUP, maxCallMs: 50, reconcileAfterMs: 20, escalateAfterMs: 200 };

/** A worker claims `charge` and dies before recording anything: its lease runs out in a few ms. */
async function diedClaim(ledger, charge, policy) {
  const { claim, outcome } = await ledger.withOwner('dead-worker').begin(intent(charge), policy);
  assert.equal(outcome.tag, 'execute');
  return claim.key;
}

const STORES = {
  memory: async () => ({ store: new MemoryStore(), close: async () => {} }),
  sqlite: async () => {
    const store = await SqliteStore.open(join(tempDir('sweeper'), 'ledger.db'));
    return { store, close: () => store.close() };
  },
};

for (const [name, open] of Object.entries(STORES)) {
  describe(`startSweeper over ${name}`, () => {
    test('a claim whose worker died is reconciled without anyone calling sweep; stop() ends the passes', async () => {
      const { store, close } = await open();
      try {
        const ledger = new Ledger(store, { owner: 'w1' });
        const asked = [];
        ledger.reconciler('refund', async (req) => {
          asked.push(req.key);
          return happened({ refund_id: 're_1', key: req.key });
        });
        const key = await diedClaim(ledger, 'ch_died', LOOKUP);
        const reports = [];
        const sweeper = ledger.startSweeper({ everyMs: 20, onReport: (r) => reports.push(r), onError: (e) => assert.fail(`onError: ${e}`) });
        assert.equal(sweeper.running, true);
        await until(async () => (await ledger.get('acme', key))?.state === 'done', 'the entry is done');
        const e = await ledger.get('acme', key);
        assert.deepEqual(JSON.parse(e.resultJson), { refund_id: 're_1', key });
        assert.deepEqual(asked, [key]);
        await until(() => reports.reduce((n, r) => n + r.reconciled, 0) >= 1, 'a report with reconciled >= 1');
        assert.ok(reports.some((r) => r.happened >= 1 && r.leasesExpired >= 1), JSON.stringify(reports));
        await sweeper.stop();
        assert.equal(sweeper.running, false);
        const n = reports.length;
        await sleep(150);
        assert.equal(reports.length, n, 'no pass after stop()');
      } finally {
        await close();
      }
    });

    test('a manual entry escalates as soon as its lease runs out', async () => {
      const { store, close } = await open();
      try {
        const ledger = new Ledger(store, { owner: 'w1' });
        const key = await diedClaim(ledger, 'ch_manual', MANUAL);
        const escalated = [];
        const sweeper = ledger.startSweeper({ everyMs: 20, onReport: (r) => escalated.push(...r.escalated) });
        try {
          await until(async () => (await ledger.get('acme', key))?.state === 'escalated', 'the entry is escalated');
        } finally {
          await sweeper.stop();
        }
        const e = await ledger.get('acme', key);
        assert.ok(e.updatedAt >= e.leaseUntil, `escalated before its lease ran out: ${JSON.stringify(e)}`);
        assert.equal(e.dueAt, null);
        assert.equal(escalated.length, 1, JSON.stringify(escalated));
        assert.ok(escalated[0].includes(key));
      } finally {
        await close();
      }
    });

    test('an entry its reconciler cannot settle escalates escalateAfterMs after it went in doubt', async () => {
      const { store, close } = await open();
      try {
        const ledger = new Ledger(store, { owner: 'w1' });
        let asked = 0;
        ledger.reconciler('refund', async () => {
          asked++;
          return unknown('the provider is down');
        });
        const key = await diedClaim(ledger, 'ch_unknown', UNKNOWABLE);
        const reports = [];
        const sweeper = ledger.startSweeper({ everyMs: 20, onReport: (r) => reports.push(r) });
        try {
          await until(async () => (await ledger.get('acme', key))?.state === 'escalated', 'the entry is escalated');
        } finally {
          await sweeper.stop();
        }
        const e = await ledger.get('acme', key);
        assert.ok(e.inDoubtSince !== null && e.updatedAt >= e.inDoubtSince + UNKNOWABLE.escalateAfterMs, `escalated early: ${JSON.stringify(e)}`);
        assert.ok(asked >= 1 && reports.some((r) => r.unknown >= 1), 'the reconciler was asked first');
        assert.equal(reports.flatMap((r) => r.escalated).length, 1);
      } finally {
        await close();
      }
    });
  });
}

/** A MemoryStore whose `due` fails (the database went away). */
function failingStore() {
  const mem = new MemoryStore();
  const store = Object.fromEntries(['get', 'insert', 'update', 'delete', 'list'].map((m) => [m, (...a) => mem[m](...a)]));
  let dues = 0;
  store.due = async () => {
    dues++;
    throw new Error('disk on fire');
  };
  return { store, dues: () => dues };
}

test('a failing pass goes to onError and the loop goes on', async () => {
  const { store } = failingStore();
  const errors = [];
  const sweeper = new Ledger(store).startSweeper({ everyMs: 20, onReport: () => assert.fail('no report'), onError: (e) => errors.push(e) });
  try {
    await until(() => errors.length >= 2, 'onError called twice');
  } finally {
    await sweeper.stop();
  }
  for (const e of errors) assert.ok(e instanceof StorageError && e.message.includes('disk on fire'), String(e));
});

test('without onError, a failing pass is logged with console.error and the loop goes on', async () => {
  const { store, dues } = failingStore();
  const logged = [];
  const original = console.error;
  console.error = (...args) => logged.push(args);
  let sweeper;
  try {
    sweeper = new Ledger(store).startSweeper({ everyMs: 20 });
    await until(() => logged.length >= 2 && dues() >= 2, 'two failures logged');
    await sweeper.stop();
  } finally {
    console.error = original;
    await sweeper?.stop();
  }
  for (const [what, err] of logged) {
    assert.equal(what, 'oncely: sweep failed:');
    assert.ok(err instanceof StorageError, String(err));
  }
});

test('onReport throwing or rejecting goes to onError; the loop goes on', async () => {
  const errors = [];
  let calls = 0;
  const onReport = (r) => {
    assert.equal(r.examined, 0);
    if (++calls % 2) throw new Error(`thrown ${calls}`);
    return Promise.reject(new Error(`rejected ${calls}`));
  };
  const sweeper = new Ledger(new MemoryStore()).startSweeper({ everyMs: 20, onReport, onError: (e) => errors.push(e.message) });
  try {
    await until(() => errors.length >= 3, 'three errors');
  } finally {
    await sweeper.stop();
  }
  assert.deepEqual(errors.slice(0, 3), ['thrown 1', 'rejected 2', 'thrown 3']);
});

test('stop() while a pass is in flight resolves after it finished; stop() is idempotent', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  let entered = false;
  let finished = false;
  ledger.reconciler('refund', async () => {
    entered = true;
    await sleep(100);
    finished = true;
    return happened({ refund_id: 're_slow' });
  });
  const key = await diedClaim(ledger, 'ch_slow', LOOKUP);
  const sweeper = ledger.startSweeper({ everyMs: 20 });
  await until(() => entered, 'the reconciler runs');
  assert.equal(finished, false);
  const first = sweeper.stop();
  assert.equal(sweeper.running, false);
  const second = sweeper.stop();
  await Promise.all([first, second]);
  assert.equal(finished, true, 'stop() resolved before the pass in flight finished');
  assert.equal((await ledger.get('acme', key)).state, 'done');
  await sweeper.stop();
  assert.equal(sweeper.running, false);
});

test('stop() awaited from onReport does not wait for itself', async () => {
  let sweeper;
  const stopped = new Promise((resolve) => {
    sweeper = new Ledger(new MemoryStore()).startSweeper({ everyMs: 20, onReport: async () => resolve(await sweeper.stop()) });
  });
  await stopped;
  assert.equal(sweeper.running, false);
});

test('everyMs and the callbacks are validated', () => {
  const ledger = new Ledger(new MemoryStore());
  for (const everyMs of [0, -1, NaN, Infinity, '100', null]) {
    assert.throws(() => ledger.startSweeper({ everyMs }), TypeError, String(everyMs));
  }
  assert.throws(() => ledger.startSweeper({ onReport: 'log' }), TypeError);
  assert.throws(() => ledger.startSweeper({ onError: 1 }), TypeError);
  assert.throws(() => ledger.startSweeper({ scope: 7 }), TypeError);
});

test('on Node, a running sweeper does not keep the process alive', () => {
  // A child that starts a sweeper and never stops it: it exits once the first pass is done.
  const url = import.meta.resolve('oncely');
  const code = `
    const { Ledger, MemoryStore } = await import(${JSON.stringify(url)});
    new Ledger(new MemoryStore()).startSweeper({ everyMs: 60000, onReport: (r) => console.log('pass', r.examined) });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.error, undefined, String(r.error));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'pass 0');
});
