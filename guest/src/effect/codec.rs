//! The core's encoding of its values as bytes, one format for two uses:
//!
//! - **the crossing** (`effect.run`): a `run-call` in, a `run-answer` out, plain (the format is
//!   `wit/effect.wit`'s, at `run`: LEB128 integers, length-prefixed strings and lists, a byte for
//!   options and booleans, a case index for enums and variants, record fields in WIT order —
//!   postcard's wire format, which the Rust host decodes with postcard);
//! - **a machine's state** (`state.rs`): the same, with long strings shared (a state holds its
//!   claim, its row and the row it writes, each with the same arguments).
//!
//! Every WIT type that crosses or is kept has one [`Code`] here, in WIT field and case order.

use crate::canonical_wit::{CanonError, CanonErrorKind};
use crate::effect_wit::{
    Action, Busy, Command, Doubt, EffectError, EffectOptions, EffectResult, EffectStart, EventStart, Finish, Input, Keyed, Notice,
    NoticeKind, ReadRequest, ReplayRule, ResultSource, RowWrite, RunAnswer, RunCall, Step, TendJob, TendNote, TendStart, ToolCall,
    ToolFailure, VerdictKind, WaitStart, WriteOp,
};
use crate::keys_wit::{Intent, KeyError, KeyErrorKind, KeyIdentity, KeySpec};
use crate::ledger_wit::{
    ApprovalRequest, Claim, ClaimToken, Completion, Conflict, Decision, Denial, Entry, EntryState, Escalation, Event, Failure, InProgress,
    LedgerError, LedgerErrorKind, Outcome, ReconcileRequest, ReconcileVerdict, Reconciliation, Replay, Resolution, Settlement,
};
use crate::policy_wit::{ApprovalRule, EffectClass, ReconcilePath, ToolPolicy};
use crate::prelude::*;

/// Strings this long or longer are written once per state, and referred to after.
const SHARED: usize = 16;

/// A `run-call` from the host's bytes; `None` when they are not one.
pub fn decode_call(bytes: &[u8]) -> Option<RunCall> {
    let mut r = R(bytes, false, None);
    let call = RunCall::get(&mut r);
    (!r.1 && r.0.is_empty()).then_some(call)
}

/// A `run-answer` as bytes.
pub fn encode_answer(answer: &RunAnswer) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(512), None);
    answer.put(&mut w);
    w.0
}

/// The bytes written, and where each shared string was written (offset, length); `None`: plain
/// (the crossing's encoding: no string is shared).
pub(super) struct W(pub(super) Vec<u8>, pub(super) Option<Vec<(usize, usize)>>);
/// The bytes not read yet, whether a read has failed (then the bytes are empty), and the shared
/// strings read so far; `None`: plain.
pub(super) struct R<'a>(pub(super) &'a [u8], pub(super) bool, pub(super) Option<Vec<&'a str>>);

impl W {
    pub(super) fn u8(&mut self, b: u8) {
        self.0.push(b);
    }
    pub(super) fn u64(&mut self, mut n: u64) {
        loop {
            let b = (n & 0x7F) as u8;
            n >>= 7;
            if n == 0 {
                return self.0.push(b);
            }
            self.0.push(b | 0x80);
        }
    }
    /// A string: its length times 2 and its bytes, or, written before, its index among the shared
    /// strings times 2, plus 1.
    /// A `list<u8>`: its length and its bytes.
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    /// Plain: its length and its bytes. In a state, a string of [`SHARED`] bytes or more
    /// written before is its index among those times 2, plus 1; any other, its length times 2.
    pub(super) fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        let shared = self.1.is_some() && b.len() >= SHARED;
        if shared {
            let seen = self.1.as_ref().and_then(|l| l.iter().position(|&(at, n)| &self.0[at..at + n] == b));
            if let Some(i) = seen {
                return self.u64((i as u64) << 1 | 1);
            }
        }
        self.u64(if self.1.is_some() { (b.len() as u64) << 1 } else { b.len() as u64 });
        if shared {
            let at = self.0.len();
            if let Some(l) = &mut self.1 {
                l.push((at, b.len()));
            }
        }
        self.0.extend_from_slice(b);
    }
}

