//! Property tests of the rules that must always hold.

use oncely_core::keys_wit::{Intent, KeyIdentity, KeySpec};
use oncely_core::ledger::Write;
use oncely_core::ledger_wit::{
    ClaimToken, Completion, Entry, EntryState, Event, Failure, Outcome, ReconcileVerdict, Reconciliation, Resolution, Settlement,
};
use oncely_core::policy_wit::{EffectClass, ReconcilePath};
use oncely_core::{canonical, keys, ledger, policy};
use proptest::prelude::*;
use serde_json::Value;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        // Finite doubles of every magnitude (serde_json prints them; canonicalize reprints).
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-z:,\"\\\\ \u{e9}\u{1f600}\u{2028}\u{0}-\u{1f}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-c\u{e9}\u{1f600}\u{fb33}]{0,3}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// canonicalize(canonicalize(x)) == canonicalize(x), and the canonical text means the same
    /// document.
    #[test]
    fn canonicalize_is_idempotent(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { serde_json::to_string(&v).unwrap() };
        let c = canonical::canonicalize(&text).unwrap();
        prop_assert_eq!(canonical::canonicalize(&c).unwrap(), c.clone());
        let back: Value = serde_json::from_str(&c).unwrap();
        prop_assert_eq!(canonical::canonicalize(&serde_json::to_string(&back).unwrap()).unwrap(), c);
    }

    /// The preimage is injective: the tuple it was made from can be read back from it exactly,
    /// whatever characters the ids hold (':' included).
    #[test]
    fn key_preimage_is_injective(
        scope in "[a-z:,\"\\\\\u{e9}]{1,6}", run in "[a-z:,\"\\\\]{1,6}", step in "[a-z:,\"\\\\]{1,6}",
        tool in "[a-z:_]{1,6}", args in json_value(), identity in 0..3u8,
    ) {
        let identity = [KeyIdentity::Step, KeyIdentity::Run, KeyIdentity::Scope][identity as usize];
        let spec = KeySpec { only: None, ignore: vec![], identity };
        let args_json = serde_json::to_string(&args).unwrap();
        let i = Intent { scope: scope.clone(), run_id: run.clone(), step_id: step.clone(), tool: tool.clone(), args_json: args_json.clone() };
        let d = keys::derive(&i, &spec).unwrap();
        let tuple: Vec<Value> = serde_json::from_str(&d.preimage).unwrap();
        prop_assert_eq!(tuple.len(), 7);
        prop_assert_eq!(&tuple[0], "oncely1");
        prop_assert_eq!(&tuple[1], &Value::String(scope));
        prop_assert_eq!(&tuple[2], &Value::String(tool));
        prop_assert_eq!(&tuple[3], &if identity == KeyIdentity::Scope { Value::Null } else { Value::String(run) });
        prop_assert_eq!(&tuple[4], &if identity == KeyIdentity::Step { Value::String(step) } else { Value::Null });
        prop_assert_eq!(&tuple[5], "args");
        prop_assert_eq!(canonical::canonicalize(&tuple[6].to_string()).unwrap(), canonical::canonicalize(&args_json).unwrap());
        prop_assert!(d.key.len() == 72 && d.key.starts_with("oncely1:"));
        prop_assert_eq!(keys::key(&i, &spec).unwrap(), d.key);
    }

    /// Member names order by UTF-16 code units (RFC 8785 §3.2.3), which the byte comparison in
    /// `cmp_utf16` must reproduce across ASCII, 2- and 3-byte characters, U+E000..=U+FFFF and
    /// supplementary characters.
    #[test]
    fn member_order_is_utf16_order(a in "[a-b\u{7f}-\u{80}\u{e9}\u{d7ff}\u{e000}\u{fb33}\u{ffff}\u{10000}\u{1f600}]{0,4}",
                                   b in "[a-b\u{7f}-\u{80}\u{e9}\u{d7ff}\u{e000}\u{fb33}\u{ffff}\u{10000}\u{1f600}]{0,4}") {
        prop_assert_eq!(oncely_core::json::cmp_utf16(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
    }

    /// Strings of any length (the scanner reads eight bytes at a time) with escapes anywhere
    /// come out exactly as RFC 8785 writes them, which for strings is what serde_json writes.
    #[test]
    fn long_strings_are_escaped_exactly(text in "[a-z \"\\\\\u{0}-\u{1f}\u{7f}\u{e9}\u{2028}\u{1f600}]{0,64}") {
        let lit = serde_json::to_string(&text).unwrap();
        prop_assert_eq!(canonical::canonicalize(&lit).unwrap(), lit.clone());
        let obj = format!("{{{lit}:{lit}}}");
        prop_assert_eq!(canonical::canonicalize(&obj).unwrap(), obj);
        // Escaped in the input (every character as \uXXXX), the same canonical text.
        let escaped: String = text.encode_utf16().map(|u| format!("\\u{u:04x}")).collect();
        prop_assert_eq!(canonical::canonicalize(&format!("\"{escaped}\"")).unwrap(), lit);
    }

    /// Objects of any size (insertion sort up to 16 members, merge sort above) come out with
    /// their members in UTF-16 order.
    #[test]
    fn objects_of_any_size_are_sorted(names in prop::collection::btree_set("[a-c\u{e9}\u{fb33}\u{1f600}]{0,4}", 0..80), seed in any::<u64>()) {
        let mut names: Vec<String> = names.into_iter().collect();
        // A document order that is neither sorted nor reversed.
        let n = names.len().max(1);
        names.rotate_left((seed as usize) % n);
        let text = format!("{{{}}}", names.iter().enumerate().map(|(i, k)| format!("{}:{i}", serde_json::to_string(k).unwrap())).collect::<Vec<_>>().join(","));
        let c = canonical::canonicalize(&text).unwrap();
        let back: serde_json::Map<String, Value> = serde_json::from_str(&c).unwrap();
        let got: Vec<&String> = back.keys().collect();
        let mut want: Vec<&String> = names.iter().collect();
        want.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        prop_assert_eq!(got, want);
    }

    /// Two intents share a key exactly when their preimages are equal.
    #[test]
    fn distinct_ids_never_share_a_key(a in "[a-z:]{0,4}", b in "[a-z:]{0,4}", c in "[a-z:]{0,4}", d in "[a-z:]{0,4}") {
        let spec = keys::default_spec();
        let mk = |run: &str, step: &str| Intent { scope: "s".into(), run_id: format!("r{run}"), step_id: format!("s{step}"), tool: "t".into(), args_json: "{}".into() };
        let k1 = keys::derive(&mk(&a, &b), &spec).unwrap().key;
        let k2 = keys::derive(&mk(&c, &d), &spec).unwrap().key;
        prop_assert_eq!(k1 == k2, (a, b) == (c, d));
    }
}

/// A random event, with tokens that are sometimes current and sometimes stale or foreign.
#[derive(Debug, Clone)]
enum Ev {
    Begin(u8),
    Heartbeat(u8, u8),
    Complete(u8, u8),
    FailDefinite(u8, u8),
    FailAmbiguous(u8, u8),
    Sweep,
    Reconciled(u8, u8),
    Resolve(bool),
    Purge,
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        (0..3u8).prop_map(Ev::Begin),
        (0..3u8, 0..3u8).prop_map(|(a, o)| Ev::Heartbeat(a, o)),
        (0..3u8, 0..3u8).prop_map(|(a, o)| Ev::Complete(a, o)),
        (0..3u8, 0..3u8).prop_map(|(a, o)| Ev::FailDefinite(a, o)),
        (0..3u8, 0..3u8).prop_map(|(a, o)| Ev::FailAmbiguous(a, o)),
        Just(Ev::Sweep),
        (0..3u8, 0..3u8).prop_map(|(a, v)| Ev::Reconciled(a, v)),
        any::<bool>().prop_map(Ev::Resolve),
        Just(Ev::Purge),
    ]
}

