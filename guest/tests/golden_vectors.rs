//! Replays every golden vector in `tests/vectors/` against the native build of the core. The
//! hosts (Rust via wasmtime, Python, JavaScript) replay the same files through the component.
//! `ONCELY_BLESS=1` fills in the derived key fields of `keys.json` (then review the diff).

mod common;

use common::{event, s};
use oncely_core::canonical_wit::CanonErrorKind;
use oncely_core::keys_wit::{Intent, KeyErrorKind};
use oncely_core::ledger::Write;
use oncely_core::ledger_wit::{Entry, EntryState, Outcome};
use oncely_core::policy_wit::{ClassSource, EffectClass, ReconcilePath, Severity};
use oncely_core::{canonical, keys, ledger, policy};
use serde_json::{json, Value};
use std::path::PathBuf;

fn vectors(name: &str) -> (PathBuf, Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path, serde_json::from_str(&text).unwrap())
}

fn intent(v: &Value) -> Intent {
    Intent { scope: s(&v["scope"]), run_id: s(&v["run"]), step_id: s(&v["step"]), tool: s(&v["tool"]), args_json: s(&v["args"]) }
}

fn policy_of(v: &Value) -> oncely_core::policy_wit::ToolPolicy {
    policy::parse_policy(&v.to_string()).unwrap_or_else(|e| panic!("policy {v}: {}", e.message))
}

fn canon_kind(k: CanonErrorKind) -> &'static str {
    match k {
        CanonErrorKind::Syntax => "syntax",
        CanonErrorKind::InvalidUtf8 => "invalid-utf8",
        CanonErrorKind::LoneSurrogate => "lone-surrogate",
        CanonErrorKind::DuplicateKey => "duplicate-key",
        CanonErrorKind::NumberOverflow => "number-overflow",
        CanonErrorKind::InexactInteger => "inexact-integer",
        CanonErrorKind::TooDeep => "too-deep",
        CanonErrorKind::TooLarge => "too-large",
    }
}

fn key_kind(k: KeyErrorKind) -> &'static str {
    match k {
        KeyErrorKind::InvalidArgs => "invalid-args",
        KeyErrorKind::InvalidPointer => "invalid-pointer",
        KeyErrorKind::MissingMember => "missing-member",
        KeyErrorKind::PointerIntoArray => "pointer-into-array",
        KeyErrorKind::EmptyField => "empty-field",
    }
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn canonical_vectors() {
    let (_, doc) = vectors("canonical.json");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() > 30);
    for c in cases {
        let name = s(&c["name"]);
        let got = match c.get("input_hex") {
            Some(h) => canonical::canonicalize_bytes(&unhex(h.as_str().unwrap())),
            None => canonical::canonicalize(c["input"].as_str().unwrap()),
        };
        match (got, c.get("output"), c.get("error")) {
            (Ok(out), Some(want), None) => assert_eq!(out, s(want), "{name}"),
            (Err(e), None, Some(want)) => {
                assert_eq!(canon_kind(e.kind), want["kind"], "{name}: {}", e.message);
                assert_eq!(e.offset, want["offset"].as_u64().unwrap(), "{name}: {}", e.message);
                if let Some(line) = want.get("line") {
                    assert_eq!(u64::from(e.line), line.as_u64().unwrap(), "{name}");
                    assert_eq!(u64::from(e.column), want["column"].as_u64().unwrap(), "{name}");
                }
            }
            (got, _, _) => panic!("{name}: got {got:?}"),
        }
    }
}

