// The facade's own duties: encoding (lone surrogates reach the core as WTF-8 bytes), argument
// forms, error types, and the ledger wrapper's protocol (replay, definite and ambiguous
// failures, reconcilers, provider-idempotent reconciliation, waiting on another worker,
// conflicts, sweep, resolve, purge, list) over the in-memory store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AmbiguousFailure,
  CanonicalizationError,
  canonicalize,
  checkTools,
  classify,
  ConflictError,
  coreDefaults,
  defaultPolicy,
  DefiniteFailure,
  deriveKey,
  deriveKeys,
  EncodingError,
  EscalatedError,
  explain,
  happened,
  InDoubtError,
  InProgressError,
  KeyDerivationError,
  Ledger,
  LedgerError,
  limits,
  MemoryStore,
  notHappened,
  parsePolicy,
  ToolFailedError,
  unknown,
} from 'oncely';

const intent = (args, extra = {}) => ({ scope: 'acme', run: 'run-1', step: 'step-1', tool: 'refund', args, ...extra });

test('a lone surrogate is reported by the core, not replaced with U+FFFD', () => {
  for (const [text, offset] of [
    ['"\ud800"', 1],
    ['{"a":"x\udc00"}', 7],
    ['["ok","\ud83d\ude00","\udbff"]', 14],
  ]) {
    assert.throws(
      () => canonicalize(text),
      (e) => e instanceof CanonicalizationError && e.kind === 'lone-surrogate' && e.offset === offset,
      JSON.stringify(text),
    );
  }
  // A well-formed pair is one character; escaped lone surrogates are the core's to refuse too.
  assert.equal(canonicalize('"\ud83d\ude00"'), '"\ud83d\ude00"');
  assert.throws(() => canonicalize('"\\ud800"'), (e) => e.kind === 'lone-surrogate');
  // Args: as text (raw) and as a value (JSON.stringify escapes it): both refused as invalid-args.
  for (const args of ['{"note":"\ud800"}', { note: '\ud800' }]) {
    assert.throws(
      () => deriveKey(intent(args)),
      (e) => e instanceof KeyDerivationError && e.kind === 'invalid-args' && e.canon.kind === 'lone-surrogate',
    );
  }
  // Two intents that differ only in which lone surrogate they hold are never given one key.
  assert.throws(() => deriveKey(intent({}, { tool: 'x\ud800' })), EncodingError);
  assert.throws(() => deriveKey(intent({}, { scope: '\udc00' })), (e) => e instanceof EncodingError && e.field === 'scope' && e.index === 0);
});

test('arguments as a value or as JSON text give the same key; bytes canonicalize like text', () => {
  const a = deriveKey(intent({ charge_id: 'ch_1', amount: 500 }));
  const b = deriveKey(intent('{ "amount": 500.0, "charge_id": "ch_1" }'));
  assert.equal(a.key, b.key);
  assert.equal(a.argsCanonical, '{"amount":500,"charge_id":"ch_1"}');
  assert.equal(canonicalize(new TextEncoder().encode('{"b":[],"a":"é"}')), '{"a":"é","b":[]}');
  assert.throws(() => canonicalize(new Uint8Array([0x22, 0xff, 0x22])), (e) => e.kind === 'invalid-utf8' && e.offset === 1);
  assert.throws(() => canonicalize(42), TypeError);
});

test('policies: documents, objects and parsed policies are interchangeable', () => {
  const doc = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: { lookup: 'find' } };
  const p = parsePolicy(doc);
  assert.equal(p.leaseMs, 3_000);
  assert.deepEqual(p.key, { only: ['/charge_id'], ignore: [], identity: 'scope' });
  assert.ok(Object.isFrozen(p));
  const k1 = deriveKey({ ...intent({ charge_id: 'ch_1', amount: 1 }), policy: doc }).key;
  const k2 = deriveKey({ ...intent({ charge_id: 'ch_1', amount: 2 }, { run: 'other' }), policy: JSON.stringify(doc) }).key;
  const k3 = deriveKey({ ...intent({ charge_id: 'ch_1' }, { step: 'x' }), policy: p }).key;
  assert.equal(k1, k2);
  assert.equal(k1, k3);
  assert.equal(classify({ readOnlyHint: true }), 'read-only');
  assert.equal(classify({}), 'irreversible-external');
  assert.equal(defaultPolicy('accumulating-write').reconcile, 'none');
  assert.throws(() => parsePolicy({ class: 'nope' }), (e) => e.code === 'policy' && e.at === '/class');
  assert.deepEqual(limits(), { maxInputBytes: 16 * 1024 * 1024, maxDepth: 128 });
});

