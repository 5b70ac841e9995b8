//! Each ledger rule of the core issue, pinned by a named test. The golden scenarios in
//! `tests/vectors/ledger.json` and the property test in `properties.rs` cover the same rules
//! over sequences; these tests name them one by one.

use oncely_core::keys_wit::Intent;
use oncely_core::ledger::{Transition, Write};
use oncely_core::ledger_wit::{ClaimToken, Completion, Entry, EntryState, Event, Failure, LedgerErrorKind, Outcome};
use oncely_core::policy_wit::{EffectClass, ReconcilePath, ToolPolicy};
use oncely_core::{ledger, policy};

fn pol() -> ToolPolicy {
    let mut p = policy::default_policy(EffectClass::IrreversibleExternal);
    p.reconcile = ReconcilePath::ProviderIdempotent;
    p.lease_ms = 1_000;
    p
}

fn intent(args: &str) -> Intent {
    Intent { scope: "acme".into(), run_id: "r1".into(), step_id: "s1".into(), tool: "refund".into(), args_json: args.into() }
}

fn begin(cur: Option<Entry>, owner: &str, now: u64) -> Transition {
    ledger::handle(cur, Event::Begin(ledger::prepare(&intent("{\"charge\":\"ch_1\"}"), &pol(), owner).unwrap()), now).unwrap()
}

fn written(t: &Transition) -> Entry {
    match t.write.clone().expect("a write") {
        Write::Insert(e) => e,
        Write::Update(u) => u.entry,
        Write::Delete(_) => panic!("delete"),
    }
}

fn claimed() -> (Entry, ClaimToken) {
    let t = begin(None, "w1", 0);
    let Outcome::Execute(tok) = t.outcome.clone() else { panic!("{:?}", t.outcome) };
    (written(&t), tok)
}

#[test]
fn a_claim_is_an_insert_if_absent() {
    let t = begin(None, "w1", 0);
    assert!(matches!(t.write, Some(Write::Insert(_))));
    let (e, _) = claimed();
    // Whatever the state, a second begin never asks for an insert.
    for later in [10, 5_000, 1_000_000] {
        assert!(!matches!(begin(Some(e.clone()), "w2", later).write, Some(Write::Insert(_))));
    }
}

#[test]
fn every_later_write_carries_the_expected_version() {
    let (e, tok) = claimed();
    let t = ledger::handle(Some(e.clone()), Event::Complete(Completion { token: tok, result_json: "{}".into() }), 5).unwrap();
    let Some(Write::Update(u)) = t.write else { panic!() };
    assert_eq!((u.expected_version, u.entry.version), (e.version, e.version + 1));
}

#[test]
fn completion_by_a_stale_token_is_refused() {
    let (e, tok) = claimed();
    for stale in [ClaimToken { attempt: 2, owner: "w1".into() }, ClaimToken { attempt: 1, owner: "w2".into() }] {
        let err = ledger::handle(Some(e.clone()), Event::Complete(Completion { token: stale, result_json: "{}".into() }), 5).unwrap_err();
        assert_eq!(err.kind, LedgerErrorKind::StaleToken);
    }
    assert!(ledger::handle(Some(e), Event::Complete(Completion { token: tok, result_json: "{}".into() }), 5).is_ok());
}

#[test]
fn pending_is_never_made_retryable_by_time_alone() {
    let (e, _) = claimed();
    for now in [1_000, 10_000, u64::MAX / 2] {
        for t in [begin(Some(e.clone()), "w2", now), ledger::handle(Some(e.clone()), Event::Sweep, now).unwrap()] {
            assert!(!matches!(t.outcome, Outcome::Execute(_)), "{now}: {:?}", t.outcome);
            let next = written(&t);
            assert!(matches!(next.state, EntryState::InDoubt | EntryState::Escalated), "{now}: {:?}", next.state);
        }
    }
}

