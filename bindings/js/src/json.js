// JSON text of JS values, for the core to judge. The core canonicalizes and judges JSON *text*;
// this writes a value as that text, compactly and without recursion, and decides nothing the core
// decides: a string is written as JSON.stringify writes it (a lone surrogate as a `\u` escape,
// which the core reports as `lone-surrogate`), a BigInt with all its digits (the core reports
// `inexact-integer` or `number-overflow`, as for a Python int), and nesting up to the `[` or `{`
// that opens one level more than the core accepts (the core reports `too-deep` at that byte; a
// cyclic structure is infinitely deep and ends the same way, never in a RangeError).
//
// Unlike JSON.stringify, nothing is dropped or converted behind the caller's back, since two
// different values must never reach the core as the same text. Refused, where the value would
// start in the text, with the kind the core gives for the nearest JSON text:
//   - `undefined`, a function or a symbol, anywhere (JSON.stringify drops the member or writes
//     null): `syntax`;
//   - a hole in a sparse array (JSON.stringify writes null): `syntax`;
//   - any object that is not a plain object or an array — Map, Set, Date, a typed array, a boxed
//     primitive, a class instance (JSON.stringify writes `{}` for a Map, calls toJSON for a
//     Date): `syntax`. toJSON is never called;
//   - NaN (JSON.stringify writes null): `syntax`; ±Infinity: `number-overflow`;
//   - a BigInt too long to be worth writing out (over 14,000 bits; anything over 1,024 bits is too
//     large for a double): `number-overflow`.
// Symbol-keyed and non-enumerable properties are not data and are not written (as JSON.stringify).
//
// The writer stops at the first such value (or at the level too deep, or once the text is longer
// than the core accepts) and returns the text so far as `cut`: the caller asks the core about that
// text first, so that an error earlier in document order wins as it would in the core
// (docs/key-scheme.md, "Which error is reported").

const BIG_INT_BITS = 14_000;
const utf8 = new TextEncoder();

/** The RFC 6901 pointer of a path of member names and array indices. */
export function pointer(path) {
  let p = '';
  for (const t of path) p += '/' + String(t).replaceAll('~', '~0').replaceAll('/', '~1');
  return p;
}

function isPlain(v) {
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describe(v) {
  switch (typeof v) {
    case 'undefined':
      return 'undefined';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default: {
      const tag = Object.prototype.toString.call(v).slice(8, -1);
      let name = tag;
      try {
        const ctor = v.constructor;
        if (typeof ctor === 'function' && ctor.name) name = ctor.name;
      } catch {
        // a getter that throws: the tag will do
      }
      return /^[AEIO]/.test(name) ? `an ${name}` : `a ${name}`;
    }
  }
}

const NOT_JSON = 'is not a JSON value (JSON has null, true, false, numbers, strings, arrays and objects)';

function refuse(out, path, kind, what) {
  const offset = utf8.encode(out).length;
  let column = 1;
  for (let i = 0; i < out.length; i++) {
    const c = out.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) column++; // the text is well-formed: count code points
  }
  const at = JSON.stringify(pointer(path));
  const message = `${what(at)} (line 1, column ${column}, byte ${offset})`;
  return { cut: out, error: { kind, offset, line: 1, column, message } };
}

function valueProblem(v) {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return ['syntax', (at) => `the number NaN at ${at} is not a JSON number`];
    return ['number-overflow', (at) => `the number ${v} at ${at} is too large for a double; JSON numbers are finite`];
  }
  if (typeof v === 'bigint') {
    const digits = Math.floor((v < 0n ? -v : v).toString(16).length * 4 * 0.30103) + 1;
    return ['number-overflow', (at) => `the integer at ${at} (about ${digits.toLocaleString('en-US')} digits) is too large for a double`];
  }
  if (v !== null && typeof v === 'object') {
    const what = describe(v);
    return ['syntax', (at) => `${what} at ${at} ${NOT_JSON}; give a plain object or an array (toJSON is not called)`];
  }
  const what = describe(v);
  return ['syntax', (at) => `${what} at ${at} ${NOT_JSON}`];
}

const OBJECT = Object.prototype;

