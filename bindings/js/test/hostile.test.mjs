// Hostile inputs: each is refused with the package's own typed error carrying the core's kind —
// never a bare TypeError or RangeError, never silently dropped or converted the way
// JSON.stringify drops `undefined` and writes NaN, a hole or a Map as null or {} — at every entry
// point that takes user data, and a refused call calls no tool and writes nothing to the ledger.
//
// What the core can judge it judges (JSON text, a BigInt's digits, nesting up to its limit);
// what only JS sees (undefined, a function, a Map, a hole, NaN) is refused with the core's
// nearest kind and the pointer of the value in the message. When both are present the first in
// document order wins, and what the core checks before the arguments (an empty scope) wins over
// any problem in them (docs/key-scheme.md, "Which error is reported").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  canonicalize,
  checkTools,
  CanonicalizationError,
  deriveKey,
  deriveKeys,
  EncodingError,
  explain,
  intentKey,
  KeyDerivationError,
  Ledger,
  MemoryStore,
  parsePolicy,
  PolicyError,
  resolveTool,
} from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { requireCli } from './helpers/env.mjs';
import { tempDir } from './helpers/tmp.mjs';

const MIB16 = 16 * 1024 * 1024;
const POLICY = { class: 'irreversible-external', reconcile: 'manual' };
const GOOD = { scope: 'acme', run: 'r1', step: 's1', tool: 'refund', args: { id: 'ch_1' } };

function nestArray(n) {
  let v = [];
  for (let i = 1; i < n; i++) v = [v];
  return v;
}
function nestObject(n) {
  let v = {};
  for (let i = 1; i < n; i++) v = { a: v };
  return v;
}
function cyclicArray() {
  const v = [1];
  v.push(v);
  return v;
}
function cyclicObject() {
  const v = { a: 1 };
  v.self = v;
  return v;
}
function mutual() {
  const a = { name: 'a' };
  const b = { name: 'b', a };
  a.b = b;
  return { a };
}
function sparse(make) {
  const a = make();
  return a;
}
class Money {
  constructor() {
    this.amount = 1;
  }
}

/** A case: `canon` (invalid-args with this canonicalization kind), `key` (a key error found before
 * the arguments) or `encoding` (EncodingError on this id); `says`: a piece of the message. */
const C = (name, args, canon, says) => ({ name, args, canon, says });