#[test]
fn an_expired_lease_leads_to_reconciliation_then_escalation() {
    let (e, _) = claimed();
    let t = ledger::handle(Some(e), Event::Sweep, 1_000).unwrap();
    let Outcome::Reconcile(r) = &t.outcome else { panic!("{:?}", t.outcome) };
    let doubt = written(&t);
    assert_eq!(doubt.state, EntryState::InDoubt);
    let t = ledger::handle(Some(doubt), Event::Sweep, r.escalate_at).unwrap();
    assert!(matches!(t.outcome, Outcome::Escalated(_)));
    assert_eq!(written(&t).state, EntryState::Escalated);
}

#[test]
fn a_definite_failure_allows_a_new_attempt_with_a_new_token() {
    let (e, tok) = claimed();
    let t = ledger::handle(Some(e), Event::FailDefinite(Failure { token: tok.clone(), reason: "declined".into() }), 5).unwrap();
    let failed = written(&t);
    let t = begin(Some(failed), "w1", 6);
    let Outcome::Execute(new) = t.outcome.clone() else { panic!("{:?}", t.outcome) };
    assert_eq!(new.attempt, tok.attempt + 1);
    assert_ne!(new, tok);
}

#[test]
fn done_is_terminal_until_retention_purges_it() {
    let (e, tok) = claimed();
    let done = written(&ledger::handle(Some(e), Event::Complete(Completion { token: tok, result_json: "{\"id\":1}".into() }), 5).unwrap());
    for now in [6, 1_000_000, done.updated_at + done.retention_ms * 2] {
        let t = begin(Some(done.clone()), "w2", now);
        assert!(matches!(t.outcome, Outcome::Replay(ref r) if r.result_json == "{\"id\":1}"));
        assert!(t.write.is_none());
    }
    // A sweep leaves it alone until its retention has passed, then purges it.
    assert_eq!(done.due_at, Some(done.updated_at + done.retention_ms));
    assert!(ledger::handle(Some(done.clone()), Event::Sweep, done.updated_at + done.retention_ms - 1).unwrap().write.is_none());
    let t = ledger::handle(Some(done.clone()), Event::Sweep, done.updated_at + done.retention_ms).unwrap();
    assert!(matches!(t.write, Some(Write::Delete(_))) && matches!(t.outcome, Outcome::Purged));
    let early = ledger::handle(Some(done.clone()), Event::Purge, done.updated_at + done.retention_ms - 1).unwrap_err();
    assert_eq!(early.kind, LedgerErrorKind::RetentionNotReached);
    let t = ledger::handle(Some(done.clone()), Event::Purge, done.updated_at + done.retention_ms).unwrap();
    assert!(matches!(t.write, Some(Write::Delete(_))) && matches!(t.outcome, Outcome::Purged));
}

#[test]
fn key_and_fingerprint_are_fixed_at_claim() {
    // The completion event carries no key or arguments at all: the entry keeps what the claim
    // stored. Here the stored fingerprint survives every later write.
    let (e, tok) = claimed();
    let t = ledger::handle(Some(e.clone()), Event::FailAmbiguous(Failure { token: tok.clone(), reason: "timeout".into() }), 5).unwrap();
    let doubt = written(&t);
    let t = ledger::handle(Some(doubt), Event::Complete(Completion { token: tok, result_json: "{}".into() }), 6).unwrap();
    let done = written(&t);
    assert_eq!((&done.key, &done.fingerprint, &done.args_canonical), (&e.key, &e.fingerprint, &e.args_canonical));
}

#[test]
fn a_conflict_names_the_first_differing_pointer() {
    let (e, _) = claimed();
    let c = ledger::prepare(&intent("{\"charge\":\"ch_1\",\"amount\":5}"), &pol(), "w2").unwrap();
    // The default spec keys all arguments, so these differ in key too; force the same key to
    // model a natural-key tool whose other parameters changed.
    let c = oncely_core::ledger_wit::Claim { key: e.key.clone(), ..c };
    let t = ledger::handle(Some(e), Event::Begin(c), 5).unwrap();
    let Outcome::Conflict(conflict) = t.outcome else { panic!("{:?}", t.outcome) };
    assert_eq!(conflict.pointer, "/amount");
    assert!(t.write.is_none());
}

