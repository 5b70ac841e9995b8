//! The effect ledger's state-transition rules: `handle(current, event, now)`.
//!
//! The call protocol a host follows is the doc comment of the WIT interface (`wit/ledger.wit`);
//! in short: read the entry, `handle`, apply the write atomically (insert-if-absent or
//! compare-and-swap on `version`), and only then act on the outcome.
//!
//! The rules that must never break, each pinned by a test in `tests/ledger_rules.rs`:
//! - an expired lease leads to `in-doubt` (reconcile, then escalate), never to `execute`;
//! - only no entry, `failed`, or a person's approval that still holds grants `execute`; a call
//!   whose policy asks for approval is never executed before a person approved it;
//! - a stale token cannot complete, fail or heartbeat;
//! - key and fingerprint are fixed at claim.

use crate::json;
use crate::keys_wit::{Intent, KeyError, KeyErrorKind};
use crate::ledger_wit::{
    Approval, ApprovalRequest, Attention, Claim, ClaimToken, Completion, Conflict, Decision, Denial, Entry, EntryState, Escalation, Event,
    Failure, Guest, HeldDecision, InProgress, LedgerError, LedgerErrorKind, Outcome, ReconcileRequest, ReconcileVerdict, Reconciliation,
    Replay, Resolution, Settlement,
};
use crate::policy::uses_ledger;
use crate::policy_wit::{ReconcilePath, ToolPolicy};
use crate::prelude::*;
use crate::text::Q;

/// The claim `begin` needs: derive the key under the policy's key spec (or the default one).
pub fn prepare(intent: &Intent, policy: &ToolPolicy, owner: &str) -> Result<Claim, KeyError> {
    if owner.is_empty() {
        return Err(KeyError {
            kind: KeyErrorKind::EmptyField,
            at: Some("owner".into()),
            canon: None,
            message: "the claim's owner is empty".into(),
        });
    }
    let spec = policy.key.clone().unwrap_or_else(crate::keys::default_spec);
    let d = crate::keys::derive(intent, &spec)?;
    Ok(Claim {
        scope: intent.scope.clone(),
        tool: intent.tool.clone(),
        run_id: intent.run_id.clone(),
        step_id: intent.step_id.clone(),
        key: d.key,
        fingerprint: d.fingerprint,
        args_canonical: d.args_canonical,
        owner: owner.to_string(),
        policy: policy.clone(),
    })
}

/// A compare-and-swap replacement.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// Apply only if the stored version still equals this.
    pub expected_version: u64,
    /// The new row (its `version` is `expected_version + 1`).
    pub entry: Entry,
}

/// A compare-and-swap deletion.
#[derive(Clone, Debug, PartialEq)]
pub struct Removal {
    /// The tenant.
    pub scope: String,
    /// The key.
    pub key: String,
    /// Delete only if the stored version still equals this.
    pub expected_version: u64,
}

/// What must be written, atomically, before acting on the outcome.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    /// Insert if absent (the claim). A present row means a lost race: re-read and retry.
    Insert(Entry),
    /// Compare-and-swap on the version.
    Update(Update),
    /// Compare-and-swap deletion.
    Delete(Removal),
}

/// The answer of the transition rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// The write to apply atomically first, if any.
    pub write: Option<Write>,
    /// What to do once it is applied.
    pub outcome: Outcome,
}

/// The name of a state, as stored and printed.
pub fn state_name(s: EntryState) -> &'static str {
    match s {
        EntryState::Pending => "pending",
        EntryState::Done => "done",
        EntryState::Failed => "failed",
        EntryState::InDoubt => "in-doubt",
        EntryState::Escalated => "escalated",
        EntryState::AwaitingApproval => "awaiting-approval",
        EntryState::Approved => "approved",
        EntryState::Denied => "denied",
    }
}

fn err(kind: LedgerErrorKind, e: Option<&Entry>, message: String) -> LedgerError {
    LedgerError { kind, state: e.map(|e| e.state), message }
}

fn ok(write: Option<Write>, outcome: Outcome) -> Result<Transition, LedgerError> {
    Ok(Transition { write, outcome })
}

/// The next version of `e` at `now`, to be changed by the caller and written with [`cas`].
/// One function (not a generic over the change) so the 23-field copy exists once in the
/// component.
#[inline(never)]
fn next_version(e: &Entry, now: u64) -> Entry {
    let mut next = e.clone();
    next.version = e.version + 1;
    next.updated_at = now;
    next
}

/// The compare-and-swap write that replaces version `next.version - 1` by `next` (its `due-at`
/// recomputed).
fn cas(mut next: Entry) -> Option<Write> {
    next.due_at = due_at(&next);
    Some(Write::Update(Update { expected_version: next.version - 1, entry: next }))
}

/// What an entry's history keeps track of (wit/ledger.wit, step 3): an update that changes one
/// of these appends a record; heartbeats and `due-at` corrections change none.
pub fn kept_in_history(e: &Entry) -> (EntryState, u32, Option<&str>, u32, Option<&str>) {
    (e.state, e.attempt, e.reason.as_deref(), e.reconcile_attempts, e.settlement.as_deref())
}