const CASES = [
  // nesting: the core's limit and wording at any depth; a cycle is infinitely deep
  C('array nested 129 deep', nestArray(129), 'too-deep', 'nested deeper than 128 levels'),
  C('array nested 100,000 deep', nestArray(100_000), 'too-deep', 'column 129, byte 128'),
  C('object nested 129 deep', nestObject(129), 'too-deep'),
  C('object nested 100,000 deep', nestObject(100_000), 'too-deep'),
  C('deep nesting under a member', { a: [1, { b: nestArray(200) }] }, 'too-deep'),
  C('an array that contains itself', cyclicArray(), 'too-deep'),
  C('an object that contains itself', cyclicObject(), 'too-deep'),
  C('two objects that refer to each other', mutual(), 'too-deep'),
  C('a cycle through an array', (() => { const o = {}; o.list = [o]; return o; })(), 'too-deep'), // prettier-ignore
  // BigInt: a JSON integer; the core judges its digits
  C('BigInt 2**53 + 1', { n: 2n ** 53n + 1n }, 'inexact-integer', '9007199254740993 cannot be held exactly'),
  C('BigInt -(2**53 + 1)', [-(2n ** 53n + 1n)], 'inexact-integer', '-9007199254740993'),
  C('BigInt 10**400', { n: 10n ** 400n }, 'number-overflow', 'is too large for a double'),
  C('BigInt of 5,000 digits', { n: 10n ** 5000n }, 'number-overflow', 'integer at "/n" (about 5,001 digits)'),
  // what JSON.stringify drops or turns into null
  C('undefined member', { a: 1, b: undefined }, 'syntax', 'undefined at "/b"'),
  C('undefined element', [1, undefined], 'syntax', 'undefined at "/1"'),
  C('undefined arguments', undefined, 'syntax', 'undefined at ""'),
  C('a function member', { f: () => 1 }, 'syntax', 'a function at "/f"'),
  C('a function element', [Math.max], 'syntax', 'a function at "/0"'),
  C('a class as a value', { c: Money }, 'syntax', 'a function at "/c"'),
  C('a symbol member', { s: Symbol('x') }, 'syntax', 'a symbol at "/s"'),
  C('a symbol element', [Symbol.iterator], 'syntax', 'a symbol at "/0"'),
  C('an own toJSON method', { a: 1, toJSON: () => 'x' }, 'syntax', 'a function at "/toJSON"'),
  // numbers JSON cannot carry (JSON.stringify writes null)
  C('NaN', { a: NaN }, 'syntax', 'NaN at "/a"'),
  C('0 / 0', [0 / 0], 'syntax', 'NaN at "/0"'),
  C('Infinity', { a: Infinity }, 'number-overflow', 'Infinity at "/a"'),
  C('-Infinity', [-Infinity], 'number-overflow', '-Infinity at "/0"'),
  C('Number.MAX_VALUE * 2', { a: Number.MAX_VALUE * 2 }, 'number-overflow'),
  C('NaN as the arguments', NaN, 'syntax', 'NaN at ""'),
  // holes (JSON.stringify writes null)
  C('a hole in an array', { a: [1, , 3] }, 'syntax', 'a hole in a sparse array at "/a/1"'), // eslint-disable-line no-sparse-arrays
  C('new Array(3)', [new Array(3)], 'syntax', '"/0/0"'),
  C('a deleted element', sparse(() => { const a = [1, 2, 3]; delete a[2]; return a; }), 'syntax', '"/2"'), // prettier-ignore
  C('length set past the end', sparse(() => { const a = ['x']; a.length = 2 ** 32 - 1; return a; }), 'syntax', '"/1"'), // prettier-ignore
  // objects that are not plain objects or arrays (JSON.stringify writes {} or calls toJSON)
  C('Map', { m: new Map([['a', 1]]) }, 'syntax', 'a Map at "/m"'),
  C('Set', { s: new Set([1]) }, 'syntax', 'a Set at "/s"'),
  C('Date', { at: new Date(0) }, 'syntax', 'a Date at "/at"'),
  C('Date as the arguments', new Date(0), 'syntax', 'a Date at ""'),
  C('RegExp', [/x/], 'syntax', 'a RegExp at "/0"'),
  C('Uint8Array', { b: new Uint8Array(2) }, 'syntax', 'a Uint8Array at "/b"'),
  C('ArrayBuffer', { b: new ArrayBuffer(2) }, 'syntax', 'an ArrayBuffer'),
  C('a class instance', { m: new Money() }, 'syntax', 'a Money at "/m"'),
  C('a boxed string', { s: new String('x') }, 'syntax', 'a String at "/s"'), // eslint-disable-line no-new-wrappers
  C('a boxed number', [new Number(1)], 'syntax', 'a Number'), // eslint-disable-line no-new-wrappers
  C('a boxed boolean', [new Boolean(false)], 'syntax', 'a Boolean'), // eslint-disable-line no-new-wrappers
  C('a Promise', { p: Promise.resolve(1) }, 'syntax', 'a Promise'),
  C('an Error', { e: new Error('x') }, 'syntax', 'an Error at "/e"'),
  C('a WeakMap', { w: new WeakMap() }, 'syntax', 'a WeakMap'),
  C('a pointer with ~ and /', { 'a/b': { 'c~d': new Set() } }, 'syntax', '"/a~1b/c~0d"'),
  // lone surrogates: the core reports them (JSON.stringify escapes them), with the offset
  C('lone high surrogate in a value', ['\ud800'], 'lone-surrogate', 'byte 2'),
  C('lone low surrogate in a value', { a: 'x\udfff' }, 'lone-surrogate'),
  C('lone surrogate in a member name', { '\ud800': 1 }, 'lone-surrogate', 'byte 2'),
  C('reversed surrogate pair', ['\udc00\ud800'], 'lone-surrogate'),
  C('half of an emoji', ['ok \ud83d'], 'lone-surrogate'),
  C('lone surrogate deep inside', { a: [{ b: ['ok', '\ud83d'] }] }, 'lone-surrogate'),
  // JSON text: the core's errors as they are
  C('text: lone surrogate written raw', '["\ud800"]', 'lone-surrogate'),
  C('text: lone surrogate as an escape', '["\\ud800"]', 'lone-surrogate'),
  C('text: unexpected end', '{"a":', 'syntax', 'unexpected end of input'),
  C('text: NaN literal', '{"a": NaN}', 'syntax'),
  C('text: trailing comma', '[1,]', 'syntax'),
  C('text: byte order mark', '\ufeff{}', 'syntax'),
  C('text: trailing data', '{} x', 'syntax'),
  C('text: duplicate member name', '{"a":1,"a":2}', 'duplicate-key', 'duplicate member name "a"'),
  C('text: 1e400', '{"n": 1e400}', 'number-overflow'),
  C('text: 2**53 + 1', '{"n": 9007199254740993}', 'inexact-integer'),
  C('text: 129 levels', '['.repeat(129) + ']'.repeat(129), 'too-deep'),
  C('text: larger than 16 MiB', '"' + 'x'.repeat(MIB16) + '"', 'too-large'),
  C('value: a string of 16 MiB', { a: 'x'.repeat(MIB16) }, 'too-large'),
  // the first problem in document order wins, whoever finds it
  C('BigInt 2**53 + 1, then NaN', [2n ** 53n + 1n, NaN], 'inexact-integer'),
  C('NaN, then BigInt 2**53 + 1', [NaN, 2n ** 53n + 1n], 'syntax', 'NaN at "/0"'),
  C('lone surrogate, then a Map', ['\ud800', new Map()], 'lone-surrogate'),
  C('a Map, then a lone surrogate', [new Map(), '\ud800'], 'syntax', 'a Map at "/0"'),
  C('deep nesting, then undefined', [nestArray(300), undefined], 'too-deep'),
  // what the core checks before the arguments comes first
  { name: 'empty scope and NaN', args: [NaN], key: 'empty-field', ids: { scope: '' } },
  { name: 'empty tool and a Map', args: new Map(), key: 'empty-field', ids: { tool: '' } },
  { name: 'missing only member and NaN (the arguments come first)', args: { x: NaN }, canon: 'syntax', policy: { ...POLICY, key: { only: ['/id'] } } },
  // ids holding a lone surrogate: refused before anything else (no U+FFFD)
  { name: 'scope with a lone surrogate', args: {}, encoding: 'scope', ids: { scope: '\ud800' } },
  { name: 'run with a lone surrogate', args: {}, encoding: 'run', ids: { run: 'r\udc00' } },
  { name: 'step with a lone surrogate', args: {}, encoding: 'step', ids: { step: 'a\ud83db' } },
  { name: 'tool with a lone surrogate', args: {}, encoding: 'tool', ids: { tool: '\udfff' } },
  { name: 'empty scope, tool with a lone surrogate', args: {}, encoding: 'tool', ids: { scope: '', tool: 't\ud800' } },
];

