// The JS package and the Rust CLI give the same answers: keys (golden vectors and random
// intents), canonical forms, explanations and manifest checks — same values, same errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalize, checkTools, deriveKey, deriveKeys, explain, IdentityError, identify, parsePolicy } from 'oncely';
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

/**
 * What deriveKey keys for an intent without a step: the intent as the core's agent.identify names
 * it (tests/vectors/adapters.json) under the identity it returns — `{intent, policy}`, or
 * `{error}` when it refuses. The CLI's `oncely key` is keys.derive itself (an empty step is its
 * empty-field error), so it is asked for the named intent. null: the intent has a step (or no
 * tool), keyed as it is.
 */
function named(it, policy) {
  if ((it.step ?? '') !== '' || typeof it.tool !== 'string' || it.tool === '') return null;
  const p = policy ?? { class: 'irreversible-external' };
  const key = parsePolicy(p).key ?? { ignore: [], identity: 'step' };
  try {
    const id = identify({ tool: it.tool, keyIdentity: key.identity, scope: it.scope, run: it.run });
    return { intent: { ...it, scope: id.scope, run: id.run ?? '', step: id.step ?? '' }, policy: { ...p, key: { ...key, identity: id.keyIdentity } } };
  } catch (e) {
    if (e instanceof IdentityError || e?.name === 'EncodingError') return { error: e.message };
    throw e;
  }
}

/** The CLI's answers for `intents` under `policy`, as deriveKey keys them (see `named`). */
function cliKeysNamed(intents, policy) {
  const want = cliKeysLines(intents, policy);
  const groups = new Map();
  intents.forEach((it, i) => {
    const n = named(it, policy);
    if (n === null) return;
    if ('error' in n) want[i] = { error: n.error };
    else {
      const g = JSON.stringify(n.policy);
      if (!groups.has(g)) groups.set(g, { policy: n.policy, at: [], intents: [] });
      groups.get(g).at.push(i);
      groups.get(g).intents.push(n.intent);
    }
  });
  for (const g of groups.values()) cliKeysLines(g.intents, g.policy).forEach((w, j) => (want[g.at[j]] = w));
  return want;
}

test('keys.json: every intent gets the same key (or the same error) from the CLI', () => {
  const { cases } = vectors('keys.json');
  let keys = 0;
  for (const c of cases) {
    const n = named(c.intent, c.policy);
    const want = n === null ? cliKey(c.intent, c.policy) : 'error' in n ? { error: n.error } : cliKey(n.intent, n.policy);
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
    const want = cliKeysNamed(intents, policy);
    // deriveKeys keys every intent as it is (an empty step included), as the CLI does.
    const wantBatch = cliKeysLines(intents, policy);
    const batch = deriveKeys(intents, { policy });
    intents.forEach((it, i) => {
      const got = js(() => deriveKey({ ...it, policy }));
      assert.deepEqual(got, want[i], `seed ${s}, intent ${i}: ${JSON.stringify(it)}`);
      assert.deepEqual(batch[i] instanceof Error ? { error: batch[i].message } : batch[i], wantBatch[i], `seed ${s}, batch ${i}`);
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