test("coreDefaults: every option left out is the core's, and a tool given no policy gets its safe one", () => {
  const d = coreDefaults();
  assert.deepEqual({ ...d, policy: undefined }, {
    waitMs: 30_000, maxAttempts: 3, settleEveryMs: 50, settleTimeoutMs: 30_000, dueBatch: 10_000, inDoubtAfterMs: 900_000, pageSize: 100,
    providerWaitMs: 0, providerMaxBody: 1 << 20, policy: undefined,
  });
  assert.ok(Object.isFrozen(d));
  assert.equal(d.policy.class, 'irreversible-external');
  assert.equal(d.policy.reconcile, 'none');
  assert.strictEqual(parsePolicy(undefined), d.policy);
  assert.deepEqual(parsePolicy(undefined), parsePolicy({ class: 'irreversible-external' }));
});

test('deriveKeys: one call, each result stands alone', () => {
  const r = deriveKeys([intent({ a: 1 }), intent('{"a":1,"a":2}'), intent({ a: 1 }, { step: '' }), intent('{"a":"\ud800"}')]);
  assert.equal(r[0].key, deriveKey(intent({ a: 1 })).key);
  assert.ok(r[1] instanceof KeyDerivationError && r[1].canon.kind === 'duplicate-key');
  assert.ok(r[2] instanceof KeyDerivationError && r[2].kind === 'empty-field' && r[2].at === 'step-id');
  assert.ok(r[3] instanceof KeyDerivationError && r[3].canon.kind === 'lone-surrogate');
});

test('explain and checkTools return plain data', () => {
  const e = explain(intent({ charge_id: 'ch_1', ts: 1 }), intent({ charge_id: 'ch_1', ts: 2 }), { policy: { class: 'irreversible-external', key: { ignore: ['/ts'] } } });
  assert.equal(e.verdict, 'same-intent');
  assert.deepEqual(e.differences, [{ part: 'args', pointer: '/ts', a: '1', b: '2', effect: 'none' }]);
  const r = checkTools({ tools: [{ name: 'pay' }, { name: 'get', annotations: { readOnlyHint: true } }] });
  assert.equal(r.passed, false);
  assert.equal(r.tools[1].policy.class, 'read-only');
  assert.ok(r.findings.some((f) => f.severity === 'error' && f.tool === 'pay'));
});

// ---- the ledger wrapper -------------------------------------------------------------------------

const PAY = { class: 'irreversible-external', key: { only: ['/charge_id'], identity: 'scope' }, reconcile: { lookup: 'find_refund' }, leaseMs: 1000 };

/** A provider that makes every refund it is asked for and can lose its next reply. */
function provider() {
  const made = [];
  let lose = false;
  return {
    made,
    loseNextReply() {
      lose = true;
    },
    async refund(charge, key) {
      made.push({ charge, key });
      const id = `re_${made.length}`;
      if (lose) {
        lose = false;
        throw new Error('socket hang up');
      }
      return { refund_id: id, charge };
    },
    find(key) {
      const i = made.findIndex((m) => m.key === key);
      return i < 0 ? null : { refund_id: `re_${i + 1}`, charge: made[i].charge };
    },
  };
}

