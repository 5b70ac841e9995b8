// The RFC 8785 reference data (tests/vectors/jcs), run as it is through the package: every input
// file must canonicalize to its output file byte for byte, and every line of es6-numbers-100k.txt
// must print as expected. Missing data is a failure, never a skip.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { canonicalize } from 'oncely';
import { jcsVectors } from './helpers/env.mjs';

test('every JCS input canonicalizes to its output, byte for byte', () => {
  const dir = jcsVectors();
  const names = readdirSync(join(dir, 'input')).sort();
  assert.ok(names.length >= 5, `expected the JCS reference inputs, found ${names.length}`);
  for (const name of names) {
    const input = readFileSync(join(dir, 'input', name));
    const expected = readFileSync(join(dir, 'output', name));
    // As bytes (the file as it is) and as a JS string: both must give the same bytes.
    const fromBytes = canonicalize(new Uint8Array(input));
    const fromText = canonicalize(input.toString('utf8'));
    assert.deepEqual(Buffer.from(fromBytes, 'utf8'), expected, name);
    assert.equal(fromText, fromBytes, `${name} (as a string)`);
    const hex = readFileSync(join(dir, 'outhex', name.replace(/\.json$/, '.txt')), 'utf8').split(/\s+/).join('').toLowerCase();
    assert.equal(Buffer.from(fromBytes, 'utf8').toString('hex'), hex, `${name} (outhex)`);
    assert.equal(canonicalize(fromBytes), fromBytes, `${name} twice`);
  }
});

test('es6-numbers-100k: every double prints as ECMAScript prints it', () => {
  const text = readFileSync(join(jcsVectors(), 'es6-numbers-100k.txt'), 'utf8');
  const lines = text.split('\n').filter((l) => l.length > 0);
  assert.equal(lines.length, 100_000);
  const view = new DataView(new ArrayBuffer(8));
  const inputs = [];
  const expected = [];
  for (const [i, line] of lines.entries()) {
    const comma = line.indexOf(',');
    assert.ok(comma > 0, `line ${i + 1}: no comma`);
    const hex = line.slice(0, comma);
    view.setBigUint64(0, BigInt(`0x${hex}`));
    const v = view.getFloat64(0);
    // The double as 17 significant digits in exponent form: text that reads back to exactly
    // this double and that the core must print in its shortest ECMAScript form.
    inputs.push(v.toExponential(16));
    expected.push(line.slice(comma + 1));
  }
  const CHUNK = 10_000;
  for (let s = 0; s < lines.length; s += CHUNK) {
    const got = canonicalize(`[${inputs.slice(s, s + CHUNK).join(',')}]`);
    const want = `[${expected.slice(s, s + CHUNK).join(',')}]`;
    if (got !== want) {
      // Name the first line that differs.
      for (let i = s; i < s + CHUNK; i++) {
        assert.equal(canonicalize(inputs[i]), expected[i], `line ${i + 1}: ${lines[i]}`);
      }
    }
    assert.equal(got, want);
    // The expected text reads back unchanged (the round trip a host relies on).
    assert.equal(canonicalize(want), want, `lines ${s + 1}..${s + CHUNK}: canonicalize(expected)`);
  }
});