// Can JSON.stringify write `value` exactly as `write` below would? Only strings, finite numbers,
// booleans, null, arrays and plain objects (no toJSON in sight, no hole), at most `maxDepth` levels
// and `maxItems` values (so no cycle, and no shared sub-array repeated beyond the size limit).
function plain(value, maxDepth, maxItems) {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'string' || typeof value === 'boolean' || value === null || (typeof value === 'number' && Number.isFinite(value));
  }
  const stack = [value, 1];
  let items = 0;
  while (stack.length > 0) {
    const depth = stack.pop();
    const o = stack.pop();
    if (o.toJSON !== undefined) return false;
    if (Array.isArray(o)) {
      const n = o.length;
      items += n;
      if (items > maxItems) return false;
      for (let i = 0; i < n; i++) {
        const v = o[i];
        switch (typeof v) {
          case 'string':
          case 'boolean':
            continue;
          case 'number':
            if (v - v !== 0) return false; // NaN or ±Infinity
            continue;
          case 'object':
            if (v === null) continue;
            if (depth >= maxDepth) return false;
            stack.push(v, depth + 1);
            continue;
          default:
            return false; // undefined (or a hole), a function, a symbol, a BigInt
        }
      }
    } else {
      const proto = Object.getPrototypeOf(o);
      if (proto !== OBJECT && proto !== null) return false;
      for (const k in o) {
        if (++items > maxItems) return false;
        const v = o[k];
        switch (typeof v) {
          case 'string':
          case 'boolean':
            continue;
          case 'number':
            if (v - v !== 0) return false;
            continue;
          case 'object':
            if (v === null) continue;
            if (depth >= maxDepth) return false;
            stack.push(v, depth + 1);
            continue;
          default:
            return false;
        }
      }
    }
  }
  return true;
}

/**
 * JSON text of `value`: `{ text }`, or `{ cut, error }` where it cannot be written (`error` is
 * null when the core is to judge `cut` itself: a level too deep, or a text too large).
 */
export function writeJson(value, maxDepth, maxBytes) {
  // Plain data (nearly all arguments) is written by JSON.stringify; anything else by `write`,
  // which finds the problem and where it is.
  if (plain(value, maxDepth, (maxBytes >>> 1) + 1)) return { text: JSON.stringify(value) };
  return write(value, maxDepth, maxBytes);
}

function write(value, maxDepth, maxBytes) {
  let out = '';
  const frames = []; // open containers: { obj, keys (null for an array), i, n }
  const path = [];
  let v = value;
  for (;;) {
    switch (typeof v) {
      case 'string':
        out += JSON.stringify(v);
        break;
      case 'number':
        if (!Number.isFinite(v)) return refuse(out, path, ...valueProblem(v));
        out += String(v);
        break;
      case 'boolean':
        out += v ? 'true' : 'false';
        break;
      case 'bigint': {
        const abs = v < 0n ? -v : v;
        if (abs > 0xffffffffffffffffn && abs.toString(16).length * 4 > BIG_INT_BITS) return refuse(out, path, ...valueProblem(v));
        out += v.toString();
        break;
      }
      case 'object': {
        if (v === null) {
          out += 'null';
          break;
        }
        const array = Array.isArray(v);
        if (!array && !isPlain(v)) return refuse(out, path, ...valueProblem(v));
        if (frames.length >= maxDepth) return { cut: out + (array ? '[' : '{'), error: null };
        if (array) {
          out += '[';
          frames.push({ obj: v, keys: null, i: 0, n: v.length });
        } else {
          out += '{';
          const keys = Object.keys(v);
          frames.push({ obj: v, keys, i: 0, n: keys.length });
        }
        path.push(null);
        break;
      }
      default: // undefined, function, symbol
        return refuse(out, path, ...valueProblem(v));
    }

    // The next value: the next child of the innermost open container, closing finished ones.
    for (;;) {
      const f = frames[frames.length - 1];
      if (f === undefined) return { text: out };
      if (f.i >= f.n) {
        out += f.keys === null ? ']' : '}';
        frames.pop();
        path.pop();
        continue;
      }
      const i = f.i++;
      if (i > 0) out += ',';
      if (f.keys === null) {
        path[path.length - 1] = i;
        if (!(i in f.obj)) {
          return refuse(out, path, 'syntax', (at) => `a hole in a sparse array at ${at} ${NOT_JSON}; write null if that is what you mean`);
        }
        v = f.obj[i];
      } else {
        const k = f.keys[i];
        path[path.length - 1] = k;
        out += JSON.stringify(k) + ':';
        v = f.obj[k];
      }
      break;
    }
    if (out.length > maxBytes) return { cut: out, error: null }; // at least as many UTF-8 bytes
  }
}
