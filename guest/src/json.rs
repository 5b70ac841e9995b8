//! A strict RFC 8259 parser into a tree kept in RFC 8785 (JCS) canonical order, and the JCS
//! serializer.
//!
//! Why not serde_json: JCS needs things a general parser does not give together — the byte
//! offset of every rejection, duplicate member names reported rather than overwritten, lone
//! surrogates refused, integer literals checked for a lossless round trip through a double, and
//! member order by UTF-16 code units. Number *printing* is not written here: `ryu-js` prints
//! doubles exactly as ECMAScript does.

use crate::escape::{plain_run, sub};
pub use crate::escape::{write_string, HEX};
use crate::prelude::*;
use crate::text::{Hex4, Q};
use core::cmp::Ordering;

/// Inputs larger than this are refused (`too-large`).
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
/// Arrays and objects nested deeper than this are refused (`too-deep`).
pub const MAX_DEPTH: u32 = 128;

/// The class of a rejection; mirrors the WIT `canon-error-kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not RFC 8259 JSON.
    Syntax,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// A surrogate without its partner.
    LoneSurrogate,
    /// Two members with one name.
    DuplicateKey,
    /// A number beyond the range of a double.
    NumberOverflow,
    /// An integer literal a double cannot hold exactly.
    InexactInteger,
    /// Nesting beyond [`MAX_DEPTH`].
    TooDeep,
    /// Input beyond [`MAX_INPUT_BYTES`].
    TooLarge,
}

/// A rejection: what, and at which byte offset of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The class of the problem.
    pub kind: ErrorKind,
    /// 0-based byte offset of the first offending byte.
    pub offset: usize,
    /// A sentence for humans.
    pub message: String,
}

impl Error {
    fn new(kind: ErrorKind, offset: usize, message: impl Into<String>) -> Self {
        Error { kind, offset, message: message.into() }
    }

    fn boxed(kind: ErrorKind, offset: usize, message: impl Into<String>) -> Box<Self> {
        Box::new(Error::new(kind, offset, message))
    }
}

/// The parser's results. The error is boxed: it is rare, and a small `Result` keeps the values
/// that move through every call of the recursive descent small.
type Parsed<T> = Result<T, Box<Error>>;

/// A parsed JSON value. Object members are sorted in JCS order and unique.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A finite double (integer literals already checked for exactness).
    Number(f64),
    /// A string, borrowed from the input when it had no escapes.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object, members in JCS order (UTF-16 code units of the names), names unique.
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

/// Compare two member names by their UTF-16 code units, as RFC 8785 §3.2.3 requires.
///
/// UTF-8 byte order is code point order, and code point order is UTF-16 order except between a
/// supplementary character (a surrogate pair, 0xD800.. in UTF-16; lead byte 0xF0..=0xF4 in UTF-8)
/// and one in U+E000..=U+FFFF (lead byte 0xEE or 0xEF). So: compare bytes, and invert only when
/// the first difference is between those two kinds of lead byte. Bytes before the first
/// difference are equal, so both names have their character boundaries in the same places up to
/// it: the differing bytes are either two lead bytes or two continuation bytes of characters
/// with the same lead.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let Some(k) = x.iter().zip(y).position(|(p, q)| p != q) else { return x.len().cmp(&y.len()) };
    let (p, q) = (x[k], y[k]);
    let supplementary = |c: u8| c >= 0xF0;
    let bmp_top = |c: u8| c == 0xEE || c == 0xEF;
    if (supplementary(p) && bmp_top(q)) || (bmp_top(p) && supplementary(q)) {
        q.cmp(&p)
    } else {
        p.cmp(&q)
    }
}

/// Parse `text` (already known to be UTF-8) into a canonical tree.
pub fn parse(text: &str) -> Result<Value<'_>, Error> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            MAX_INPUT_BYTES,
            msg!["the document is ", text.len(), " bytes; the limit is ", MAX_INPUT_BYTES, " bytes"],
        ));
    }
    let mut p = Parser { s: text.as_bytes(), text, i: 0, members: Vec::new(), items: Vec::new() };
    if p.s.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(Error::new(ErrorKind::Syntax, 0, "a byte order mark is not allowed before JSON text"));
    }
    p.ws();
    let v = p.value(0).map_err(|e| *e)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(*p.err(ErrorKind::Syntax, "unexpected data after the JSON value"));
    }
    Ok(v)
}

