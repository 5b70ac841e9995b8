//! Every golden vector in `tests/vectors/`, and the shared RFC 8785 data, replayed through the
//! component in wasmtime: the host must see exactly what the native tests of the core see.

use oncely_test_support as common;

use common::{event, jcs_vectors, vectors};
use oncely::wit::keys::{Intent, KeySpec};
use oncely::wit::ledger::{Entry, Outcome};
use oncely::wit::policy::ToolPolicy;
use oncely::{store::state_name, Error, Runtime};
use serde_json::{json, Value};

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}")).to_string()
}

fn intent(v: &Value) -> Intent {
    Intent { scope: s(&v["scope"]), run_id: s(&v["run"]), step_id: s(&v["step"]), tool: s(&v["tool"]), args_json: s(&v["args"]) }
}

fn rt() -> Runtime {
    Runtime::shared().unwrap()
}

fn policy(v: &Value) -> ToolPolicy {
    rt().parse_policy(&v.to_string()).unwrap()
}

fn spec(p: &ToolPolicy) -> KeySpec {
    p.key.clone().unwrap_or_else(|| rt().default_spec().unwrap())
}

/// The kind names the vectors use are the WIT case names; the bindings' Debug shows the Rust
/// variant names, so map by turning `CamelCase` into `kebab-case`.
fn kebab(debug: &str) -> String {
    let word = debug.split(['(', ' ', '{']).next().unwrap();
    let word = word.rsplit("::").next().unwrap();
    let mut out = String::new();
    for (i, c) in word.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[test]
fn canonical_vectors_through_the_component() {
    for c in vectors("canonical.json")["cases"].as_array().unwrap() {
        let name = s(&c["name"]);
        let got = match c.get("input_hex") {
            Some(h) => {
                let h = h.as_str().unwrap();
                let bytes: Vec<u8> = (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect();
                rt().canonicalize_bytes(&bytes)
            }
            None => rt().canonicalize(c["input"].as_str().unwrap()),
        };
        match (got, c.get("output")) {
            (Ok(out), Some(want)) => assert_eq!(out, s(want), "{name}"),
            (Err(Error::Canon(e)), None) => {
                let want = &c["error"];
                assert_eq!(kebab(&format!("{:?}", e.kind)), s(&want["kind"]), "{name}");
                assert_eq!(e.offset, want["offset"].as_u64().unwrap(), "{name}");
                if let Some(line) = want.get("line") {
                    assert_eq!(
                        (u64::from(e.line), u64::from(e.column)),
                        (line.as_u64().unwrap(), want["column"].as_u64().unwrap()),
                        "{name}"
                    );
                }
            }
            (got, _) => panic!("{name}: {got:?}"),
        }
    }
}

#[test]
fn shared_jcs_vectors_through_the_component() {
    let dir = jcs_vectors();
    let mut n = 0;
    for e in std::fs::read_dir(dir.join("input")).unwrap() {
        let name = e.unwrap().file_name();
        let input = std::fs::read(dir.join("input").join(&name)).unwrap();
        let want = std::fs::read(dir.join("output").join(&name)).unwrap();
        assert_eq!(rt().canonicalize_bytes(&input).unwrap().as_bytes(), &want[..], "{name:?}");
        n += 1;
    }
    assert!(n >= 6);
    let text = std::fs::read_to_string(dir.join("es6-numbers-100k.txt")).unwrap();
    let mut lines = 0;
    for line in text.lines() {
        let (hex, want) = line.split_once(',').unwrap();
        // Feed the double as JSON through the component: its shortest round-trip text from
        // Rust's formatter (a different printer), which must come back in ECMAScript form.
        let v = f64::from_bits(u64::from_str_radix(hex, 16).unwrap());
        assert_eq!(rt().canonicalize(&format!("{v:e}")).unwrap(), want, "{hex}");
        lines += 1;
    }
    assert_eq!(lines, 100_000);
}

#[test]
fn key_vectors_through_the_component() {
    for c in vectors("keys.json")["cases"].as_array().unwrap() {
        let name = s(&c["name"]);
        let p = policy(&c["policy"]);
        let derived = rt().derive(&intent(&c["intent"]), &spec(&p));
        // `key` gives derive's key, or the very same error.
        match (&derived, rt().key(&intent(&c["intent"]), &spec(&p))) {
            (Ok(d), Ok(k)) => assert_eq!(k, d.key, "{name}: key"),
            (Err(Error::Key(a)), Err(Error::Key(b))) => assert_eq!(a, &b, "{name}: key"),
            (d, k) => panic!("{name}: derive {d:?} but key {k:?}"),
        }
        match (derived, c.get("error")) {
            (Ok(d), None) => {
                assert_eq!(
                    (&d.key, &d.preimage, &d.fingerprint, &d.args_canonical),
                    (&s(&c["key"]), &s(&c["preimage"]), &s(&c["fingerprint"]), &s(&c["args_canonical"])),
                    "{name}"
                );
            }
            (Err(Error::Key(e)), Some(want)) => {
                assert_eq!(kebab(&format!("{:?}", e.kind)), s(&want["kind"]), "{name}");
                if let Some(at) = want.get("at") {
                    assert_eq!(e.at.as_deref(), at.as_str(), "{name}");
                }
                if let Some(kind) = want.get("canon") {
                    let canon = e.canon.as_ref().unwrap();
                    assert_eq!(kebab(&format!("{:?}", canon.kind)), s(kind), "{name}");
                    assert_eq!(canon.offset, want["offset"].as_u64().unwrap(), "{name}");
                }
            }
            (got, _) => panic!("{name}: {got:?}"),
        }
    }
    // derive-many gives the same answers in one call.
    let cases = vectors("keys.json");
    let ok: Vec<&Value> =
        cases["cases"].as_array().unwrap().iter().filter(|c| c.get("key").is_some() && c["policy"]["key"] == json!({})).collect();
    let intents: Vec<Intent> = ok.iter().map(|c| intent(&c["intent"])).collect();
    let many = rt().derive_many(&intents, &rt().default_spec().unwrap()).unwrap();
    for (c, r) in ok.iter().zip(many) {
        assert_eq!(r.unwrap().key, s(&c["key"]));
    }
}

#[test]
fn explain_vectors_through_the_component() {
    for c in vectors("explain.json")["cases"].as_array().unwrap() {
        let name = s(&c["name"]);
        let e = rt().explain(&intent(&c["a"]), &intent(&c["b"]), &spec(&policy(&c["policy"]))).unwrap();
        assert_eq!(kebab(&format!("{:?}", e.verdict)), s(&c["verdict"]), "{name}");
        let diffs: Vec<Value> = e
            .differences
            .iter()
            .map(|d| {
                let effect = match kebab(&format!("{:?}", d.effect)).as_str() {
                    "key" => "key",
                    "fingerprint" => "fingerprint",
                    _ => "none",
                };
                json!({"part": kebab(&format!("{:?}", d.part)), "pointer": d.pointer, "a": d.a, "b": d.b, "effect": effect})
            })
            .collect();
        assert_eq!(Value::Array(diffs), c["differences"], "{name}");
    }
}

#[test]
fn policy_vectors_through_the_component() {
    let doc = vectors("policy.json");
    for c in doc["resolve"].as_array().unwrap() {
        match (rt().resolve_tool(&c["tool"].to_string()), c.get("error_at")) {
            (Ok(r), None) => {
                assert_eq!(kebab(&format!("{:?}", r.policy.class)), s(&c["class"]), "{}", c["tool"]);
                assert_eq!(kebab(&format!("{:?}", r.class_source)), s(&c["class_source"]), "{}", c["tool"]);
            }
            (Err(Error::Policy(e)), Some(at)) => assert_eq!(e.at, s(at), "{}", c["tool"]),
            (got, _) => panic!("{}: {got:?}", c["tool"]),
        }
    }
    for c in doc["policies"].as_array().unwrap() {
        let text = c.get("policy_text").map(s).unwrap_or_else(|| c["policy"].to_string());
        match (rt().parse_policy(&text), c.get("error_at")) {
            (Ok(p), None) => {
                let want = &c["expect"];
                assert_eq!(kebab(&format!("{:?}", p.class)), s(&want["class"]), "{text}");
                assert_eq!(p.lease_ms, want["lease_ms"].as_u64().unwrap(), "{text}");
                assert_eq!(p.retention_ms, want["retention_ms"].as_u64().unwrap(), "{text}");
                assert_eq!(p.key.is_some(), !want["key"].is_null(), "{text}");
                let approval = p.approval.as_ref().map(|a| {
                    json!({
                        "when": a.when.as_deref().map(|w| serde_json::from_str::<Value>(w).unwrap()),
                        "expires_after_ms": a.expires_after_ms,
                    })
                });
                assert_eq!(approval.unwrap_or(Value::Null), want["approval"], "{text}");
            }
            (Err(Error::Policy(e)), Some(at)) => assert_eq!(e.at, s(at), "{text}"),
            (got, _) => panic!("{text}: {got:?}"),
        }
    }
    for c in doc["manifests"].as_array().unwrap() {
        let name = s(&c["name"]);
        match (rt().check_manifest(&c["manifest"].to_string()), c.get("error_at")) {
            (Ok(r), None) => {
                let got: Vec<Value> = r
                    .findings
                    .iter()
                    .map(|f| json!({"severity": kebab(&format!("{:?}", f.severity)), "tool": f.tool, "code": f.code}))
                    .collect();
                assert_eq!(Value::Array(got), c["findings"], "{name}");
                assert_eq!(r.passed, c["passed"].as_bool().unwrap(), "{name}");
            }
            (Err(Error::Policy(e)), Some(at)) => assert_eq!(e.at, s(at), "{name}"),
            (got, _) => panic!("{name}: {got:?}"),
        }
    }
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

/// Check a step's expectation against an outcome (or a ledger error kind).
pub fn check_step(name: &str, i: usize, want: &Value, got: Result<&Outcome, String>) {
    match got {
        Ok(o) => {
            assert!(want.get("error").is_none(), "{name} step {i}: expected an error, got {o:?}");
            let got = outcome_json(o);
            assert_eq!(got["outcome"], want["outcome"], "{name} step {i}");
            for (k, v) in got.as_object().unwrap() {
                if let Some(expected) = want.get(k) {
                    assert_eq!(v, expected, "{name} step {i}: {k}");
                }
            }
        }
        Err(kind) => assert_eq!(want.get("error").and_then(Value::as_str), Some(kind.as_str()), "{name} step {i}"),
    }
}

/// ledger.json through the component, as hosts apply events: the event machine
/// (`effect.run` with `start(event)`) over a real store, every outcome field checked.
#[tokio::test(flavor = "multi_thread")]
async fn ledger_vectors_through_the_component() {
    let rt = rt();
    let (_dir, path) = common::sqlite_path();
    let store = oncely::store::AnyStore::Sqlite(oncely::store::SqliteStore::open(&path).await.unwrap());
    for (n, sc) in vectors("ledger.json")["scenarios"].as_array().unwrap().iter().enumerate() {
        let name = s(&sc["name"]);
        let pol = policy(&sc["policy"]);
        let mut base = intent(&sc["intent"]);
        // Each scenario starts from no entry: its own scope.
        base.scope = format!("{}-{n}", base.scope);
        let key = rt.prepare(&base, &pol, "probe").unwrap().key;
        let clock = common::TestClock::default();
        let ledger = oncely::Ledger::with_store(rt.clone(), store.clone()).with_clock(clock.clock());
        for (i, step) in sc["steps"].as_array().unwrap().iter().enumerate() {
            let want = &step["expect"];
            clock.set(step["now"].as_u64().unwrap());
            let mut ev = event(&rt, step, &base, &pol);
            if let oncely::wit::ledger::Event::Begin(c) | oncely::wit::ledger::Event::Ask(c) = &mut ev {
                c.scope = base.scope.clone();
            }
            // The scope is this run's own, so a settlement's id (derived from scope, key and
            // version) is not the vector's: it must be the one the entry keeps.
            let mut want = want.clone();
            let vector_id = want.as_object_mut().and_then(|w| w.remove("id"));
            match ledger.drive(&base.scope, &key, &ev).await {
                Ok(outcome) => {
                    check_step(&name, i, &want, Ok(&outcome));
                    if let (Some(_), oncely::wit::ledger::Outcome::Settled(id)) = (&vector_id, &outcome) {
                        let kept = ledger.get(&base.scope, &key).await.unwrap().and_then(|e| e.settlement);
                        assert_eq!(kept.as_deref(), Some(id.as_str()), "{name} step {i}");
                        assert!(id.starts_with("stl-") && id.len() == 20, "{name} step {i}: {id}");
                    }
                }
                Err(Error::Ledger(e)) => check_step(&name, i, &want, Err(kebab(&format!("{:?}", e.kind)))),
                Err(e) => panic!("{name} step {i}: {e}"),
            }
            let row: Option<Entry> = ledger.get(&base.scope, &key).await.unwrap();
            assert_eq!(row.as_ref().map_or("absent", |e| state_name(e.state)), s(&want["state"]), "{name} step {i}");
            if let Some(v) = want.get("version") {
                assert_eq!(row.as_ref().map(|e| e.version), v.as_u64(), "{name} step {i}");
            }
            if let (Some(d), Some(e)) = (want.get("decision"), &row) {
                assert_eq!(&common::decision_json(rt.decision_of(e).unwrap()), d, "{name} step {i}: decision-of");
            }
        }
    }
}

#[test]
fn hostile_input_fails_one_call_and_the_runtime_lives_on() {
    let rt = Runtime::new().unwrap();
    // Over the input limit: a typed error.
    let big = format!("[{}1]", "1,".repeat(9_000_000));
    assert!(matches!(rt.canonicalize(&big), Err(Error::Canon(ref e)) if format!("{:?}", e.kind).contains("TooLarge")));
    // Deeper than the limit: a typed error, no stack overflow.
    let deep = "[".repeat(5_000_000);
    assert!(matches!(rt.canonicalize(&deep), Err(Error::Canon(_))));
    // Within the input limit but past the instance's memory limit (8 million array elements
    // need more than 256 MiB of parse tree): that call fails with a trap, nothing else does.
    let wide = format!("[{}1]", "1,".repeat(8_300_000));
    assert!(wide.len() < 16 << 20);
    match rt.canonicalize(&wide) {
        Err(Error::Trap(_)) => {}
        other => panic!("expected the memory limit to stop this call, got {:?}", other.map(|s| s.len())),
    }
    assert_eq!(rt.canonicalize("[1, 2]").unwrap(), "[1,2]");
}

/// `tests/vectors/adapters.json` (the cases are the native replay's,
/// guest/tests/common/agent_cases.rs): an agent call's identity and the model's answers.
mod agent {
    use super::rt;
    use oncely::wit::agent::{CallContext, Failure, Identity, IdentityError, IdentityErrorKind, Origin, Reply, ReplyCode};
    use oncely::wit::canonical::{CanonError, CanonErrorKind};
    use oncely::wit::effect::{Busy, Doubt, EffectError, Keyed};
    use oncely::wit::keys::{Intent, KeyError, KeyErrorKind, KeyIdentity, KeySpec};
    use oncely::wit::ledger::{Conflict, LedgerError, LedgerErrorKind};
    use oncely::wit::policy::EffectClass;
    use oncely::Error;
    use serde_json::{json, Value};

    fn identify(call: &CallContext) -> Result<Identity, IdentityError> {
        rt().identify(call).unwrap()
    }

    fn answer(failure: &Failure) -> Option<Reply> {
        rt().answer(failure).unwrap()
    }

    fn derive_key(intent: &Intent, spec: &KeySpec) -> Result<String, KeyError> {
        rt().key(intent, spec).map_err(|e| match e {
            Error::Key(k) => k,
            other => panic!("{other}"),
        })
    }

    include!("../../guest/tests/common/agent_cases.rs");

    #[test]
    fn agent_vectors_through_the_component() {
        replay_agent_vectors(false);
    }

    /// `Runtime::answer_error` reads the host's errors as the core's failures.
    #[test]
    fn the_hosts_errors_are_answered_as_the_cores() {
        let key = "oncely1:00".to_string();
        let same = |e: Error, f: Failure| assert_eq!(rt().answer_error(&e).unwrap(), answer(&f), "{e}");
        let conflict =
            Conflict { key: key.clone(), pointer: "/amount".into(), stored_fingerprint: "a".into(), given_fingerprint: "b".into() };
        same(Error::Conflict(conflict.clone()), Failure::Effect(EffectError::Conflict(conflict.clone())));
        // The core's record is kept whole: what the core raised is what the host's error gives back.
        assert_eq!(Error::from_effect(EffectError::Conflict(conflict.clone()), None).effect_error(), Some(EffectError::Conflict(conflict)));
        let doubt = Doubt { key: key.clone(), reason: "timed out".into(), retry_after_ms: Some(10_000) };
        same(Error::InDoubt(doubt.clone()), Failure::Effect(EffectError::InDoubt(doubt)));
        same(Error::Contention(3), Failure::Effect(EffectError::Contention(3)));
        let unkeyable = KeyError { kind: KeyErrorKind::MissingMember, at: Some("/id".into()), canon: None, message: "no /id".into() };
        same(Error::Key(unkeyable.clone()), Failure::Key(unkeyable));
        assert_eq!(rt().answer_error(&Error::ToolFailed("declined".into())).unwrap().unwrap().code, ReplyCode::ToolFailed);
        let ledger = LedgerError { kind: LedgerErrorKind::InvalidRequest, state: None, message: "x".into() };
        assert_eq!(rt().answer_error(&Error::Ledger(ledger)).unwrap(), None);
        let bad_spec = KeyError { kind: KeyErrorKind::InvalidPointer, at: Some("x".into()), canon: None, message: "x".into() };
        assert_eq!(rt().answer_error(&Error::Key(bad_spec)).unwrap(), None);
    }
}
