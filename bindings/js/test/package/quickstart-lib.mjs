// What quickstart.mjs (Node) and edge-runtimes.mjs (Deno, Bun) run against the installed
// package: the README's quickstart with a provider that pays every refund it is asked for, so a
// second payment would show. Imports only `oncely` and node:assert (which Deno and Bun have).
import assert from 'node:assert/strict';
import { DefiniteFailure, deriveKey, happened, intentKey, KeyDerivationError, Ledger, notHappened } from 'oncely';

// The README's policy and intent: the key is the charge alone (a natural key), so the same
// refund asked for in another run, or with the arguments spelled otherwise, is the same effect.
export const policy = {
  class: 'irreversible-external',
  key: { only: ['/charge_id'], identity: 'scope' },
  reconcile: { lookup: 'find_refund' },
};
export const intent = {
  scope: 'acme', run: 'run-7', step: 'refund-1', tool: 'refund',
  args: { charge_id: 'ch_1', amount: 500 },
};

/** tests/vectors/keys.json: every key case derives its key, preimage and fingerprint; every error case its error. Returns how many were checked. */
export function goldenKeys(vectors) {
  let n = 0;
  for (const c of vectors.cases) {
    const input = { ...c.intent, policy: c.policy };
    if ('key' in c) {
      const d = deriveKey(input);
      assert.deepEqual([d.key, d.preimage, d.fingerprint], [c.key, c.preimage, c.fingerprint], c.name);
      assert.equal(intentKey(input), c.key, c.name);
      n++;
    } else if (c.error && !(c.error.kind === 'empty-field' && c.error.at === 'step-id')) {
      // (an empty step under identity step is named by the core's identify: keyed by the run)
      assert.throws(() => intentKey(input), (e) => e instanceof KeyDerivationError && e.kind === c.error.kind, c.name);
      n++;
    }
  }
  assert.ok(n >= 30, `only ${n} cases checked`);
  const key = intentKey({ ...intent, policy });
  assert.match(key, /^oncely1:[0-9a-f]{64}$/);
  assert.equal(intentKey({ ...intent, run: 'run-8', step: 'again', args: { amount: 5e2, charge_id: 'ch_1' }, policy }), key);
  assert.notEqual(intentKey({ ...intent, args: { charge_id: 'ch_2', amount: 500 }, policy }), key);
  return n;
}

// A provider that pays every refund it is asked for; `lose` loses the reply of the next one.
function provider() {
  const refunds = [];
  return {
    refunds,
    lose: false,
    async refund(args, { idempotencyKey }) {
      refunds.push({ ...args, idempotencyKey });
      const reply = { refund_id: `re_${refunds.length}`, charge: args.charge_id };
      if (this.lose) {
        this.lose = false;
        throw new Error('connection reset'); // it happened; the reply did not arrive
      }
      return reply;
    },
    async findRefund(key) {
      const i = refunds.findIndex((r) => r.idempotencyKey === key);
      return i < 0 ? null : { refund_id: `re_${i + 1}`, charge: refunds[i].charge_id };
    },
  };
}

/**
 * The quickstart on `store`: a refund runs once and is replayed; a refund whose reply was lost is
 * in doubt and settled by the reconciler (the provider's lookup) without paying twice; a
 * refused refund runs again. With `reopen`, a new ledger over a reopened store (the same file)
 * replays the first refund without calling the tool. Returns a one-line summary.
 */
export async function quickstart(store, options = {}) {
  const { reopen } = options;
  const stripe = provider();
  const events = [];
  const ledger = new Ledger(store, { onEvent: (e) => events.push(e.kind) });
  ledger.reconciler('refund', async (req) => {
    const found = await stripe.findRefund(req.key);
    return found ? happened(found) : notHappened();
  });
  const pay = (args) => (key) => stripe.refund(args, { idempotencyKey: key });

  // Once, then replayed: the same intent (another run, other spelling) does not pay again.
  const key = intentKey({ ...intent, policy });
  const first = await ledger.effect(intent, policy, pay(intent.args));
  assert.deepEqual(first, { value: { refund_id: 're_1', charge: 'ch_1' }, key, replayed: false, reconciled: false });
  const again = await ledger.effect({ ...intent, run: 'run-8', args: { amount: 5e2, charge_id: 'ch_1' } }, policy, pay(intent.args));
  assert.deepEqual(again, { ...first, replayed: true });
  assert.equal(stripe.refunds.length, 1);
  assert.equal(stripe.refunds[0].idempotencyKey, key);

  // A lost reply: in doubt (never retried blindly), settled at once by the provider's lookup,
  // which finds the refund: its value is returned and the refund is not paid twice.
  const lost = { ...intent, step: 'refund-2', args: { charge_id: 'ch_2', amount: 700 } };
  stripe.lose = true;
  const settled = await ledger.effect(lost, policy, pay(lost.args));
  assert.deepEqual(settled, { value: { refund_id: 're_2', charge: 'ch_2' }, key: intentKey({ ...lost, policy }), replayed: true, reconciled: true });
  const replayed = await ledger.effect(lost, policy, () => assert.fail('the lost refund ran again'));
  assert.deepEqual(replayed, { ...settled, reconciled: false });
  assert.equal(stripe.refunds.length, 2);

  // A refusal (the provider said no before acting) is recorded; asking again runs the tool again.
  const refused = { ...intent, step: 'refund-3', args: { charge_id: 'ch_3', amount: 1 } };
  await assert.rejects(ledger.effect(refused, policy, () => { throw new DefiniteFailure('amount too small'); }));
  const retried = await ledger.effect(refused, policy, pay(refused.args));
  assert.deepEqual([retried.value, retried.replayed], [{ refund_id: 're_3', charge: 'ch_3' }, false]);

  const entry = await ledger.get('acme', key);
  assert.equal(entry.state, 'done');
  for (const kind of ['claimed', 'executed', 'replayed', 'in-doubt', 'reconciled']) assert.ok(events.includes(kind), `no ${kind} event in ${events}`);
  await store.close();

  if (!reopen) return `${events.length} events (${[...new Set(events)].join(', ')}), ${stripe.refunds.length} refunds`;
  // Another process's ledger over the same file replays the refund without calling the tool.
  const store2 = await reopen();
  try {
    const other = new Ledger(store2);
    const replay = await other.effect(intent, policy, () => assert.fail('the tool ran again after a reopen'));
    assert.deepEqual(replay, { ...first, replayed: true });
    const history = await other.history('acme', key);
    assert.deepEqual(history.map((h) => h.state), ['pending', 'done']);
  } finally {
    await store2.close();
  }
  return `${events.length} events (${[...new Set(events)].join(', ')}), ${stripe.refunds.length} refunds, replayed after a reopen`;
}
