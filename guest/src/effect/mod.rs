//! Every ledger job a host runs — an effect, one event, tending a due row, waiting for a key to
//! settle — as a machine that says what to do next: read a row, write one, call the tool or a
//! reconciler, sleep, return, raise. The host does it and says what happened (`next`). The
//! protocol, and the interpreter every host writes, are the doc comment of `wit/effect.wit`.
//!
//! The decisions that used to be written once per host live here, once:
//! - a run executes the tool at most `max-attempts` times (default 3), and a new attempt only
//!   follows a reconciliation's "did not happen";
//! - another worker's live claim is polled every `retry-after-ms` clamped to 5–250 ms, until
//!   `wait-ms` has passed;
//! - recording what the tool did is tried 12 times, 50 ms apart, doubling up to 1 s (7.55 s in
//!   all: a database restart is ridden out) before the run gives up (a result that was not recorded is
//!   left in doubt, to reconciliation);
//! - reconciliation asks the registered reconciler; else, for a `provider-idempotent` tool, calls
//!   it again with the same key; else the outcome stays unknown (sweeps never call the tool);
//! - a pass-through tool's failure is `tool-failed`; a result that cannot be encoded as JSON is
//!   recorded as "happened, result unknown" and raised as `result-not-recorded`, now and on every
//!   repeat;
//! - a tool call starts only before its claim's lease ends (the host checks right before it and
//!   answers `too-late` otherwise: the attempt is recorded as not executed and the run claims
//!   again, 3 times at most: a lease shorter than this worker takes from claim to call would
//!   have it claim forever, so the third ends the run, `tool-failed` naming the lease); it gets
//!   a deadline `max-call-ms` away and is heartbeated every third of the lease;
//! - a reconciler's "did not happen" that comes before the attempt can no longer be in flight
//!   leaves the entry in doubt: the run waits (within `wait-ms`) and asks again;
//! - settled means done or failed; escalated and absent end a wait too;
//! - storage errors end a run before the tool was called (nothing happened), and end a sweep or
//!   purge pass (which is safe to run again);
//! - 64 lost compare-and-swap races in a row end a run (`contention`);
//! - a call awaiting approval raises `awaiting-approval` at once, unless the caller asked to wait
//!   (`approval-wait-ms`): then the row is looked at every second until a person decides or the
//!   wait ends.

#[macro_use]
mod codec;
mod state;

use crate::effect_wit::{
    Action, Busy, Command, CoreDefaults, Doubt, EffectError, EffectOptions, EffectResult, Finish, Input, Keyed, Notice, NoticeKind,
    ReadRequest, ReplayRule, ResultSource, RowWrite, RunAnswer, Step, TendJob, TendNote, ToolCall, VerdictKind, WriteOp,
};
use crate::keys_wit::{Intent, KeyError};
use crate::ledger::{handle_ref, prepare, Transition, Write};
use crate::ledger_wit::{
    Claim, ClaimToken, Completion, Entry, EntryState, Event, Failure, LedgerError, LedgerErrorKind, Outcome, ReconcileRequest,
    ReconcileVerdict, Reconciliation,
};
use crate::policy::uses_ledger;
use crate::policy_wit::{ReconcilePath, ToolPolicy};
use crate::prelude::*;
use crate::text::Q;
use alloc::rc::Rc;

/// How many times a run may execute the tool when the caller does not say.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// How long an effect waits for another worker's live claim when the caller does not say (ms).
pub const DEFAULT_WAIT_MS: u64 = 30_000;
/// How often a wait for a key to settle looks when the caller does not say (ms).
pub const DEFAULT_SETTLE_EVERY_MS: u64 = 50;
/// How long a wait for a key to settle lasts when the caller does not say (ms).
pub const DEFAULT_SETTLE_TIMEOUT_MS: u64 = 30_000;
/// How many due rows a sweep takes from the store at most.
pub const DUE_BATCH: u32 = 10_000;
/// Waiting for a person's decision on a call awaiting approval: the row is looked at this often
/// (ms).
pub const APPROVAL_POLL_MS: u64 = 1_000;
/// Lost compare-and-swap races in a row before a machine gives up.
pub const MAX_RACES: u32 = 64;
/// Calls a run found too late to start (its lease ran out first) before it gives up.
pub const MAX_LATE: u32 = 3;
/// Polling another worker's claim: at least this often (ms)…
pub const POLL_MIN_MS: u64 = 5;
/// … and at most this long between looks (ms).
pub const POLL_MAX_MS: u64 = 250;
/// Tries at recording what the tool did before the run gives up.
pub const RECORD_TRIES: u32 = 12;
/// The pause after the first failed try (ms), doubling after each up to [`RECORD_BACKOFF_MAX_MS`].
pub const RECORD_BACKOFF_MS: u64 = 50;
/// … and at most this long (ms), so that a run notices soon that the database is back.
pub const RECORD_BACKOFF_MAX_MS: u64 = 1_000;

/// The detail of an `in-doubt` event for a lease that ran out.
pub const LEASE_RAN_OUT: &str = "the lease ran out before a result was recorded";

/// The events of the step being computed: decisions taken since the last input, delivered by
/// the host once the step's read and write went through (never kept in the state).
#[derive(Clone, Debug, Default)]
pub(crate) struct Notices(pub(crate) Vec<Notice>);

/// What a machine asks of the host, before it is put into a `step`.
#[derive(Debug)]
pub(crate) enum Act {
    /// Read the row; when it is absent, this write and then this action (without asking again).
    Read(Option<(RowWrite, Action)>),
    /// Write the row, then (once applied) this action.
    Write(RowWrite, Action),
    /// Just this action.
    Do(Action),
}

/// Which job a machine runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Mode {
    Effect,
    Event,
    Tend(TendJob),
    Wait,
}

/// The row as the machine believes it is.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per machine, moved rarely; a box would cost a copy per step
pub(crate) enum Known {
    /// Read it before deciding.
    Unknown,
    /// As last read or written (none: absent).
    Row(Option<Entry>),
}

/// A write the host was asked to apply, and what it means once applied.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    row: Option<Entry>,
    outcome: Outcome,
    /// When the action after the write was decided: the machine decides it again as of then.
    at: u64,
}

