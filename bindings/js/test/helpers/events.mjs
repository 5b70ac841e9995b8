// A run of real effects that makes every kind of ledger decision (as host/tests/events.rs does):
// a read-only lookup (a pass-through: no event), a fresh payment (claimed, executed) and its
// repeat (replayed), a shipment keyed by its order alone and the same order to another address
// (conflict), an email that times out with no way to reconcile (claimed, in-doubt, escalated) and
// that a person then settles with the version they saw (resolved), and a refund that times out and
// whose reconciler finds it happened (claimed, in-doubt, reconciled); a transfer a person must
// approve (awaiting-approval), approves (approved) and that then runs (claimed, executed), and a
// gift a person denies (awaiting-approval, denied).
import assert from 'node:assert/strict';
import { AmbiguousFailure, AwaitingApprovalError, ConflictError, DeniedError, EscalatedError, happened, notHappened } from 'oncely';

export const SCOPE = 'acme';
const intent = (tool, args) => ({ scope: SCOPE, run: 'r', step: 's', tool, args });
const PAY = { class: 'irreversible-external', reconcile: { lookup: 'find' } };
const BY_ORDER = { class: 'irreversible-external', key: { only: ['/order'] }, reconcile: { lookup: 'find' } };
const MANUAL = { class: 'irreversible-external', reconcile: 'manual', escalateAfterMs: 0 };
const REFUND = { class: 'irreversible-external', reconcile: { lookup: 'find' }, maxCallMs: 1 };
const APPROVED = { class: 'irreversible-external', reconcile: { lookup: 'find' }, approval: 'always' };
const ok = async () => ({ ok: true });
const timeout = async () => {
  throw new AmbiguousFailure('timed out');
};

/**
 * Run the effects on `ledger` (owner `w1`, a fresh store); returns the events they must have
 * made, in order: `{kind, scope, key, tool, detail}` (a RegExp where the text is the core's).
 */
export async function everyKind(ledger) {
  assert.equal(ledger.owner, 'w1');
  const lookup = await ledger.effect(intent('lookup', { q: 1 }), { class: 'read-only' }, async () => 'found');
  const pay = await ledger.effect(intent('pay', { n: 1 }), PAY, ok);
  assert.equal((await ledger.effect(intent('pay', { n: 1 }), PAY, ok)).replayed, true);
  const ship = await ledger.effect(intent('ship', { order: 1, to: 'a' }), BY_ORDER, ok);
  await assert.rejects(ledger.effect(intent('ship', { order: 1, to: 'b' }), BY_ORDER, ok), ConflictError);
  await assert.rejects(ledger.effect(intent('email', {}), MANUAL, timeout), EscalatedError);
  const email = (await ledger.list(SCOPE, { tool: 'email' }))[0];
  assert.equal(email.state, 'escalated');
  const id = await ledger.resolve(SCOPE, email.key, notHappened(), { by: 'ops@acme', version: email.version });
  ledger.reconciler('refund', async () => happened({ refund: 're_1' }));
  const refund = await ledger.effect(intent('refund', {}), REFUND, timeout);
  assert.deepEqual([refund.value, refund.reconciled], [{ refund: 're_1' }, true]);
  const asked = await ledger.effect(intent('transfer', { n: 5 }), APPROVED, ok).catch((e) => e);
  assert.ok(asked instanceof AwaitingApprovalError, String(asked));
  const approval = await ledger.approve(SCOPE, asked.key, { by: 'ops@acme', version: asked.version });
  const transfer = await ledger.effect(intent('transfer', { n: 5 }), APPROVED, ok);
  assert.equal(transfer.key, asked.key);
  const gift = await ledger.effect(intent('gift', { n: 1 }), APPROVED, ok).catch((e) => e);
  assert.ok(gift instanceof AwaitingApprovalError, String(gift));
  const denial = await ledger.deny(SCOPE, gift.key, { by: 'ops@acme', note: 'no', version: gift.version });
  await assert.rejects(ledger.effect(intent('gift', { n: 1 }), APPROVED, ok), DeniedError);

  const ev = (kind, key, tool, detail = '') => ({ kind, scope: SCOPE, key, tool, detail });
  const claimed = (key, tool) => ev('claimed', key, tool, 'attempt 1 by w1');
  assert.equal(lookup.value, 'found');
  return [
    claimed(pay.key, 'pay'),
    ev('executed', pay.key, 'pay', 'attempt 1'),
    ev('replayed', pay.key, 'pay'),
    claimed(ship.key, 'ship'),
    ev('executed', ship.key, 'ship', 'attempt 1'),
    ev('conflict', ship.key, 'ship', 'first difference at "/to"'),
    claimed(email.key, 'email'),
    ev('in-doubt', email.key, 'email', 'timed out'),
    ev('escalated', email.key, 'email', /^attempt 1 failed ambiguously: timed out; .*only a human can settle it/),
    ev('resolved', email.key, 'email', `${id} by ops@acme: did not happen`),
    claimed(refund.key, 'refund'),
    ev('in-doubt', refund.key, 'refund', 'timed out'),
    ev('reconciled', refund.key, 'refund', 'happened'),
    ev('awaiting-approval', transfer.key, 'transfer', '{"n":5}'),
    ev('approved', transfer.key, 'transfer', `${approval} by ops@acme`),
    claimed(transfer.key, 'transfer'),
    ev('executed', transfer.key, 'transfer', 'attempt 1'),
    ev('awaiting-approval', gift.key, 'gift', '{"n":1}'),
    ev('denied', gift.key, 'gift', `${denial} by ops@acme: no`),
  ];
}

/** Check `got` (events) against `want` (from everyKind or the like): the same, in order. */
export function assertEvents(got, want, name = '') {
  assert.deepEqual(
    got.map((e) => e.kind),
    want.map((e) => e.kind),
    `${name}: the kinds, in order`,
  );
  want.forEach((w, i) => {
    const { detail, ...rest } = got[i];
    const { detail: wantDetail, ...wantRest } = w;
    assert.deepEqual(rest, wantRest, `${name}: event ${i} (${w.kind})`);
    if (wantDetail instanceof RegExp) assert.match(detail, wantDetail, `${name}: event ${i} (${w.kind})`);
    else assert.equal(detail, wantDetail, `${name}: event ${i} (${w.kind})`);
  });
}
