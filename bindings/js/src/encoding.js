// The core's encoding: values that cross into the core as one byte string each way.
//
// `effect.run` (wit/effect.wit) takes a `run-call` and answers a `run-answer`, each as bytes in
// the core's encoding: one copy into the module's memory and one out, where jco lowered and
// lifted the same records field by field, string by string. The encoding, by WIT type: `u8` its
// byte; `bool` a byte 0 or 1; `u32`, `u64` unsigned LEB128; `string` its UTF-8 length (LEB128)
// and bytes; `list<T>` its length and each element; `option<T>` a byte 0, or 1 and the value; a
// record its fields in order; an `enum` its case's index; a `variant` its case's index and its
// payload, if any.
//
// Values are in jco's shapes (u64 as BigInt, an absent option as undefined, variants as
// {tag, val}, enums as their case names, records with camelCase fields), so that the machine's
// interpreter reads a step as jco gave it. One encoder and one decoder per WIT type, made once
// from the table of the component's own types that scripts/mirrors writes (gen/wit.js): closures,
// no generated code (workerd does not allow it).

import { WIT } from './gen/wit.js';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A growing byte buffer. */
class Writer {
  constructor() {
    this.buf = new Uint8Array(256);
    this.at = 0;
  }

  room(n) {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.at));
    this.buf = grown;
  }

  byte(b) {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** An unsigned LEB128 integer (a number up to 2^53, or a BigInt). */
  uint(v) {
    if (typeof v === 'bigint') {
      if (v < 0n || v > 0xffffffffffffffffn) throw new RangeError(`${v} is not a u64`);
      if (v > 9007199254740991n) {
        this.room(10);
        while (v >= 0x80n) {
          this.buf[this.at++] = Number(v & 0x7fn) | 0x80;
          v >>= 7n;
        }
        this.buf[this.at++] = Number(v);
        return;
      }
      v = Number(v);
    } else if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new TypeError(`expected an unsigned integer, got ${String(v)}`);
    }
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.at++] = v;
  }

  string(s) {
    if (typeof s !== 'string') throw new TypeError(`expected a string, got ${typeof s}`);
    // At most 3 bytes per UTF-16 unit; the length's LEB128 takes at most 5 bytes.
    this.room(s.length * 3 + 5);
    const start = this.at;
    let ascii = s.length < 128;
    if (ascii) {
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        this.buf[start + 1 + i] = c;
      }
    }
    if (ascii) {
      this.buf[start] = s.length;
      this.at = start + 1 + s.length;
      return;
    }
    const { written } = utf8.encodeInto(s, this.buf.subarray(start + 5));
    this.uint(written);
    this.buf.copyWithin(this.at, start + 5, start + 5 + written);
    this.at += written;
  }

  bytes(b) {
    if (!(b instanceof Uint8Array)) throw new TypeError('expected a Uint8Array');
    this.uint(b.length);
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  done() {
    return this.buf.subarray(0, this.at);
  }
}

/** A reader over the core's answer; `at` moves as values are read. */
class Reader {
  constructor(buf) {
    this.buf = buf;
    this.at = 0;
  }

  byte() {
    if (this.at >= this.buf.length) throw new RangeError("the core's answer ends early");
    return this.buf[this.at++];
  }

  /** An unsigned LEB128 integer as a number (exact up to 2^53; a u64 past it is read as BigInt by `u64`). */
  uint() {
    let b = this.byte();
    if (b < 0x80) return b;
    let n = b & 0x7f;
    let scale = 0x80;
    for (;;) {
      b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
      if (scale > 2 ** 63) throw new RangeError("an integer longer than 64 bits in the core's answer");
    }
  }

  u64() {
    const start = this.at;
    const n = this.uint();
    if (n <= Number.MAX_SAFE_INTEGER) return BigInt(n);
    // Past 2^53 a number is not exact: read the bytes again as a BigInt.
    let v = 0n;
    let shift = 0n;
    for (let i = start; i < this.at; i++) {
      v |= BigInt(this.buf[i] & 0x7f) << shift;
      shift += 7n;
    }
    return v;
  }

  string() {
    const n = this.uint();
    const end = this.at + n;
    if (end > this.buf.length) throw new RangeError("the core's answer ends inside a string");
    const b = this.buf;
    if (n < 64) {
      let s = '';
      let i = this.at;
      for (; i < end; i++) {
        const c = b[i];
        if (c >= 0x80) break;
        s += String.fromCharCode(c);
      }
      if (i === end) {
        this.at = end;
        return s;
      }
    }
    const s = fromUtf8.decode(b.subarray(this.at, end));
    this.at = end;
    return s;
  }