/// What the machine is waiting for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Phase {
    Idle,
    Reading,
    Writing,
    CallingTool,
    PassingThrough,
    Reconciling(u32),
    Recalling(u32),
    Sleeping,
}

/// A running machine (its bytes are the `state` the host keeps).
#[derive(Clone, Debug)]
pub(crate) struct Machine {
    mode: Mode,
    scope: String,
    key: String,
    /// The event being applied (shared, as the claim: an effect's first is its claim).
    event: Rc<Event>,
    /// An effect's claim, for `begin` again (shared: the machine is copied for each decision
    /// it tries ahead, and the claim never changes).
    claim: Option<Rc<Claim>>,
    row: Known,
    pending: Option<Pending>,
    phase: Phase,
    /// Effect: when to stop waiting for another worker. Wait: when to stop looking.
    deadline: u64,
    /// Effect: when to stop waiting for a person's decision on a call awaiting approval (0:
    /// never wait).
    approval_deadline: u64,
    every_ms: u64,
    max_attempts: u32,
    has_reconciler: bool,
    executions: u32,
    reconciled: bool,
    /// The last reconciliation called the tool again, and it returned.
    recalled: bool,
    /// The host answered `too-late`: the attempt is being recorded as never executed.
    abandoned: bool,
    /// How many times the host answered `too-late` in this run.
    late: u32,
    races: u32,
    store_failures: u32,
    token: Option<ClaimToken>,
    /// The state the last transition started from.
    before: Option<EntryState>,
    /// Tending: what was done so far.
    note: Option<TendNote>,
    /// The events of the step being computed.
    events: Notices,
}

impl Machine {
    fn new(mode: Mode, scope: String, key: String, event: Event) -> Machine {
        Machine {
            mode,
            scope,
            key,
            event: Rc::new(event),
            claim: None,
            row: Known::Unknown,
            pending: None,
            phase: Phase::Idle,
            deadline: 0,
            approval_deadline: 0,
            every_ms: 0,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            has_reconciler: false,
            executions: 0,
            reconciled: false,
            recalled: false,
            abandoned: false,
            late: 0,
            races: 0,
            store_failures: 0,
            token: None,
            before: None,
            note: None,
            events: Notices::default(),
        }
    }

    /// Apply `event` from the row as known (reading it first when it is not).
    fn apply(&mut self, event: Event, now: u64) -> Act {
        if let (Mode::Tend(_), Event::Reconciled(r)) = (&self.mode, &event) {
            let kind = verdict_kind(&r.verdict);
            self.mark(|n| n.reconciled = Some(kind));
        }
        self.event = Rc::new(event);
        self.apply_current(now)
    }

    fn apply_current(&mut self, now: u64) -> Act {
        match self.row.clone() {
            Known::Row(row) if self.mode != Mode::Wait => self.transition(row, now),
            _ => {
                // Read. Should the row be absent, what to do is known now: the host does it
                // without asking again (a begin or complete event's write). Not for an effect's
                // claim: its read carries the replay rule instead (`replay_rule`), so a replay is
                // one crossing that never builds the claim's insert, its events and its tool call
                // (half of the first step's work); a fresh effect asks once more, with the absent
                // row, and gets them then.
                let mut if_absent = None;
                if self.mode != Mode::Wait && !self.claims() {
                    let mut absent = self.clone();
                    if let Act::Write(w, then) = absent.transition(None, now) {
                        self.pending = absent.pending;
                        self.events = absent.events;
                        if_absent = Some((w, then));
                    }
                }
                self.phase = Phase::Reading;
                Act::Read(if_absent)
            }
        }
    }

    /// An effect's claim: its reads carry a replay rule (`replay_rule`).
    fn claims(&self) -> bool {
        matches!((&self.mode, &*self.event), (Mode::Effect, Event::Begin(_)))
    }

    fn transition(&mut self, row: Option<Entry>, now: u64) -> Act {
        self.before = row.as_ref().map(|e| e.state);
        if let Some(e) = &row {
            let tool = e.tool.clone();
            self.mark(|n| n.tool = tool);
        }
        match handle_ref(row.as_ref(), &self.event, now) {
            Err(e) => self.refused(e, now),
            Ok(Transition { write: None, outcome }) => {
                if let Some(e) = &row {
                    self.found(e, &outcome);
                }
                self.on_outcome(outcome, now)
            }
            Ok(Transition { write: Some(w), outcome: Outcome::Reconcile(_) })
                if matches!(self.mode, Mode::Tend(_)) && !self.has_reconciler =>
            {
                self.leave_reconciliation(w, row, now)
            }
            Ok(Transition { write: Some(w), outcome }) => self.write_step(w, row, outcome, now),
        }
    }

    /// A sweep by a process that has no reconciler for the tool (`oncely serve`, the CLI, an
    /// agent that does not own this tool) leaves the reconciliation to one that has: it does not
    /// take the slot of an in-doubt entry (which would only record "unknown", and change the
    /// entry under a person's eyes), and a lease it finds run out leaves the entry in doubt with
    /// its first reconciliation due at once. Escalation at the deadline still happens.
    fn leave_reconciliation(&mut self, write: Write, row: Option<Entry>, now: u64) -> Act {
        match (self.before, write) {
            (Some(EntryState::Pending), Write::Update(mut u)) => {
                u.entry.reconcile_attempts = 0;
                u.entry.next_reconcile_at = Some(now);
                u.entry.due_at = crate::ledger::due_at(&u.entry);
                self.mark(|n| n.lease_expired = true);
                self.write_step(Write::Update(u), row, Outcome::Recorded(EntryState::InDoubt), now)
            }
            _ => Act::Do(Action::Finish(Finish::Tended(self.note.clone().unwrap_or_else(|| note_for(&self.scope, &self.key, ""))))),
        }
    }

