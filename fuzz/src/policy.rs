//! `policy`: any bytes as a policy document, a tool, and a manifest.

use oncely_core::keys_wit::Intent;
use oncely_core::policy_wit::{PolicyError, Severity};
use oncely_core::{canonical, keys, ledger, pointer, policy};

/// Properties:
/// - never panics (`parse_policy`, `resolve_tool`, `check_manifest`, on the text as given and
///   wrapped as a tool's `_meta["oncely/policy"]` in a manifest);
/// - deterministic;
/// - an error's `at` is `""` or a valid JSON pointer, and its message is not empty;
/// - a policy that parses has a key spec whose pointers parse, and `prepare` accepts it;
/// - a manifest report passes exactly when no finding is an error, and names each resolved tool.
pub fn policy(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parsed = policy::parse_policy(text);
    assert_eq!(policy::parse_policy(text), parsed, "parse_policy is not deterministic");
    match &parsed {
        Ok(p) => {
            if let Some(spec) = &p.key {
                assert!(keys::parse_spec(spec).is_ok(), "a parsed policy holds an invalid key spec: {spec:?}");
            }
            let intent = Intent {
                scope: "acme".into(),
                run_id: "r".into(),
                step_id: "s".into(),
                tool: "t".into(),
                args_json: r#"{"a":{"b":1},"charge_id":"ch_1"}"#.into(),
            };
            if let Err(e) = ledger::prepare(&intent, p, "w1") {
                // Only the arguments can make it fail (an `only` pointer they lack, an ignored
                // array element).
                use oncely_core::keys_wit::KeyErrorKind::{MissingMember, PointerIntoArray};
                assert!(matches!(e.kind, MissingMember | PointerIntoArray), "{e:?}");
            }
        }
        Err(e) => check_error(e),
    }
    match policy::resolve_tool(text) {
        Ok(t) => assert!(!t.name.is_empty()),
        Err(e) => check_error(&e),
    }
    manifest(text);
    // The same text as the policy of a tool in a manifest (when it is JSON at all).
    if canonical::canonicalize(text).is_ok() {
        manifest(&format!(r#"{{"tools":[{{"name":"t","_meta":{{"oncely/policy":{text}}}}}]}}"#));
        manifest(&format!(
            r#"[{{"name":"t","annotations":{text}}},{{"name":"u","_meta":{{"oncely/policy":{{"class":"read-only","lookup":{text}}}}}}}]"#
        ));
    }
}

fn manifest(text: &str) {
    let report = policy::check_manifest(text);
    assert_eq!(policy::check_manifest(text), report, "check_manifest is not deterministic");
    match report {
        Ok(r) => {
            let errors = r.findings.iter().any(|f| f.severity == Severity::Error);
            assert_eq!(r.passed, !errors);
            for f in &r.findings {
                assert!(!f.code.is_empty() && !f.message.is_empty(), "{f:?}");
            }
            for t in &r.tools {
                assert!(!t.name.is_empty());
            }
        }
        Err(e) => check_error(&e),
    }
}

fn check_error(e: &PolicyError) {
    assert!(!e.message.is_empty());
    assert!(e.at.is_empty() || pointer::parse(&e.at).is_ok(), "error at an invalid pointer: {e:?}");
}
