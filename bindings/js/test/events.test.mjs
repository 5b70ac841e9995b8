// Every ledger decision as an event (claimed, executed, replayed, conflict, in-doubt, reconciled,
// escalated, resolved), to `ledger.onEvent` hooks, from real effects, the explicit calls and the
// sweep, over the real stores (in memory, SQLite, and PostgreSQL when ONCELY_TEST_POSTGRES_URL is
// set), as the Rust host emits them (host/tests/events.rs). A hook that throws or rejects never
// breaks an effect; hooks are shared with withOwner copies and can be removed; without
// @opentelemetry/api installed nothing changes. (OpenTelemetry itself: otel.test.mjs.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DefiniteFailure, EVENT_KINDS, happened, Ledger, MemoryStore, unknown } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { assertEvents, everyKind, SCOPE } from './helpers/events.mjs';
import { databaseForSuite } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

test('the eleven kinds, with the names of every oncely library', () => {
  assert.deepEqual(EVENT_KINDS, [
    'claimed', 'executed', 'replayed', 'conflict', 'in-doubt', 'reconciled', 'escalated', 'resolved',
    'awaiting-approval', 'approved', 'denied',
  ]);
  assert.ok(Object.isFrozen(EVENT_KINDS));
});

const LOOKUP = { class: 'irreversible-external', key: { only: ['/id'] }, reconcile: { lookup: 'find' }, leaseMs: 1000 };
const MANUAL = { class: 'irreversible-external', reconcile: 'manual', leaseMs: 1000 };

/**
 * The explicit calls (begin, complete, failAmbiguous, reconciled, resolve) and the sweep (a lease
 * that ran out, then a reconciler's verdict; a lease that ran out with no way to reconcile, then
 * an escalation), on a simulated clock. Returns [events seen, events wanted].
 */
async function explicitAndSweep(store) {
  let now = 10_000;
  const seen = [];
  const ledger = new Ledger(store, { owner: 'w1', clock: () => now });
  ledger.onEvent((e) => seen.push(e));
  const at = (scope, tool, args) => ({ scope, run: 'r', step: 's', tool, args });
  const ev = (kind, scope, key, tool, detail = '') => ({ kind, scope, key, tool, detail });

  // One call, one event (the core's, with the entry's tool).
  const a = await ledger.begin(at(SCOPE, 'charge', { id: 1, n: 1 }), LOOKUP);
  await ledger.complete(SCOPE, a.claim.key, a.outcome.val, { ok: 1 });
  assert.equal((await ledger.begin(at(SCOPE, 'charge', { id: 1, n: 1 }), LOOKUP)).outcome.tag, 'replay');
  assert.equal((await ledger.begin(at(SCOPE, 'charge', { id: 1, n: 2 }), LOOKUP)).outcome.tag, 'conflict');
  const b = await ledger.begin(at(SCOPE, 'charge', { id: 2 }), LOOKUP);
  assert.equal((await ledger.failAmbiguous(SCOPE, b.claim.key, b.outcome.val, 'socket closed')).tag, 'reconcile');
  assert.equal((await ledger.reconciled(SCOPE, b.claim.key, 1, unknown('the provider is down'))).tag, 'recorded');
  // An in-progress begin decides nothing: no event.
  const c = (await ledger.begin(at(SCOPE, 'charge', { id: 3 }), LOOKUP)).claim.key;
  assert.equal((await ledger.withOwner('w2').begin(at(SCOPE, 'charge', { id: 3 }), LOOKUP)).outcome.tag, 'in-progress');

  // The sweep, in a scope of its own: the worker died holding two claims.
  const late = 'late';
  ledger.reconciler('refund', async () => happened({ refund: 're_1' }));
  const r = await ledger.begin(at(late, 'refund', { id: 1 }), LOOKUP);
  now += 5_000; // the refund's lease (1 s) has run out; the email's runs to 16 000
  const m = await ledger.begin(at(late, 'email', { to: 'x' }), MANUAL);
  const first = await ledger.sweep(late);
  assert.deepEqual([first.leasesExpired, first.happened, first.escalated.length], [1, 1, 0]);
  now += 1_000;
  const second = await ledger.sweep(late);
  assert.deepEqual([second.leasesExpired, second.escalated.length], [1, 1]);
  const seenVersion = (await ledger.get(late, m.claim.key)).version;
  const id = await ledger.resolve(late, m.claim.key, happened({ sent: true }), { by: 'ops@acme', version: seenVersion });

  const lapsed = 'the lease ran out before a result was recorded';
  return [
    seen,
    [
      ev('claimed', SCOPE, a.claim.key, 'charge', 'attempt 1 by w1'),
      ev('executed', SCOPE, a.claim.key, 'charge', 'attempt 1'),
      ev('replayed', SCOPE, a.claim.key, 'charge'),
      ev('conflict', SCOPE, a.claim.key, 'charge', 'first difference at "/n"'),
      ev('claimed', SCOPE, b.claim.key, 'charge', 'attempt 1 by w1'),
      ev('in-doubt', SCOPE, b.claim.key, 'charge', 'socket closed'),
      ev('reconciled', SCOPE, b.claim.key, 'charge', 'unknown'),
      ev('claimed', SCOPE, c, 'charge', 'attempt 1 by w1'),
      ev('claimed', late, r.claim.key, 'refund', 'attempt 1 by w1'),
      ev('claimed', late, m.claim.key, 'email', 'attempt 1 by w1'),
      ev('in-doubt', late, r.claim.key, 'refund', lapsed),
      ev('reconciled', late, r.claim.key, 'refund', 'happened'),
      ev('in-doubt', late, m.claim.key, 'email', lapsed),
      ev('escalated', late, m.claim.key, 'email', /^the lease of attempt 1 \(owner "w1"\) expired at 16000 .*only a human can settle it$/),
      ev('resolved', late, m.claim.key, 'email', `${id} by ops@acme: happened`),
    ],
  ];
}