    /// Ask for `write` (computed from `current`); what follows once it applied is decided now,
    /// so that the host does it without asking again when it can.
    fn write_step(&mut self, write: Write, current: Option<Entry>, outcome: Outcome, now: u64) -> Act {
        let (w, row) = match write {
            Write::Insert(e) => {
                let claims = e.state == EntryState::Pending;
                (RowWrite { op: WriteOp::Insert, row: e.clone(), expected_version: 0, history: true, claims }, Some(e))
            }
            Write::Update(u) => {
                let history =
                    current.as_ref().is_none_or(|c| crate::ledger::kept_in_history(c) != crate::ledger::kept_in_history(&u.entry));
                // A write that leaves a new attempt's claim: the tool is called under it.
                let claims = history && u.entry.state == EntryState::Pending;
                let w = RowWrite { op: WriteOp::Update, row: u.entry.clone(), expected_version: u.expected_version, history, claims };
                (w, Some(u.entry))
            }
            Write::Delete(d) => match &current {
                Some(gone) => {
                    let w = RowWrite {
                        op: WriteOp::Delete,
                        row: gone.clone(),
                        expected_version: d.expected_version,
                        history: false,
                        claims: false,
                    };
                    (w, None)
                }
                None => return Act::Do(host_error(self.phase, &Input::Written)),
            },
        };
        self.wrote(current.as_ref(), row.as_ref(), &outcome);
        let mut applied = self.clone();
        applied.row = Known::Row(row.clone());
        applied.pending = None;
        let then = match applied.on_outcome(outcome.clone(), now) {
            Act::Do(a) => {
                // The decisions that lead to it come with the write's (a finish, a raise).
                self.events = applied.events;
                a
            }
            Act::Read(_) | Act::Write(..) => Action::Report,
        };
        self.pending = Some(Pending { row, outcome, at: now });
        self.phase = Phase::Writing;
        Act::Write(w, then)
    }

    /// What the host did.
    fn input(&mut self, input: Input, now: u64) -> Act {
        match input {
            Input::LostRace if self.pending.is_some() => return self.lost_race(now),
            Input::StoreFailed(why) if matches!(self.phase, Phase::Reading | Phase::Writing) => return self.store_failed(why, now),
            Input::Row(row) if self.phase == Phase::Reading => {
                self.pending = None;
                self.row = Known::Row(row);
                return self.on_row(now);
            }
            _ => {}
        }
        // Any other answer means the write applied: the host reports it (`written`) or went on
        // with the action that followed it.
        if let Some(p) = self.pending.take() {
            self.row = Known::Row(p.row);
            self.races = 0;
            // As of when the action was decided (a sleep's wake-up must find the machine asleep).
            let next = self.on_outcome(p.outcome, if matches!(input, Input::Written) { now } else { p.at });
            if matches!(input, Input::Written) {
                return next;
            }
            // Decided again only to be where the host is: its events came with the last step.
            self.events.0.clear();
        }
        let token = || ClaimToken { attempt: 0, owner: String::new() };
        match (self.phase, input) {
            (Phase::CallingTool, Input::ToolReturned(result_json)) => {
                let token = self.token.clone().unwrap_or_else(token);
                self.apply(Event::Complete(Completion { token, result_json }), now)
            }
            (Phase::CallingTool, Input::ToolUnencodable(why)) => {
                let token = self.token.clone().unwrap_or_else(token);
                let reason = msg!["the tool's result cannot be encoded as JSON: ", why];
                self.apply(Event::CompleteUnrecordable(Failure { token, reason }), now)
            }
            (Phase::CallingTool, Input::TooLate) => {
                // The host did not call the tool: the lease had run out before the call could
                // start. Nothing happened; say so (unless the claim has moved on), then claim again.
                self.executions = self.executions.saturating_sub(1);
                self.abandoned = true;
                self.late += 1;
                let token = self.token.clone().unwrap_or_else(token);
                let mut reason = msg!["attempt ", token.attempt, " not called: its lease ran out"];
                if self.late >= MAX_LATE {
                    // Claiming again would only find the lease run out again: the run ends.
                    let lease = self.current().map_or(0, |e| e.lease_ms);
                    reason.push_str(&msg![
                        " (",
                        MAX_LATE,
                        " times in this run: leaseMs ",
                        lease,
                        " is shorter than this worker takes from claim to call)"
                    ]);
                }
                self.apply(Event::FailDefinite(Failure { token, reason }), now)
            }
            (Phase::CallingTool, Input::Abandoned) => {
                let token = self.token.clone().unwrap_or_else(token);
                let limit = self.current().map_or(0, |e| e.max_call_ms);
                let reason = msg!["the call did not return within the policy's maxCallMs (", limit, " ms); abandoned at its deadline"];
                self.apply(Event::FailAmbiguous(Failure { token, reason }), now)
            }
            (Phase::CallingTool, Input::ToolFailed(f)) => {
                let failure = Failure { token: self.token.clone().unwrap_or_else(token), reason: f.reason };
                self.apply(if f.definite { Event::FailDefinite(failure) } else { Event::FailAmbiguous(failure) }, now)
            }
            (Phase::PassingThrough, Input::ToolReturned(_) | Input::ToolUnencodable(_)) => {
                self.finish_effect(ResultSource::ToolValue, false)
            }
            (Phase::PassingThrough, Input::ToolFailed(f)) => raise(EffectError::ToolFailed(f.reason)),
            (Phase::Reconciling(attempt), Input::Verdict(verdict)) => {
                self.apply(Event::Reconciled(Reconciliation { attempt, verdict }), now)
            }
            (Phase::Reconciling(attempt), Input::NoReconciler) => {
                let verdict = ReconcileVerdict::Unknown(no_reconciler(&self.tool(), false));
                self.apply(Event::Reconciled(Reconciliation { attempt, verdict }), now)
            }
            (Phase::Reconciling(attempt), Input::ReconcilerFailed(why)) => {
                let verdict = ReconcileVerdict::Unknown(msg!["the reconciler failed: ", why]);
                self.apply(Event::Reconciled(Reconciliation { attempt, verdict }), now)
            }
            (Phase::Recalling(attempt), Input::ToolReturned(result)) => {
                self.recalled = true;
                self.apply(Event::Reconciled(Reconciliation { attempt, verdict: ReconcileVerdict::Happened(result) }), now)
            }
            (Phase::Recalling(attempt), Input::ToolFailed(f)) => {
                let verdict = if f.definite { ReconcileVerdict::NotHappened } else { ReconcileVerdict::Unknown(f.reason) };
                self.apply(Event::Reconciled(Reconciliation { attempt, verdict }), now)
            }
            (Phase::Recalling(attempt), Input::ToolUnencodable(why)) => {
                let verdict =
                    ReconcileVerdict::Unknown(msg!["called again, the tool returned a value that cannot be encoded as JSON: ", why]);
                self.apply(Event::Reconciled(Reconciliation { attempt, verdict }), now)
            }
            (Phase::Sleeping, Input::Woke) => {
                self.row = Known::Unknown;
                self.apply_current(now)
            }
            (phase, input) => Act::Do(host_error(phase, &input)),
        }
    }