test('effect: executes once, then replays; the key reaches the tool', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = provider();
  const i = intent({ charge_id: 'ch_1', amount: 500 });
  const r1 = await ledger.effect(i, PAY, (key) => pay.refund('ch_1', key));
  const r2 = await ledger.effect({ ...i, run: 'run-2', step: 'retry' }, PAY, (key) => pay.refund('ch_1', key));
  assert.equal(pay.made.length, 1);
  assert.equal(pay.made[0].key, r1.key);
  assert.deepEqual([r1.replayed, r2.replayed], [false, true]);
  assert.deepEqual(r2.value, r1.value);
  const e = await ledger.get('acme', r1.key);
  assert.equal(e.state, 'done');
  assert.equal(e.resultJson, JSON.stringify(r1.value));
  // Same natural key, different parameters: a conflict, naming the first difference.
  await assert.rejects(
    ledger.effect(intent({ charge_id: 'ch_1', amount: 999 }), PAY, () => assert.fail('must not run')),
    (e) => e instanceof ConflictError && e.key === r1.key && e.pointer === '/amount',
  );
});

test('effect: an ambiguous failure is reconciled by the registered reconciler, never retried blindly', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = provider();
  ledger.reconciler('refund', async (req) => {
    const found = pay.find(req.key);
    return found ? happened(found) : notHappened();
  });
  pay.loseNextReply();
  const r = await ledger.effect(intent({ charge_id: 'ch_9' }), PAY, (key) => pay.refund('ch_9', key));
  assert.equal(pay.made.length, 1, 'the refund was made once');
  assert.equal(r.reconciled, true);
  assert.equal(r.replayed, true);
  assert.deepEqual(r.value, { refund_id: 're_1', charge: 'ch_9' });
});

test('effect: a definite failure is recorded; a reconciler saying "not happened" allows a new attempt', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  let calls = 0;
  await assert.rejects(
    ledger.effect(intent({ charge_id: 'ch_2' }), PAY, async () => {
      calls++;
      throw new DefiniteFailure('card declined');
    }),
    (e) => e instanceof ToolFailedError && e.reason === 'card declined',
  );
  const key = deriveKey({ ...intent({ charge_id: 'ch_2' }), policy: PAY }).key;
  assert.equal((await ledger.get('acme', key)).state, 'failed');
  // Failed: a new attempt may run.
  const r = await ledger.effect(intent({ charge_id: 'ch_2' }), PAY, async () => ({ ok: true, calls: ++calls }));
  assert.deepEqual(r.value, { ok: true, calls: 2 });
  assert.equal((await ledger.get('acme', key)).attempt, 2);

  // Ambiguous, reconciled as not happened: executes again (attempt 2) within the same call, once
  // the first attempt can no longer be in flight (maxCallMs after it failed: the run waits).
  const l2 = new Ledger(new MemoryStore(), { owner: 'w2' });
  l2.reconciler('refund', async () => notHappened());
  let n = 0;
  const r2 = await l2.effect(intent({ charge_id: 'ch_3' }), { ...PAY, maxCallMs: 50 }, async () => {
    n++;
    if (n === 1) throw new AmbiguousFailure('timed out');
    return { n };
  });
  assert.deepEqual([r2.value, r2.reconciled, r2.replayed], [{ n: 2 }, true, false]);
});

test('effect: without a way to find out, an unknown outcome stays in doubt, then escalates', async () => {
  let now = 1_000_000;
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1', clock: () => now });
  const policy = { ...PAY, reconcile: { lookup: 'nobody_registered' }, escalateAfterMs: 5000 };
  await assert.rejects(
    ledger.effect(intent({ charge_id: 'ch_4' }), policy, async () => {
      throw new AmbiguousFailure('connection reset');
    }),
    (e) => e instanceof InDoubtError,
  );
  const key = deriveKey({ ...intent({ charge_id: 'ch_4' }), policy }).key;
  assert.equal((await ledger.get('acme', key)).state, 'in-doubt');
  now += 6000;
  const report = await ledger.sweep('acme');
  assert.equal(report.examined, 1);
  assert.equal(report.escalated.length, 1, JSON.stringify(report));
  await assert.rejects(ledger.effect(intent({ charge_id: 'ch_4' }), policy, () => assert.fail('must not run')), EscalatedError);
  // A human settles what they looked at (its version); from then on it replays.
  const { version } = await ledger.get('acme', key);
  await assert.rejects(ledger.resolve('acme', key, notHappened(), { by: 'a', version: version - 1 }), (e) => e instanceof LedgerError && e.kind === 'changed');
  const id = await ledger.resolve('acme', key, happened({ refund_id: 're_manual' }), { by: 'ops@acme', note: 'checked the dashboard', version });
  assert.match(id, /^stl-[0-9a-f]{16}$/);
  const r = await ledger.effect(intent({ charge_id: 'ch_4' }), policy, () => assert.fail('must not run'));
  assert.deepEqual([r.value, r.replayed], [{ refund_id: 're_manual' }, true]);
  const settled = await ledger.get('acme', key);
  assert.deepEqual([settled.resolvedBy, settled.settlement], ['ops@acme', id]);
  await assert.rejects(ledger.resolve('acme', key, unknown('x'), { by: 'a', version: settled.version }), TypeError);
  await assert.rejects(ledger.resolve('acme', key, notHappened(), { by: 'a' }), TypeError);
  await assert.rejects(ledger.resolve('acme', key, notHappened(), { by: 'a', version: settled.version }), (e) => e instanceof LedgerError && e.kind === 'invalid-state');
  // Sent again (with the version it was decided on): the entry is settled now.
  await assert.rejects(ledger.resolve('acme', key, notHappened(), { by: 'a', version }), (e) => e instanceof LedgerError && e.kind === 'invalid-state');
});