const STORES = {
  memory: async () => new MemoryStore(),
  sqlite: async () => SqliteStore.open(join(tempDir('events'), 'ledger.db')),
};

describe('every decision reaches the hook, on every store', () => {
  const pg = databaseForSuite('events');
  const stores = [...Object.entries(STORES), ['postgres', () => pg.db.connect({ max: 2 })]];
  for (const [name, open] of stores) {
    const onStore = (what, run) =>
      test(`${name}: ${what}`, async (t) => {
        if (name === 'postgres' && pg.skip) return t.skip(pg.skip);
        const store = await open();
        try {
          await run(store);
        } finally {
          await store.close();
        }
      });

    onStore('effects: all eleven kinds, in order, with their scopes, keys and tools', async (store) => {
      const seen = [];
      const ledger = new Ledger(store, { owner: 'w1', onEvent: (e) => seen.push(e) });
      const want = await everyKind(ledger);
      assertEvents(seen, want, name);
      assert.deepEqual(new Set(seen.map((e) => e.kind)), new Set(EVENT_KINDS), `${name}: every kind`);
      assert.ok(seen.every((e) => Object.isFrozen(e)), 'an event is frozen: no hook changes what the next one sees');
    });

    onStore('the explicit calls and the sweep', async (store) => {
      const [seen, want] = await explicitAndSweep(store);
      assertEvents(seen, want, name);
    });
  }
});