  bytes() {
    const n = this.uint();
    const end = this.at + n;
    if (end > this.buf.length) throw new RangeError("the core's answer ends inside a byte list");
    const out = this.buf.slice(this.at, end);
    this.at = end;
    return out;
  }
}

/** @type {Map<string, (v: any, w: Writer) => void>} */
const puts = new Map();
/** @type {Map<string, (r: Reader) => any>} */
const gets = new Map();

function putOf(type) {
  let f = puts.get(type);
  if (f === undefined) {
    f = makePut(type);
    puts.set(type, f);
  }
  return f;
}

function getOf(type) {
  let f = gets.get(type);
  if (f === undefined) {
    f = makeGet(type);
    gets.set(type, f);
  }
  return f;
}

/** Values whose bytes are kept with them (`keep`). */
const kept = new WeakSet();

/**
 * `v` frozen, every object and array in it too, and its bytes kept with it from its first
 * encoding: a value that crosses again and again unchanged (core.js keeps a parsed policy's WIT
 * record, which crosses with every effect of its tool). Returns `v`.
 */
export function keep(v) {
  const freeze = (x) => {
    if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
      for (const y of Object.values(x)) freeze(y);
      Object.freeze(x);
    }
  };
  freeze(v);
  kept.add(v);
  return v;
}

/** A record's `put`, with the bytes of a kept value (`keep`) written once and copied after. */
function keptPut(put) {
  /** @type {WeakMap<object, Uint8Array>} */
  const bytes = new WeakMap();
  return (v, w) => {
    if (!kept.has(v)) return put(v, w);
    let b = bytes.get(v);
    if (b === undefined) {
      const own = new Writer();
      put(v, own);
      b = own.done().slice();
      bytes.set(v, b);
    }
    w.room(b.length);
    w.buf.set(b, w.at);
    w.at += b.length;
  };
}

/** @returns {(v: any, w: Writer) => void} */
function makePut(type) {
  switch (type) {
    case 'u8':
      return (v, w) => w.byte(v);
    case 'u32':
    case 'u64':
      return (v, w) => w.uint(v);
    case 'bool':
      return (v, w) => {
        if (typeof v !== 'boolean') throw new TypeError(`expected a boolean, got ${typeof v}`);
        w.byte(v ? 1 : 0);
      };
    case 'string':
      return (v, w) => w.string(v);
    case 'list<u8>':
      return (v, w) => w.bytes(v);
    default:
  }
  const opt = /^option<(.*)>$/.exec(type);
  if (opt) {
    const inner = putOf(opt[1]);
    return (v, w) => {
      if (v === undefined || v === null) w.byte(0);
      else {
        w.byte(1);
        inner(v, w);
      }
    };
  }
  const list = /^list<(.*)>$/.exec(type);
  if (list) {
    const inner = putOf(list[1]);
    return (v, w) => {
      w.uint(v.length);
      for (const x of v) inner(x, w);
    };
  }
  const def = WIT[type];
  if (def?.kind === 'record') {
    const fields = def.fields.map(([name, t]) => /** @type {const} */ ([name, putOf(t)]));
    /** @type {(v: any, w: Writer) => void} */
    const put = (v, w) => {
      for (const [name, f] of fields) f(v[name], w);
    };
    return keptPut(put);
  }
  if (def?.kind === 'enum') {
    const index = new Map(def.cases.map((c, i) => [c, i]));
    return (v, w) => {
      const i = index.get(v);
      if (i === undefined) throw new TypeError(`${String(v)} is not a case of ${type}`);
      w.byte(i);
    };
  }
  if (def?.kind === 'variant') {
    const cases = new Map(def.cases.map(([c, t], i) => [c, /** @type {const} */ ([i, t === null ? null : putOf(t)])]));
    return (v, w) => {
      const c = cases.get(v?.tag);
      if (c === undefined) throw new TypeError(`${String(v?.tag)} is not a case of ${type}`);
      w.byte(c[0]);
      if (c[1] !== null) c[1](v.val, w);
    };
  }
  throw new TypeError(`no encoding here for ${type}`);
}

