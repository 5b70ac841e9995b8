// The JS package and the Rust CLI give the same answers: keys (golden vectors and random
// intents), canonical forms, explanations and manifest checks — same values, same errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalize, checkTools, deriveKey, deriveKeys, explain } from 'oncely';
import { cliCanon, cliCheck, cliExplain, cliKey, cliKeysLines } from './helpers/cli.mjs';
import { vectors } from './helpers/env.mjs';
import { randomIntents, seed } from './helpers/random.mjs';

function js(f) {
  try {
    return f();
  } catch (e) {
    if (!e.code) throw e;
    return { error: e.message };
  }
}

const unhex = (h) => Buffer.from(h, 'hex');

test('keys.json: every intent gets the same key (or the same error) from the CLI', () => {
  const { cases } = vectors('keys.json');
  let keys = 0;
  for (const c of cases) {
    const want = cliKey(c.intent, c.policy);
    const got = js(() => deriveKey({ ...c.intent, policy: c.policy }));
    assert.deepEqual(got, want, c.name);
    if (!want.error) keys++;
  }
  assert.ok(keys > 10);
});

test('random intents: keys equal the CLI\'s under several key specs', () => {
  const s = seed();
  console.log(`random intents: seed ${s} (ONCELY_TEST_SEED=${s} replays)`);
  const intents = randomIntents(s, 400);
  const policies = [
    undefined,
    { class: 'irreversible-external', key: { identity: 'run', ignore: ['/a', '/b/c'] } },
    { class: 'accumulating-write', key: { identity: 'scope' } },
  ];
  let ok = 0;
  for (const policy of policies) {
    const want = cliKeysLines(intents, policy);
    const batch = deriveKeys(intents, { policy });
    intents.forEach((it, i) => {
      const got = js(() => deriveKey({ ...it, policy }));
      assert.deepEqual(got, want[i], `seed ${s}, intent ${i}: ${JSON.stringify(it)}`);
      assert.deepEqual(batch[i] instanceof Error ? { error: batch[i].message } : batch[i], want[i], `seed ${s}, batch ${i}`);
      if (!want[i].error) ok++;
    });
  }
  assert.ok(ok > 800, `only ${ok} keys derived`);
});

test('canonical.json: the same canonical text (or error) as `oncely canon`', () => {
  for (const c of vectors('canonical.json').cases) {
    const bytes = c.input_hex !== undefined ? unhex(c.input_hex) : Buffer.from(c.input, 'utf8');
    assert.deepEqual(js(() => canonicalize(new Uint8Array(bytes))), cliCanon(bytes), c.name);
  }
});

test('explain.json: the same verdict, keys and differences as `oncely explain`', () => {
  for (const c of vectors('explain.json').cases) {
    const want = cliExplain(c.a, c.b, c.policy);
    const got = explain(c.a, c.b, { policy: c.policy });
    assert.equal(got.verdict, want.verdict, c.name);
    assert.equal(got.keyA.key, want.key_a, c.name);
    assert.equal(got.keyB.key, want.key_b, c.name);
    assert.deepEqual(
      got.differences.map(({ part, pointer, a, b }) => ({ part, pointer, a, b })),
      want.differences.map(({ part, pointer, a, b }) => ({ part, pointer, a, b })),
      c.name,
    );
  }
});

test('policy.json manifests: the same report as `oncely check`', () => {
  for (const c of vectors('policy.json').manifests) {
    const want = cliCheck(c.manifest);
    const got = js(() => checkTools(c.manifest));
    if (want.error) {
      assert.ok(got.error, `${c.name}: the CLI refused it: ${want.error}`);
      continue;
    }
    assert.equal(got.passed, want.passed, c.name);
    assert.deepEqual(got.findings, want.findings, c.name);
    assert.deepEqual(
      got.tools.map((t) => ({ name: t.name, class: t.policy.class, class_source: t.classSource, key_declared: t.policy.key !== undefined, reconcile: t.policy.reconcile })),
      want.tools,
      c.name,
    );
  }
});