/// When `e` next needs time-driven work (see `due-at` in wit/ledger.wit).
pub fn due_at(e: &Entry) -> Option<u64> {
    match e.state {
        EntryState::Pending => Some(e.lease_until),
        EntryState::InDoubt => Some(e.next_reconcile_at.map_or(escalate_at(e), |r| r.min(escalate_at(e)))),
        EntryState::Done | EntryState::Failed | EntryState::Denied => Some(retained_until(e)),
        EntryState::Escalated | EntryState::AwaitingApproval | EntryState::Approved => None,
    }
}

fn retained_until(e: &Entry) -> u64 {
    e.updated_at.saturating_add(e.retention_ms)
}

fn reconcilable(path: &ReconcilePath) -> bool {
    matches!(path, ReconcilePath::ProviderIdempotent | ReconcilePath::Lookup(_))
}

fn escalate_at(e: &Entry) -> u64 {
    e.in_doubt_since.unwrap_or(e.updated_at).saturating_add(e.escalate_after_ms)
}

/// From when a reconciler's "did not happen" is believed: once the attempt in doubt can no longer
/// be in flight. Its call started before its lease's end (hosts check right before calling) and,
/// when it reported an ambiguous failure, before that report; it is in flight for at most
/// `max-call-ms` after its start. A `provider-idempotent` tool needs no wait: the provider
/// deduplicates a late call by the key.
pub fn quiet_at(e: &Entry) -> u64 {
    if e.reconcile == ReconcilePath::ProviderIdempotent {
        return 0;
    }
    let last_start = e.in_doubt_since.map_or(e.lease_until, |since| since.min(e.lease_until));
    last_start.saturating_add(e.max_call_ms)
}

fn reconcile_request(e: &Entry) -> ReconcileRequest {
    ReconcileRequest {
        scope: e.scope.clone(),
        key: e.key.clone(),
        tool: e.tool.clone(),
        args_canonical: e.args_canonical.clone(),
        attempt: e.attempt,
        path: e.reconcile.clone(),
        in_doubt_since: e.in_doubt_since.unwrap_or(e.updated_at),
        escalate_at: escalate_at(e),
    }
}

fn escalation(e: &Entry) -> Escalation {
    Escalation {
        scope: e.scope.clone(),
        key: e.key.clone(),
        tool: e.tool.clone(),
        attempt: e.attempt,
        reason: e.reason.clone().unwrap_or_default(),
        in_doubt_since: e.in_doubt_since.unwrap_or(e.updated_at),
    }
}

fn escalate(e: &Entry, now: u64, reason: String) -> Result<Transition, LedgerError> {
    let mut n = next_version(e, now);
    n.state = EntryState::Escalated;
    n.in_doubt_since = Some(e.in_doubt_since.unwrap_or(now));
    n.next_reconcile_at = None;
    n.reason = Some(reason);
    let out = Outcome::Escalated(escalation(&n));
    ok(cas(n), out)
}

/// Take the reconciliation slot of an in-doubt entry: the caller reconciles now; nobody else
/// may start before `reconcile-after-ms` has passed.
fn take_slot(e: &Entry, now: u64) -> Result<Transition, LedgerError> {
    let mut n = next_version(e, now);
    n.next_reconcile_at = Some(now.saturating_add(e.reconcile_after_ms));
    n.reconcile_attempts = e.reconcile_attempts + 1;
    let out = Outcome::Reconcile(reconcile_request(&n));
    ok(cas(n), out)
}

/// Pending → in doubt: reconcile at once if the policy can, else escalate.
fn into_doubt(e: &Entry, now: u64, reason: String) -> Result<Transition, LedgerError> {
    if !reconcilable(&e.reconcile) {
        return escalate(e, now, msg![reason, "; the tool declares no automatic reconciliation, so only a human can settle it"]);
    }
    if e.escalate_after_ms == 0 {
        return escalate(e, now, msg![reason, "; escalateAfterMs is 0"]);
    }
    let mut n = next_version(e, now);
    n.state = EntryState::InDoubt;
    n.in_doubt_since = Some(now);
    n.next_reconcile_at = Some(now.saturating_add(e.reconcile_after_ms));
    n.reconcile_attempts = 1;
    n.reason = Some(reason);
    let out = Outcome::Reconcile(reconcile_request(&n));
    ok(cas(n), out)
}

/// An in-doubt entry, looked at by `begin` or `sweep`.
fn in_doubt_step(e: &Entry, now: u64, for_sweep: bool) -> Result<Transition, LedgerError> {
    if now >= escalate_at(e) {
        let reason = msg![
            "still in doubt after ",
            e.escalate_after_ms,
            " ms and ",
            e.reconcile_attempts,
            " reconciliation(s): ",
            e.reason.clone().unwrap_or_default()
        ];
        return escalate(e, now, reason);
    }
    let due = e.next_reconcile_at.unwrap_or(0);
    if now >= due {
        return take_slot(e, now);
    }
    if for_sweep {
        ok(None, Outcome::Idle(Some(due.min(escalate_at(e)))))
    } else {
        // Nobody holds an entry in doubt (its attempt's owner is gone): no owner is named.
        ok(None, Outcome::InProgress(InProgress { owner: String::new(), state: EntryState::InDoubt, retry_after_ms: due - now }))
    }
}

