//! Huge and deep documents get a typed error, never a crash.

use oncely_core::canonical::{canonicalize, canonicalize_bytes};
use oncely_core::canonical_wit::CanonErrorKind;

#[test]
fn a_document_over_16_mib_is_too_large() {
    let limit = oncely_core::json::MAX_INPUT_BYTES;
    let big = format!("\"{}\"", "a".repeat(limit - 1));
    assert_eq!(canonicalize(&big).unwrap_err().kind, CanonErrorKind::TooLarge);
    assert_eq!(canonicalize_bytes(big.as_bytes()).unwrap_err().kind, CanonErrorKind::TooLarge);
    let fits = format!("\"{}\"", "a".repeat(limit - 2));
    assert_eq!(canonicalize(&fits).unwrap().len(), limit);
}

#[test]
fn a_million_open_brackets_is_too_deep_not_a_stack_overflow() {
    let deep = "[".repeat(1_000_000);
    let e = canonicalize(&deep).unwrap_err();
    assert_eq!((e.kind, e.offset), (CanonErrorKind::TooDeep, 128));
    let deep_objects = "{\"a\":".repeat(200);
    assert_eq!(canonicalize(&deep_objects).unwrap_err().kind, CanonErrorKind::TooDeep);
}

#[test]
fn errors_name_line_and_column_in_characters() {
    let e = canonicalize("{\"é\": 1,\n \"ü\": x}").unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (CanonErrorKind::Syntax, 2, 7));
    assert!(e.message.contains("line 2, column 7"), "{}", e.message);
}

#[test]
fn an_inexact_integer_tells_the_caller_to_send_a_string() {
    let e = canonicalize("{\"id\": 9007199254740993}").unwrap_err();
    assert_eq!(e.kind, CanonErrorKind::InexactInteger);
    assert!(e.message.contains("9007199254740992") && e.message.contains("string"), "{}", e.message);
}

#[test]
fn a_duplicate_member_is_reported_where_the_name_repeats() {
    // The offset is the first member, in document order, whose name came before.
    let e = canonicalize(r#"{"b":1,"a":2,"b":3,"b":4}"#).unwrap_err();
    assert_eq!((e.kind, e.offset), (CanonErrorKind::DuplicateKey, 13));
    assert!(e.message.starts_with("duplicate member name \"b\""), "{}", e.message);
    // Inside a nested object, after members whose values are themselves objects.
    let e = canonicalize(r#"{"x":{"k":{"z":1,"y":2},"j":[1,{"q":0}],"k":0}}"#).unwrap_err();
    assert_eq!((e.kind, e.offset), (CanonErrorKind::DuplicateKey, 40));
    // Names equal after unescaping are duplicates.
    let e = canonicalize(r#"{"\u00e9":1,"é":2}"#).unwrap_err();
    assert_eq!((e.kind, e.offset), (CanonErrorKind::DuplicateKey, 12));
    // In an object large enough for the merge sort.
    let members: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    let text = format!("{{{},\"k7\":0}}", members.join(","));
    let e = canonicalize(&text).unwrap_err();
    assert_eq!((e.kind, e.offset), (CanonErrorKind::DuplicateKey, text.rfind("\"k7\"").unwrap() as u64));
}