    fn on_row(&mut self, now: u64) -> Act {
        let Known::Row(row) = self.row.clone() else { return self.apply_current(now) };
        if self.mode != Mode::Wait {
            return self.transition(row, now);
        }
        let settled = row.as_ref().is_none_or(|e| matches!(e.state, EntryState::Done | EntryState::Failed | EntryState::Escalated));
        if settled || now >= self.deadline {
            return Act::Do(Action::Finish(Finish::Waited));
        }
        self.phase = Phase::Sleeping;
        Act::Do(Action::SleepUntil(now.saturating_add(self.every_ms).min(self.deadline)))
    }

    fn lost_race(&mut self, now: u64) -> Act {
        self.pending = None;
        self.row = Known::Unknown;
        self.races += 1;
        if self.races >= MAX_RACES {
            return raise(EffectError::Contention(self.races));
        }
        self.apply_current(now)
    }

    fn store_failed(&mut self, why: String, now: u64) -> Act {
        self.pending = None;
        self.row = Known::Unknown;
        let recording = self.mode == Mode::Effect
            && matches!(
                *self.event,
                Event::Complete(_)
                    | Event::CompleteUnrecordable(_)
                    | Event::FailDefinite(_)
                    | Event::FailAmbiguous(_)
                    | Event::Reconciled(_)
            );
        if recording {
            // The tool has run: what it did must not be lost to one storage hiccup.
            self.store_failures += 1;
            if self.store_failures < RECORD_TRIES {
                self.phase = Phase::Sleeping;
                return Act::Do(Action::SleepUntil(
                    now.saturating_add((RECORD_BACKOFF_MS << (self.store_failures - 1)).min(RECORD_BACKOFF_MAX_MS)),
                ));
            }
            if matches!(*self.event, Event::Complete(_) | Event::CompleteUnrecordable(_)) {
                return raise(EffectError::InDoubt(Doubt {
                    key: self.key.clone(),
                    reason: msg!["the tool succeeded but its result could not be recorded (", why, "); the entry will be reconciled"],
                    retry_after_ms: None,
                }));
            }
        }
        raise(EffectError::Storage(why))
    }

    fn refused(&mut self, e: LedgerError, now: u64) -> Act {
        if self.abandoned {
            // Another worker has taken the claim over since: ask again as a newcomer.
            self.abandoned = false;
            return self.begin_again(now);
        }
        Act::Do(match (&self.mode, self.note.as_mut()) {
            (Mode::Tend(_), Some(note)) => {
                note.skipped = Some(e.message);
                Action::Finish(Finish::Tended(note.clone()))
            }
            _ => Action::Raise(EffectError::Ledger(e)),
        })
    }

    fn on_outcome(&mut self, o: Outcome, now: u64) -> Act {
        match self.mode {
            Mode::Effect => self.effect_outcome(o, now),
            Mode::Event => Act::Do(Action::Finish(Finish::Event(o))),
            Mode::Tend(_) => self.tend_outcome(o, now),
            Mode::Wait => Act::Do(host_error(self.phase, &Input::Written)),
        }
    }

    fn effect_outcome(&mut self, o: Outcome, now: u64) -> Act {
        match o {
            Outcome::Execute(token) => {
                self.executions += 1;
                self.token = Some(token.clone());
                self.phase = Phase::CallingTool;
                let call = match self.current() {
                    Some(e) => ToolCall {
                        scope: self.scope.clone(),
                        key: self.key.clone(),
                        token: Some(token),
                        not_after: Some(e.lease_until),
                        deadline: Some(now.saturating_add(e.max_call_ms)),
                        heartbeat_ms: Some((e.lease_ms / 3).max(1)),
                    },
                    None => return Act::Do(host_error(self.phase, &Input::Written)),
                };
                Act::Do(Action::CallTool(call))
            }
            Outcome::PassThrough => {
                self.phase = Phase::PassingThrough;
                Act::Do(Action::CallTool(pass_through_call(&self.scope, &self.key)))
            }
            Outcome::Replay(r) => match self.current() {
                Some(e) if e.result_json.is_none() => self.not_recorded(),
                _ => self.finish_effect(ResultSource::Recorded(r.result_json), true),
            },
            // An entry in doubt whose next reconciliation is not due yet has no holder (its
            // attempt's owner is gone): its outcome is unknown. A caller that could not reconcile
            // it when it is due (no reconciler here, not a provider-idempotent tool to call again)
            // has nothing to wait for: it is told so at once, with when the reconciliation is due.
            // One that could waits for it, as for a live claim, and is told the same at its
            // deadline. Every caller of an in-doubt entry gets `in-doubt`.
            Outcome::InProgress(p)
                if p.state == EntryState::InDoubt
                    && (now >= self.deadline
                        || (!self.has_reconciler && !self.current().is_some_and(|e| e.reconcile == ReconcilePath::ProviderIdempotent))) =>
            {
                let reason = self.current().and_then(|e| e.reason.clone()).unwrap_or_default();
                raise(EffectError::InDoubt(Doubt { key: self.key.clone(), reason, retry_after_ms: Some(p.retry_after_ms) }))
            }
            Outcome::InProgress(p) => {
                if now >= self.deadline {
                    return raise(EffectError::InProgress(Busy {
                        key: self.key.clone(),
                        owner: p.owner,
                        retry_after_ms: p.retry_after_ms,
                    }));
                }
                self.poll(p.retry_after_ms, now)
            }
            Outcome::Reconcile(q) => {
                self.reconciled = true;
                self.reconcile(q, true, now)
            }
            Outcome::Escalated(x) => raise(EffectError::Escalated(Keyed { key: self.key.clone(), reason: x.reason })),
            Outcome::Conflict(c) => raise(EffectError::Conflict(c)),
            Outcome::AwaitingApproval(_) if now < self.approval_deadline => {
                // Asked to wait for the person: look again every second, until the limit. The
                // time spent waiting for them is not taken from the wait for another worker.
                let wake = now.saturating_add(APPROVAL_POLL_MS).min(self.approval_deadline);
                self.deadline = self.deadline.saturating_add(wake - now);
                self.phase = Phase::Sleeping;
                Act::Do(Action::SleepUntil(wake))
            }
            Outcome::AwaitingApproval(r) => raise(EffectError::AwaitingApproval(r)),
            Outcome::Denied(d) => raise(EffectError::Denied(d)),
            Outcome::Recorded(state) => self.recorded(state, now),
            Outcome::Purged | Outcome::Idle(_) | Outcome::Settled(_) => self.begin_again(now),
        }
    }