/// The least time before looking again at a live claim (ms).
pub const LOOK_AGAIN_MIN_MS: u64 = 50;

/// When to look again at the live claim `e` (ms from `now`): as long again as it has gone without
/// word (since it was taken or last heartbeated: a call that has run long is likely to run long
/// yet, a young one to end soon), at least `LOOK_AGAIN_MIN_MS`, never past its lease's end (it
/// is then renewed or gone).
fn look_again_ms(e: &Entry, now: u64) -> u64 {
    let spoke = e.lease_until.saturating_sub(e.lease_ms);
    now.saturating_sub(spoke).max(LOOK_AGAIN_MIN_MS).min(e.lease_until - now)
}

fn begin(current: Option<&Entry>, c: &Claim, now: u64) -> Result<Transition, LedgerError> {
    if !uses_ledger(c.policy.class) {
        return ok(None, Outcome::PassThrough);
    }
    if c.owner.is_empty() || c.key.is_empty() || c.scope.is_empty() {
        return Err(err(
            LedgerErrorKind::InvalidRequest,
            current,
            "a claim needs a scope, a key and an owner; build it with prepare".into(),
        ));
    }
    let p = &c.policy;
    let Some(e) = current else {
        let entry = Entry {
            scope: c.scope.clone(),
            key: c.key.clone(),
            tool: c.tool.clone(),
            run_id: c.run_id.clone(),
            step_id: c.step_id.clone(),
            fingerprint: c.fingerprint.clone(),
            args_canonical: c.args_canonical.clone(),
            state: EntryState::Pending,
            version: 1,
            attempt: 1,
            owner: c.owner.clone(),
            created_at: now,
            updated_at: now,
            lease_until: now.saturating_add(p.lease_ms),
            in_doubt_since: None,
            next_reconcile_at: None,
            reconcile_attempts: 0,
            result_json: None,
            reason: None,
            resolved_by: None,
            settlement: None,
            reconcile: p.reconcile.clone(),
            lease_ms: p.lease_ms,
            max_call_ms: p.max_call_ms,
            reconcile_after_ms: p.reconcile_after_ms,
            escalate_after_ms: p.escalate_after_ms,
            retention_ms: p.retention_ms,
            due_at: None,
        };
        if needs_approval(c) {
            let entry = Entry { state: EntryState::AwaitingApproval, ..entry };
            let entry = Entry { due_at: due_at(&entry), ..entry };
            let out = Outcome::AwaitingApproval(approval_request(&entry));
            return ok(Some(Write::Insert(entry)), out);
        }
        let entry = Entry { due_at: due_at(&entry), ..entry };
        return ok(Some(Write::Insert(entry)), Outcome::Execute(ClaimToken { attempt: 1, owner: c.owner.clone() }));
    };
    if e.scope != c.scope || e.key != c.key {
        return Err(err(LedgerErrorKind::InvalidRequest, Some(e), "the claim's scope or key is not the entry's".into()));
    }
    if e.fingerprint != c.fingerprint {
        let pointer = match (json::parse(&e.args_canonical), json::parse(&c.args_canonical)) {
            (Ok(a), Ok(b)) => crate::pointer::first_difference(&a, &b).unwrap_or_default(),
            _ => String::new(),
        };
        return ok(
            None,
            Outcome::Conflict(Conflict {
                key: e.key.clone(),
                pointer,
                stored_fingerprint: e.fingerprint.clone(),
                given_fingerprint: c.fingerprint.clone(),
            }),
        );
    }
    match e.state {
        EntryState::Done => ok(
            None,
            Outcome::Replay(Replay {
                result_json: e.result_json.clone().unwrap_or_default(),
                attempt: e.attempt,
                recorded_at: e.updated_at,
            }),
        ),
        EntryState::Failed if needs_approval(c) => {
            // A new attempt, and the policy asks a person first: a new request.
            let mut n = next_version(e, now);
            n.state = EntryState::AwaitingApproval;
            n.attempt = e.attempt + 1;
            n.owner = c.owner.clone();
            n.run_id = c.run_id.clone();
            n.step_id = c.step_id.clone();
            n.in_doubt_since = None;
            n.next_reconcile_at = None;
            n.reconcile_attempts = 0;
            n.result_json = None;
            n.reason = None;
            n.resolved_by = None;
            n.settlement = None;
            let out = Outcome::AwaitingApproval(approval_request(&n));
            ok(cas(n), out)
        }
        EntryState::AwaitingApproval => ok(None, Outcome::AwaitingApproval(approval_request(e))),
        EntryState::Denied => ok(None, Outcome::Denied(denial(e))),
        EntryState::Approved if now >= approval_ends(e, c) => {
            let mut n = next_version(e, now);
            n.state = EntryState::AwaitingApproval;
            n.reason = Some(msg![
                "the approval by ",
                e.resolved_by.clone().unwrap_or_default(),
                " (",
                e.settlement.clone().unwrap_or_default(),
                ") ran out at ",
                approval_ends(e, c),
                " before the call ran: asked again"
            ]);
            n.resolved_by = None;
            n.settlement = None;
            let out = Outcome::AwaitingApproval(approval_request(&n));
            ok(cas(n), out)
        }
        EntryState::Approved => {
            // The approval is used: this attempt runs under it (its decision stays on the entry).
            let attempt = e.attempt;
            let mut n = next_version(e, now);
            n.state = EntryState::Pending;
            n.attempt = attempt;
            n.owner = c.owner.clone();
            n.run_id = c.run_id.clone();
            n.step_id = c.step_id.clone();
            n.lease_until = now.saturating_add(p.lease_ms);
            n.reconcile = p.reconcile.clone();
            n.lease_ms = p.lease_ms;
            n.max_call_ms = p.max_call_ms;
            n.reconcile_after_ms = p.reconcile_after_ms;
            n.escalate_after_ms = p.escalate_after_ms;
            n.retention_ms = p.retention_ms;
            ok(cas(n), Outcome::Execute(ClaimToken { attempt, owner: c.owner.clone() }))
        }
        EntryState::Failed => {
            let attempt = e.attempt + 1;
            let mut n = next_version(e, now);
            n.state = EntryState::Pending;
            n.attempt = attempt;
            n.owner = c.owner.clone();
            n.run_id = c.run_id.clone();
            n.step_id = c.step_id.clone();
            n.lease_until = now.saturating_add(p.lease_ms);
            n.in_doubt_since = None;
            n.next_reconcile_at = None;
            n.reconcile_attempts = 0;
            n.result_json = None;
            n.reason = None;
            n.resolved_by = None;
            n.settlement = None;
            n.reconcile = p.reconcile.clone();
            n.lease_ms = p.lease_ms;
            n.max_call_ms = p.max_call_ms;
            n.reconcile_after_ms = p.reconcile_after_ms;
            n.escalate_after_ms = p.escalate_after_ms;
            n.retention_ms = p.retention_ms;
            ok(cas(n), Outcome::Execute(ClaimToken { attempt, owner: c.owner.clone() }))
        }
        EntryState::Pending if now < e.lease_until => ok(
            None,
            Outcome::InProgress(InProgress { owner: e.owner.clone(), state: EntryState::Pending, retry_after_ms: look_again_ms(e, now) }),
        ),
        EntryState::Pending => into_doubt(e, now, lease_expired_reason(e)),
        EntryState::InDoubt => in_doubt_step(e, now, false),
        EntryState::Escalated => ok(None, Outcome::Escalated(escalation(e))),
    }
}

