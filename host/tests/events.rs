//! The ledger's decisions as events: every kind reaches a hook and `tracing`, from real effects
//! over a real store (SQLite).

use oncely_test_support as common;

use oncely::events::{EventKind, LedgerEvent};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Decision, Resolution, Settlement};
use oncely::{Error, Ledger, Runtime, ToolError};
use std::sync::{Arc, Mutex};

/// A `tracing` subscriber that keeps the `event` field of every event with target `oncely`.
#[derive(Default, Clone)]
struct Kept(Arc<Mutex<Vec<(tracing::Level, String)>>>);

struct EventField<'a>(&'a mut Option<String>);

impl tracing::field::Visit for EventField<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "event" {
            *self.0 = Some(value.to_string());
        }
    }
    fn record_debug(&mut self, _field: &tracing::field::Field, _value: &dyn std::fmt::Debug) {}
}

impl tracing::Subscriber for Kept {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, e: &tracing::Event<'_>) {
        if e.metadata().target() == "oncely" {
            let mut kind = None;
            e.record(&mut EventField(&mut kind));
            self.0.lock().unwrap().push((*e.metadata().level(), kind.unwrap_or_default()));
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test(flavor = "current_thread")]
async fn every_decision_reaches_the_hook_and_tracing() {
    let kept = Kept::default();
    let _guard = tracing::subscriber::set_default(kept.clone());
    let rt = Runtime::shared().unwrap();
    let (_dir, path) = common::sqlite_path();
    let ledger = Ledger::open(&path).await.unwrap().with_owner("w1");
    let seen: Arc<Mutex<Vec<LedgerEvent>>> = Arc::default();
    let hooked = seen.clone();
    ledger.on_event(move |e| hooked.lock().unwrap().push(e.clone()));

    let pay = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"}}"#).unwrap();
    let manual = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual","escalateAfterMs":0}"#).unwrap();
    let intent = |tool: &str, args: &str| Intent {
        scope: "acme".into(),
        run_id: "r".into(),
        step_id: "s".into(),
        tool: tool.into(),
        args_json: args.into(),
    };
    let ok = |_key: String| async { Ok::<_, ToolError>(serde_json::json!({"ok": true})) };
    // Fresh (claimed, executed), repeated (replayed), the same key with other arguments (conflict).
    ledger.effect(&intent("pay", r#"{"n":1}"#), &pay).run(ok).await.unwrap();
    ledger.effect(&intent("pay", r#"{"n":1}"#), &pay).run(ok).await.unwrap();
    let keyed_by_run =
        rt.parse_policy(r#"{"class":"irreversible-external","key":{"only":["/order"]},"reconcile":{"lookup":"find"}}"#).unwrap();
    ledger.effect(&intent("ship", r#"{"order":1,"to":"a"}"#), &keyed_by_run).run(ok).await.unwrap();
    let e = ledger.effect(&intent("ship", r#"{"order":1,"to":"b"}"#), &keyed_by_run).run(ok).await.unwrap_err();
    assert!(matches!(e, Error::Conflict { .. }), "{e}");
    // A timeout with no way to reconcile: in doubt, escalated at once; a person settles it.
    let timeout = |_key: String| async { Err::<serde_json::Value, _>(ToolError::ambiguous("timed out")) };
    let e = ledger.effect(&intent("email", "{}"), &manual).run(timeout).await.unwrap_err();
    assert!(matches!(e, Error::Escalated { .. } | Error::InDoubt { .. }), "{e}");
    ledger.sweep(None).await.unwrap();
    let esc = ledger.list(None, &Default::default()).await.unwrap().into_iter().find(|e| e.tool == "email").unwrap();
    let resolution = Resolution { settlement: Settlement::NotHappened, by: "ops".into(), note: String::new(), seen_version: esc.version };
    let id = ledger.resolve("acme", &esc.key, resolution).await.unwrap();
    // An unknown outcome a reconciler settles.
    ledger.reconciler("refund", |_q| async { oncely::wit::ledger::ReconcileVerdict::Happened(r#"{"refund":"re_1"}"#.into()) });
    let refund = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"},"maxCallMs":1}"#).unwrap();
    let got = ledger.effect(&intent("refund", "{}"), &refund).run(timeout).await;
    assert!(got.as_ref().is_ok_and(|r| r.reconciled), "{got:?}");
    // A call a person must approve first (awaiting-approval), approves (approved), and that then
    // runs (claimed, executed); and one a person denies (denied).
    let approval =
        rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"},"approval":"always"}"#).unwrap();
    let Err(Error::AwaitingApproval(asked)) = ledger.effect(&intent("transfer", r#"{"n":5}"#), &approval).run(ok).await else {
        panic!("a call that needs approval first")
    };
    let decision = |version| Decision { by: "ops".into(), note: "no".into(), seen_version: version };
    let approved = ledger.approve("acme", &asked.key, decision(asked.version)).await.unwrap();
    ledger.effect(&intent("transfer", r#"{"n":5}"#), &approval).run(ok).await.unwrap();
    let Err(Error::AwaitingApproval(gift)) = ledger.effect(&intent("gift", "{}"), &approval).run(ok).await else {
        panic!("a call that needs approval first")
    };
    ledger.deny("acme", &gift.key, decision(gift.version)).await.unwrap();
    let e = ledger.effect(&intent("gift", "{}"), &approval).run(ok).await.unwrap_err();
    assert!(matches!(e, Error::Denied(_)), "{e}");

    let events = seen.lock().unwrap().clone();
    let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
    for kind in EventKind::ALL {
        assert!(kinds.contains(&kind), "no {kind:?} among {kinds:?}");
    }
    let resolved = events.iter().find(|e| e.kind == EventKind::Resolved).unwrap();
    assert!(resolved.detail.starts_with(&id), "{resolved:?}");
    assert_eq!(kinds.iter().filter(|k| **k == EventKind::Executed).count(), 3, "{kinds:?}");
    let approved_event = events.iter().find(|e| e.kind == EventKind::Approved).unwrap();
    assert_eq!(approved_event.detail, format!("{approved} by ops"), "{approved_event:?}");
    let asked_event = events.iter().find(|e| e.kind == EventKind::AwaitingApproval).unwrap();
    assert_eq!(asked_event.detail, r#"{"n":5}"#, "{asked_event:?}");
    assert_eq!(kinds.iter().filter(|k| **k == EventKind::Replayed).count(), 1, "{kinds:?}");
    let conflict = events.iter().find(|e| e.kind == EventKind::Conflict).unwrap();
    assert_eq!((conflict.scope.as_str(), conflict.tool.as_str()), ("acme", "ship"), "{conflict:?}");

    // The same decisions, in the same order, went to tracing; doubt, conflicts, escalations and
    // calls awaiting approval as warnings.
    let traced = kept.0.lock().unwrap().clone();
    let names: Vec<&str> = traced.iter().map(|(_, k)| k.as_str()).collect();
    assert_eq!(names, kinds.iter().map(|k| k.name()).collect::<Vec<_>>());
    for (level, kind) in &traced {
        let warn = matches!(kind.as_str(), "conflict" | "in-doubt" | "escalated" | "awaiting-approval");
        assert_eq!(*level == tracing::Level::WARN, warn, "{kind} at {level}");
    }
}
