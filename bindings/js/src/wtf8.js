// Encoding JS strings for the core. A JS string is UTF-16 and may hold a lone surrogate, which
// `TextEncoder` (and so any WIT `string` lowering) silently replaces with U+FFFD: two different
// inputs would reach the core as the same text. So text that is not well-formed is encoded here
// as WTF-8 (a lone surrogate becomes its own 3-byte sequence) and sent as bytes; the core then
// reports `lone-surrogate` itself. This is an encoding step only: no rule is decided here.

import { EncodingError } from './errors.js';

const utf8 = new TextEncoder();

const hasIsWellFormed = typeof String.prototype.isWellFormed === 'function';
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `s` holds no lone surrogate (so UTF-8 and WTF-8 encode it alike). */
export function isWellFormed(s) {
  return hasIsWellFormed ? s.isWellFormed() : !LONE.test(s);
}

/** The index of the first lone surrogate of `s`, or -1. */
export function loneSurrogateIndex(s) {
  const m = LONE.exec(s);
  return m ? m.index : -1;
}

/** WTF-8 bytes of `s`: UTF-8, except that a lone surrogate is encoded as its 3-byte form. */
export function wtf8(s) {
  if (isWellFormed(s)) return utf8.encode(s);
  const out = new Uint8Array(s.length * 3);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        out[n++] = 0xf0 | (c >> 18);
        out[n++] = 0x80 | ((c >> 12) & 0x3f);
        out[n++] = 0x80 | ((c >> 6) & 0x3f);
        out[n++] = 0x80 | (c & 0x3f);
        continue;
      }
    }
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return out.subarray(0, n);
}

/** `s` if it is a well-formed string; else an EncodingError naming `field`. */
export function text(field, s) {
  if (typeof s !== 'string') throw new TypeError(`${field} must be a string, got ${s === null ? 'null' : typeof s}`);
  if (!isWellFormed(s)) throw new EncodingError(field, loneSurrogateIndex(s));
  return s;
}
