// tests/vectors/adapters.json (wit/agent.wit), every case, through the package: which intent a
// tool call is (`identify`, with the key of the intent it names) and what the model reads when it
// does not simply return (`answer`); and the paths of the package that ask the core the same:
// `intentKey` / `deriveKey` of an intent without a step, and `replyTo` of the typed errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AmbiguousFailure, AnsweredError, CanonicalizationError, DefiniteFailure, deriveKey, IdentityError, identify, intentKey, KeyDerivationError, replyTo } from 'oncely';
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
    (c) => c.args !== undefined && c.expect.derived !== undefined && Object.keys(c.call).every((k) => ['tool', 'class', 'key', 'scope', 'run'].includes(k)),
  );
  assert.ok(plain.length >= 3, `${plain.length} cases`);
  // A tool that is not keyed (read-only) with no run is among them: keyed by its scope, not refused.
  assert.ok(plain.some((c) => c.call.class === 'read-only' && c.call.run === undefined));
  for (const c of plain) {
    const intent = { scope: c.call.scope, run: c.call.run, tool: c.call.tool, args: c.args, policy: policyOf(c.call.key, undefined, c.call.class) };
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

// `cancel`: a caller that stops waiting (wit/effect.wit, "A caller that stops waiting") through an
// adapter (oncely/ai's once(), the framework's abortSignal aborted): before the claim nothing runs;
// once claimed, the call runs on to its record, and the re-ask gets that record.
test('cancel: what a caller that stops waiting leaves recorded, and what its re-ask gets', async () => {
  const { once } = await import('oncely/ai');
  const { Ledger, MemoryStore } = await import('oncely');
  assert.deepEqual(new Set(doc.cancel.map((c) => c.leaves)), new Set(['before-claim', 'during-call']));
  for (const c of doc.cancel) {
    const { intent, expect: want } = c;
    const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
    const calls = [];
    const effects = [];
    let release;
    const released = new Promise((r) => (release = r));
    let started;
    const running = new Promise((r) => (started = r));
    const tool = once(
      {
        async execute(_args, { oncely }) {
          calls.push(oncely.key);
          const n = calls.length;
          started();
          if (n === 1 && c.leaves === 'during-call') await released;
          if (n === 1 && c.first === 'fails-definitely') throw new DefiniteFailure(c.reason);
          if (n === 1 && c.first === 'fails-ambiguously') throw new AmbiguousFailure(c.reason);
          if (n === 1 && c.first === 'outlives-its-deadline') await new Promise(() => {}); // abandoned at maxCallMs
          return { sent: n };
        },
      },
      { ledger, name: intent.tool, scope: intent.scope, run: intent.run, step: intent.step, policy: c.policy, onEffect: (e) => effects.push(e) },
    );
    const leaving = new AbortController();
    if (c.leaves === 'before-claim') leaving.abort(new Error('the caller left'));
    const first = tool.execute(intent.args, { toolCallId: 'call_1', abortSignal: leaving.signal });
    if (c.leaves === 'during-call') {
      await running;
      leaving.abort(new Error('the caller left'));
    }
    await assert.rejects(first, /the caller left/, c.name);
    if (c.reask === 'in-flight') {
      setTimeout(release, 100);
    } else {
      release();
      let entry = await ledger.get(intent.scope, want.key);
      for (let i = 0; i < 500 && entry?.state === 'pending'; i++) {
        await new Promise((r) => setTimeout(r, 10)); // the call runs on to its record (5 s at most)
        entry = await ledger.get(intent.scope, want.key);
      }
      assert.equal(entry?.state ?? null, want.recorded, c.name);
    }
    let got;
    try {
      const value = await tool.execute(intent.args, { toolCallId: 'call_2' });
      const told = effects.filter((e) => e.toolCallId === 'call_2');
      assert.equal(told.length, 1, c.name);
      assert.equal(told[0].key, want.key, c.name);
      got = { replayed: told[0].replayed, value };
    } catch (e) {
      assert.ok(e instanceof AnsweredError, `${c.name}: ${e}`);
      assert.equal(e.cause.message, e.reply.text, c.name); // the typed error's message is the core's sentence
      got = { error: e.cause.code, code: e.reply.code }; // the typed error's code is its effect-error case
    }
    assert.deepEqual(got, want.reask, c.name);
    assert.equal(calls.length, want.calls, c.name);
    assert.deepEqual(new Set(calls), new Set([want.key]), c.name);
    assert.equal((await ledger.get(intent.scope, want.key)).state, want.state, c.name);
  }
});
