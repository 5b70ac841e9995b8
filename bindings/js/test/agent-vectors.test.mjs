// tests/vectors/adapters.json (wit/agent.wit), every case, through the package: which intent a
// tool call is (`identify`, with the key of the intent it names) and what the model reads when it
// does not simply return (`answer`); and the paths of the package that ask the core the same:
// `intentKey` / `deriveKey` of an intent without a step, and `replyTo` of the typed errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CanonicalizationError, deriveKey, IdentityError, identify, intentKey, KeyDerivationError, replyTo } from 'oncely';
import { vectors } from './helpers/env.mjs';
import { answerCase, identifyCase, keyRelations, policyOf, replayAgentVectors } from './helpers/agent-vectors.mjs';

const doc = vectors('adapters.json');

test('identify: every case of adapters.json gives its identity, origins, key or refusal', () => {
  assert.ok(doc.identify.length >= 50);
  for (const c of doc.identify) assert.deepEqual(identifyCase(c), c.expect, c.name);
  assert.ok(doc.identify.some((c) => c.expect.error?.kind === 'no-run'));
  assert.ok(doc.identify.some((c) => c.expect.error?.kind === 'invalid-meta'));
});

test('identify: sameKeyAs and otherKeyThan hold (one effect, or two)', () => {
  const got = replayAgentVectors(doc).identify;
  assert.deepEqual(keyRelations(doc, got), []);
  assert.ok(doc.identify.filter((c) => c.sameKeyAs !== undefined || c.otherKeyThan !== undefined).length >= 2);
});

test('answer: every case of adapters.json gives its reply, or null', () => {
  assert.ok(doc.answer.length >= 18);
  for (const c of doc.answer) assert.deepEqual(answerCase(c), c.expect, c.name);
});

test('replyTo: the typed errors of keys and canonicalization get the answer of their case', () => {
  let n = 0;
  for (const c of doc.answer) {
    const [[tag, body]] = Object.entries(c.failure);
    if (tag === 'key') {
      assert.deepEqual(replyTo(new KeyDerivationError({ ...body, canon: null })), c.expect, c.name);
      n++;
    } else if (tag === 'canon') {
      assert.deepEqual(replyTo(new CanonicalizationError({ ...body, line: 1, column: body.offset + 1 })), c.expect, c.name);
      n++;
    }
  }
  assert.ok(n >= 5);
  assert.equal(replyTo(new Error('a bug')), null);
  assert.equal(replyTo(null), null);
});

test('intentKey and deriveKey of an intent without a step: the key identify names', () => {
  // The cases a low-level caller can state as an intent: a scope, a run and no step, nothing else.
  const plain = doc.identify.filter(
    (c) => c.args !== undefined && c.expect.derived !== undefined && Object.keys(c.call).every((k) => ['tool', 'key', 'scope', 'run'].includes(k)),
  );
  assert.ok(plain.length >= 3, `${plain.length} cases`);
  for (const c of plain) {
    const intent = { scope: c.call.scope, run: c.call.run, tool: c.call.tool, args: c.args, policy: policyOf(c.call.key) };
    assert.equal(intentKey(intent), c.expect.derived, c.name);
    assert.equal(deriveKey({ ...intent, step: '' }).key, c.expect.derived, c.name);
  }
  // Before the core named such intents, a step-less intent was refused ("the intent's step-id is
  // empty"); now it is keyed by its run, and refused only when there is no run.
  const refused = doc.identify.find((c) => c.expect.error?.kind === 'no-run' && Object.keys(c.call).every((k) => ['tool', 'key'].includes(k)));
  assert.throws(() => intentKey({ tool: refused.call.tool, args: {}, policy: policyOf(refused.call.key) }), (e) => {
    assert.ok(e instanceof IdentityError);
    assert.equal(e.kind, 'no-run');
    assert.equal(e.message, refused.expect.error.message);
    return true;
  });
});

test('identify: ids are checked as text, the context as an object', () => {
  assert.throws(() => identify({ tool: 'charge', run: 'r\ud800' }), { name: 'EncodingError' });
  assert.throws(() => identify(null), TypeError);
  assert.throws(() => identify({ tool: 1 }), TypeError);
});