test('effect: provider-idempotent tools are reconciled by calling again with the same key', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const seen = new Map();
  let calls = 0;
  const stripe = async (key) => {
    calls++;
    if (!seen.has(key)) seen.set(key, { id: `ch_${seen.size + 1}` });
    if (calls === 1) throw new Error('502 after sending');
    return seen.get(key);
  };
  const r = await ledger.effect(intent({ amount: 5 }), { class: 'irreversible-external', reconcile: 'provider-idempotent' }, stripe);
  assert.equal(calls, 2);
  assert.equal(seen.size, 1);
  assert.deepEqual([r.value, r.reconciled], [{ id: 'ch_1' }, true]);
});

test('effect: a second worker waits for the first, then replays; gives up after waitMs', async () => {
  const store = new MemoryStore();
  const a = new Ledger(store, { owner: 'a' });
  const b = new Ledger(store, { owner: 'b' });
  let release;
  const gate = new Promise((r) => (release = r));
  let calls = 0;
  const slow = async () => {
    calls++;
    await gate;
    return { done: true };
  };
  const i = intent({ charge_id: 'ch_5' });
  const first = a.effect(i, PAY, slow);
  await new Promise((r) => setTimeout(r, 20));
  await assert.rejects(b.effect(i, PAY, slow, { waitMs: 50 }), (e) => e instanceof InProgressError && e.owner === 'a' && Number.isSafeInteger(e.retryAfterMs) && e.retryAfterMs > 0);
  const second = b.effect(i, PAY, slow, { waitMs: 5000 });
  setTimeout(release, 50);
  const [r1, r2] = await Promise.all([first, second]);
  assert.equal(calls, 1);
  assert.deepEqual([r1.replayed, r2.replayed, r2.value], [false, true, { done: true }]);
});

test('effect: read-only and overwriting tools pass through the ledger', async () => {
  const store = new MemoryStore();
  const ledger = new Ledger(store);
  let calls = 0;
  for (let k = 0; k < 2; k++) {
    const r = await ledger.effect(intent({ q: 1 }), { class: 'read-only' }, async () => ++calls);
    assert.equal(r.replayed, false);
  }
  assert.equal(calls, 2);
  assert.deepEqual(await store.list('acme', { state: null, tool: null, limit: 10 }), []);
});