impl R<'_> {
    /// A read that does not fit: the reader fails and reads nothing more.
    #[inline(never)]
    pub(super) fn fail(&mut self) {
        self.0 = &[];
        self.1 = true;
    }
    pub(super) fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => {
                self.fail();
                0
            }
        }
    }
    #[inline(never)]
    pub(super) fn u64(&mut self) -> u64 {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8();
            n |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return n;
            }
        }
        self.fail();
        0
    }
    pub(super) fn u32(&mut self) -> u32 {
        let n = self.u64();
        u32::try_from(n).unwrap_or_else(|_| {
            self.fail();
            0
        })
    }
    /// A `list<u8>`.
    pub(super) fn bytes(&mut self) -> Vec<u8> {
        let n = usize::try_from(self.u64()).unwrap_or(usize::MAX);
        match self.0.get(..n) {
            Some(b) => {
                self.0 = &self.0[n..];
                b.to_vec()
            }
            None => self.bad(Vec::new()),
        }
    }
    #[inline(never)]
    pub(super) fn str(&mut self) -> String {
        let n = usize::try_from(self.u64()).unwrap_or(usize::MAX);
        let n = match &self.2 {
            None => n,
            Some(_) if n & 1 == 0 => n >> 1,
            Some(shared) => {
                return match shared.get(n >> 1) {
                    Some(s) => String::from(*s),
                    None => self.bad(String::new()),
                }
            }
        };
        let text = self.0.get(..n).and_then(|b| core::str::from_utf8(b).ok());
        let Some(text) = text else { return self.bad(String::new()) };
        self.0 = &self.0[n..];
        if let Some(shared) = &mut self.2 {
            if n >= SHARED {
                shared.push(text);
            }
        }
        String::from(text)
    }
    pub(super) fn bool(&mut self) -> bool {
        match self.u8() {
            0 => false,
            1 => true,
            _ => {
                self.fail();
                false
            }
        }
    }
    /// `v`, as the placeholder of a value that does not fit: the reader fails.
    pub(super) fn bad<T>(&mut self, v: T) -> T {
        self.fail();
        v
    }
}

/// A value in the core's encoding.
pub(super) trait Code: Sized {
    fn put(&self, w: &mut W);
    /// The value read; a placeholder when the reader has failed or fails now.
    fn get(r: &mut R<'_>) -> Self;
}

impl Code for u64 {
    fn put(&self, w: &mut W) {
        w.u64(*self);
    }
    fn get(r: &mut R<'_>) -> Self {
        r.u64()
    }
}

impl Code for u32 {
    fn put(&self, w: &mut W) {
        w.u64(u64::from(*self));
    }
    fn get(r: &mut R<'_>) -> Self {
        r.u32()
    }
}

impl Code for bool {
    fn put(&self, w: &mut W) {
        w.u8(u8::from(*self));
    }
    fn get(r: &mut R<'_>) -> Self {
        r.bool()
    }
}

impl Code for String {
    fn put(&self, w: &mut W) {
        w.str(self);
    }
    fn get(r: &mut R<'_>) -> Self {
        r.str()
    }
}

impl<T: Code> Code for Option<T> {
    fn put(&self, w: &mut W) {
        match self {
            None => w.u8(0),
            Some(v) => {
                w.u8(1);
                v.put(w);
            }
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => None,
            1 => Some(T::get(r)),
            _ => r.bad(None),
        }
    }
}

impl<T: Code> Code for Box<T> {
    fn put(&self, w: &mut W) {
        (**self).put(w);
    }
    fn get(r: &mut R<'_>) -> Self {
        Box::new(T::get(r))
    }
}

impl<T: Code> Code for alloc::rc::Rc<T> {
    fn put(&self, w: &mut W) {
        (**self).put(w);
    }
    fn get(r: &mut R<'_>) -> Self {
        alloc::rc::Rc::new(T::get(r))
    }
}

/// `Code` for a record: each field in order.
macro_rules! record {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Code for $t {
            fn put(&self, w: &mut W) {
                $( self.$f.put(w); )*
            }
            fn get(r: &mut R<'_>) -> Self {
                $t { $( $f: Code::get(r) ),* }
            }
        }
    };
}