    /// Look again after `retry_after_ms` (within the polling bounds), or at the deadline.
    fn poll(&mut self, retry_after_ms: u64, now: u64) -> Act {
        self.phase = Phase::Sleeping;
        Act::Do(Action::SleepUntil(now.saturating_add(retry_after_ms.clamp(POLL_MIN_MS, POLL_MAX_MS)).min(self.deadline)))
    }

    /// An effect's event was recorded; the entry is now in `state`.
    fn recorded(&mut self, state: EntryState, now: u64) -> Act {
        match (&*self.event, state) {
            (Event::Complete(_), _) => self.finish_effect(ResultSource::ToolValue, false),
            (Event::CompleteUnrecordable(_), _) => self.not_recorded(),
            (Event::FailDefinite(_), _) if self.abandoned && self.late < MAX_LATE => {
                self.abandoned = false;
                self.begin_again(now)
            }
            (Event::FailDefinite(f), _) => raise(EffectError::ToolFailed(f.reason.clone())),
            (Event::Reconciled(Reconciliation { verdict: ReconcileVerdict::NotHappened, .. }), EntryState::InDoubt) => {
                // Not believed yet: the attempt may still be in flight. Wait and ask again, if
                // the run may wait that long.
                match self.current() {
                    Some(e) if e.next_reconcile_at.is_some_and(|t| t > self.deadline) => {
                        let reason = e.reason.clone().unwrap_or_default();
                        raise(self.unknown(reason, now))
                    }
                    _ => self.begin_again(now),
                }
            }
            (Event::Reconciled(r), EntryState::InDoubt) => {
                let reason = match &r.verdict {
                    ReconcileVerdict::Unknown(why) => why.clone(),
                    _ => String::new(),
                };
                raise(self.unknown(reason, now))
            }
            (Event::Reconciled(_), EntryState::Failed) if self.executions >= self.max_attempts => {
                raise(EffectError::ToolFailed(msg!["the effect did not happen after ", self.executions, " attempt(s)"]))
            }
            (Event::Reconciled(_), EntryState::Done) if self.recalled => self.finish_effect(ResultSource::ToolValue, false),
            (Event::Reconciled(_), EntryState::Done) => match self.current() {
                Some(Entry { result_json: Some(json), .. }) => {
                    let json = json.clone();
                    self.finish_effect(ResultSource::Recorded(json), true)
                }
                _ => self.begin_again(now),
            },
            // A new attempt, or someone else settled it meanwhile: ask again.
            _ => self.begin_again(now),
        }
    }

    /// The tool of the entry this machine works on (its row as last seen, else its claim).
    fn tool(&self) -> String {
        match (&self.row, &self.claim) {
            (Known::Row(Some(e)), _) => e.tool.clone(),
            (_, Some(c)) => c.tool.clone(),
            _ => String::new(),
        }
    }

    fn begin_again(&mut self, now: u64) -> Act {
        match self.claim.clone() {
            Some(c) => self.apply(Event::Begin(Claim::clone(&c)), now),
            None => Act::Do(host_error(self.phase, &Input::Woke)),
        }
    }

    /// Find out what happened to `q.attempt`: the registered reconciler; else, when `may_recall`
    /// and the provider deduplicates by key, the same call again; else it stays unknown.
    fn reconcile(&mut self, q: ReconcileRequest, may_recall: bool, now: u64) -> Act {
        if self.has_reconciler {
            self.phase = Phase::Reconciling(q.attempt);
            return Act::Do(Action::CallReconciler(q));
        }
        if may_recall && q.path == ReconcilePath::ProviderIdempotent {
            self.phase = Phase::Recalling(q.attempt);
            return Act::Do(Action::RecallTool(q.key));
        }
        let why = no_reconciler(&q.tool, may_recall);
        let attempt = q.attempt;
        self.apply(Event::Reconciled(Reconciliation { attempt, verdict: ReconcileVerdict::Unknown(why) }), now)
    }

    fn tend_outcome(&mut self, o: Outcome, now: u64) -> Act {
        let lease_expired = self.before == Some(EntryState::Pending);
        match o {
            Outcome::Reconcile(q) => {
                self.mark(|n| n.lease_expired |= lease_expired);
                return self.reconcile(q, false, now);
            }
            Outcome::Escalated(x) => self.mark(|n| {
                n.lease_expired |= lease_expired;
                n.escalated = Some(x.reason);
            }),
            Outcome::Purged => self.mark(|n| n.purged = true),
            // A "did not happen" that was not believed yet: still unknown.
            Outcome::Recorded(EntryState::InDoubt) => self.mark(|n| {
                if n.reconciled == Some(VerdictKind::NotHappened) {
                    n.reconciled = Some(VerdictKind::Unknown);
                }
            }),
            _ => {}
        }
        let note = self.note.clone().unwrap_or_else(|| note_for(&self.scope, &self.key, ""));
        Act::Do(Action::Finish(Finish::Tended(note)))
    }

