//! What the gateway can still read of a message that is JSON (RFC 8259) but that serde_json
//! refuses to represent — a lone surrogate (`"\ud800"`), a number beyond a double (`1e400`),
//! values nested deeper than its recursion limit — so that a request is answered with its own id
//! and an error that names the cause and its place, instead of a parse error with no id, which
//! leaves a client that matches answers by id waiting for one.
//!
//! The reading is structural: each member of an object and element of an array is kept as raw
//! JSON text ([`RawValue`]), which serde_json reads on its ignore path. That path checks the
//! grammar only — not surrogate pairs, not the range of numbers — and walks nested values with a
//! stack on the heap instead of recursion, so neither depth nor size can overflow the thread's
//! stack. Only the members on the way to the error are read, one level at a time, at most
//! [`MAX_PATH`] levels down.

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// The deepest nesting serde_json represents in one message: its recursion limit (128) counts
/// the array or object that exceeds it.
pub const MAX_DEPTH: usize = 127;
/// How many levels of the place of an error are named; deeper, it is cut with `…`.
const MAX_PATH: usize = 12;

/// A member of an object (with its name) or an element of an array, as raw JSON text.
struct Member<'a> {
    name: Option<&'a RawValue>,
    value: &'a RawValue,
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Vec<Member<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object or an array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        // The name as raw text too: a lone surrogate in it must not stop the reading.
        while let Some(name) = map.next_key::<&RawValue>()? {
            members.push(Member { name: Some(name), value: map.next_value()? });
        }
        Ok(members)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(value) = seq.next_element()? {
            members.push(Member { name: None, value });
        }
        Ok(members)
    }
}

/// The members of the object or the elements of the array `text` is, each as raw text borrowed
/// from it; none for any other value (or a text that is not grammatical JSON).
fn members(text: &str) -> Option<Vec<Member<'_>>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let read = match text.trim_start().as_bytes().first() {
        Some(b'{') => (&mut de).deserialize_map(MembersVisitor),
        Some(b'[') => (&mut de).deserialize_seq(MembersVisitor),
        _ => return None,
    };
    read.ok()
}

/// A member's name as text: decoded, or as written when it cannot be (a lone surrogate in it).
fn name_of(raw: &RawValue) -> String {
    serde_json::from_str::<String>(raw.get()).unwrap_or_else(|_| {
        let written = raw.get();
        written.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(written).to_owned()
    })
}

/// Whether byte `at` of `outer` is inside `inner`, a slice of it.
fn holds(outer: &str, inner: &str, at: usize) -> bool {
    let start = (inner.as_ptr() as usize).wrapping_sub(outer.as_ptr() as usize);
    start <= at && at < start + inner.len()
}

/// Shortened for a message: at most `max` characters, then `…`.
fn shortened(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// A request's id as read: absent (a notification), a string or a number (answered with it),
/// or anything else (`null`, `true`, an object, an array, or a value that cannot be read):
/// answered with `id: null`, as JSON-RPC 2.0 says when the id cannot be detected.
#[derive(Debug, Clone, PartialEq)]
pub enum Id {
    Absent,
    Valid(Value),
    /// What it is, for the message.
    Invalid(String),
}

impl Id {
    fn of(member: Option<Result<Value, ()>>) -> Id {
        match member {
            None => Id::Absent,
            Some(Ok(id @ (Value::String(_) | Value::Number(_)))) => Id::Valid(id),
            Some(Ok(other)) => Id::Invalid(shortened(&other.to_string(), 40)),
            Some(Err(())) => Id::Invalid("a value that cannot be read".into()),
        }
    }
}

/// What kind of JSON-RPC message a text is, by its top-level members alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// A JSON object: anything else (an array — a batch —, a string, a number) is no message.
    pub object: bool,
    pub id: Id,
    /// It has a `method` member: a request (with an id) or a notification (without).
    pub method: bool,
    /// It has a `result` or an `error` member and no `method`: a response.
    pub response: bool,
}

impl Head {
    fn new(object: bool, id: Id, method: bool, result_or_error: bool) -> Head {
        Head { object, id, method, response: !method && result_or_error }
    }

    /// The head of a message serde_json has read.
    pub fn of_value(v: &Value) -> Head {
        match v {
            Value::Object(m) => Head::new(
                true,
                Id::of(m.get("id").cloned().map(Ok)),
                m.contains_key("method"),
                m.contains_key("result") || m.contains_key("error"),
            ),
            _ => Head::new(false, Id::Absent, false, false),
        }
    }

    /// The head of a grammatical message serde_json cannot represent.
    pub fn of_text(text: &str) -> Head {
        let top = match text.trim_start().as_bytes().first() {
            Some(b'{') => members(text),
            _ => None,
        };
        let Some(top) = top else { return Head::new(false, Id::Absent, false, false) };
        let (mut id, mut method, mut result_or_error) = (None, false, false);
        for m in &top {
            match m.name.map(name_of).as_deref() {
                // The last of several, as serde_json would read them.
                Some("id") => id = Some(serde_json::from_str::<Value>(m.value.get()).map_err(|_| ())),
                Some("method") => method = true,
                Some("result" | "error") => result_or_error = true,
                _ => {}
            }
        }
        Head::new(true, Id::of(id), method, result_or_error)
    }
}

