//! `ledger`: sequences of events on a few rows, applied with `ledger::handle`, each write applied
//! to an in-memory store as a host would (insert if absent, compare-and-swap, delete).
//!
//! Rows exist only as the core wrote them: every entry starts as the insert of a `begin` on an
//! absent row, with a claim the core's own `prepare` built.

use crate::gen;
use arbitrary::{Result, Unstructured};
use oncely_core::keys_wit::Intent;
use oncely_core::ledger::{self, Write};
use oncely_core::ledger_wit::{
    ClaimToken, Completion, Entry, EntryState, Event, Failure, LedgerErrorKind, Outcome, ReconcileVerdict, Reconciliation, Resolution,
    Settlement,
};
use oncely_core::policy_wit::ToolPolicy;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) type RowKey = (String, String);

pub(crate) const OWNERS: &[&str] = &["w0", "w1", "w2"];

pub(crate) struct World {
    pub(crate) intents: Vec<Intent>,
    pub(crate) policies: Vec<ToolPolicy>,
}

pub(crate) fn world(u: &mut Unstructured<'_>) -> Result<World> {
    let (base, pointers) = gen::intent(u)?;
    let mut intents = vec![base.clone()];
    for _ in 0..u.int_in_range(0..=2u8)? {
        // Variants of the first intent: other arguments (same key under an `only` or `ignore`
        // spec, so a conflict), another step (another key), or anything.
        let (other, _) = gen::intent(u)?;
        let mut v = base.clone();
        match u.int_in_range(0..=2u8)? {
            0 => v.args_json = other.args_json,
            1 => v.step_id = other.step_id,
            _ => v = other,
        }
        intents.push(v);
    }
    let mut policies = vec![gen::tool_policy(u, &pointers)?];
    if u.arbitrary()? {
        policies.push(gen::tool_policy(u, &pointers)?);
    }
    Ok(World { intents, policies })
}

/// The store, and what the properties remember across events.
#[derive(Default)]
struct Store {
    rows: BTreeMap<RowKey, Entry>,
    /// Every (row, attempt) granted `execute` since the row was (last) inserted.
    executed: BTreeSet<(RowKey, u32)>,
}

/// Properties, over any sequence of events and any monotone clock:
/// - never panics;
/// - `execute` is granted only to `begin`, only from no entry or a `failed` one, never twice for
///   one attempt of a row, and always with the write that claims it (the new attempt, pending,
///   owned by the claimant);
/// - an expired lease never leads directly to `execute`;
/// - every write is the one a host can apply: an insert only on an absent row (version 1); an
///   update compare-and-swaps the version it read and writes that version + 1, keeping scope,
///   key, tool, fingerprint and creation time; a delete only of a settled entry past its
///   retention;
/// - every written entry's `due_at` is the core's `ledger::due_at` of it;
/// - a token that is not the current claim is refused as `stale-token`, and writes nothing;
/// - an entry leaves in-doubt or escalated for failed only by a reconciler's or a human's "did
///   not happen", or its own attempt's definite failure; pending becomes failed only by a
///   definite failure; done is never rewritten;
/// - a refusal names the state of the entry it refused (none for an absent row).
pub fn ledger(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(w) = world(&mut u) else { return };
    let mut store = Store::default();
    let mut now: u64 = u.arbitrary::<u32>().map_or(0, u64::from);
    let mut steps = 0;
    while !u.is_empty() && steps < 64 {
        steps += 1;
        let Ok(()) = event(&mut u, &w, &mut store, &mut now) else { return };
    }
}

/// The version a person saw: mostly the entry's own, sometimes another (a refusal: `changed`).
pub(crate) fn seen_version(u: &mut Unstructured<'_>, cur: Option<&Entry>) -> Result<u64> {
    Ok(match cur {
        Some(e) if u.ratio(4, 5)? => e.version,
        _ => u.int_in_range(0..=9u64)?,
    })
}

pub(crate) fn token(u: &mut Unstructured<'_>, cur: Option<&Entry>) -> Result<ClaimToken> {
    // Mostly the current claim; else a stale attempt or another owner.
    let attempt = match (cur, u.int_in_range(0..=3u8)?) {
        (Some(e), 0..=1) => e.attempt,
        (Some(e), 2) => e.attempt.saturating_sub(u.int_in_range(0..=2u32)?).max(1) + u.int_in_range(0..=1u32)?,
        _ => u.int_in_range(1..=4u32)?,
    };
    let owner = match cur {
        Some(e) if u.ratio(3u8, 4u8)? => e.owner.clone(),
        _ => gen::text(u, OWNERS)?,
    };
    Ok(ClaimToken { attempt, owner })
}