#[test]
fn key_vectors() {
    let (path, mut doc) = vectors("keys.json");
    let bless = std::env::var_os("ONCELY_BLESS").is_some();
    let mut derived_keys: Vec<Option<String>> = Vec::new();
    for c in doc["cases"].as_array_mut().unwrap() {
        let name = s(&c["name"]);
        let p = policy_of(&c["policy"]);
        let spec = p.key.clone().unwrap_or_else(keys::default_spec);
        let got = keys::derive(&intent(&c["intent"]), &spec);
        // `keys::key` gives derive's key, or the very same error.
        assert_eq!(keys::key(&intent(&c["intent"]), &spec), got.clone().map(|d| d.key), "{name}: key");
        match (got, c.get("error").cloned()) {
            (Ok(d), None) => {
                if bless {
                    c["key"] = json!(d.key);
                    c["preimage"] = json!(d.preimage);
                    c["fingerprint"] = json!(d.fingerprint);
                    c["args_canonical"] = json!(d.args_canonical);
                }
                assert_eq!(d.key, s(&c["key"]), "{name}");
                assert_eq!(d.preimage, s(&c["preimage"]), "{name}");
                assert_eq!(d.fingerprint, s(&c["fingerprint"]), "{name}");
                assert_eq!(d.args_canonical, s(&c["args_canonical"]), "{name}");
                assert!(d.key.len() <= 255 && d.key.starts_with("oncely1:") && d.key.bytes().all(|b| b.is_ascii_graphic()));
                if let Some(i) = c.get("same_key_as") {
                    let other = derived_keys[i.as_u64().unwrap() as usize].clone().expect("case with a key");
                    assert_eq!(d.key, other, "{name}");
                }
                derived_keys.push(Some(d.key));
            }
            (Err(e), Some(want)) => {
                assert_eq!(key_kind(e.kind), want["kind"], "{name}: {}", e.message);
                if let Some(at) = want.get("at") {
                    assert_eq!(e.at.as_deref(), at.as_str(), "{name}");
                }
                if let Some(kind) = want.get("canon") {
                    let canon = e.canon.as_ref().expect("invalid-args carries the canon error");
                    assert_eq!(canon_kind(canon.kind), kind, "{name}");
                    assert_eq!(canon.offset, want["offset"].as_u64().unwrap(), "{name}");
                }
                derived_keys.push(None);
            }
            (got, _) => panic!("{name}: got {got:?}"),
        }
    }
    // Distinct intents (not declared equal) must have distinct keys.
    let mut seen = std::collections::HashMap::new();
    for (i, (k, c)) in derived_keys.iter().zip(doc["cases"].as_array().unwrap()).enumerate() {
        if let Some(k) = k {
            let j = *seen.entry(k.clone()).or_insert(i);
            if j != i {
                assert_eq!(c.get("same_key_as").and_then(Value::as_u64), Some(j as u64), "case {i} collides with case {j}");
            }
        }
    }
    if bless {
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
}

#[test]
fn explain_vectors() {
    let (_, doc) = vectors("explain.json");
    for c in doc["cases"].as_array().unwrap() {
        let name = s(&c["name"]);
        let spec = policy_of(&c["policy"]).key.unwrap_or_else(keys::default_spec);
        let e = keys::explain(&intent(&c["a"]), &intent(&c["b"]), &spec).unwrap();
        let verdict = match e.verdict {
            oncely_core::keys_wit::Verdict::SameIntent => "same-intent",
            oncely_core::keys_wit::Verdict::Conflict => "conflict",
            oncely_core::keys_wit::Verdict::DifferentKeys => "different-keys",
        };
        assert_eq!(verdict, c["verdict"], "{name}");
        let diffs: Vec<Value> = e
            .differences
            .iter()
            .map(|d| {
                json!({
                    "part": match d.part {
                        oncely_core::keys_wit::IntentPart::Scope => "scope",
                        oncely_core::keys_wit::IntentPart::Tool => "tool",
                        oncely_core::keys_wit::IntentPart::RunId => "run-id",
                        oncely_core::keys_wit::IntentPart::StepId => "step-id",
                        oncely_core::keys_wit::IntentPart::Args => "args",
                    },
                    "pointer": d.pointer, "a": d.a, "b": d.b,
                    "effect": match d.effect {
                        oncely_core::keys_wit::DifferenceEffect::Key => "key",
                        oncely_core::keys_wit::DifferenceEffect::Fingerprint => "fingerprint",
                        oncely_core::keys_wit::DifferenceEffect::None => "none",
                    },
                })
            })
            .collect();
        assert_eq!(Value::Array(diffs), c["differences"], "{name}");
        assert_eq!(e.key_a.key == e.key_b.key, verdict != "different-keys", "{name}");
    }
}

fn class_name(c: EffectClass) -> &'static str {
    policy::class_name(c)
}

fn reconcile_json(r: &ReconcilePath) -> Value {
    match r {
        ReconcilePath::None => json!("none"),
        ReconcilePath::ProviderIdempotent => json!("provider-idempotent"),
        ReconcilePath::Manual => json!("manual"),
        ReconcilePath::Lookup(t) => json!({ "lookup": t }),
    }
}