/// Why and where serde_json could not represent a grammatical message.
#[derive(Debug, Clone, PartialEq)]
pub struct Trouble {
    /// What is wrong, e.g. `a lone surrogate \ud800 (half of a UTF-16 pair, not text)`.
    pub cause: String,
    /// Its place as a JSON pointer from the message's root (`/params/arguments/note`), cut with
    /// `…` below [`MAX_PATH`] levels; `in a member name at …` when it is in a name.
    pub place: String,
    /// Whether it is in the message's `params`.
    pub in_params: bool,
}

impl fmt::Display for Trouble {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} {}", self.cause, self.place)
    }
}

/// The byte of `text` that serde_json's error `e` is at (its line and column: the column is the
/// 1-based byte position of the last byte it read).
fn offset(text: &str, e: &serde_json::Error) -> usize {
    let line_start = if e.line() <= 1 { 0 } else { text.match_indices('\n').nth(e.line() - 2).map_or(text.len(), |(i, _)| i + 1) };
    (line_start + e.column()).saturating_sub(1)
}

/// The `\uXXXX` escape of the lone surrogate that serde_json's error at `at` is about. Its
/// reader stops right after a high surrogate that no `\u` follows ("unexpected end of hex
/// escape": at the next character, or at the `\` of another escape's next one), or after the
/// four digits of a low surrogate alone or of what follows a high one ("lone leading
/// surrogate"). None when the text is not as expected.
fn lone_escape(text: &str, at: usize, unexpected_end: bool) -> Option<&str> {
    let escape_ending = |end: usize| {
        let e = text.get(end.checked_sub(6)?..end)?;
        let code = u16::from_str_radix(e.strip_prefix("\\u")?, 16).ok()?;
        Some((e, code))
    };
    let surrogate = |code: u16| (0xD800..=0xDFFF).contains(&code);
    if unexpected_end {
        let end = if text.as_bytes().get(at.checked_sub(1)?) == Some(&b'\\') { at - 1 } else { at };
        return escape_ending(end).filter(|(_, c)| surrogate(*c)).map(|(e, _)| e);
    }
    let (last, code) = escape_ending(at + 1)?;
    if (0xDC00..=0xDFFF).contains(&code) {
        return Some(last);
    }
    escape_ending(at + 1 - 6).filter(|(_, c)| surrogate(*c)).map(|(e, _)| e)
}