#[test]
fn classes_without_a_ledger_pass_through_and_write_nothing() {
    for class in [EffectClass::ReadOnly, EffectClass::OverwritingWrite] {
        let c = ledger::prepare(&intent("{}"), &policy::default_policy(class), "w1").unwrap();
        let t = ledger::handle(None, Event::Begin(c), 0).unwrap();
        assert!(matches!(t.outcome, Outcome::PassThrough) && t.write.is_none());
    }
}

#[test]
fn a_person_is_needed_for_what_is_escalated_or_long_in_doubt_and_may_settle_only_that() {
    use oncely_core::ledger_wit::Attention;
    let (e, tok) = claimed();
    assert_eq!(ledger::needs_person(&e, 10, None), None, "pending: a live claim needs nobody");
    assert!(!ledger::settleable(EntryState::Pending) && !ledger::settleable(EntryState::Done) && !ledger::settleable(EntryState::Failed));
    let t = ledger::handle(Some(e), Event::FailAmbiguous(Failure { token: tok, reason: "timeout".into() }), 100).unwrap();
    let doubt = written(&t);
    assert_eq!(doubt.state, EntryState::InDoubt);
    assert!(ledger::settleable(EntryState::InDoubt) && ledger::settleable(EntryState::Escalated));
    // In doubt since 100: needs a person once the threshold has passed (the default: 15 min).
    let default = ledger::DEFAULT_IN_DOUBT_AFTER_MS;
    assert_eq!(ledger::needs_person(&doubt, 100 + default - 1, None), None);
    assert_eq!(ledger::needs_person(&doubt, 100 + default, None), Some(Attention::InDoubt));
    assert_eq!(ledger::needs_person(&doubt, 150, Some(50)), Some(Attention::InDoubt));
    assert_eq!(ledger::needs_person(&doubt, 149, Some(50)), None);
    let escalated = Entry { state: EntryState::Escalated, ..doubt };
    assert_eq!(ledger::needs_person(&escalated, 0, Some(u64::MAX)), Some(Attention::Escalated));
}

/// `ledger.asks-approval` answers what `begin` would: a person is asked while the policy wants
/// one on these arguments and neither an approval that holds nor a denial is recorded.
#[test]
fn asks_approval_is_what_begin_would_answer() {
    let json = r#"{"class":"irreversible-external","key":{},"reconcile":"provider-idempotent",
        "approval":{"when":{"/amount":{">":100}},"expiresAfterMs":1000}}"#;
    let p = policy::parse_policy(json).unwrap();
    let claim = |args: &str| ledger::prepare(&intent(args), &p, "w1").unwrap();
    let (big, small) = (claim(r#"{"amount":500}"#), claim(r#"{"amount":50}"#));
    assert!(ledger::asks_approval(None, &big, 0));
    assert!(!ledger::asks_approval(None, &small, 0), "the condition is false: no person");
    let asked = written(&ledger::handle(None, Event::Begin(big.clone()), 0).unwrap());
    assert_eq!(asked.state, EntryState::AwaitingApproval);
    assert!(ledger::asks_approval(Some(&asked), &big, 10), "still asked");
    let decision = |v| oncely_core::ledger_wit::Decision { by: "alice".into(), note: String::new(), seen_version: v };
    let approved = written(&ledger::handle(Some(asked.clone()), Event::Approve(decision(asked.version)), 20).unwrap());
    assert!(!ledger::asks_approval(Some(&approved), &big, 30), "an approval that holds");
    assert!(ledger::asks_approval(Some(&approved), &big, 20 + 1_000), "an approval that ran out");
    let denied = written(&ledger::handle(Some(asked), Event::Deny(decision(1)), 20).unwrap());
    assert!(!ledger::asks_approval(Some(&denied), &big, 30), "a denial is the answer, not a question");
}