/// Whether the claim's call needs a person's approval first: its policy has an approval rule
/// whose condition is not false on the claim's arguments (guest/src/approval.rs). A condition
/// or arguments that cannot be read ask a person.
fn needs_approval(c: &Claim) -> bool {
    let Some(rule) = &c.policy.approval else { return false };
    let Some(when) = &rule.when else { return true };
    match (json::parse(when), json::parse(&c.args_canonical)) {
        (Ok(cond), Ok(args)) => crate::approval::needs_approval(&cond, &args),
        _ => true,
    }
}

/// Until when the approval of `e` (approved at its `updated-at`) holds under the claim's policy.
fn approval_ends(e: &Entry, c: &Claim) -> u64 {
    let holds = c.policy.approval.as_ref().map_or(crate::policy::DEFAULT_APPROVAL_EXPIRES_MS, |r| r.expires_after_ms);
    e.updated_at.saturating_add(holds)
}

fn approval_request(e: &Entry) -> ApprovalRequest {
    ApprovalRequest {
        scope: e.scope.clone(),
        key: e.key.clone(),
        tool: e.tool.clone(),
        args_canonical: e.args_canonical.clone(),
        version: e.version,
        since: e.updated_at,
    }
}

fn denial(e: &Entry) -> Denial {
    Denial {
        key: e.key.clone(),
        by: e.resolved_by.clone().unwrap_or_default(),
        reason: e.reason.clone().unwrap_or_default(),
        settlement: e.settlement.clone().unwrap_or_default(),
    }
}

fn lease_expired_reason(e: &Entry) -> String {
    msg![
        "the lease of attempt ",
        e.attempt,
        " (owner ",
        Q(&e.owner),
        ") expired at ",
        e.lease_until,
        " before a result was recorded; the effect may have happened"
    ]
}

fn existing<'e>(current: Option<&'e Entry>, what: &str) -> Result<&'e Entry, LedgerError> {
    current.ok_or_else(|| err(LedgerErrorKind::NotFound, None, msg![what, ": there is no entry for this key"]))
}

fn check_token(e: &Entry, t: &ClaimToken) -> Result<(), LedgerError> {
    if t.attempt != e.attempt || t.owner != e.owner {
        return Err(err(
            LedgerErrorKind::StaleToken,
            Some(e),
            msg![
                "the token of attempt ",
                t.attempt,
                " by ",
                Q(&t.owner),
                " is not the current claim (attempt ",
                e.attempt,
                " by ",
                Q(&e.owner),
                ", ",
                state_name(e.state),
                ")"
            ],
        ));
    }
    Ok(())
}