/// The number whose last byte is at `at`, as written.
fn number_ending(text: &str, at: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let end = at + 1;
    let start = bytes.get(..end)?.iter().rposition(|b| !matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')).map_or(0, |i| i + 1);
    text.get(start..end).filter(|n| !n.is_empty())
}

/// Why serde_json could not represent `text`, which is grammatical JSON, and where: `e` is its
/// error.
pub fn locate(text: &str, e: &serde_json::Error) -> Trouble {
    let at = offset(text, e);
    let said = e.to_string();
    let said = said.split(" at line ").next().unwrap_or_default();
    let cause = match said {
        "recursion limit exceeded" => format!("values nested deeper than {MAX_DEPTH} levels (the most a message may have)"),
        "number out of range" => match number_ending(text, at) {
            Some(n) => format!("a number out of range, {} (beyond a double)", shortened(n, 24)),
            None => "a number out of range (beyond a double)".into(),
        },
        "unexpected end of hex escape" | "lone leading surrogate in hex escape" => {
            match lone_escape(text, at, said == "unexpected end of hex escape") {
                Some(esc) => format!("a lone surrogate {esc} (half of a UTF-16 pair, not text)"),
                None => "a lone surrogate (half of a UTF-16 pair, not text)".into(),
            }
        }
        other => other.to_owned(),
    };
    let mut pointer = String::new();
    let (mut in_name, mut in_params, mut cut) = (false, false, false);
    let mut raw = text;
    for level in 0.. {
        let Some(members) = members(raw) else { break };
        let Some((i, m)) =
            members.iter().enumerate().find(|(_, m)| holds(text, m.value.get(), at) || m.name.is_some_and(|n| holds(text, n.get(), at)))
        else {
            break;
        };
        if level == MAX_PATH {
            cut = true;
            break;
        }
        let segment = m.name.map_or_else(|| i.to_string(), name_of);
        if level == 0 {
            in_params = segment == "params";
        }
        pointer.push('/');
        pointer.push_str(&shortened(&segment, 40).replace('~', "~0").replace('/', "~1"));
        if m.name.is_some_and(|n| holds(text, n.get(), at)) {
            in_name = true;
            break;
        }
        raw = m.value.get();
    }
    if cut {
        pointer.push_str("/…");
    }
    let place = match (in_name, pointer.is_empty()) {
        (true, _) => format!("in a member name at {pointer}"),
        (false, true) => "at the message's top level".to_owned(),
        (false, false) => format!("at {pointer}"),
    };
    Trouble { cause, place, in_params }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trouble(text: &str) -> Trouble {
        let e = serde_json::from_str::<Value>(text).expect_err("serde_json refuses it");
        assert!(serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(), "grammatical: {text}");
        locate(text, &e)
    }

    #[test]
    fn a_lone_surrogate_is_named_with_its_place() {
        let cases = [
            (r#"{"params":{"arguments":{"note":"ab\ud800"}}}"#, r"\ud800"),
            (r#"{"params":{"arguments":{"note":"ab\uD83Dx"}}}"#, r"\uD83D"),
            (r#"{"params":{"arguments":{"note":"\udc00"}}}"#, r"\udc00"),
            (r#"{"params":{"arguments":{"note":"\ud800\u0041"}}}"#, r"\ud800"),
            (r#"{"params":{"arguments":{"note":"\ud800\n"}}}"#, r"\ud800"),
            (r#"{"params":{"arguments":{"note":"\ud800\ud800"}}}"#, r"\ud800"),
        ];
        for (text, escape) in cases {
            let t = trouble(text);
            assert_eq!(t.cause, format!("a lone surrogate {escape} (half of a UTF-16 pair, not text)"), "{text}");
            assert_eq!((t.place.as_str(), t.in_params), ("at /params/arguments/note", true), "{text}");
        }
        // In an array, in a member name, at the top level.
        let t = trouble(r#"{"id":1,"params":{"arguments":{"list":[1,"ok","\udfff"]}}}"#);
        assert_eq!(t.place, "at /params/arguments/list/2");
        let t = trouble(r#"{"params":{"arguments":{"a/b~\ud800":1}}}"#);
        assert_eq!(t.place, r"in a member name at /params/arguments/a~1b~0\ud800");
        let t = trouble(r#"{"method":"x","extra":"\ud800"}"#);
        assert_eq!((t.place.as_str(), t.in_params), ("at /extra", false));
        assert_eq!(trouble(r#""\ud800""#).place, "at the message's top level");
    }

    #[test]
    fn a_number_out_of_range_is_named_with_its_place() {
        let t = trouble(r#"{"params":{"arguments":{"amount":1e400,"b":2}}}"#);
        assert_eq!(t.to_string(), "a number out of range, 1e400 (beyond a double) at /params/arguments/amount");
        let t = trouble("{\"params\":\n {\"arguments\": [-1.5E+400 ]}}");
        assert_eq!(t.to_string(), "a number out of range, -1.5E+400 (beyond a double) at /params/arguments/0");
        let long = format!(r#"{{"params":{{"n":{}}}}}"#, "9".repeat(400));
        assert_eq!(trouble(&long).to_string(), format!("a number out of range, {}… (beyond a double) at /params/n", "9".repeat(24)));
    }

    #[test]
    fn too_deep_is_named_and_read_without_recursion() {
        // 127 levels are read; 128 are not.
        let nested = |n: usize| format!(r#"{{"params":{{"arguments":{{"a":{}1{}}}}}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH - 3)).is_ok());
        let t = trouble(&nested(MAX_DEPTH - 2));
        assert_eq!(t.cause, "values nested deeper than 127 levels (the most a message may have)");
        assert_eq!(t.place, "at /params/arguments/a/0/0/0/0/0/0/0/0/0/…");
        assert!(t.in_params);
        // Far deeper than any stack: read by the ignore path, and the head too.
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{{"arguments":{}1{}}}}}"#,
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        let t = trouble(&deep);
        assert!(t.in_params && t.place.starts_with("at /params/arguments/0/0/"), "{t}");
        let head = Head::of_text(&deep);
        assert_eq!(head, Head { object: true, id: Id::Valid("d".into()), method: true, response: false });
    }

    #[test]
    fn the_head_reads_the_id_method_and_kind() {
        let head = Head::of_text(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"\ud800"}}"#);
        assert_eq!(head, Head { object: true, id: Id::Valid(7.into()), method: true, response: false });
        for (id, shown) in
            [("null", "null"), ("true", "true"), (r#"{"a":1}"#, r#"{"a":1}"#), ("[1]", "[1]"), ("1e400", "a value that cannot be read")]
        {
            let text = format!(r#"{{"id":{id},"method":"m","params":{{"x":1e400}}}}"#);
            assert_eq!(Head::of_text(&text).id, Id::Invalid(shown.into()), "{text}");
        }
        let response = Head::of_text(r#"{"jsonrpc":"2.0","id":"r","result":{"x":"\ud800"}}"#);
        assert_eq!(response, Head { object: true, id: Id::Valid("r".into()), method: false, response: true });
        assert!(!Head::of_text(r#"[{"id":1,"method":"m","params":"\ud800"}]"#).object);
        assert_eq!(Head::of_text(r#"{"method":"m","params":"\ud800"}"#).id, Id::Absent);
        assert_eq!(Head::of_value(&serde_json::json!({"id": null, "method": "m"})).id, Id::Invalid("null".into()));
    }
}