const intentOf = (c) => ({ ...GOOD, ...c.ids, args: c.args });

/** `e` is exactly the typed error the case expects. */
function check(c, e) {
  if (c.encoding) {
    assert.equal(e?.constructor, EncodingError, `${c.name}: ${e}`);
    assert.equal(e.field, c.encoding);
    assert.equal(e.kind, 'lone-surrogate');
    return;
  }
  assert.equal(e?.constructor, KeyDerivationError, `${c.name}: ${e?.stack ?? e}`);
  if (c.key) {
    assert.equal(e.kind, c.key, c.name);
    return;
  }
  assert.equal(e.kind, 'invalid-args', c.name);
  assert.equal(e.canon.kind, c.canon, `${c.name}: ${e.canon.message}`);
  assert.equal(e.message, `the arguments are not acceptable JSON: ${e.canon.message}`);
  if (c.says && typeof c.args !== 'string') assert.ok(e.canon.message.includes(c.says), `${c.name}: ${e.canon.message}`);
}

function throws(c, f) {
  let thrown = null;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== null, `${c.name}: nothing was thrown`);
  check(c, thrown);
}

async function rejects(c, f) {
  let thrown = null;
  try {
    await f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== null, `${c.name}: nothing was thrown`);
  check(c, thrown);
}

