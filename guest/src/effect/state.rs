//! A machine's state as bytes: what `effect.next` gets back from the host, unchanged.
//!
//! The core's encoding (`codec.rs`) after a leading tag, with long strings shared: a string of
//! 16 bytes or more that was written before in the same state is written as a reference to it: a
//! machine holds its claim, its row and the row it is writing, each with the same arguments, key
//! and fingerprint, and the state crosses the boundary on every step (64 KiB of arguments made a
//! 197 KB state). Private (no interchange, no versioning across core builds beyond the tag):
//! only the core writes and reads it; a state this core did not write decodes to `None`, which
//! the machine reports as a host error.

use super::codec::{Code, R, W};
use super::{Known, Machine, Mode, Notices, Pending, Phase};
use crate::effect_wit::EffectOptions;
use crate::ledger_wit::Claim;
use crate::prelude::*;

/// The first byte of every state this core writes.
const TAG: u8 = 0xE2;

/// The first byte of the state of an effect's first step (`encode_begun`).
const BEGUN: u8 = 0xE3;

/// The state of an effect's first step, before its machine is made (`super::start_effect`): the
/// claim, the options and the clock, plain (each string once).
pub fn encode_begun(claim: &Claim, options: &EffectOptions, now: u64) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(256 + claim.args_canonical.len()), None);
    w.u8(BEGUN);
    claim.put(&mut w);
    options.put(&mut w);
    w.u64(now);
    w.0
}

/// What `encode_begun` wrote, if it wrote `bytes`.
pub fn decode_begun(bytes: &[u8]) -> Option<(Claim, EffectOptions, u64)> {
    if bytes.first() != Some(&BEGUN) {
        return None;
    }
    let mut r = R(&bytes[1..], false, None);
    let claim = Claim::get(&mut r);
    let options = EffectOptions::get(&mut r);
    let now = r.u64();
    (!r.1 && r.0.is_empty()).then_some((claim, options, now))
}

/// `m` as bytes.
pub fn encode(m: &Machine) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(256), Some(Vec::new()));
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
    let mut r = R(bytes, false, Some(Vec::new()));
    if r.u8() != TAG {
        return None;
    }
    let m = Machine::get(&mut r);
    (!r.1 && r.0.is_empty()).then_some(m)
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
    approval_deadline,
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
