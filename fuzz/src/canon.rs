//! `canonicalize`: any bytes as JSON text.

use oncely_core::canonical;
use oncely_core::canonical_wit::{CanonError, CanonErrorKind};
use serde_json::Value;

/// Properties:
/// - never panics;
/// - `canonicalize_bytes` and, for UTF-8 input, `canonicalize` give the same answer;
/// - an output is canonical: canonicalizing it again gives it back, and serde_json reads it;
/// - an output equals a reference canonicalizer (serde_json's parse, UTF-16 member order,
///   ECMAScript number text) whenever serde_json reads the input;
/// - an error's offset is within the input, its line and column are those of the offset, and a
///   document serde_json accepts is refused only for what serde_json does not check
///   (duplicate names, inexact integers, nesting depth);
/// - an accepted document is one serde_json accepts too (but for nesting depth).
pub fn canonicalize(data: &[u8]) {
    let got = canonical::canonicalize_bytes(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(canonical::canonicalize(text), got, "canonicalize and canonicalize_bytes disagree");
    }
    let serde: Result<Value, _> = serde_json::from_slice(data);
    match got {
        Ok(out) => {
            assert_eq!(canonical::canonicalize(&out).as_ref(), Ok(&out), "the output is not canonical: {out:?}");
            let back: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("serde_json cannot read the output {out:?}: {e}"));
            assert_eq!(reference(&back), out, "serde_json read the output as another document");
            match serde {
                Ok(v) => assert_eq!(reference(&v), out, "the reference canonicalizer disagrees"),
                Err(e) => assert!(e.to_string().contains("recursion limit"), "accepted, but serde_json refuses it: {e}"),
            }
        }
        Err(e) => {
            check_position(data, &e);
            if serde.is_ok() {
                assert!(
                    matches!(e.kind, CanonErrorKind::DuplicateKey | CanonErrorKind::InexactInteger | CanonErrorKind::TooDeep),
                    "serde_json accepts what the core refuses: {e:?}"
                );
            }
        }
    }
}

/// The offset is in the input; line and column count from it as `wit/canonical.wit` says.
fn check_position(data: &[u8], e: &CanonError) {
    assert!(!e.message.is_empty());
    let offset = usize::try_from(e.offset).unwrap();
    assert!(offset <= data.len(), "offset {offset} beyond the input ({} bytes)", data.len());
    let before = &data[..offset];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(e.line as usize, line, "line of offset {offset}");
    if let Ok(text) = std::str::from_utf8(before) {
        let start = text.rfind('\n').map_or(0, |i| i + 1);
        assert_eq!(e.column as usize, 1 + text[start..].chars().count(), "column of offset {offset}");
    }
}

/// RFC 8785 from serde_json's tree: members by UTF-16 code units, strings as serde_json writes
/// them (which is RFC 8785's escaping), numbers as ECMAScript prints the double.
pub fn reference(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Null | Value::Bool(_) | Value::String(_) => out.push_str(&serde_json::to_string(v).unwrap()),
        Value::Number(n) => {
            let f = n.as_f64().expect("a JSON number");
            out.push_str(ryu_js::Buffer::new().format(f));
        }
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
            let mut names: Vec<&String> = members.keys().collect();
            names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, name) in names.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(name).unwrap());
                out.push(':');
                write(&members[name], out);
            }
            out.push('}');
        }
    }
}