/// Check raw bytes for UTF-8, telling a directly encoded surrogate (WTF-8 / CESU-8) apart from
/// other invalid bytes. Errors are reported at the first offending byte: when the valid text
/// before the first bad byte already holds a JSON error, that error is the one returned.
pub fn check_utf8(bytes: &[u8]) -> Result<&str, Error> {
    match core::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let at = e.valid_up_to();
            if let Err(first) = parse(core::str::from_utf8(&bytes[..at]).unwrap_or_default()) {
                if first.offset < at {
                    return Err(first);
                }
            }
            let rest = &bytes[at..];
            if rest.len() >= 3 && rest[0] == 0xED && (0xA0..=0xBF).contains(&rest[1]) && (0x80..=0xBF).contains(&rest[2]) {
                Err(Error::new(
                    ErrorKind::LoneSurrogate,
                    at,
                    "a UTF-16 surrogate is encoded directly in the bytes (not valid UTF-8); its text has no canonical form",
                ))
            } else {
                Err(Error::new(ErrorKind::InvalidUtf8, at, "the bytes are not valid UTF-8"))
            }
        }
    }
}

/// An object's members in RFC 8785 order (stable: equal names keep document order).
///
/// Insertion sort up to 16 members (most objects), merge sort above: O(n log n) for huge
/// objects. Written out rather than `sort_unstable_by` because `core`'s sort is built for speed
/// on any input and costs ~4.4 KB of the component, a tenth of its headroom under 150 KB.
fn sort_members<'a>(mut v: Vec<(Cow<'a, str>, Value<'a>)>) -> Vec<(Cow<'a, str>, Value<'a>)> {
    if v.len() <= 16 {
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && cmp_utf16(&v[j - 1].0, &v[j].0) == Ordering::Greater {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return v;
    }
    let right = v.split_off(v.len() / 2);
    let (left, right) = (sort_members(v), sort_members(right));
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut a, mut b) = (left.into_iter().peekable(), right.into_iter().peekable());
    loop {
        // From the left run unless the right one's name is strictly smaller: stable.
        let from_right = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => cmp_utf16(&y.0, &x.0) == Ordering::Less,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => return out,
        };
        if let Some(m) = if from_right { b.next() } else { a.next() } {
            out.push(m);
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    /// Members and items of the objects and arrays being read, innermost last: each container
    /// gathers here and moves out into one exactly sized `Vec` (one allocation per container).
    members: Vec<(Cow<'a, str>, Value<'a>)>,
    items: Vec<Value<'a>>,
}

impl<'a> Parser<'a> {
    fn err(&self, kind: ErrorKind, msg: impl Into<String>) -> Box<Error> {
        Error::boxed(kind, self.i, msg)
    }

    fn unexpected(&self, wanted: &str) -> Box<Error> {
        match self.s.get(self.i) {
            None => self.err(ErrorKind::Syntax, msg!["unexpected end of input; expected ", wanted]),
            Some(_) => {
                let rest = sub(self.text, self.i, self.text.len());
                let len = rest.chars().next().map_or(1, char::len_utf8);
                let c = Q(sub(rest, 0, len));
                self.err(ErrorKind::Syntax, msg!["unexpected character ", c, "; expected ", wanted])
            }
        }
    }