pub(crate) fn json_result(u: &mut Unstructured<'_>) -> Result<String> {
    gen::text(u, &["{\"ok\":1}", "null", "\"re_1\"", ""])
}

fn event(u: &mut Unstructured<'_>, w: &World, store: &mut Store, now: &mut u64) -> Result<()> {
    *now = now.saturating_add(match u.int_in_range(0..=15u8)? {
        0 => u.arbitrary()?,
        1..=3 => 0,
        _ => u64::from(u.int_in_range(0..=2000u16)?),
    });
    let now = *now;
    let op = u.int_in_range(0..=9u8)?;
    let key: RowKey;
    let ev = if op == 0 {
        let intent = gen::pick(u, &w.intents)?;
        let policy = gen::pick(u, &w.policies)?;
        let owner = gen::text(u, OWNERS)?;
        match ledger::prepare(&intent, &policy, &owner) {
            Ok(claim) => {
                key = (claim.scope.clone(), claim.key.clone());
                Event::Begin(claim)
            }
            Err(e) => {
                assert!(!e.message.is_empty());
                return Ok(());
            }
        }
    } else {
        // An existing row, mostly; sometimes an absent one.
        let existing: Vec<&RowKey> = store.rows.keys().collect();
        key = if !existing.is_empty() && u.ratio(7u8, 8u8)? {
            (*u.choose(&existing)?).clone()
        } else {
            ("acme".to_string(), "oncely1:absent".to_string())
        };
        let cur = store.rows.get(&key);
        match op {
            1 => Event::Heartbeat(token(u, cur)?),
            2 => Event::Complete(Completion { token: token(u, cur)?, result_json: json_result(u)? }),
            3 => Event::FailDefinite(Failure { token: token(u, cur)?, reason: gen::text(u, &["declined"])? }),
            4 => Event::FailAmbiguous(Failure { token: token(u, cur)?, reason: gen::text(u, &["timeout"])? }),
            5 => Event::Sweep,
            6 => Event::Reconciled(Reconciliation {
                attempt: token(u, cur)?.attempt,
                verdict: match u.int_in_range(0..=2u8)? {
                    0 => ReconcileVerdict::Happened(json_result(u)?),
                    1 => ReconcileVerdict::NotHappened,
                    _ => ReconcileVerdict::Unknown(gen::text(u, &["503"])?),
                },
            }),
            7 => Event::Resolve(Resolution {
                settlement: if u.arbitrary()? { Settlement::Happened(json_result(u)?) } else { Settlement::NotHappened },
                by: gen::text(u, &["ops", ""])?,
                note: gen::text(u, &["", "checked"])?,
                seen_version: seen_version(u, cur)?,
            }),
            8 => Event::Purge,
            _ => Event::CompleteUnrecordable(Failure { token: token(u, cur)?, reason: gen::text(u, &["not json"])? }),
        }
    };
    apply(store, key, ev, now);
    Ok(())
}