    fn notice(&mut self, kind: NoticeKind, e: &Entry, detail: String) {
        self.events.0.push(Notice { kind, scope: e.scope.clone(), key: e.key.clone(), tool: e.tool.clone(), detail });
    }

    /// The events of a decision that writes nothing: a replay, a conflict, an escalated entry
    /// found by `begin`.
    fn found(&mut self, e: &Entry, o: &Outcome) {
        match o {
            Outcome::Replay(_) if e.result_json.is_some() => self.notice(NoticeKind::Replayed, e, String::new()),
            Outcome::Conflict(c) => self.notice(NoticeKind::Conflict, e, msg!["first difference at ", Q(&c.pointer)]),
            Outcome::Escalated(x) if matches!(*self.event, Event::Begin(_)) => self.notice(NoticeKind::Escalated, e, x.reason.clone()),
            _ => {}
        }
    }

    /// The events of a write (from `before` to `after`, with `outcome`), true once it applied.
    fn wrote(&mut self, before: Option<&Entry>, after: Option<&Entry>, o: &Outcome) {
        let Some(e) = after.or(before) else { return };
        let (was, is) = (before.map(|b| b.state), after.map(|a| a.state));
        if let Outcome::Execute(t) = o {
            self.notice(NoticeKind::Claimed, e, msg!["attempt ", t.attempt, " by ", t.owner]);
        }
        if was == Some(EntryState::Pending) && matches!(is, Some(EntryState::InDoubt | EntryState::Escalated)) {
            let why = match &*self.event {
                Event::FailAmbiguous(f) => f.reason.clone(),
                _ => LEASE_RAN_OUT.into(),
            };
            self.notice(NoticeKind::InDoubt, e, why);
        }
        match (&*self.event, o) {
            (Event::Complete(c), _) => self.notice(NoticeKind::Executed, e, msg!["attempt ", c.token.attempt]),
            (Event::Reconciled(_), _) => {
                let found = match is {
                    Some(EntryState::Done) => "happened",
                    Some(EntryState::Failed) => "not-happened",
                    _ => "unknown",
                };
                self.notice(NoticeKind::Reconciled, e, found.into());
            }
            (Event::Resolve(r), Outcome::Settled(id)) => {
                let verdict = if is == Some(EntryState::Done) { "happened" } else { "did not happen" };
                self.notice(NoticeKind::Resolved, e, msg![id, " by ", r.by, ": ", verdict]);
            }
            (Event::Approve(d), Outcome::Settled(id)) => self.notice(NoticeKind::Approved, e, msg![id, " by ", d.by]),
            (Event::Deny(d), Outcome::Settled(id)) => self.notice(NoticeKind::Denied, e, msg![id, " by ", d.by, ": ", d.note]),
            _ => {}
        }
        if is == Some(EntryState::AwaitingApproval) && was != Some(EntryState::AwaitingApproval) {
            self.notice(NoticeKind::AwaitingApproval, e, e.args_canonical.clone());
        }
        if is == Some(EntryState::Escalated) && was != Some(EntryState::Escalated) {
            self.notice(NoticeKind::Escalated, e, e.reason.clone().unwrap_or_default());
        }
    }

    fn mark(&mut self, f: impl FnOnce(&mut TendNote)) {
        if let Some(n) = self.note.as_mut() {
            f(n);
        }
    }

    fn current(&self) -> Option<&Entry> {
        match &self.row {
            Known::Row(Some(e)) => Some(e),
            _ => None,
        }
    }

    /// `in-doubt` for the entry as last read: `reason`, and when its next reconciliation is due.
    fn unknown(&self, reason: String, now: u64) -> EffectError {
        let retry_after_ms = self.current().and_then(|e| e.next_reconcile_at).map(|t| t.saturating_sub(now));
        EffectError::InDoubt(Doubt { key: self.key.clone(), reason, retry_after_ms })
    }

    fn not_recorded(&self) -> Act {
        let reason = self.current().and_then(|e| e.reason.clone()).unwrap_or_default();
        raise(EffectError::ResultNotRecorded(Keyed { key: self.key.clone(), reason }))
    }

    fn finish_effect(&self, source: ResultSource, replayed: bool) -> Act {
        Act::Do(Action::Finish(Finish::Effect(EffectResult { key: self.key.clone(), source, replayed, reconciled: self.reconciled })))
    }
}

/// A pass-through tool's call: no claim, no limits.
fn pass_through_call(scope: &str, key: &str) -> ToolCall {
    ToolCall { scope: scope.to_string(), key: key.to_string(), token: None, not_after: None, deadline: None, heartbeat_ms: None }
}

fn raise(e: EffectError) -> Act {
    Act::Do(Action::Raise(e))
}

fn verdict_kind(v: &ReconcileVerdict) -> VerdictKind {
    match v {
        ReconcileVerdict::Happened(_) => VerdictKind::Happened,
        ReconcileVerdict::NotHappened => VerdictKind::NotHappened,
        ReconcileVerdict::Unknown(_) => VerdictKind::Unknown,
    }
}

fn note_for(scope: &str, key: &str, tool: &str) -> TendNote {
    TendNote {
        scope: scope.into(),
        key: key.into(),
        tool: tool.into(),
        lease_expired: false,
        reconciled: None,
        escalated: None,
        purged: false,
        skipped: None,
    }
}

fn input_name(i: &Input) -> &'static str {
    match i {
        Input::Row(_) => "row",
        Input::Written => "written",
        Input::LostRace => "lost-race",
        Input::StoreFailed(_) => "store-failed",
        Input::ToolReturned(_) => "tool-returned",
        Input::ToolUnencodable(_) => "tool-unencodable",
        Input::ToolFailed(_) => "tool-failed",
        Input::Verdict(_) => "verdict",
        Input::NoReconciler => "no-reconciler",
        Input::ReconcilerFailed(_) => "reconciler-failed",
        Input::Woke => "woke",
        Input::TooLate => "too-late",
        Input::Abandoned => "abandoned",
        Input::Start(_) => "start",
    }
}