/// `Code` for a C-like enum: its index.
macro_rules! enumeration {
    ($t:ident { $($v:ident),* $(,)? }) => {
        impl Code for $t {
            fn put(&self, w: &mut W) {
                let all = [$($t::$v),*];
                w.u8(all.iter().position(|v| v == self).unwrap_or(0) as u8);
            }
            fn get(r: &mut R<'_>) -> Self {
                let all = [$($t::$v),*];
                match all.get(usize::from(r.u8())) {
                    Some(v) => *v,
                    None => r.bad(all[0]),
                }
            }
        }
    };
}

enumeration!(EntryState { Pending, Done, Failed, InDoubt, Escalated, AwaitingApproval, Approved, Denied });
enumeration!(EffectClass { ReadOnly, OverwritingWrite, AccumulatingWrite, IrreversibleExternal });
enumeration!(TendJob { Sweep, Purge });
enumeration!(VerdictKind { Happened, NotHappened, Unknown });

impl Code for ReconcilePath {
    fn put(&self, w: &mut W) {
        match self {
            ReconcilePath::None => w.u8(0),
            ReconcilePath::ProviderIdempotent => w.u8(1),
            ReconcilePath::Lookup(t) => {
                w.u8(2);
                w.str(t);
            }
            ReconcilePath::Manual => w.u8(3),
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => ReconcilePath::None,
            1 => ReconcilePath::ProviderIdempotent,
            2 => ReconcilePath::Lookup(r.str()),
            3 => ReconcilePath::Manual,
            _ => r.bad(ReconcilePath::None),
        }
    }
}

impl Code for ReconcileVerdict {
    fn put(&self, w: &mut W) {
        match self {
            ReconcileVerdict::Happened(s) => {
                w.u8(0);
                w.str(s);
            }
            ReconcileVerdict::NotHappened => w.u8(1),
            ReconcileVerdict::Unknown(s) => {
                w.u8(2);
                w.str(s);
            }
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => ReconcileVerdict::Happened(r.str()),
            1 => ReconcileVerdict::NotHappened,
            2 => ReconcileVerdict::Unknown(r.str()),
            _ => r.bad(ReconcileVerdict::NotHappened),
        }
    }
}

impl Code for Settlement {
    fn put(&self, w: &mut W) {
        match self {
            Settlement::Happened(s) => {
                w.u8(0);
                w.str(s);
            }
            Settlement::NotHappened => w.u8(1),
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => Settlement::Happened(r.str()),
            1 => Settlement::NotHappened,
            _ => r.bad(Settlement::NotHappened),
        }
    }
}

record!(ToolPolicy { class, key, reconcile, lease_ms, max_call_ms, reconcile_after_ms, escalate_after_ms, retention_ms, approval });
record!(ApprovalRule { when, expires_after_ms });
record!(Decision { by, note, seen_version });
record!(ApprovalRequest { scope, key, tool, args_canonical, version, since });
record!(Denial { key, by, reason, settlement });
record!(KeySpec { only, ignore, identity });
record!(ClaimToken { attempt, owner });
record!(Claim { scope, tool, run_id, step_id, key, fingerprint, args_canonical, owner, policy });
record!(Completion { token, result_json });
record!(Failure { token, reason });
record!(Reconciliation { attempt, verdict });
record!(Resolution { settlement, by, note, seen_version });
record!(ReconcileRequest { scope, key, tool, args_canonical, attempt, path, in_doubt_since, escalate_at });
record!(Escalation { scope, key, tool, attempt, reason, in_doubt_since });
record!(TendNote { scope, key, tool, lease_expired, reconciled, escalated, purged, skipped });
record!(Entry {
    scope,
    key,
    tool,
    run_id,
    step_id,
    fingerprint,
    args_canonical,
    state,
    version,
    attempt,
    owner,
    created_at,
    updated_at,
    lease_until,
    in_doubt_since,
    next_reconcile_at,
    reconcile_attempts,
    result_json,
    reason,
    resolved_by,
    settlement,
    reconcile,
    lease_ms,
    max_call_ms,
    reconcile_after_ms,
    escalate_after_ms,
    retention_ms,
    due_at,
});