fn complete(e: &Entry, c: &Completion, now: u64) -> Result<Transition, LedgerError> {
    check_token(e, &c.token)?;
    match e.state {
        EntryState::Pending | EntryState::InDoubt | EntryState::Escalated => {
            let was = e.state;
            let mut n = next_version(e, now);
            n.state = EntryState::Done;
            n.result_json = Some(c.result_json.clone());
            n.next_reconcile_at = None;
            n.reason = (was != EntryState::Pending).then(|| msg!["completed by attempt ", e.attempt, " after being ", state_name(was)]);
            ok(cas(n), Outcome::Recorded(EntryState::Done))
        }
        EntryState::Done if e.result_json.as_deref() == Some(c.result_json.as_str()) => ok(None, Outcome::Recorded(EntryState::Done)),
        EntryState::Done => {
            Err(err(LedgerErrorKind::AlreadySettled, Some(e), msg!["attempt ", e.attempt, " already recorded a different result"]))
        }
        EntryState::AwaitingApproval | EntryState::Approved | EntryState::Denied => Err(never_claimed(e)),
        EntryState::Failed => Err(err(
            LedgerErrorKind::AlreadySettled,
            Some(e),
            msg![
                "attempt ",
                e.attempt,
                " was settled as failed (",
                e.reason.clone().unwrap_or_default(),
                "); a completion now contradicts it: the effect may have happened after all, investigate"
            ],
        )),
    }
}

fn complete_unrecordable(e: &Entry, f: &Failure, now: u64) -> Result<Transition, LedgerError> {
    check_token(e, &f.token)?;
    match e.state {
        EntryState::Pending | EntryState::InDoubt | EntryState::Escalated => {
            let mut n = next_version(e, now);
            n.state = EntryState::Done;
            n.result_json = None;
            n.next_reconcile_at = None;
            n.reason = Some(msg!["attempt ", e.attempt, " happened, but its result could not be recorded: ", f.reason]);
            ok(cas(n), Outcome::Recorded(EntryState::Done))
        }
        EntryState::Done if e.result_json.is_none() => ok(None, Outcome::Recorded(EntryState::Done)),
        EntryState::AwaitingApproval | EntryState::Approved | EntryState::Denied => Err(never_claimed(e)),
        EntryState::Done | EntryState::Failed => Err(err(
            LedgerErrorKind::AlreadySettled,
            Some(e),
            msg!["attempt ", e.attempt, " is already ", state_name(e.state), "; an unrecordable completion now contradicts it"],
        )),
    }
}

fn fail_definite(e: &Entry, f: &Failure, now: u64) -> Result<Transition, LedgerError> {
    check_token(e, &f.token)?;
    match e.state {
        EntryState::Pending | EntryState::InDoubt | EntryState::Escalated => {
            let mut n = next_version(e, now);
            n.state = EntryState::Failed;
            n.next_reconcile_at = None;
            n.reason = Some(f.reason.clone());
            ok(cas(n), Outcome::Recorded(EntryState::Failed))
        }
        EntryState::Failed => ok(None, Outcome::Recorded(EntryState::Failed)),
        EntryState::AwaitingApproval | EntryState::Approved | EntryState::Denied => Err(never_claimed(e)),
        EntryState::Done => Err(err(
            LedgerErrorKind::AlreadySettled,
            Some(e),
            msg!["attempt ", e.attempt, " already recorded a result; a definite failure now contradicts it"],
        )),
    }
}

fn fail_ambiguous(e: &Entry, f: &Failure, now: u64) -> Result<Transition, LedgerError> {
    check_token(e, &f.token)?;
    match e.state {
        EntryState::Pending => into_doubt(e, now, msg!["attempt ", e.attempt, " failed ambiguously: ", f.reason]),
        EntryState::AwaitingApproval | EntryState::Approved | EntryState::Denied => Err(never_claimed(e)),
        // Already unknown or already settled: an ambiguous report adds nothing.
        s => ok(None, Outcome::Recorded(s)),
    }
}

fn heartbeat(e: &Entry, t: &ClaimToken, now: u64) -> Result<Transition, LedgerError> {
    check_token(e, t)?;
    if e.state != EntryState::Pending {
        return Err(err(LedgerErrorKind::InvalidState, Some(e), msg!["the lease cannot be extended: the entry is ", state_name(e.state)]));
    }
    let mut n = next_version(e, now);
    n.lease_until = now.saturating_add(e.lease_ms);
    ok(cas(n), Outcome::Recorded(EntryState::Pending))
}

fn sweep(e: &Entry, now: u64) -> Result<Transition, LedgerError> {
    let t = match e.state {
        EntryState::Pending if now >= e.lease_until => return into_doubt(e, now, lease_expired_reason(e)),
        EntryState::InDoubt => in_doubt_step(e, now, true)?,
        EntryState::Done | EntryState::Failed | EntryState::Denied if now >= retained_until(e) => return purge(e, now),
        _ => Transition { write: None, outcome: Outcome::Idle(due_at(e)) },
    };
    // Nothing to do now. A row whose `due-at` is not what the core computes (written by an older
    // host, or by hand) is corrected, so that it stops being selected as due.
    if t.write.is_none() && e.due_at != due_at(e) {
        return ok(cas(next_version(e, e.updated_at)), t.outcome);
    }
    Ok(t)
}

