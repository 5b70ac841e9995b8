//! A machine's state as bytes: what `effect.next` gets back from the host, unchanged.
//!
//! A small private format (no interchange, no versioning across core builds beyond a leading
//! tag): unsigned integers as LEB128, strings as their length and UTF-8 bytes, options and
//! variants as a tag byte. A string of [`SHARED`] bytes or more that was written before in the
//! same state is written as a reference to it: a machine holds its claim, its row and the row it
//! is writing, each with the same arguments, key and fingerprint, and the state crosses the
//! boundary on every step (64 KiB of arguments made a 197 KB state). Only the core writes and
//! reads it; a state this core did not write decodes to `None`, which the machine reports as a
//! host error.

use super::{Known, Machine, Mode, Notices, Pending, Phase};
use crate::effect_wit::{TendJob, TendNote, VerdictKind};
use crate::ledger_wit::{
    Claim, ClaimToken, Completion, Entry, EntryState, Escalation, Event, Failure, Outcome, ReconcileRequest, ReconcileVerdict,
    Reconciliation, Resolution, Settlement,
};
use crate::policy_wit::{EffectClass, ReconcilePath, ToolPolicy};
use crate::prelude::*;

/// The first byte of every state this core writes.
const TAG: u8 = 0xE2;

/// Strings this long or longer are written once per state, and referred to after.
const SHARED: usize = 16;

/// `m` as bytes.
pub fn encode(m: &Machine) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(256), Vec::new());
    w.u8(TAG);
    m.put(&mut w);
    w.0
}

/// The machine `bytes` hold, if this core wrote them.
///
/// Reading never stops early: the first byte that does not fit marks the reader as failed and
/// empties it, every later read gives a placeholder, and the result is `None`. (Stopping at once,
/// with `?` after each field, made every record's reader drop the fields read so far on each of
/// its exits: kilobytes of drop code in the component.)
pub fn decode(bytes: &[u8]) -> Option<Machine> {
    let mut r = R(bytes, false, Vec::new());
    if r.u8() != TAG {
        return None;
    }
    let m = Machine::get(&mut r);
    (!r.1 && r.0.is_empty()).then_some(m)
}

/// The bytes written, and where each shared string was written (offset, length).
struct W(Vec<u8>, Vec<(usize, usize)>);
/// The bytes not read yet, whether a read has failed (then the bytes are empty), and the shared
/// strings read so far.
struct R<'a>(&'a [u8], bool, Vec<&'a str>);

impl W {
    fn u8(&mut self, b: u8) {
        self.0.push(b);
    }
    fn u64(&mut self, mut n: u64) {
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
    fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        if b.len() >= SHARED {
            if let Some(i) = self.1.iter().position(|&(at, n)| &self.0[at..at + n] == b) {
                return self.u64((i as u64) << 1 | 1);
            }
        }
        self.u64((b.len() as u64) << 1);
        if b.len() >= SHARED {
            self.1.push((self.0.len(), b.len()));
        }
        self.0.extend_from_slice(b);
    }
}

impl R<'_> {
    /// A read that does not fit: the reader fails and reads nothing more.
    #[inline(never)]
    fn fail(&mut self) {
        self.0 = &[];
        self.1 = true;
    }
    fn u8(&mut self) -> u8 {
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
    fn u64(&mut self) -> u64 {
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
    fn u32(&mut self) -> u32 {
        let n = self.u64();
        u32::try_from(n).unwrap_or_else(|_| {
            self.fail();
            0
        })
    }
    #[inline(never)]
    fn str(&mut self) -> String {
        let n = usize::try_from(self.u64()).unwrap_or(usize::MAX);
        if n & 1 == 1 {
            return match self.2.get(n >> 1) {
                Some(s) => String::from(*s),
                None => self.bad(String::new()),
            };
        }
        let n = n >> 1;
        let text = self.0.get(..n).and_then(|b| core::str::from_utf8(b).ok());
        let Some(text) = text else { return self.bad(String::new()) };
        self.0 = &self.0[n..];
        if n >= SHARED {
            self.2.push(text);
        }
        String::from(text)
    }
    fn bool(&mut self) -> bool {
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
    fn bad<T>(&mut self, v: T) -> T {
        self.fail();
        v
    }
}

/// A value that goes into a state.
trait Code: Sized {
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

enumeration!(EntryState { Pending, Done, Failed, InDoubt, Escalated });
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

/// A policy as a machine keeps it: without its key spec, which only `prepare` reads.
impl Code for ToolPolicy {
    fn put(&self, w: &mut W) {
        self.class.put(w);
        self.reconcile.put(w);
        w.u64(self.lease_ms);
        w.u64(self.max_call_ms);
        w.u64(self.reconcile_after_ms);
        w.u64(self.escalate_after_ms);
        w.u64(self.retention_ms);
    }
    fn get(r: &mut R<'_>) -> Self {
        ToolPolicy {
            class: Code::get(r),
            key: None,
            reconcile: Code::get(r),
            lease_ms: r.u64(),
            max_call_ms: r.u64(),
            reconcile_after_ms: r.u64(),
            escalate_after_ms: r.u64(),
            retention_ms: r.u64(),
        }
    }
}

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
            _ => r.bad(Event::Sweep),
        }
    }
}