/** @returns {(r: Reader) => any} */
function makeGet(type) {
  switch (type) {
    case 'u8':
      return (r) => r.byte();
    case 'u32':
      return (r) => r.uint();
    case 'u64':
      return (r) => r.u64();
    case 'bool':
      return (r) => r.byte() === 1;
    case 'string':
      return (r) => r.string();
    case 'list<u8>':
      return (r) => r.bytes();
    default:
  }
  const opt = /^option<(.*)>$/.exec(type);
  if (opt) {
    const inner = getOf(opt[1]);
    return (r) => (r.byte() === 0 ? undefined : inner(r));
  }
  const list = /^list<(.*)>$/.exec(type);
  if (list) {
    const inner = getOf(list[1]);
    return (r) => {
      const n = r.uint();
      const out = [];
      for (let i = 0; i < n; i++) out.push(inner(r));
      return out;
    };
  }
  const def = WIT[type];
  if (def?.kind === 'record') {
    const names = def.fields.map(([name]) => name);
    const fields = def.fields.map(([, t]) => getOf(t));
    const count = names.length;
    return (r) => {
      /** @type {Record<string, any>} */
      const o = {};
      for (let i = 0; i < count; i++) o[names[i]] = fields[i](r);
      return o;
    };
  }
  if (def?.kind === 'enum') {
    const cases = def.cases;
    return (r) => {
      const c = cases[r.byte()];
      if (c === undefined) throw new RangeError(`no such case of ${type} in the core's answer`);
      return c;
    };
  }
  if (def?.kind === 'variant') {
    const cases = def.cases.map(([c, t]) => /** @type {const} */ ([c, t === null ? null : getOf(t)]));
    return (r) => {
      const c = cases[r.byte()];
      if (c === undefined) throw new RangeError(`no such case of ${type} in the core's answer`);
      return c[1] === null ? { tag: c[0] } : { tag: c[0], val: c[1](r) };
    };
  }
  throw new TypeError(`no decoding here for ${type}`);
}

/** A value of the WIT type `type` (its spelling in gen/wit.js), in jco's shape, as bytes. */
export function encode(type, value) {
  const w = new Writer();
  putOf(type)(value, w);
  return w.done();
}

/** The value of the WIT type `type` the bytes hold, in jco's shape. */
export function decode(type, bytes) {
  const r = new Reader(bytes);
  const v = getOf(type)(r);
  if (r.at !== bytes.length) throw new RangeError(`${bytes.length - r.at} bytes left after the core's ${type}`);
  return v;
}

/**
 * A step of `effect.run` (`effect.step`) read from the core's answer in two parts: its state,
 * read and replay rule at once; its write, events and action at the first look at one of them.
 * A replay, answered by the replay rule, never reads them (the speculative insert, its events
 * and its tool call are most of a step's bytes).
 */
class LazyStep {
  constructor(r, rest) {
    const [getState, getRead, getReplay] = STEP_HEAD;
    this.state = getState(r);
    this.read = getRead(r);
    this.replay = getReplay(r);
    this.r = r;
    /** @type {any[] | null} */
    this.rest = rest;
  }

  restOf() {
    let rest = this.rest;
    if (rest === null) {
      const r = this.r;
      rest = this.rest = STEP_REST.map((get) => get(r));
      if (r.at !== r.buf.length) throw new RangeError(`${r.buf.length - r.at} bytes left after the core's run-answer`);
    }
    return rest;
  }

  get write() {
    return this.restOf()[0];
  }

  get events() {
    return this.restOf()[1];
  }

  get action() {
    return this.restOf()[2];
  }
}

const STEP = WIT['effect.step'];
const stepField = (name) => {
  const f = STEP?.kind === 'record' ? STEP.fields.find(([n]) => n === name) : undefined;
  if (f === undefined) throw new TypeError(`effect.step has no field ${name}: encoding.js is stale`);
  return getOf(f[1]);
};
const STEP_HEAD = ['state', 'read', 'replay'].map(stepField);
const STEP_REST = ['write', 'events', 'action'].map(stepField);
const KEY_ERROR = getOf('keys.key-error');

/**
 * `effect.run`'s answer (`effect.run-answer`): `{tag: 'step', val}` (a step whose write, events
 * and action are read at their first use) or `{tag: 'key-error', val}`.
 */
export function decodeRunAnswer(bytes) {
  const r = new Reader(bytes);
  const tag = r.byte();
  if (tag === 0) return { tag: 'step', val: new LazyStep(r, null) };
  if (tag !== 1) throw new RangeError(`no such case of effect.run-answer in the core's answer`);
  const val = KEY_ERROR(r);
  if (r.at !== bytes.length) throw new RangeError(`${bytes.length - r.at} bytes left after the core's run-answer`);
  return { tag: 'key-error', val };
}