fn reconciled(e: &Entry, r: &Reconciliation, now: u64) -> Result<Transition, LedgerError> {
    if r.attempt != e.attempt {
        return Err(err(
            LedgerErrorKind::StaleToken,
            Some(e),
            msg!["the reconciliation is about attempt ", r.attempt, ", but the entry is at attempt ", e.attempt],
        ));
    }
    match (e.state, &r.verdict) {
        (EntryState::InDoubt, ReconcileVerdict::Happened(result)) => {
            let mut n = next_version(e, now);
            n.state = EntryState::Done;
            n.result_json = Some(result.clone());
            n.next_reconcile_at = None;
            n.reason = Some(msg!["reconciled: attempt ", e.attempt, " happened"]);
            ok(cas(n), Outcome::Recorded(EntryState::Done))
        }
        (EntryState::InDoubt, ReconcileVerdict::NotHappened) if now < quiet_at(e) => {
            // The attempt may still be in flight: a lookup now cannot see a call that lands later.
            let quiet = quiet_at(e);
            let mut n = next_version(e, now);
            n.next_reconcile_at = Some(quiet);
            n.reason = Some(msg!["attempt ", e.attempt, " may be in flight until ", quiet]);
            ok(cas(n), Outcome::Recorded(EntryState::InDoubt))
        }
        (EntryState::InDoubt, ReconcileVerdict::NotHappened) => {
            let mut n = next_version(e, now);
            n.state = EntryState::Failed;
            n.next_reconcile_at = None;
            n.reason = Some(msg!["reconciled: attempt ", e.attempt, " did not happen"]);
            ok(cas(n), Outcome::Recorded(EntryState::Failed))
        }
        (EntryState::InDoubt, ReconcileVerdict::Unknown(why)) => {
            if now >= escalate_at(e) {
                return escalate(
                    e,
                    now,
                    msg!["still in doubt after ", e.escalate_after_ms, " ms and ", e.reconcile_attempts, " reconciliation(s): ", why],
                );
            }
            let mut n = next_version(e, now);
            n.reason = Some(msg!["reconciliation ", e.reconcile_attempts, " could not tell: ", why]);
            ok(cas(n), Outcome::Recorded(EntryState::InDoubt))
        }
        // A repeat of an answer that was already applied (e.g. after a dropped connection).
        (EntryState::Done, ReconcileVerdict::Happened(_)) => ok(None, Outcome::Recorded(EntryState::Done)),
        (EntryState::Failed, ReconcileVerdict::NotHappened) => ok(None, Outcome::Recorded(EntryState::Failed)),
        (EntryState::Done | EntryState::Failed, v) => Err(err(
            LedgerErrorKind::AlreadySettled,
            Some(e),
            msg![
                "attempt ",
                e.attempt,
                " is already ",
                state_name(e.state),
                " (",
                e.reason.clone().unwrap_or_default(),
                "); the reconciler now says ",
                match v {
                    ReconcileVerdict::Happened(_) => "it happened",
                    ReconcileVerdict::NotHappened => "it did not happen",
                    ReconcileVerdict::Unknown(_) => "it cannot tell",
                },
                ": investigate"
            ],
        )),
        (EntryState::Escalated, _) => {
            Err(err(LedgerErrorKind::InvalidState, Some(e), "the entry is escalated: only a human's resolve settles it now".into()))
        }
        (EntryState::Pending, _) => Err(err(
            LedgerErrorKind::InvalidState,
            Some(e),
            "the entry is pending with its claim; only an in-doubt entry is reconciled".into(),
        )),
        (EntryState::AwaitingApproval | EntryState::Approved | EntryState::Denied, _) => Err(never_claimed(e)),
    }
}

fn resolve(e: &Entry, r: &Resolution, now: u64) -> Result<Transition, LedgerError> {
    if r.by.is_empty() {
        return Err(err(LedgerErrorKind::InvalidRequest, Some(e), "a resolution must say who decided (by)".into()));
    }
    if !settleable(e.state) {
        return Err(err(
            LedgerErrorKind::InvalidState,
            Some(e),
            msg!["only in-doubt or escalated entries are resolved by hand; this one is ", state_name(e.state)],
        ));
    }
    check_decision(e, &r.by, r.seen_version)?;
    let note = if r.note.is_empty() { String::new() } else { msg![": ", r.note] };
    let (state, result, verdict) = match &r.settlement {
        Settlement::Happened(result) => (EntryState::Done, Some(result.clone()), "happened"),
        Settlement::NotHappened => (EntryState::Failed, None, "did not happen"),
    };
    let mut n = next_version(e, now);
    n.state = state;
    n.result_json = result;
    n.next_reconcile_at = None;
    let id = decision_id(e);
    n.resolved_by = Some(r.by.clone());
    n.settlement = Some(id.clone());
    n.reason = Some(msg!["resolved by ", r.by, ": attempt ", e.attempt, " ", verdict, note]);
    ok(cas(n), Outcome::Settled(id))
}

