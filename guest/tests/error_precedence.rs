//! Which error is reported when an input has several (`docs/key-scheme.md`, "Which error is
//! reported"). The golden vectors carry most cases; these are the ones a vector's shape cannot
//! (a key spec that no policy document can hold) and the cost bounds of the error path.

use oncely_core::canonical::{canonicalize, canonicalize_bytes};
use oncely_core::canonical_wit::CanonErrorKind;
use oncely_core::keys;
use oncely_core::keys_wit::{Intent, KeyErrorKind, KeyIdentity, KeySpec};

fn canon_err(text: &str) -> (CanonErrorKind, u64) {
    let e = canonicalize(text).unwrap_err();
    (e.kind, e.offset)
}

#[test]
fn a_duplicate_name_wins_over_any_later_error() {
    use CanonErrorKind::*;
    assert_eq!(canon_err(r#"{"a":1,"a":2,}"#), (DuplicateKey, 7));
    assert_eq!(canon_err(r#"{"a":1,"a":1e400}"#), (DuplicateKey, 7));
    assert_eq!(canon_err(r#"{"a":1,"a":{"b":1,"b":2}}"#), (DuplicateKey, 7));
    assert_eq!(canon_err(r#"{"a":1,"a":[{"b":1,"b":2}]}"#), (DuplicateKey, 7));
    assert_eq!(canon_err(r#"{"x":{"b":1,"b":2},"x":1}"#), (DuplicateKey, 12));
    assert_eq!(canon_err(r#"{"b":1,"a":2,"b":3,"a":4}"#), (DuplicateKey, 13));
    assert_eq!(canon_err(r#"{"a":1,"a""#), (DuplicateKey, 7));
    assert_eq!(canon_err(r#"{"a":1,"a"#), (Syntax, 9));
    assert_eq!(canon_err(&format!(r#"{{"a":0,"a":{}}}"#, "[".repeat(200))), (DuplicateKey, 7));
    // An earlier error wins over a later duplicate.
    assert_eq!(canon_err(r#"{"a":1e400,"a":1}"#), (NumberOverflow, 5));
    assert_eq!(canon_err(r#"{"a":{"b":tru},"a":1}"#), (Syntax, 10));
    // Big objects (merge sort) and duplicates among the members read before the error.
    let members: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    let text = format!("{{{},\"k7\":0,\"z\":1e400}}", members.join(","));
    assert_eq!(canon_err(&text), (DuplicateKey, text.rfind("\"k7\"").unwrap() as u64));
}

#[test]
fn the_error_path_reads_each_open_object_again_once() {
    // 100 nested objects, each with a duplicate and a large value before it, then an error at
    // the bottom: the outermost duplicate wins, and the error path stays linear.
    let big = "x".repeat(100_000);
    let mut text = String::new();
    for _ in 0..100 {
        text.push_str(&format!(r#"{{"s":"{big}","d":1,"d":"#));
    }
    text.push_str("1e400");
    let start = std::time::Instant::now();
    assert_eq!(canon_err(&text), (CanonErrorKind::DuplicateKey, 100_014));
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
}

#[test]
fn an_unterminated_string_is_reported_at_the_end_of_the_input() {
    assert_eq!(canon_err(r#"["abc"#), (CanonErrorKind::Syntax, 5));
    assert_eq!(canon_err(r#""a\n"#), (CanonErrorKind::Syntax, 4));
    let e = canonicalize(r#"{"k": "abc"#).unwrap_err();
    assert!(e.message.contains("string at byte 6"), "{}", e.message);
}

#[test]
fn bytes_that_are_not_utf8_come_in_document_order() {
    let err = |b: &[u8]| {
        let e = canonicalize_bytes(b).unwrap_err();
        (e.kind, e.offset)
    };
    assert_eq!(err(b"{\"a\":1,\"a\":\"\xff\"}"), (CanonErrorKind::DuplicateKey, 7));
    assert_eq!(err(b"[1,,\"\xff\"]"), (CanonErrorKind::Syntax, 3));
    assert_eq!(err(b"[\"\xff\",1e400]"), (CanonErrorKind::InvalidUtf8, 2));
    assert_eq!(err(b"\"ab\xff"), (CanonErrorKind::InvalidUtf8, 3));
    assert_eq!(err(b"[1\xff]"), (CanonErrorKind::InvalidUtf8, 2));
    assert_eq!(err(b"[tr\xff]"), (CanonErrorKind::Syntax, 1));
    assert_eq!(err(b"[1e400,\"\xed\xa0\x80\"]"), (CanonErrorKind::NumberOverflow, 1));
}

fn intent(scope: &str, run: &str, step: &str, args: &str) -> Intent {
    Intent { scope: scope.into(), run_id: run.into(), step_id: step.into(), tool: "refund".into(), args_json: args.into() }
}

fn spec(only: Option<&[&str]>, ignore: &[&str]) -> KeySpec {
    KeySpec {
        only: only.map(|o| o.iter().map(|s| s.to_string()).collect()),
        ignore: ignore.iter().map(|s| s.to_string()).collect(),
        identity: KeyIdentity::Step,
    }
}

fn key_err(i: &Intent, s: &KeySpec) -> (KeyErrorKind, Option<String>) {
    let e = keys::derive(i, s).unwrap_err();
    assert_eq!(keys::key(i, s).unwrap_err(), e, "key and derive give the same error");
    (e.kind, e.at)
}

#[test]
fn derivation_checks_fields_then_spec_then_arguments_then_ignore_then_only() {
    use KeyErrorKind::*;
    let at = |s: &str| Some(s.to_string());
    let good = intent("acme", "r", "s", r#"{"id":1,"items":[1]}"#);
    // Empty fields first, even with a bad spec and bad arguments.
    let bad_args = intent("", "r", "s", "{");
    assert_eq!(key_err(&bad_args, &spec(Some(&["x"]), &["y"])), (EmptyField, at("scope")));
    // The spec: ignore pointers, then only (empty, then its pointers), in the order written.
    let bad = intent("acme", "r", "s", "{");
    assert_eq!(key_err(&bad, &spec(Some(&["x"]), &["/ok", "y"])), (InvalidPointer, at("y")));
    assert_eq!(key_err(&bad, &spec(Some(&[]), &[""])), (InvalidPointer, at("")));
    assert_eq!(key_err(&bad, &spec(Some(&[]), &["/ok"])), (EmptyField, at("only")));
    assert_eq!(key_err(&bad, &spec(Some(&["/ok", "x", ""]), &[])), (InvalidPointer, at("x")));
    // Then the arguments.
    assert_eq!(key_err(&bad, &spec(Some(&["/nope"]), &["/items/0"])).0, InvalidArgs);
    // Then ignore, against the arguments as given; then only, in the order written.
    assert_eq!(key_err(&good, &spec(Some(&["/nope"]), &["/items/0"])), (PointerIntoArray, at("/items/0")));
    assert_eq!(key_err(&good, &spec(None, &["/items", "/items/0"])), (PointerIntoArray, at("/items/0")));
    assert_eq!(key_err(&good, &spec(Some(&["/z", "/id", "/a"]), &[])), (MissingMember, at("/z")));
    assert_eq!(key_err(&good, &spec(Some(&["/id"]), &["/id"])), (MissingMember, at("/id")));
}

#[test]
fn an_empty_only_is_refused_by_derive_as_by_the_policy_reader() {
    let e = keys::derive(&intent("acme", "r", "s", "{}"), &spec(Some(&[]), &[])).unwrap_err();
    assert_eq!((e.kind, e.at.as_deref()), (KeyErrorKind::EmptyField, Some("only")));
    let p = oncely_core::policy::parse_policy(r#"{"class":"read-only","key":{"only":[]}}"#).unwrap_err();
    assert_eq!(p.at, "/key/only");
}