/// The outcomes that come with a write (the others are acted on at once, never kept).
impl Code for Outcome {
    fn put(&self, w: &mut W) {
        match self {
            Outcome::Execute(t) => {
                w.u8(0);
                t.put(w);
            }
            Outcome::Reconcile(q) => {
                w.u8(1);
                q.put(w);
            }
            Outcome::Escalated(x) => {
                w.u8(2);
                x.put(w);
            }
            Outcome::Recorded(s) => {
                w.u8(3);
                s.put(w);
            }
            Outcome::Purged => w.u8(4),
            Outcome::Idle(n) => {
                w.u8(5);
                n.put(w);
            }
            Outcome::Settled(id) => {
                w.u8(7);
                id.put(w);
            }
            // Never written with a write; kept as "ask again".
            _ => w.u8(6),
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => Outcome::Execute(Code::get(r)),
            1 => Outcome::Reconcile(Code::get(r)),
            2 => Outcome::Escalated(Code::get(r)),
            3 => Outcome::Recorded(Code::get(r)),
            4 => Outcome::Purged,
            5 => Outcome::Idle(Code::get(r)),
            6 => Outcome::Idle(None),
            7 => Outcome::Settled(Code::get(r)),
            _ => r.bad(Outcome::Purged),
        }
    }
}

impl Code for Mode {
    fn put(&self, w: &mut W) {
        match self {
            Mode::Effect => w.u8(0),
            Mode::Event => w.u8(1),
            Mode::Tend(j) => {
                w.u8(2);
                j.put(w);
            }
            Mode::Wait => w.u8(3),
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => Mode::Effect,
            1 => Mode::Event,
            2 => Mode::Tend(Code::get(r)),
            3 => Mode::Wait,
            _ => r.bad(Mode::Effect),
        }
    }
}

impl Code for Phase {
    fn put(&self, w: &mut W) {
        match self {
            Phase::Idle => w.u8(0),
            Phase::Reading => w.u8(1),
            Phase::CallingTool => w.u8(2),
            Phase::PassingThrough => w.u8(3),
            Phase::Reconciling(a) => {
                w.u8(4);
                a.put(w);
            }
            Phase::Recalling(a) => {
                w.u8(5);
                a.put(w);
            }
            Phase::Sleeping => w.u8(6),
            Phase::Writing => w.u8(7),
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => Phase::Idle,
            1 => Phase::Reading,
            2 => Phase::CallingTool,
            3 => Phase::PassingThrough,
            4 => Phase::Reconciling(Code::get(r)),
            5 => Phase::Recalling(Code::get(r)),
            6 => Phase::Sleeping,
            7 => Phase::Writing,
            _ => r.bad(Phase::Idle),
        }
    }
}

impl Code for Known {
    fn put(&self, w: &mut W) {
        match self {
            Known::Unknown => w.u8(0),
            Known::Row(row) => {
                w.u8(1);
                row.put(w);
            }
        }
    }
    fn get(r: &mut R<'_>) -> Self {
        match r.u8() {
            0 => Known::Unknown,
            1 => Known::Row(Code::get(r)),
            _ => r.bad(Known::Unknown),
        }
    }
}

record!(Pending { row, outcome, at });
record!(Machine {
    mode,
    scope,
    key,
    event,
    claim,
    row,
    pending,
    phase,
    deadline,
    every_ms,
    max_attempts,
    has_reconciler,
    executions,
    reconciled,
    recalled,
    abandoned,
    late,
    races,
    store_failures,
    token,
    before,
    note,
    events,
});

/// A step's events are never kept: they go to the host with the step.
impl Code for Notices {
    fn put(&self, _: &mut W) {}
    fn get(_: &mut R<'_>) -> Self {
        Notices::default()
    }
}