/// Why an outcome stays unknown when no reconciler answered.
fn no_reconciler(tool: &str, may_recall: bool) -> String {
    if may_recall {
        msg!["no reconciler is registered for ", Q(tool), ", and it is not provider-idempotent"]
    } else {
        msg!["no reconciler is registered for ", Q(tool), " in this process"]
    }
}

/// A host sent an input the last action does not call for: a bug in the host.
fn host_error(_: Phase, i: &Input) -> Action {
    Action::Raise(EffectError::Ledger(LedgerError {
        kind: LedgerErrorKind::InvalidRequest,
        state: None,
        message: msg!["the host sent ", input_name(i), " out of turn"],
    }))
}

fn step(m: &mut Machine, act: Act) -> Step {
    let events = core::mem::take(&mut m.events.0);
    let (read, write, action) = match act {
        Act::Read(None) => (true, None, Action::Report),
        Act::Read(Some((w, then))) => (true, Some(w), then),
        Act::Write(w, then) => (false, Some(w), then),
        Act::Do(a) => (false, None, a),
    };
    let ended = !read && write.is_none() && matches!(action, Action::Finish(_) | Action::Raise(_));
    Step {
        state: if ended { Vec::new() } else { state::encode(m) },
        read: read.then(|| ReadRequest { scope: m.scope.clone(), key: m.key.clone() }),
        replay: if read { replay_rule(m) } else { None },
        // A step that only reads is never done as such (the host sends the row): no events.
        events: if read && write.is_none() { Vec::new() } else { events },
        write,
        action,
    }
}

/// What an effect's read answers without the core (a replay in one crossing): exactly what
/// `begin` on the recorded `done` row of the same intent decides (`handle`: a replay; `found`:
/// its event; `effect_outcome`: the recorded result, as this run stands).
fn replay_rule(m: &Machine) -> Option<ReplayRule> {
    match (&m.mode, &*m.event) {
        (Mode::Effect, Event::Begin(c)) => {
            Some(rule_of(c.scope.clone(), c.key.clone(), c.tool.clone(), c.fingerprint.clone(), m.reconciled))
        }
        _ => None,
    }
}

/// The replay rule of a claim of `tool` on `(scope, key)` whose arguments have `fingerprint`.
fn rule_of(scope: String, key: String, tool: String, fingerprint: String, reconciled: bool) -> ReplayRule {
    ReplayRule {
        state: EntryState::Done,
        fingerprint,
        tool: tool.clone(),
        reconciled,
        event: Notice { kind: NoticeKind::Replayed, scope, key, tool, detail: String::new() },
    }
}

/// `effect.run` with `start(effect(…))`.
///
/// An effect under the ledger starts by reading its row, and that first step is all a replay
/// needs (its replay rule answers the recorded row): it is made without the machine. Its state
/// is the claim, the options and the clock (`state::encode_begun`), from which the machine is
/// built on the next step exactly as [`effect_machine`] builds it here for a pass-through.
pub fn start_effect(intent: &Intent, policy: &ToolPolicy, options: &EffectOptions, now: u64) -> Result<Step, KeyError> {
    let claim = prepare(intent, policy, &options.owner)?;
    if !uses_ledger(policy.class) {
        let (mut m, act) = effect_machine(claim, options, now);
        return Ok(step(&mut m, act));
    }
    let state = state::encode_begun(&claim, options, now);
    let Claim { scope, tool, key, fingerprint, .. } = claim;
    let read = ReadRequest { scope: scope.clone(), key: key.clone() };
    // What `step` makes of the machine's first act, a read (`Act::Read(None)`): no events, no
    // write, a report; the rule a fresh machine's `replay_rule` gives (nothing reconciled yet).
    // `tests::the_first_step_is_the_machines_first_step` holds the two equal.
    Ok(Step {
        state,
        read: Some(read),
        replay: Some(rule_of(scope, key, tool, fingerprint, false)),
        write: None,
        events: Vec::new(),
        action: Action::Report,
    })
}

/// The machine of an effect whose claim is `claim`, and what it does first.
fn effect_machine(claim: Claim, options: &EffectOptions, now: u64) -> (Machine, Act) {
    let mut m = Machine::new(Mode::Effect, claim.scope.clone(), claim.key.clone(), Event::Begin(claim.clone()));
    let uses = uses_ledger(claim.policy.class);
    m.claim = Some(Rc::new(claim));
    m.max_attempts = if options.max_attempts == 0 { DEFAULT_MAX_ATTEMPTS } else { options.max_attempts };
    m.deadline = now.saturating_add(options.wait_ms.unwrap_or(DEFAULT_WAIT_MS));
    m.approval_deadline = match options.approval_wait_ms {
        Some(ms) if ms > 0 => now.saturating_add(ms),
        _ => 0,
    };
    m.has_reconciler = options.has_reconciler;
    let act = if uses {
        m.apply_current(now)
    } else {
        m.phase = Phase::PassingThrough;
        Act::Do(Action::CallTool(pass_through_call(&m.scope, &m.key)))
    };
    (m, act)
}

/// `effect.run` with `start(event(…))`.
pub fn start_event(scope: String, key: String, event: Event, now: u64) -> Step {
    let mut m = Machine::new(Mode::Event, scope, key, event);
    let act = m.apply_current(now);
    step(&mut m, act)
}

/// `effect.run` with `start(tend(…))`.
pub fn start_tend(scope: String, key: String, job: TendJob, has_reconciler: bool, now: u64) -> Step {
    let event = match job {
        TendJob::Sweep => Event::Sweep,
        TendJob::Purge => Event::Purge,
    };
    let mut m = Machine::new(Mode::Tend(job), scope, key, event);
    m.note = Some(note_for(&m.scope, &m.key, ""));
    m.has_reconciler = has_reconciler;
    let act = m.apply_current(now);
    step(&mut m, act)
}

/// `effect.run` with `start(wait(…))`.
pub fn start_wait(scope: String, key: String, every_ms: Option<u64>, timeout_ms: Option<u64>, now: u64) -> Step {
    let every_ms = every_ms.unwrap_or(DEFAULT_SETTLE_EVERY_MS);
    let timeout_ms = timeout_ms.unwrap_or(DEFAULT_SETTLE_TIMEOUT_MS);
    let mut m = Machine::new(Mode::Wait, scope, key, Event::Sweep);
    m.every_ms = every_ms.max(1);
    m.deadline = now.saturating_add(timeout_ms);
    let act = m.apply_current(now);
    step(&mut m, act)
}