    #[inline(always)]
    fn ws(&mut self) {
        while let Some(&b) = self.s.get(self.i) {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self, depth: u32) -> Parsed<Value<'a>> {
        match self.s.get(self.i) {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::String(self.string()?.0)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected("a JSON value")),
        }
    }

    fn literal(&mut self, word: &'static str, v: Value<'a>) -> Parsed<Value<'a>> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.unexpected(&msg!["`", word, "`"]))
        }
    }

    fn enter(&self, depth: u32) -> Parsed<()> {
        if depth > MAX_DEPTH {
            Err(self.err(ErrorKind::TooDeep, msg!["arrays and objects are nested deeper than ", MAX_DEPTH, " levels"]))
        } else {
            Ok(())
        }
    }

    fn array(&mut self, depth: u32) -> Parsed<Value<'a>> {
        self.enter(depth)?;
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Value::Array(Vec::new()));
        }
        let base = self.items.len();
        loop {
            self.ws();
            let v = self.value(depth)?;
            self.items.push(v);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(self.items.drain(base..).collect()));
                }
                _ => return Err(self.unexpected("`,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: u32) -> Parsed<Value<'a>> {
        self.enter(depth)?;
        let start = self.i;
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Value::Object(Vec::new()));
        }
        let base = self.members.len();
        let read = self.object_members(depth);
        let members = sort_members(self.members.drain(base..).collect());
        match read {
            // Errors are reported at the first offending byte: a name that repeats one read
            // before the error comes first. Looked for only on this error path.
            Err(e) => Err(self.first_duplicate(start, depth, &members).filter(|d| d.offset < e.offset).unwrap_or(e)),
            Ok(()) if members.windows(2).any(|w| w[0].0 == w[1].0) => {
                let unplaced = || Error::boxed(ErrorKind::DuplicateKey, start, "duplicate member name");
                Err(self.first_duplicate(start, depth, &members).unwrap_or_else(unplaced))
            }
            Ok(()) => Ok(Value::Object(members)),
        }
    }

    /// The members of an object, from after its `{` through its `}`, gathered in `self.members`.
    fn object_members(&mut self, depth: u32) -> Parsed<()> {
        loop {
            let member = self.member(depth)?;
            self.members.push(member);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.unexpected("`,` or `}`")),
            }
        }
    }

    /// One `"name": value` member, from the whitespace before the name.
    fn member(&mut self, depth: u32) -> Parsed<(Cow<'a, str>, Value<'a>)> {
        self.ws();
        if self.s.get(self.i) != Some(&b'"') {
            return Err(self.unexpected("a member name (a string)"));
        }
        let (name, _) = self.string()?;
        self.ws();
        if self.s.get(self.i) != Some(&b':') {
            return Err(self.unexpected("`:`"));
        }
        self.i += 1;
        self.ws();
        Ok((name, self.value(depth)?))
    }

    /// The first name, in document order, that repeats an earlier one in the object at `start`,
    /// among its `members` (sorted; the members read whole) and the name read after them, if
    /// any (the member being read when an error came). The object is read again for the offsets
    /// (only on error paths, so the tree carries none); the value after that last name is not,
    /// so nested errors are not looked into twice.
    fn first_duplicate(&self, start: usize, depth: u32, members: &[(Cow<'a, str>, Value<'a>)]) -> Option<Box<Error>> {
        let mut again = Parser { s: self.s, text: self.text, i: start, members: Vec::new(), items: Vec::new() };
        let mut seen = vec![false; members.len()];
        for n in 0..=members.len() {
            again.i += 1; // past `{` or `,`
            again.ws();
            let at = again.i;
            if again.s.get(at) != Some(&b'"') {
                break;
            }
            let Ok((name, _)) = again.string() else { break };
            // The first of the equal names in sorted order stands for all of them.
            let k = members.partition_point(|m| cmp_utf16(&m.0, &name) == Ordering::Less);
            if members.get(k).is_some_and(|m| m.0 == name) {
                if seen[k] {
                    return Some(Error::boxed(ErrorKind::DuplicateKey, at, msg!["duplicate member name ", Q(&name)]));
                }
                seen[k] = true;
            }
            again.ws();
            if n == members.len() || again.s.get(again.i) != Some(&b':') {
                break;
            }
            again.i += 1;
            again.ws();
            if again.value(depth).is_err() {
                break;
            }
            again.ws();
            if again.s.get(again.i) != Some(&b',') {
                break;
            }
        }
        None
    }

    /// Parse a string starting at `"`; returns it and the offset of its opening quote.
    fn string(&mut self) -> Parsed<(Cow<'a, str>, usize)> {
        let start = self.i;
        self.i += 1;
        let body = self.i;
        // Fast path: find the first byte that ends a plain run; borrow when it is the closing
        // quote (no escape in the string).
        self.i += plain_run(&self.s[self.i..]);
        match self.s.get(self.i) {
            None => return Err(self.unterminated(start)),
            Some(b'"') => {
                let s = sub(self.text, body, self.i);
                self.i += 1;
                return Ok((Cow::Borrowed(s), start));
            }
            Some(b'\\') => {}
            Some(_) => return Err(self.err(ErrorKind::Syntax, "a control character must be escaped inside a string")),
        }
        let mut out = String::with_capacity(self.i - body + 16);
        out.push_str(sub(self.text, body, self.i));
        loop {
            let run = self.i;
            self.i += plain_run(&self.s[self.i..]);
            out.push_str(sub(self.text, run, self.i));
            match self.s.get(self.i) {
                None => return Err(self.unterminated(start)),
                Some(b'"') => {
                    self.i += 1;
                    return Ok((Cow::Owned(out), start));
                }
                Some(b'\\') => {
                    let esc = self.i;
                    self.i += 1;
                    let c = match self.s.get(self.i) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            let hi = self.hex4(esc)?;
                            if (0xDC00..0xE000).contains(&hi) {
                                return Err(Error::boxed(
                                    ErrorKind::LoneSurrogate,
                                    esc,
                                    msg!["\\u", Hex4(hi), " is a low surrogate without a high surrogate before it"],
                                ));
                            }
                            if (0xD800..0xDC00).contains(&hi) {
                                // Anything but a well-formed `\u` low surrogate next leaves the
                                // high one alone, a malformed escape included: its offending
                                // byte, this escape's backslash, comes first.
                                let lo = if self.s[self.i..].starts_with(b"\\u") { self.hex_at(self.i + 2) } else { None };
                                let Some(lo) = lo.filter(|lo| (0xDC00..0xE000).contains(lo)) else {
                                    return Err(Error::boxed(
                                        ErrorKind::LoneSurrogate,
                                        esc,
                                        msg!["\\u", Hex4(hi), " is a high surrogate not followed by a low surrogate"],
                                    ));
                                };
                                self.i += 6;
                                let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                                out.push(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                            } else {
                                out.push(char::from_u32(hi).unwrap_or(char::REPLACEMENT_CHARACTER));
                            }
                            continue;
                        }
                        _ => return Err(Error::boxed(ErrorKind::Syntax, esc, "invalid escape sequence")),
                    };
                    self.i += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.err(ErrorKind::Syntax, "a control character must be escaped inside a string")),
            }
        }
    }

    /// A string that the input ends inside: reported at the end of the input, where the closing
    /// quote is missing (the first offending byte), naming where the string starts.
    fn unterminated(&self, start: usize) -> Box<Error> {
        self.err(ErrorKind::Syntax, msg!["unterminated string: the input ends before the closing quote of the string at byte ", start])
    }

    /// Four hex digits at `self.i`; `esc` is the offset of the escape, for errors.
    fn hex4(&mut self, esc: usize) -> Parsed<u32> {
        let v = self.hex_at(self.i).ok_or_else(|| Error::boxed(ErrorKind::Syntax, esc, "\\u needs four hex digits"))?;
        self.i += 4;
        Ok(v)
    }

    /// The value of the four hex digits at `at`, if there are four.
    fn hex_at(&self, at: usize) -> Option<u32> {
        self.s.get(at..at + 4)?.iter().try_fold(0, |v, &d| Some(v * 16 + (d as char).to_digit(16)?))
    }

    fn number(&mut self) -> Parsed<Value<'a>> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        let int_start = self.i;
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                    self.i += 1;
                }
            }
            _ => return Err(self.unexpected("a digit")),
        }
        let int_end = self.i;
        let mut integer = true;
        if self.s.get(self.i) == Some(&b'.') {
            integer = false;
            self.i += 1;
            if !matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit after the decimal point"));
            }
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            integer = false;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit in the exponent"));
            }
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        let lit = sub(self.text, start, self.i);
        let digits = sub(self.text, int_start, int_end);
        if integer && digits.len() <= 15 {
            // Exact in a double: skip the general decimal-to-binary conversion.
            let n = digits.bytes().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64;
            return Ok(Value::Number(if int_start > start { -n } else { n }));
        }
        let v: f64 = match crate::number::clinger(lit) {
            Some(v) => v,
            None => lexical_parse_float::FromLexical::from_lexical(lit.as_bytes())
                .map_err(|_| Error::boxed(ErrorKind::Syntax, start, "invalid number"))?,
        };
        if !v.is_finite() {
            return Err(Error::boxed(ErrorKind::NumberOverflow, start, msg!["the number ", lit, " is too large for a double"]));
        }
        if integer && !crate::number::integer_survives(digits, v) {
            return Err(Error::boxed(
                ErrorKind::InexactInteger,
                start,
                msg![
                    "the integer ",
                    lit,
                    " cannot be held exactly by a double (it would become ",
                    crate::number::format(v),
                    "); send it as a string"
                ],
            ));
        }
        Ok(Value::Number(v))
    }
}

/// Append the JCS form of `v` to `out`.
pub fn write(v: &Value<'_>, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => crate::number::write(*n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
    }
}

/// The JCS text of `v`.
pub fn to_string(v: &Value<'_>) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// 1-based line and column (in Unicode scalar values) of a byte offset in `bytes`.
pub fn line_col(bytes: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(bytes.len());
    let before = &bytes[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    // Count characters: every byte that is not a UTF-8 continuation byte starts one.
    let column = before[line_start..].iter().filter(|&&b| (b & 0xC0) != 0x80).count() + 1;
    (u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(column).unwrap_or(u32::MAX))
}
