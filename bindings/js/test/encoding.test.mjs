// The core's encoding (src/encoding.js): what `effect.run` is given and answers, as bytes. Every
// effect test crosses through it (witRun); these pin the encoding itself: values of every shape
// survive both directions, the core reads what JS writes and refuses bytes that are not a
// run-call, and an answer that does not decode is an error, never a wrong value.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, test } from 'node:test';
import { PACKAGE_DIR } from './helpers/env.mjs';

let core;
let enc;

before(async () => {
  core = await import(pathToFileURL(join(PACKAGE_DIR, 'src/core.js')).href);
  enc = await import(pathToFileURL(join(PACKAGE_DIR, 'src/encoding.js')).href);
});

const policy = {
  class: 'irreversible-external',
  key: { only: undefined, ignore: ['/note'], identity: 'step' },
  reconcile: { tag: 'lookup', val: 'find' },
  leaseMs: 3000n,
  maxCallMs: 30000n,
  reconcileAfterMs: 10000n,
  escalateAfterMs: 3600000n,
  retentionMs: 604800000n,
  approval: undefined,
};

const start = (args = '{"charge_id":"ch_1","amount":500}', owner = 'w1') => ({
  tag: 'start',
  val: {
    tag: 'effect',
    val: {
      intent: { scope: 'acme', runId: 'run-7', stepId: 'refund-1', tool: 'refund', argsJson: args },
      policy,
      options: { owner, maxAttempts: 0, waitMs: undefined, hasReconciler: false, approvalWaitMs: undefined },
    },
  },
});

test('a run-call survives a round trip', () => {
  const long = `{"note":"${'é€𝄞'.repeat(100)}","amount":500}`;
  for (const call of [
    { state: new Uint8Array(0), input: start(), now: 0n },
    { state: new Uint8Array(0), input: start(long, 'ü'.repeat(200)), now: 2n ** 64n - 1n },
    { state: new Uint8Array(768).map((_, i) => i % 256), input: { tag: 'written' }, now: 2n ** 63n },
    { state: Uint8Array.of(0), input: { tag: 'tool-failed', val: { definite: true, reason: 'declined' } }, now: 127n },
    { state: new Uint8Array(0), input: { tag: 'verdict', val: { tag: 'not-happened' } }, now: 128n },
    { state: new Uint8Array(0), input: { tag: 'row', val: undefined }, now: 1n },
  ]) {
    const bytes = enc.encode('effect.run-call', call);
    assert.deepEqual(enc.decode('effect.run-call', bytes), call);
  }
});

test('the core reads what JS writes; the lazy step is the whole step', () => {
  const first = core.witRun(new Uint8Array(0), start(), 1000);
  assert.equal(first.read.scope, 'acme');
  // The first step only reads; the claim is written once the row is known to be absent.
  assert.equal(first.write, undefined);
  const step = core.witRun(first.state, { tag: 'row', val: undefined }, 1000);
  assert.equal(step.write.row.owner, 'w1');
  assert.equal(step.write.row.argsCanonical, '{"amount":500,"charge_id":"ch_1"}');
  assert.deepEqual(step.action.val.token, { attempt: 1, owner: 'w1' });
  for (const [call, lazy] of [
    [{ state: new Uint8Array(0), input: start(), now: 1000 }, first],
    [{ state: first.state, input: { tag: 'row', val: undefined }, now: 1000 }, step],
  ]) {
    const whole = enc.decode('effect.run-answer', core.runBytes(enc.encode('effect.run-call', call))).val;
    for (const f of ['state', 'read', 'replay', 'write', 'events', 'action']) assert.deepEqual(lazy[f], whole[f], f);
  }
});

test('a key error comes back as the error', () => {
  assert.throws(() => core.witRun(new Uint8Array(0), start('{not json'), 1000), { name: 'KeyDerivationError' });
});

test('bytes that are not a run-call are refused by the core', () => {
  for (const garbage of [[], [0xff], [0, 5, 97, 98], [0, 0, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 2, 0x80, 0x80, 0x80]]) {
    const answer = enc.decode('effect.run-answer', core.runBytes(Uint8Array.from(garbage)));
    assert.equal(answer.tag, 'step');
    assert.equal(answer.val.action.tag, 'raise');
    const err = answer.val.action.val;
    assert.equal(err.tag, 'ledger');
    assert.equal(err.val.kind, 'invalid-request');
    assert.match(err.val.message, /not a run-call/);
  }
});

test('an answer that does not decode is an error', () => {
  const bytes = core.runBytes(enc.encode('effect.run-call', { state: new Uint8Array(0), input: start(), now: 1000 }));
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  assert.throws(() => enc.decode('effect.run-answer', longer), /left after/);
  assert.throws(() => enc.decode('effect.run-answer', bytes.subarray(0, bytes.length >> 1)), RangeError);
  assert.throws(() => enc.decode('effect.run-answer', Uint8Array.of(7)), /no such case/);
  assert.throws(() => enc.encode('effect.run-call', { state: new Uint8Array(0), input: { tag: 'nonsense' }, now: 1 }), TypeError);
  assert.throws(() => enc.encode('effect.run-call', { state: new Uint8Array(0), input: { tag: 'written' }, now: -1 }), TypeError);
});

test("a parsed policy's bytes are kept with it, and are the bytes of its fields", () => {
  const parsed = core.parsePolicy({ class: 'irreversible-external', key: { ignore: ['/note'] }, reconcile: { lookup: 'find' } });
  const wit = core.witPolicy(parsed);
  assert.ok(Object.isFrozen(wit) && Object.isFrozen(wit.key) && Object.isFrozen(wit.key.ignore), 'the WIT record is frozen, lists too');
  const fields = enc.encode('policy.tool-policy', { ...wit, key: { ...wit.key, ignore: [...wit.key.ignore] } });
  assert.deepEqual(enc.encode('policy.tool-policy', wit), fields);
  assert.deepEqual(enc.encode('policy.tool-policy', wit), fields, 'the kept bytes');
  const other = enc.keep({ ...wit, leaseMs: wit.leaseMs + 1n });
  assert.notDeepEqual(enc.encode('policy.tool-policy', other), fields);
  // A value frozen but not kept is written field by field.
  const frozen = Object.freeze({ ...wit, key: { ...wit.key, ignore: ['/note'] } });
  assert.deepEqual(enc.encode('policy.tool-policy', frozen), fields);
  frozen.key.ignore.push('/memo');
  assert.notDeepEqual(enc.encode('policy.tool-policy', frozen), fields);
});