test('sweep reconciles expired leases with the registered reconciler; purge and list', async () => {
  let now = 5_000_000;
  const store = new MemoryStore();
  const ledger = new Ledger(store, { owner: 'w1', clock: () => now });
  const pay = provider();
  ledger.reconciler('refund', async (req) => (pay.find(req.key) ? happened(pay.find(req.key)) : notHappened()));
  // A worker claims, calls the provider, and dies before recording.
  const { claim, outcome } = await ledger.begin(intent({ charge_id: 'ch_7' }), { ...PAY, retentionMs: 10_000 });
  assert.equal(outcome.tag, 'execute');
  await pay.refund('ch_7', claim.key);
  const { claim: c2, outcome: o2 } = await ledger.begin(intent({ charge_id: 'ch_8' }), { ...PAY, retentionMs: 10_000, maxCallMs: 500 });
  assert.equal(o2.tag, 'execute');
  now += 1001;
  // The lease ran out, but a call that started before its end may still land (maxCallMs 500):
  // a lookup's "did not happen" is not believed yet.
  let report = await ledger.sweep();
  assert.deepEqual([report.leasesExpired, report.happened, report.unknown], [2, 1, 1]);
  assert.equal((await ledger.get('acme', c2.key)).state, 'in-doubt');
  now += 500;
  report = await ledger.sweep();
  assert.deepEqual(
    { examined: report.examined, leasesExpired: report.leasesExpired, reconciled: report.reconciled, happened: report.happened, notHappened: report.notHappened },
    { examined: 1, leasesExpired: 0, reconciled: 1, happened: 0, notHappened: 1 },
  );
  assert.equal((await ledger.get('acme', claim.key)).state, 'done');
  assert.equal((await ledger.get('acme', c2.key)).state, 'failed');
  assert.deepEqual((await ledger.list('acme', { state: 'done' })).map((e) => e.key), [claim.key]);
  assert.equal((await ledger.list('acme', { tool: 'refund' })).length, 2);
  assert.equal(await ledger.purgeExpired('acme'), 0);
  await assert.rejects(ledger.purge('acme', claim.key), (e) => e instanceof LedgerError && e.kind === 'retention-not-reached');
  now += 10_000;
  assert.equal(await ledger.purgeExpired(), 2);
  assert.deepEqual(await ledger.list('acme'), []);
});

test('heartbeat, stale tokens and the low-level protocol', async () => {
  let now = 100;
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1', clock: () => now });
  const { claim, outcome } = await ledger.begin(intent({ charge_id: 'ch_h' }), PAY);
  const token = outcome.val;
  now = 900;
  assert.deepEqual(await ledger.heartbeat(claim.scope, claim.key, token), { tag: 'recorded', val: 'pending' });
  assert.equal((await ledger.get(claim.scope, claim.key)).leaseUntil, 1900);
  await assert.rejects(ledger.complete(claim.scope, claim.key, { attempt: 1, owner: 'w2' }, {}), (e) => e.kind === 'stale-token');
  assert.deepEqual(await ledger.complete(claim.scope, claim.key, token, { ok: 1 }), { tag: 'recorded', val: 'done' });
  const again = await ledger.withOwner('w3').begin(intent({ charge_id: 'ch_h' }), PAY);
  assert.deepEqual(again.outcome, { tag: 'replay', val: { resultJson: '{"ok":1}', attempt: 1, recordedAt: 900 } });
  await assert.rejects(ledger.complete('acme', 'oncely1:nope', token, {}), (e) => e.kind === 'not-found');
});

test('a caller that stops waiting: aborted before the claim nothing runs; after it, the call is recorded', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const policy = { class: 'irreversible-external', key: {}, reconcile: 'manual' };
  const calls = [];
  let release;
  const released = new Promise((r) => (release = r));
  const slow = async (key) => {
    calls.push(key);
    await released;
    return { sent: key };
  };
  // Aborted before its first write: the effect stops with the signal's reason; nothing claimed.
  const early = new AbortController();
  early.abort(new Error('the caller left'));
  await assert.rejects(ledger.effect(intent({ n: 1 }), policy, slow, { signal: early.signal }), /the caller left/);
  assert.deepEqual(calls, []);
  assert.deepEqual(await ledger.list('acme'), []);
  // Aborted after the claim: the call runs to its result and is recorded; the re-ask replays it.
  const late = new AbortController();
  const first = ledger.effect(intent({ n: 2 }), policy, slow, { signal: late.signal });
  while (calls.length === 0) await new Promise((r) => setTimeout(r, 1));
  late.abort(new Error('the caller left'));
  release();
  const r = await first;
  assert.deepEqual(r.value, { sent: r.key });
  const again = await ledger.effect(intent({ n: 2 }), policy, slow);
  assert.equal(again.replayed, true);
  assert.equal(calls.length, 1);
});