fn apply(store: &mut Store, key: RowKey, ev: Event, now: u64) {
    let before = store.rows.get(&key).cloned();
    let result = ledger::handle(before.clone(), ev.clone(), now);
    let ctx = || format!("{ev:?} at {now} on {before:?}");

    // A token that is not the current claim.
    let stale = match (&ev, &before) {
        (Event::Heartbeat(t), Some(b))
        | (Event::Complete(Completion { token: t, .. }), Some(b))
        | (Event::FailDefinite(Failure { token: t, .. }), Some(b))
        | (Event::FailAmbiguous(Failure { token: t, .. }), Some(b))
        | (Event::CompleteUnrecordable(Failure { token: t, .. }), Some(b)) => t.attempt != b.attempt || t.owner != b.owner,
        (Event::Reconciled(r), Some(b)) => r.attempt != b.attempt,
        _ => false,
    };
    if stale {
        let kind = result.as_ref().err().map(|e| e.kind);
        assert_eq!(kind, Some(LedgerErrorKind::StaleToken), "a stale token was not refused: {}", ctx());
    }
    let t = match result {
        Ok(t) => t,
        Err(e) => {
            assert!(!e.message.is_empty());
            assert_eq!(e.state, before.as_ref().map(|b| b.state), "the refusal names another state: {e:?}; {}", ctx());
            if before.is_none() && !matches!(ev, Event::Begin(_)) {
                assert_eq!(e.kind, LedgerErrorKind::NotFound, "{}", ctx());
            }
            return;
        }
    };

    // A person's verdict applies only to the version they saw.
    if let (Event::Resolve(r), Some(b)) = (&ev, &before) {
        assert_eq!(r.seen_version, b.version, "a settlement of version {} applied to version {}: {}", r.seen_version, b.version, ctx());
    }
    if let Outcome::Execute(token) = &t.outcome {
        let Event::Begin(claim) = &ev else { panic!("execute granted to {}", ctx()) };
        assert!(
            before.as_ref().is_none_or(|b| b.state == EntryState::Failed),
            "execute granted from {:?}: {}",
            before.as_ref().map(|b| b.state),
            ctx()
        );
        if let Some(b) = &before {
            assert!(!(b.state == EntryState::Pending && now >= b.lease_until), "an expired lease led to execute: {}", ctx());
            assert_eq!(token.attempt, b.attempt + 1, "{}", ctx());
        } else {
            assert_eq!(token.attempt, 1);
        }
        assert_eq!(token.owner, claim.owner);
        let written = match &t.write {
            Some(Write::Insert(e)) => e,
            Some(Write::Update(u)) => &u.entry,
            other => panic!("execute without its claim written ({other:?}): {}", ctx()),
        };
        assert_eq!((written.state, written.attempt, &written.owner), (EntryState::Pending, token.attempt, &token.owner));
        assert!(store.executed.insert((key.clone(), token.attempt)), "attempt {} was granted execute twice: {}", token.attempt, ctx());
    }

    let Some(write) = t.write else { return };
    assert!(!stale, "a stale token wrote: {}", ctx());
    match write {
        Write::Insert(n) => {
            assert!(before.is_none(), "insert over a row: {}", ctx());
            assert!(matches!(ev, Event::Begin(_)));
            assert_eq!(n.version, 1);
            assert_eq!((&n.scope, &n.key), (&key.0, &key.1));
            assert_eq!(n.due_at, ledger::due_at(&n), "due_at of the insert: {}", ctx());
            store.rows.insert(key, n);
        }
        Write::Update(up) => {
            let b = before.as_ref().unwrap_or_else(|| panic!("update of an absent row: {}", ctx()));
            let n = &up.entry;
            assert_eq!(up.expected_version, b.version, "{}", ctx());
            assert_eq!(n.version, b.version + 1, "{}", ctx());
            assert_eq!(
                (&n.scope, &n.key, &n.tool, &n.fingerprint, n.created_at),
                (&b.scope, &b.key, &b.tool, &b.fingerprint, b.created_at)
            );
            assert_eq!(n.due_at, ledger::due_at(n), "due_at of the update: {}", ctx());
            assert!(n.updated_at >= b.updated_at && n.updated_at <= now.max(b.updated_at), "{}", ctx());
            assert_ne!(b.state, EntryState::Done, "done was rewritten: {}", ctx());
            if matches!(b.state, EntryState::InDoubt | EntryState::Escalated) && n.state == EntryState::Failed {
                let legit = matches!(
                    &ev,
                    Event::Reconciled(Reconciliation { verdict: ReconcileVerdict::NotHappened, .. })
                        | Event::Resolve(Resolution { settlement: Settlement::NotHappened, .. })
                        | Event::FailDefinite(_)
                );
                assert!(legit, "left {:?} for failed: {}", b.state, ctx());
            }
            if b.state == EntryState::Pending && n.state == EntryState::Failed {
                assert!(matches!(ev, Event::FailDefinite(_)), "pending became failed: {}", ctx());
            }
            if n.attempt != b.attempt {
                assert!(matches!(t.outcome, Outcome::Execute(_)), "a new attempt without execute: {}", ctx());
            }
            store.rows.insert(key, up.entry);
        }
        Write::Delete(d) => {
            let b = before.as_ref().unwrap_or_else(|| panic!("delete of an absent row: {}", ctx()));
            assert_eq!(d.expected_version, b.version);
            assert_eq!((&d.scope, &d.key), (&key.0, &key.1));
            assert!(matches!(b.state, EntryState::Done | EntryState::Failed), "{}", ctx());
            assert!(now >= b.updated_at.saturating_add(b.retention_ms), "purged before its retention: {}", ctx());
            store.rows.remove(&key);
            store.executed.retain(|(k, _)| *k != key);
        }
    }
}