#[test]
fn policy_vectors() {
    let (_, doc) = vectors("policy.json");
    for c in doc["resolve"].as_array().unwrap() {
        match (policy::resolve_tool(&c["tool"].to_string()), c.get("error_at")) {
            (Ok(r), None) => {
                assert_eq!(class_name(r.policy.class), c["class"], "{}", c["tool"]);
                let source = match r.class_source {
                    ClassSource::Policy => "policy",
                    ClassSource::Annotations => "annotations",
                    ClassSource::Defaults => "defaults",
                };
                assert_eq!(source, c["class_source"], "{}", c["tool"]);
                if let Some(lease) = c.get("lease_ms") {
                    assert_eq!(r.policy.lease_ms, lease.as_u64().unwrap());
                }
            }
            (Err(e), Some(at)) => assert_eq!(e.at, s(at), "{}: {}", c["tool"], e.message),
            (got, _) => panic!("{}: got {got:?}", c["tool"]),
        }
    }
    for c in doc["policies"].as_array().unwrap() {
        let text = c.get("policy_text").map(s).unwrap_or_else(|| c["policy"].to_string());
        match (policy::parse_policy(&text), c.get("expect"), c.get("error_at")) {
            (Ok(p), Some(want), None) => {
                let got = json!({
                    "class": class_name(p.class),
                    "key": p.key.as_ref().map(|k| json!({
                        "only": k.only, "ignore": k.ignore,
                        "identity": match k.identity {
                            oncely_core::keys_wit::KeyIdentity::Step => "step",
                            oncely_core::keys_wit::KeyIdentity::Run => "run",
                            oncely_core::keys_wit::KeyIdentity::Scope => "scope",
                        },
                    })),
                    "reconcile": reconcile_json(&p.reconcile),
                    "lease_ms": p.lease_ms, "reconcile_after_ms": p.reconcile_after_ms,
                    "escalate_after_ms": p.escalate_after_ms, "retention_ms": p.retention_ms, "max_call_ms": p.max_call_ms,
                    "approval": p.approval.as_ref().map(|a| json!({
                        "when": a.when.as_deref().map(|w| serde_json::from_str::<Value>(w).unwrap()),
                        "expires_after_ms": a.expires_after_ms,
                    })),
                });
                assert_eq!(&got, want, "{text}");
            }
            (Err(e), None, Some(at)) => assert_eq!(e.at, s(at), "{text}: {}", e.message),
            (got, _, _) => panic!("{text}: got {got:?}"),
        }
    }
    for c in doc["manifests"].as_array().unwrap() {
        let name = s(&c["name"]);
        match (policy::check_manifest(&c["manifest"].to_string()), c.get("error_at")) {
            (Ok(r), None) => {
                let findings: Vec<Value> = r
                    .findings
                    .iter()
                    .map(|f| {
                        json!({
                            "severity": match f.severity { Severity::Error => "error", Severity::Warning => "warning", Severity::Info => "info" },
                            "tool": f.tool, "code": f.code,
                        })
                    })
                    .collect();
                assert_eq!(Value::Array(findings), c["findings"], "{name}: {:#?}", r.findings);
                assert_eq!(r.passed, c["passed"].as_bool().unwrap(), "{name}");
            }
            (Err(e), Some(at)) => assert_eq!(e.at, s(at), "{name}"),
            (got, _) => panic!("{name}: got {got:?}"),
        }
    }
}

fn state_name(s: EntryState) -> &'static str {
    ledger::state_name(s)
}