impl Code for Event {
    fn put(&self, w: &mut W) {
        match self {
            Event::Begin(c) => {
                w.u8(0);
                c.put(w);
            }
            Event::Heartbeat(t) => {
                w.u8(1);
                t.put(w);
            }
            Event::Complete(c) => {
                w.u8(2);
                c.put(w);
            }
            Event::FailDefinite(f) => {
                w.u8(3);
                f.put(w);
            }
            Event::FailAmbiguous(f) => {
                w.u8(4);
                f.put(w);
            }
            Event::Sweep => w.u8(5),
            Event::Reconciled(x) => {
                w.u8(6);
                x.put(w);
            }
            Event::Resolve(x) => {
                w.u8(7);
                x.put(w);
            }
            Event::Purge => w.u8(8),
            Event::CompleteUnrecordable(f) => {
                w.u8(9);
                f.put(w);
            }
            Event::Approve(d) => {
                w.u8(10);
                d.put(w);
            }
            Event::Deny(d) => {
                w.u8(11);
                d.put(w);
            }
            Event::Ask(c) => {
                w.u8(12);
                c.put(w);
            }
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => Event::Begin(Code::get(r)),
            1 => Event::Heartbeat(Code::get(r)),
            2 => Event::Complete(Code::get(r)),
            3 => Event::FailDefinite(Code::get(r)),
            4 => Event::FailAmbiguous(Code::get(r)),
            5 => Event::Sweep,
            6 => Event::Reconciled(Code::get(r)),
            7 => Event::Resolve(Code::get(r)),
            8 => Event::Purge,
            9 => Event::CompleteUnrecordable(Code::get(r)),
            10 => Event::Approve(Code::get(r)),
            11 => Event::Deny(Code::get(r)),
            12 => Event::Ask(Code::get(r)),
            _ => r.bad(Event::Sweep),
        }
    }
}

impl<T: Code> Code for Vec<T> {
    fn put(&self, w: &mut W) {
        w.u64(self.len() as u64);
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        let n = r.u64();
        // Every element takes a byte at least: a longer count does not fit.
        if n > r.0.len() as u64 {
            return r.bad(Vec::new());
        }
        (0..n).map(|_| T::get(r)).collect()
    }
}

/// `Code` for a variant: its case index, then the payload (`case(x)`), if any.
macro_rules! variant {
    ($t:ident, { $($i:literal => $v:ident $(($x:ident))?),* $(,)? }) => {
        impl Code for $t {
            fn put(&self, w: &mut W) {
                match self {
                    $( $t::$v $(($x))? => {
                        w.u8($i);
                        $( $x.put(w); )?
                    } )*
                }
            }
            fn get(r: &mut R<'_>) -> Self {
                match r.u8() {
                    $( $i => $t::$v $(({ let $x = Code::get(r); $x }))?, )*
                    // Not a case: the reader fails, and case 0 reads placeholders.
                    _ => {
                        r.fail();
                        Self::get(r)
                    }
                }
            }
        }
    };
}

enumeration!(KeyIdentity { Step, Run, Scope });
enumeration!(NoticeKind {
    Claimed,
    Executed,
    Replayed,
    Conflict,
    InDoubt,
    Reconciled,
    Escalated,
    Resolved,
    AwaitingApproval,
    Approved,
    Denied
});
enumeration!(WriteOp { Insert, Update, Delete });
enumeration!(LedgerErrorKind { NotFound, StaleToken, InvalidState, AlreadySettled, RetentionNotReached, InvalidRequest, Changed });
enumeration!(KeyErrorKind { InvalidArgs, InvalidPointer, MissingMember, PointerIntoArray, EmptyField });
enumeration!(CanonErrorKind { Syntax, InvalidUtf8, LoneSurrogate, DuplicateKey, NumberOverflow, InexactInteger, TooDeep, TooLarge });

