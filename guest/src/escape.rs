//! JSON string escaping, the leaf every other module may use: RFC 8785's minimal escapes
//! ([`write_string`]), the scan for the bytes that need one (`plain_run`, shared with the parser
//! in [`json`](crate::json)), and lowercase hex digits.
//!
//! It imports nothing of the crate but the prelude, so that [`text`](crate::text) (messages),
//! [`number`](crate::number) and [`json`](crate::json) can all use it without importing each
//! other in a circle (see the layering in the crate's documentation).

use crate::prelude::*;

/// `text[a..b]`, where the caller knows `a` and `b` fall on character boundaries (every cut the
/// parser and printer make is next to an ASCII byte). `get` instead of indexing keeps the panic
/// path of string slicing, and the `Debug` formatting it carries, out of the component.
#[inline(always)]
pub(crate) fn sub(text: &str, a: usize, b: usize) -> &str {
    text.get(a..b).unwrap_or_default()
}

/// Length of the leading run of bytes that need no attention inside a string: everything but
/// `"`, `\\` and control characters (exactly the bytes RFC 8785 escapes).
///
/// Eight bytes at a time while none of them is special (the SWAR "has a zero byte" and "has a
/// byte below n" tests on a `u64`: exact about whether a word holds one, which is all that is
/// asked of them here), then byte by byte.
#[inline(always)]
pub(crate) fn plain_run(s: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(Ok(word)) = s.get(i..i + 8).map(<[u8; 8]>::try_from) {
        let x = u64::from_le_bytes(word);
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        let special =
            (quote.wrapping_sub(ONES) & !quote) | (backslash.wrapping_sub(ONES) & !backslash) | (x.wrapping_sub(ONES * 0x20) & !x);
        if special & HIGHS != 0 {
            break;
        }
        i += 8;
    }
    while i < s.len() {
        let b = s[i];
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// Lowercase hex digits.
pub const HEX: &[u8; 16] = b"0123456789abcdef";

/// A string with the minimal escapes of RFC 8785 §3.2.2.2.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    loop {
        let i = run + plain_run(bytes.get(run..).unwrap_or_default());
        out.push_str(sub(s, run, i));
        let Some(&b) = bytes.get(i) else { break };
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x09 => "\\t",
            0x0A => "\\n",
            0x0C => "\\f",
            0x0D => "\\r",
            _ => "",
        };
        if esc.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        } else {
            out.push_str(esc);
        }
        run = i + 1;
    }
    out.push('"');
}