/// The id of a person's decision on `e` (a settlement, an approval, a denial): the same from
/// every host; unique per entry (scope, key, and when it was created: a key purged and claimed
/// again is a new entry) and version decided on.
fn decision_id(e: &Entry) -> String {
    let hash = crate::keys::sha256_hex(msg![e.scope, "\0", e.key, "\0", e.created_at, "\0", e.version].as_bytes());
    msg!["stl-", hash.get(..16).unwrap_or_default()]
}

/// The checks every decision of a person passes: who, and on what they saw.
fn check_decision(e: &Entry, by: &str, seen_version: u64) -> Result<(), LedgerError> {
    if by.is_empty() {
        return Err(err(LedgerErrorKind::InvalidRequest, Some(e), "a decision must say who decided (by)".into()));
    }
    if seen_version != e.version {
        return Err(err(
            LedgerErrorKind::Changed,
            Some(e),
            msg!["the entry changed since version ", seen_version, " (now ", e.version, "): look again"],
        ));
    }
    Ok(())
}

fn never_claimed(e: &Entry) -> LedgerError {
    err(LedgerErrorKind::InvalidState, Some(e), msg!["no attempt of this entry is claimed: it is ", state_name(e.state)])
}

/// A person approves the call that awaits approval: the next `begin` of the intent claims it.
fn approve(e: &Entry, d: &Decision, now: u64) -> Result<Transition, LedgerError> {
    if e.state != EntryState::AwaitingApproval {
        return Err(err(
            LedgerErrorKind::InvalidState,
            Some(e),
            msg!["only a call that awaits approval is approved; this one is ", state_name(e.state)],
        ));
    }
    decided(e, d, now, EntryState::Approved, "approved by ")
}

/// A person denies the call that awaits approval, or an approval not yet used.
fn deny(e: &Entry, d: &Decision, now: u64) -> Result<Transition, LedgerError> {
    if !matches!(e.state, EntryState::AwaitingApproval | EntryState::Approved) {
        return Err(err(
            LedgerErrorKind::InvalidState,
            Some(e),
            msg!["only a call that awaits approval, or is approved and not yet run, is denied; this one is ", state_name(e.state)],
        ));
    }
    decided(e, d, now, EntryState::Denied, "denied by ")
}

/// The entry after a person's decision `d` on it: `state`, who and why, under the decision's id.
fn decided(e: &Entry, d: &Decision, now: u64, state: EntryState, verb: &str) -> Result<Transition, LedgerError> {
    check_decision(e, &d.by, d.seen_version)?;
    let id = decision_id(e);
    let mut n = next_version(e, now);
    n.state = state;
    n.resolved_by = Some(d.by.clone());
    n.settlement = Some(id.clone());
    n.reason = Some(if d.note.is_empty() { msg![verb, d.by] } else { msg![verb, d.by, ": ", d.note] });
    ok(cas(n), Outcome::Settled(id))
}

/// Record the request `begin` would record (or find), and nothing else.
fn ask(current: Option<&Entry>, c: &Claim, now: u64) -> Result<Transition, LedgerError> {
    match begin(current, c, now)? {
        t @ Transition { outcome: Outcome::AwaitingApproval(_) | Outcome::Denied(_), .. } => Ok(t),
        _ => ok(None, Outcome::Idle(None)),
    }
}

fn purge(e: &Entry, now: u64) -> Result<Transition, LedgerError> {
    if !matches!(e.state, EntryState::Done | EntryState::Failed | EntryState::Denied) {
        return Err(err(
            LedgerErrorKind::InvalidState,
            Some(e),
            msg!["only settled entries are purged; this one is ", state_name(e.state)],
        ));
    }
    let until = e.updated_at.saturating_add(e.retention_ms);
    if now < until {
        return Err(err(LedgerErrorKind::RetentionNotReached, Some(e), msg!["the entry is kept until ", until]));
    }
    ok(Some(Write::Delete(Removal { scope: e.scope.clone(), key: e.key.clone(), expected_version: e.version })), Outcome::Purged)
}

/// The transition rule (see the module doc and `wit/ledger.wit`).
pub fn handle(current: Option<Entry>, event: Event, now: u64) -> Result<Transition, LedgerError> {
    // By reference below: the entry and the event are dropped once, here.
    handle_ref(current.as_ref(), &event, now)
}