/** A MemoryStore that counts writes. */
function countingStore() {
  const s = new MemoryStore();
  const counted = { writes: 0 };
  for (const m of ['get', 'list', 'due']) counted[m] = (...a) => s[m](...a);
  for (const m of ['insert', 'update', 'delete']) {
    counted[m] = (...a) => {
      counted.writes++;
      return s[m](...a);
    };
  }
  return counted;
}

test('the table holds at least 60 hostile inputs', () => {
  assert.ok(CASES.length >= 60, `${CASES.length}`);
});

test('the pure functions refuse every hostile input with a typed error', () => {
  for (const c of CASES) {
    const i = intentOf(c);
    const policy = c.policy;
    throws(c, () => deriveKey({ ...i, policy }));
    throws(c, () => intentKey({ ...i, policy }));
    throws(c, () => explain(i, GOOD, { policy }));
    throws(c, () => explain(GOOD, i, { policy }));
    if (c.encoding) {
      throws(c, () => deriveKeys([GOOD, i, GOOD], { policy }));
    } else {
      // Each result stands alone: the bad intent's error in its place, the others keyed.
      const r = deriveKeys([GOOD, i, GOOD], { policy });
      assert.equal(typeof r[0].key, 'string', c.name);
      assert.equal(typeof r[2].key, 'string', c.name);
      check(c, r[1]);
    }
    if (typeof c.args === 'string' && !c.ids && !c.policy) {
      assert.throws(
        () => canonicalize(c.args),
        (e) => e.constructor === CanonicalizationError && e.kind === c.canon,
        c.name,
      );
    }
  }
});

test('the ledger refuses every hostile input, calls no tool and writes nothing', async () => {
  const path = join(tempDir('hostile'), 'ledger.db');
  const sqlite = await SqliteStore.open(path);
  const rows = () => sqlite.db.prepare('SELECT count(*) AS n FROM oncely_effects').get().n;
  try {
    for (const c of CASES) {
      const policy = c.policy ?? POLICY;
      const memory = countingStore();
      const before = rows();
      let called = 0;
      const tool = async () => {
        called++;
        return 'done';
      };
      for (const store of [memory, sqlite]) {
        const ledger = new Ledger(store, { owner: 'w1' });
        await rejects(c, () => ledger.effect(intentOf(c), policy, tool));
        await rejects(c, () => ledger.begin(intentOf(c), policy));
      }
      assert.equal(called, 0, c.name);
      assert.equal(memory.writes, 0, c.name);
      assert.equal(rows(), before, c.name);
    }
    // The checks can fail: a good intent does call the tool and write a row.
    const ledger = new Ledger(sqlite, { owner: 'w1' });
    const before = rows();
    await ledger.effect(GOOD, POLICY, async () => 1);
    assert.equal(rows(), before + 1);
  } finally {
    await sqlite.close();
  }
});