fn owner(o: u8) -> String {
    format!("w{o}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Over any sequence of events and times:
    /// - `execute` is granted only when there is no entry or the entry is `failed`;
    /// - an entry leaves `in-doubt`/`escalated` for `failed` only by a reconciler's or a human's
    ///   "did not happen", or by the attempt's own definite failure (its token);
    /// - complete / fail / heartbeat with a token that is not the current claim are refused
    ///   with `stale-token` and write nothing;
    /// - every update carries the version it was computed from; key and fingerprint never change;
    /// - time alone (sweep, begin) never makes a pending or in-doubt entry executable.
    #[test]
    fn ledger_never_re_executes_an_unknown_effect(
        events in prop::collection::vec((ev(), 0..2500u64), 1..40),
        reconcile in 0..3u8,
    ) {
        let mut pol = policy::default_policy(EffectClass::IrreversibleExternal);
        pol.lease_ms = 1000;
        pol.reconcile_after_ms = 300;
        pol.escalate_after_ms = 5000;
        pol.retention_ms = 4000;
        pol.reconcile = [ReconcilePath::ProviderIdempotent, ReconcilePath::Lookup("get".into()), ReconcilePath::Manual][reconcile as usize].clone();
        let intent = Intent { scope: "acme".into(), run_id: "r".into(), step_id: "s".into(), tool: "refund".into(), args_json: "{\"charge\":\"ch_1\"}".into() };
        let mut store: Option<Entry> = None;
        let mut now = 0u64;
        for (e, dt) in events {
            now += dt;
            let token = |a: u8, o: u8, store: &Option<Entry>| ClaimToken {
                // attempt 0 means "the current attempt", others are as given.
                attempt: if a == 0 { store.as_ref().map_or(1, |e| e.attempt) } else { u32::from(a) },
                owner: owner(o),
            };
            let event = match &e {
                Ev::Begin(o) => Event::Begin(ledger::prepare(&intent, &pol, &owner(*o)).unwrap()),
                Ev::Heartbeat(a, o) => Event::Heartbeat(token(*a, *o, &store)),
                Ev::Complete(a, o) => Event::Complete(Completion { token: token(*a, *o, &store), result_json: "{\"ok\":1}".into() }),
                Ev::FailDefinite(a, o) => Event::FailDefinite(Failure { token: token(*a, *o, &store), reason: "declined".into() }),
                Ev::FailAmbiguous(a, o) => Event::FailAmbiguous(Failure { token: token(*a, *o, &store), reason: "timeout".into() }),
                Ev::Sweep => Event::Sweep,
                Ev::Reconciled(a, v) => Event::Reconciled(Reconciliation {
                    attempt: token(*a, 0, &store).attempt,
                    verdict: match v { 0 => ReconcileVerdict::Happened("{\"ok\":1}".into()), 1 => ReconcileVerdict::NotHappened, _ => ReconcileVerdict::Unknown("503".into()) },
                }),
                Ev::Resolve(happened) => Event::Resolve(Resolution {
                    settlement: if *happened { Settlement::Happened("{\"ok\":1}".into()) } else { Settlement::NotHappened },
                    by: "ops".into(), note: String::new(), seen_version: store.as_ref().map_or(0, |e| e.version),
                }),
                Ev::Purge => Event::Purge,
            };
            let token_of_event = match &event {
                Event::Heartbeat(t) => Some(t.clone()),
                Event::Complete(c) => Some(c.token.clone()),
                Event::FailDefinite(f) | Event::FailAmbiguous(f) => Some(f.token.clone()),
                _ => None,
            };
            let before = store.clone();
            let result = ledger::handle(store.clone(), event.clone(), now);
            if let (Some(t), Some(cur)) = (&token_of_event, &before) {
                if t.attempt != cur.attempt || t.owner != cur.owner {
                    let err = result.as_ref().err().map(|e| e.kind);
                    prop_assert_eq!(err, Some(oncely_core::ledger_wit::LedgerErrorKind::StaleToken), "{:?} on {:?}", e, cur.state);
                    continue;
                }
            }
            let Ok(t) = result else { continue };
            if let Outcome::Execute(_) = &t.outcome {
                prop_assert!(
                    before.as_ref().is_none_or(|b| b.state == EntryState::Failed),
                    "execute granted from {:?} by {:?}", before.as_ref().map(|b| b.state), e
                );
                prop_assert!(matches!(e, Ev::Begin(_)));
            }
            if let Some(w) = t.write {
                match w {
                    Write::Insert(n) => {
                        prop_assert!(before.is_none());
                        store = Some(n);
                    }
                    Write::Update(u) => {
                        let b = before.as_ref().unwrap();
                        prop_assert_eq!(u.expected_version, b.version);
                        prop_assert_eq!(u.entry.version, b.version + 1);
                        prop_assert_eq!(&u.entry.key, &b.key);
                        prop_assert_eq!(&u.entry.fingerprint, &b.fingerprint);
                        if matches!(b.state, EntryState::InDoubt | EntryState::Escalated) && u.entry.state == EntryState::Failed {
                            let legit = matches!(
                                &event,
                                Event::Reconciled(Reconciliation { verdict: ReconcileVerdict::NotHappened, .. })
                                    | Event::Resolve(Resolution { settlement: Settlement::NotHappened, .. })
                                    | Event::FailDefinite(_)
                            );
                            prop_assert!(legit, "left {:?} for failed by {:?}", b.state, e);
                        }
                        if b.state == EntryState::Pending && u.entry.state == EntryState::Failed {
                            prop_assert!(matches!(event, Event::FailDefinite(_)), "pending became failed by {:?}", e);
                        }
                        if b.state == EntryState::Done {
                            prop_assert!(false, "done was rewritten by {:?}", e);
                        }
                        store = Some(u.entry);
                    }
                    Write::Delete(d) => {
                        let b = before.as_ref().unwrap();
                        prop_assert_eq!(d.expected_version, b.version);
                        prop_assert!(matches!(b.state, EntryState::Done | EntryState::Failed));
                        prop_assert!(now >= b.updated_at + b.retention_ms);
                        store = None;
                    }
                }
            }
        }
    }
}