record!(Intent { scope, run_id, step_id, tool, args_json });
record!(EffectOptions { owner, max_attempts, wait_ms, has_reconciler, approval_wait_ms });
record!(EffectStart { intent, policy, options });
record!(EventStart { scope, key, event });
record!(TendStart { scope, key, job, has_reconciler });
record!(WaitStart { scope, key, every_ms, timeout_ms });
record!(ToolFailure { definite, reason });
// `state: list<u8>` as one copy, not a byte at a time (a state of 64 KiB arguments is 130 KB).
impl Code for RunCall {
    fn put(&self, w: &mut W) {
        w.bytes(&self.state);
        self.input.put(w);
        self.now.put(w);
    }
    fn get(r: &mut R<'_>) -> Self {
        RunCall { state: r.bytes(), input: Code::get(r), now: r.u64() }
    }
}
record!(ReadRequest { scope, key });
record!(Notice { kind, scope, key, tool, detail });
record!(ReplayRule { state, fingerprint, tool, reconciled, event });
record!(RowWrite { op, row, expected_version, history, claims });
record!(ToolCall { scope, key, token, not_after, deadline, heartbeat_ms });
impl Code for Step {
    fn put(&self, w: &mut W) {
        w.bytes(&self.state);
        self.read.put(w);
        self.replay.put(w);
        self.write.put(w);
        self.events.put(w);
        self.action.put(w);
    }
    fn get(r: &mut R<'_>) -> Self {
        Step { state: r.bytes(), read: Code::get(r), replay: Code::get(r), write: Code::get(r), events: Code::get(r), action: Code::get(r) }
    }
}
record!(EffectResult { key, source, replayed, reconciled });
record!(Replay { result_json, attempt, recorded_at });
record!(InProgress { owner, state, retry_after_ms });
record!(Conflict { key, pointer, stored_fingerprint, given_fingerprint });
record!(Busy { key, owner, retry_after_ms });
record!(Doubt { key, reason, retry_after_ms });
record!(Keyed { key, reason });
record!(LedgerError { kind, state, message });
record!(KeyError { kind, at, canon, message });
record!(CanonError { kind, offset, line, column, message });

variant!(Command, { 0 => Effect(x), 1 => Event(x), 2 => Tend(x), 3 => Wait(x) });
variant!(Input, {
    0 => Start(x), 1 => Row(x), 2 => Written, 3 => LostRace, 4 => StoreFailed(x), 5 => ToolReturned(x),
    6 => ToolUnencodable(x), 7 => ToolFailed(x), 8 => TooLate, 9 => Verdict(x), 10 => NoReconciler,
    11 => ReconcilerFailed(x), 12 => Abandoned, 13 => Woke,
});
variant!(ResultSource, { 0 => ToolValue, 1 => Recorded(x) });
variant!(Finish, { 0 => Effect(x), 1 => Event(x), 2 => Tended(x), 3 => Waited });
variant!(EffectError, {
    0 => Conflict(x), 1 => InProgress(x), 2 => InDoubt(x), 3 => Escalated(x), 4 => ToolFailed(x),
    5 => ResultNotRecorded(x), 6 => Storage(x), 7 => Ledger(x), 8 => Contention(x), 9 => AwaitingApproval(x), 10 => Denied(x),
});
variant!(Action, {
    0 => Report, 1 => CallTool(x), 2 => CallReconciler(x), 3 => RecallTool(x), 4 => SleepUntil(x), 5 => Finish(x), 6 => Raise(x),
});
variant!(Outcome, {
    0 => Execute(x), 1 => Replay(x), 2 => InProgress(x), 3 => Reconcile(x), 4 => Escalated(x), 5 => Conflict(x),
    6 => PassThrough, 7 => Recorded(x), 8 => Settled(x), 9 => Purged, 10 => Idle(x), 11 => AwaitingApproval(x), 12 => Denied(x),
});
variant!(RunAnswer, { 0 => Step(x), 1 => KeyError(x) });