/// [`handle`] on borrowed values: the effect machine's transitions copy neither.
pub fn handle_ref(current: Option<&Entry>, event: &Event, now: u64) -> Result<Transition, LedgerError> {
    match event {
        Event::Begin(c) => begin(current, c, now),
        Event::Heartbeat(t) => heartbeat(existing(current, "heartbeat")?, t, now),
        Event::Complete(c) => complete(existing(current, "complete")?, c, now),
        Event::FailDefinite(f) => fail_definite(existing(current, "fail-definite")?, f, now),
        Event::FailAmbiguous(f) => fail_ambiguous(existing(current, "fail-ambiguous")?, f, now),
        Event::Sweep => sweep(existing(current, "sweep")?, now),
        Event::Reconciled(r) => reconciled(existing(current, "reconciled")?, r, now),
        Event::Resolve(r) => resolve(existing(current, "resolve")?, r, now),
        Event::Purge => purge(existing(current, "purge")?, now),
        Event::CompleteUnrecordable(f) => complete_unrecordable(existing(current, "complete-unrecordable")?, f, now),
        Event::Approve(d) => approve(existing(current, "approve")?, d, now),
        Event::Deny(d) => deny(existing(current, "deny")?, d, now),
        Event::Ask(c) => ask(current, c, now),
    }
}

/// How long in doubt before an entry needs a person, when the caller does not say (ms): 15 min.
pub const DEFAULT_IN_DOUBT_AFTER_MS: u64 = 15 * 60_000;

/// How many rows a page of a listing holds when not told: 100.
pub const DEFAULT_PAGE_SIZE: u32 = 100;

/// `ledger.needs-person`: escalated, in doubt since `needs_person_since` or earlier, or awaiting
/// approval.
pub fn needs_person(e: &Entry, now: u64, in_doubt_after_ms: Option<u64>) -> Option<Attention> {
    match (e.state, e.in_doubt_since, needs_person_since(now, in_doubt_after_ms)) {
        (EntryState::Escalated, _, _) => Some(Attention::Escalated),
        (EntryState::AwaitingApproval, _, _) => Some(Attention::Approval),
        (EntryState::InDoubt, Some(t), Some(by)) if t <= by => Some(Attention::InDoubt),
        _ => None,
    }
}

/// `ledger.needs-person-since`: an in-doubt entry needs a person when in doubt since this time or
/// earlier: `in_doubt_after_ms` (default 15 min) before `now`; none before that much time passed.
pub fn needs_person_since(now: u64, in_doubt_after_ms: Option<u64>) -> Option<u64> {
    now.checked_sub(in_doubt_after_ms.unwrap_or(DEFAULT_IN_DOUBT_AFTER_MS))
}

/// `ledger.asks-approval`: `begin` of `c` on `current` at `now` would wait for a person.
pub fn asks_approval(current: Option<&Entry>, c: &Claim, now: u64) -> bool {
    matches!(begin(current, c, now), Ok(Transition { outcome: Outcome::AwaitingApproval(_), .. }))
}

/// `ledger.decision-of`: the request, approval or denial `e` holds.
pub fn decision_of(e: &Entry) -> Option<HeldDecision> {
    match (e.state, &e.resolved_by, &e.settlement) {
        (EntryState::AwaitingApproval, _, _) => Some(HeldDecision::Asked(approval_request(e))),
        (EntryState::Denied, _, _) => Some(HeldDecision::Denied(denial(e))),
        (state, Some(by), Some(id)) => {
            Some(HeldDecision::Approved(Approval { by: by.clone(), settlement: id.clone(), unused: state == EntryState::Approved }))
        }
        _ => None,
    }
}

/// `ledger.history-decision`: a history record of state `state` with `settlement` notes a
/// person's approval (true) or denial (false).
pub fn history_decision(state: EntryState, settlement: Option<&str>) -> Option<bool> {
    settlement?;
    match state {
        EntryState::Approved => Some(true),
        EntryState::Denied => Some(false),
        _ => None,
    }
}

/// `ledger.attention-since`: since when an entry has needed a person for its reason.
pub fn attention_since(state: EntryState, in_doubt_since: Option<u64>, updated_at: u64) -> u64 {
    in_doubt_since.unwrap_or(if state == EntryState::AwaitingApproval { updated_at } else { 0 })
}

/// `ledger.settleable`: the states `resolve` accepts.
pub fn settleable(s: EntryState) -> bool {
    matches!(s, EntryState::InDoubt | EntryState::Escalated)
}

impl Guest for crate::Core {
    fn prepare(intent: Intent, policy: ToolPolicy, owner: String) -> Result<Claim, KeyError> {
        prepare(&intent, &policy, &owner)
    }

    fn needs_person(e: Entry, now: u64, in_doubt_after_ms: Option<u64>) -> Option<Attention> {
        needs_person(&e, now, in_doubt_after_ms)
    }

    fn needs_person_since(now: u64, in_doubt_after_ms: Option<u64>) -> Option<u64> {
        needs_person_since(now, in_doubt_after_ms)
    }

    fn settleable(s: EntryState) -> bool {
        settleable(s)
    }

    fn asks_approval(current: Option<Entry>, claim: Claim, now: u64) -> bool {
        asks_approval(current.as_ref(), &claim, now)
    }

    fn decision_of(e: Entry) -> Option<HeldDecision> {
        decision_of(&e)
    }

    fn history_decision(state: EntryState, settlement: Option<String>) -> Option<bool> {
        history_decision(state, settlement.as_deref())
    }

    fn attention_since(state: EntryState, in_doubt_since: Option<u64>, updated_at: u64) -> u64 {
        attention_since(state, in_doubt_since, updated_at)
    }
}