/// `effect.run` with any other input: the next step of the machine `state` holds.
pub fn next(state: &[u8], input: Input, now: u64) -> Step {
    let machine = match state::decode_begun(state) {
        // The first step of an effect's claim (`start_effect`): its machine, as it stood then.
        Some((claim, options, then)) => Some(effect_machine(claim, &options, then).0),
        None => state::decode(state),
    };
    match machine {
        Some(mut m) => {
            let act = m.input(input, now);
            step(&mut m, act)
        }
        None => refused("the host sent a state this core did not write"),
    }
}

/// A last step that raises `ledger(invalid-request)`: the host sent what no core wrote.
fn refused(why: &str) -> Step {
    Step {
        state: Vec::new(),
        read: None,
        replay: None,
        write: None,
        events: Vec::new(),
        action: Action::Raise(EffectError::Ledger(LedgerError { kind: LedgerErrorKind::InvalidRequest, state: None, message: why.into() })),
    }
}

/// For the fuzz targets (feature `fuzzing`): the machine `state` holds, encoded again; `None`
/// when this core did not write `state`. A state the core wrote must come back byte for byte.
#[cfg(feature = "fuzzing")]
pub fn state_round_trip(state: &[u8]) -> Option<Vec<u8>> {
    if let Some((claim, options, now)) = state::decode_begun(state) {
        return Some(state::encode_begun(&claim, &options, now));
    }
    state::decode(state).map(|m| state::encode(&m))
}

/// `effect.run`.
pub fn run(state: &[u8], input: Input, now: u64) -> Result<Step, KeyError> {
    match input {
        Input::Start(Command::Effect(s)) => start_effect(&s.intent, &s.policy, &s.options, now),
        Input::Start(Command::Event(s)) => Ok(start_event(s.scope, s.key, s.event, now)),
        Input::Start(Command::Tend(s)) => Ok(start_tend(s.scope, s.key, s.job, s.has_reconciler, now)),
        Input::Start(Command::Wait(s)) => Ok(start_wait(s.scope, s.key, s.every_ms, s.timeout_ms, now)),
        input => Ok(next(state, input, now)),
    }
}

/// `effect.run` as the component exports it: a `run-call`'s bytes in, a `run-answer`'s out, in
/// the core's encoding (`codec.rs`); bytes that are not a `run-call` are answered with a step
/// that raises `ledger(invalid-request)`.
pub fn run_bytes(call: &[u8]) -> Vec<u8> {
    codec::encode_answer(&match codec::decode_call(call) {
        Some(c) => match run(&c.state, c.input, c.now) {
            Ok(step) => RunAnswer::Step(step),
            Err(e) => RunAnswer::KeyError(e),
        },
        None => RunAnswer::Step(refused("the host sent bytes that are not a run-call")),
    })
}

/// `effect.defaults`.
pub fn defaults() -> CoreDefaults {
    CoreDefaults {
        wait_ms: DEFAULT_WAIT_MS,
        max_attempts: DEFAULT_MAX_ATTEMPTS,
        settle_every_ms: DEFAULT_SETTLE_EVERY_MS,
        settle_timeout_ms: DEFAULT_SETTLE_TIMEOUT_MS,
        due_batch: DUE_BATCH,
        in_doubt_after_ms: crate::ledger::DEFAULT_IN_DOUBT_AFTER_MS,
        page_size: crate::ledger::DEFAULT_PAGE_SIZE,
        provider_wait_ms: 0,
        provider_max_body: 1 << 20,
        policy: crate::policy::default_policy(crate::policy_wit::EffectClass::IrreversibleExternal),
    }
}

impl crate::effect_wit::Guest for crate::Core {
    fn defaults() -> CoreDefaults {
        defaults()
    }

    fn run(call: Vec<u8>) -> Vec<u8> {
        run_bytes(&call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy_wit::EffectClass;

    /// `start_effect` makes an effect's first step without the machine; it must be the step the
    /// machine makes (its state aside, which holds the claim instead of the machine), and the
    /// machine made from that state on the next step must be the machine of then.
    #[test]
    fn the_first_step_is_the_machines_first_step() {
        let intent = Intent {
            scope: "acme".into(),
            run_id: "run-7".into(),
            step_id: "refund-1".into(),
            tool: "refund".into(),
            args_json: r#"{"charge_id":"ch_1","amount":500}"#.into(),
        };
        for class in [EffectClass::IrreversibleExternal, EffectClass::AccumulatingWrite, EffectClass::ReadOnly] {
            let policy = crate::policy::default_policy(class);
            for options in [
                EffectOptions { owner: "w1".into(), max_attempts: 0, wait_ms: None, has_reconciler: false, approval_wait_ms: None },
                EffectOptions {
                    owner: "w2".into(),
                    max_attempts: 5,
                    wait_ms: Some(0),
                    has_reconciler: true,
                    approval_wait_ms: Some(5_000),
                },
            ] {
                let first = start_effect(&intent, &policy, &options, 1_000).unwrap();
                let claim = prepare(&intent, &policy, &options.owner).unwrap();
                let (mut m, act) = effect_machine(claim, &options, 1_000);
                let made = step(&mut m, act);
                if !uses_ledger(policy.class) {
                    // A pass-through is the machine's own first step, state and all.
                    assert_eq!(first, made, "{class:?}");
                    continue;
                }
                assert_eq!(
                    (&first.read, &first.replay, &first.write, &first.events, &first.action),
                    (&made.read, &made.replay, &made.write, &made.events, &made.action)
                );
                assert_eq!(state::decode(&made.state).map(|m| state::encode(&m)), Some(made.state.clone()));
                let (claim, again, then) = state::decode_begun(&first.state).expect("the first step's state");
                let (rebuilt, _) = effect_machine(claim, &again, then);
                assert_eq!(state::encode(&rebuilt), made.state, "the machine made from the first step's state");
            }
        }
    }
}