fn outcome_json(o: &Outcome) -> Value {
    match o {
        Outcome::Execute(t) => json!({"outcome": "execute", "attempt": t.attempt, "owner": t.owner}),
        Outcome::Replay(r) => json!({"outcome": "replay", "result": r.result_json, "attempt": r.attempt}),
        Outcome::InProgress(p) => {
            json!({"outcome": "in-progress", "owner": p.owner, "in_state": state_name(p.state), "retry_after_ms": p.retry_after_ms})
        }
        Outcome::Reconcile(r) => json!({"outcome": "reconcile", "attempt": r.attempt, "escalate_at": r.escalate_at}),
        Outcome::Escalated(e) => json!({"outcome": "escalated", "attempt": e.attempt}),
        Outcome::Conflict(c) => json!({"outcome": "conflict", "pointer": c.pointer}),
        Outcome::PassThrough => json!({"outcome": "pass-through"}),
        Outcome::Recorded(st) => json!({"outcome": "recorded", "state": state_name(*st)}),
        Outcome::Settled(id) => json!({"outcome": "settled", "id": id}),
        Outcome::Purged => json!({"outcome": "purged"}),
        Outcome::Idle(n) => json!({"outcome": "idle", "next": n}),
        Outcome::AwaitingApproval(r) => json!({"outcome": "awaiting-approval", "args": r.args_canonical}),
        Outcome::Denied(d) => json!({"outcome": "denied", "by": d.by, "reason": d.reason}),
    }
}

/// Apply a write to the one-entry store, checking the compare-and-swap discipline.
fn apply(store: &mut Option<Entry>, w: Write) {
    match w {
        Write::Insert(e) => {
            assert!(store.is_none(), "insert over an existing entry");
            assert_eq!(e.version, 1);
            *store = Some(e);
        }
        Write::Update(u) => {
            let cur = store.as_ref().expect("update of a missing entry");
            assert_eq!(cur.version, u.expected_version, "update computed from a stale version");
            assert_eq!(u.entry.version, u.expected_version + 1);
            assert_eq!((&u.entry.key, &u.entry.fingerprint), (&cur.key, &cur.fingerprint), "key and fingerprint are fixed at claim");
            *store = Some(u.entry);
        }
        Write::Delete(d) => {
            let cur = store.as_ref().expect("delete of a missing entry");
            assert_eq!(cur.version, d.expected_version);
            *store = None;
        }
    }
}

#[test]
fn ledger_vectors() {
    let (_, doc) = vectors("ledger.json");
    let scenarios = doc["scenarios"].as_array().unwrap();
    assert!(scenarios.len() >= 15);
    for sc in scenarios {
        let name = s(&sc["name"]);
        let pol = policy_of(&sc["policy"]);
        let base = intent(&sc["intent"]);
        let mut store: Option<Entry> = None;
        for (i, step) in sc["steps"].as_array().unwrap().iter().enumerate() {
            let now = step["now"].as_u64().unwrap();
            let want = &step["expect"];
            let before = store.clone();
            match ledger::handle(store.clone(), event(step, &base, &pol), now) {
                Ok(t) => {
                    assert!(want.get("error").is_none(), "{name} step {i}: expected an error, got {:?}", t.outcome);
                    if let Some(w) = t.write {
                        apply(&mut store, w);
                    }
                    let got = outcome_json(&t.outcome);
                    for (k, v) in got.as_object().unwrap() {
                        if let Some(expected) = want.get(k) {
                            assert_eq!(v, expected, "{name} step {i}: {k} of {got}");
                        }
                    }
                    assert_eq!(got["outcome"], want["outcome"], "{name} step {i}");
                }
                Err(e) => {
                    assert_eq!(want.get("error"), Some(&json!(ledger_error_kind(e.kind))), "{name} step {i}: {}", e.message);
                    assert_eq!(store, before);
                }
            }
            let state = store.as_ref().map_or("absent", |e| state_name(e.state));
            assert_eq!(state, want["state"], "{name} step {i}: state");
            if let (Some(d), Some(e)) = (want.get("decision"), &store) {
                assert_eq!(&common::decision_json(ledger::decision_of(e)), d, "{name} step {i}: decision-of");
            }
            if let Some(v) = want.get("version") {
                assert_eq!(store.as_ref().map(|e| e.version), v.as_u64(), "{name} step {i}: version");
            }
        }
    }
}

fn ledger_error_kind(k: oncely_core::ledger_wit::LedgerErrorKind) -> &'static str {
    use oncely_core::ledger_wit::LedgerErrorKind as K;
    match k {
        K::NotFound => "not-found",
        K::StaleToken => "stale-token",
        K::InvalidState => "invalid-state",
        K::AlreadySettled => "already-settled",
        K::RetentionNotReached => "retention-not-reached",
        K::InvalidRequest => "invalid-request",
        K::Changed => "changed",
    }
}