describe('hooks', () => {
  const intent = (n) => ({ scope: 's', run: 'r', step: 't', tool: 'pay', args: { n } });
  const POLICY = { class: 'irreversible-external' };

  test('a hook that throws or rejects does not break an effect; onError (default console.error) gets each failure once', async (t) => {
    const errorLog = t.mock.method(console, 'error', () => {});
    const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
    const thrown = [];
    ledger.onEvent((e) => {
      const err = new Error(`hook broke on ${e.kind}`);
      thrown.push(err);
      throw err;
    });
    const failures = [];
    ledger.onEvent(
      async (e) => {
        throw new Error(`async hook broke on ${e.kind}`);
      },
      { onError: (err, e) => failures.push([err.message, e.kind]) },
    );
    const seen = [];
    ledger.onEvent((e) => seen.push(e.kind));
    let ran = 0;
    const r = await ledger.effect(intent(1), POLICY, () => ++ran);
    assert.deepEqual([r.value, r.replayed, ran], [1, false, 1], 'the effect ran once and returned its value');
    assert.deepEqual((await ledger.effect(intent(1), POLICY, () => ++ran)).value, 1);
    assert.equal(ran, 1);
    assert.deepEqual(seen, ['claimed', 'executed', 'replayed'], 'a failing hook does not keep the others from their events');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(failures, [['async hook broke on claimed', 'claimed'], ['async hook broke on executed', 'executed'], ['async hook broke on replayed', 'replayed']]);
    // The default: console.error, once per failure, with the error itself.
    assert.equal(errorLog.mock.callCount(), 3);
    errorLog.mock.calls.forEach((c, i) => {
      assert.match(c.arguments[0], /^oncely: an onEvent hook failed on a (claimed|executed|replayed) event \(s oncely1:/);
      assert.equal(c.arguments[1], thrown[i]);
    });
    // An onError that throws too: both reach console.error, and the effect still stands.
    const ledger2 = new Ledger(new MemoryStore(), { owner: 'w1' });
    ledger2.onEvent(
      () => {
        throw new Error('hook');
      },
      {
        onError: () => {
          throw new Error('onError');
        },
      },
    );
    assert.equal((await ledger2.effect(intent(2), POLICY, () => 'v')).value, 'v');
    assert.equal(errorLog.mock.callCount(), 5);
    assert.match(errorLog.mock.calls[4].arguments[0], /failed on a executed event/);
    assert.equal(errorLog.mock.calls[4].arguments[3].message, 'onError');
  });

  test('a hook sees its ledger and its withOwner copies until it is removed; bad hooks are refused', async () => {
    const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
    const seen = [];
    const off = ledger.onEvent((e) => seen.push([e.kind, e.detail]));
    await ledger.withOwner('w2').effect(intent(1), POLICY, () => 1);
    assert.deepEqual(seen, [['claimed', 'attempt 1 by w2'], ['executed', 'attempt 1']]);
    off();
    off();
    await ledger.effect(intent(2), POLICY, () => 2);
    assert.equal(seen.length, 2, 'removed');
    // A hook may remove itself (or another) while an event is delivered: that event still reaches every hook.
    const order = [];
    const offA = ledger.onEvent(() => (order.push('a'), offA(), offB()));
    const offB = ledger.onEvent(() => order.push('b'));
    await ledger.effect(intent(3), POLICY, () => 3);
    assert.deepEqual(order, ['a', 'b']);
    assert.throws(() => ledger.onEvent('no'), TypeError);
    assert.throws(() => ledger.onEvent(() => {}, { onError: 1 }), TypeError);
    assert.throws(() => new Ledger(new MemoryStore(), { openTelemetry: {} }), TypeError);
  });

  test('a pass-through (read-only) call reports nothing; definite failures and an unencodable result only their claims', async () => {
    const seen = [];
    const ledger = new Ledger(new MemoryStore(), { owner: 'w1', onEvent: (e) => seen.push(`${e.kind} ${e.detail}`) });
    await ledger.effect(intent(1), { class: 'read-only' }, () => 1);
    assert.deepEqual(seen, []);
    await assert.rejects(ledger.effect(intent(2), POLICY, () => 1n), { code: 'result-not-recorded' });
    assert.deepEqual(seen.splice(0), ['claimed attempt 1 by w1']);
    const declined = () => {
      throw new DefiniteFailure('declined');
    };
    await assert.rejects(ledger.effect(intent(3), POLICY, declined), { code: 'tool-failed' });
    await assert.rejects(ledger.effect(intent(3), POLICY, declined), { code: 'tool-failed' });
    assert.deepEqual(seen, ['claimed attempt 1 by w1', 'claimed attempt 2 by w1'], 'the effect did not happen: nothing in doubt');
  });
});

test('without @opentelemetry/api installed (Node): hooks and effects work, nothing is logged', () => {
  // A child process in which @opentelemetry/api cannot be resolved, as where it is not installed.
  const hide = `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (specifier === '@opentelemetry/api') throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
      return next(specifier, context);
    }`)}`;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hide)});`)}`;
  const script = `
    import { Ledger, MemoryStore } from 'oncely';
    await assertHidden();
    const seen = [];
    const ledger = new Ledger(new MemoryStore(), { owner: 'w1', onEvent: (e) => seen.push(e.kind) });
    const i = { scope: 's', run: 'r', step: 't', tool: 'pay', args: {} };
    await ledger.effect(i, { class: 'irreversible-external' }, () => 1);
    await ledger.effect(i, { class: 'irreversible-external' }, () => 1);
    console.log(JSON.stringify(seen));
    async function assertHidden() {
      try { await import('@opentelemetry/api'); } catch { return; }
      throw new Error('@opentelemetry/api is still importable');
    }`;
  const r = spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), ['claimed', 'executed', 'replayed']);
  assert.equal(r.stderr, '', 'nothing logged');
});