test('BigInt is a JSON integer: 5n keys as 5; plain objects without a prototype are plain', () => {
  const k = (args) => intentKey({ ...GOOD, args });
  assert.equal(k({ n: 5n }), k({ n: 5 }));
  assert.equal(k({ n: 2n ** 53n }), k({ n: 2 ** 53 }));
  assert.equal(k(Object.assign(Object.create(null), { id: 'ch_1' })), k(GOOD.args));
  // toJSON is never called: a non-enumerable one is not data, and is not written either.
  const o = Object.defineProperty({ id: 'ch_1' }, 'toJSON', { value: () => ({ id: 'other' }) });
  assert.equal(k(o), k(GOOD.args));
  // Symbol-keyed properties are not data (as for JSON.stringify).
  assert.equal(k({ id: 'ch_1', [Symbol('meta')]: 1 }), k(GOOD.args));
});

test('what only JS sees is placed where the core would place it', () => {
  const e = (args) => {
    try {
      deriveKey({ ...GOOD, args });
    } catch (err) {
      return err.canon;
    }
    assert.fail('not refused');
  };
  const text = '{"ab":[1,{"c":';
  const c = e({ ab: [1, { c: new Set() }] });
  assert.deepEqual([c.offset, c.line, c.column], [text.length, 1, text.length + 1]);
  assert.equal(
    c.message,
    `a Set at "/ab/1/c" is not a JSON value (JSON has null, true, false, numbers, strings, arrays and objects); give a plain object or an array (toJSON is not called) (line 1, column ${text.length + 1}, byte ${text.length})`,
  );
  const u = e({ é: { x: undefined } });
  assert.deepEqual([u.offset, u.column], [Buffer.byteLength('{"é":{"x":'), '{"é":{"x":'.length + 1]);
  // A deep value gives exactly the core's error for its JSON text.
  for (const depth of [129, 1000, 100_000]) {
    const core = (() => {
      try {
        canonicalize('['.repeat(depth) + ']'.repeat(depth));
      } catch (err) {
        return { kind: err.kind, offset: err.offset, line: err.line, column: err.column, message: err.message };
      }
    })();
    assert.deepEqual(e(nestArray(depth)), core);
  }
});

test('core errors read as the Rust CLI reports them', () => {
  const cli = requireCli();
  for (const c of CASES) {
    // The CLI reads bytes: text holding a lone surrogate has no UTF-8 form to give it.
    if (typeof c.args !== 'string' || c.canon === 'too-large' || c.ids || c.policy || !c.args.isWellFormed()) continue;
    const r = spawnSync(cli, ['canon'], { input: c.args, encoding: 'utf8' });
    assert.equal(r.status, 2, c.name);
    const e = (() => {
      try {
        canonicalize(c.args);
      } catch (err) {
        return err;
      }
    })();
    assert.equal(r.stderr, `oncely: ${e.message}\n`, c.name);
  }
});

test('documents refuse hostile values with a PolicyError', () => {
  for (const doc of [{ ...POLICY, leaseMs: NaN }, { ...POLICY, leaseMs: undefined }, { ...POLICY, key: new Map() }, '{"class": "read-only\ud800"}', nestObject(500), cyclicObject()]) {
    assert.throws(() => parsePolicy(doc), (e) => e.constructor === PolicyError && e.at === '', String(doc));
  }
  for (const f of [checkTools, resolveTool]) {
    for (const doc of [{ name: 'x', annotations: new Map() }, [NaN], cyclicArray(), { name: 'x', x: (1n << 60n) + 1n }]) {
      assert.throws(() => f(doc), (e) => e.constructor === PolicyError, String(doc));
    }
  }
});

test('an owner holding a lone surrogate is refused when the ledger is made', () => {
  assert.throws(() => new Ledger(new MemoryStore(), { owner: 'w\ud800' }), (e) => e.constructor === EncodingError && e.field === 'owner');
});
