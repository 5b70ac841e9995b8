//! `effect_machine`: up to three machines (effects, events, tending, waits) run interleaved
//! against one in-memory store by a host that follows `wit/effect.wit`'s interpreter, with
//! storage failures, lost races, tool failures, reconcilers' verdicts and a jumping clock chosen by
//! the fuzzer; now and then it sends a machine an input it did not ask for, or damaged state.

use crate::gen;
use crate::ledger::{json_result, token, world, RowKey, World, OWNERS};
use arbitrary::{Result, Unstructured};
use oncely_core::effect;
use oncely_core::effect_wit::{
    Action, Command, EffectOptions, EffectResult, EffectStart, EventStart, Finish, Input, ReplayRule, ResultSource, RowWrite, Step,
    TendJob, TendStart, ToolFailure, WaitStart, WriteOp,
};
use oncely_core::ledger;
use oncely_core::ledger_wit::{Completion, Entry, EntryState, Event, Failure, ReconcileVerdict, Reconciliation, Resolution, Settlement};
use oncely_core::policy::uses_ledger;
use std::collections::{BTreeMap, BTreeSet};

struct Running {
    step: Step,
    /// The row the machine works on.
    at: RowKey,
    /// An effect of a class that bypasses the ledger.
    pass_through: bool,
    /// The input was not what the step asked for, or the state was damaged: from then on the
    /// machine runs against a copy of the store (it may write anything, any row), checked only
    /// for not panicking and for its states.
    sandbox: Option<Host>,
}

#[derive(Clone, Default)]
struct Host {
    rows: BTreeMap<RowKey, Entry>,
    /// Tool calls (not reconciliation re-calls) per row and attempt, since the row was inserted.
    calls: BTreeSet<(RowKey, u32)>,
    now: u64,
}

/// Properties:
/// - never panics, whatever the inputs, their order, or the state bytes sent back;
/// - every state a step carries decodes and encodes back to the same bytes, and a step without
///   state ends the machine (`finish` or `raise`, nothing to read or write);
/// - `run` with anything but `start` never fails;
/// - every row written is one the host can apply as asked (versions, `due_at`);
/// - a step's `replay` rule answers a row it names as the core does when sent that row;
/// - the tool is called (`call-tool`) at most once per attempt of a row, and only for a pending
///   row whose claim is that attempt's (or with no row at all, for a pass-through tool).
pub fn effect_machine(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(w) = world(&mut u) else { return };
    let mut host = Host { now: u.arbitrary::<u16>().map_or(0, u64::from), ..Host::default() };
    let mut running: Vec<Running> = Vec::new();
    let mut started = 0;
    for _ in 0..400 {
        if u.is_empty() {
            break;
        }
        let Ok(start_one) = u.ratio(1u8, 6u8) else { return };
        if running.is_empty() || (start_one && running.len() < 3) {
            if started >= 6 {
                break;
            }
            started += 1;
            match start(&mut u, &w, &host) {
                Ok(Some(r)) => running.push(r),
                Ok(None) => {}
                Err(_) => return,
            }
            continue;
        }
        let Ok(i) = u.choose_index(running.len()) else { return };
        match advance(&mut u, &mut host, &mut running[i]) {
            Ok(true) => {}
            Ok(false) => {
                running.swap_remove(i);
            }
            Err(_) => return,
        }
    }
}

fn check_step(step: &Step) {
    if step.state.is_empty() {
        assert!(step.read.is_none() && step.write.is_none(), "a step without state reads or writes: {step:?}");
        assert!(matches!(step.action, Action::Finish(_) | Action::Raise(_)), "a step without state goes on: {step:?}");
    } else {
        assert_eq!(effect::state_round_trip(&step.state).as_ref(), Some(&step.state), "the state does not round-trip");
    }
}

/// A step's `replay` rule (wit/effect.wit) answers as the core does when sent the row instead:
/// for a row that is the record it names, the same finish after the same one event.
fn check_replay_rule(step: &Step, rule: &ReplayRule, e: &Entry, now: u64) {
    let Some(json) = e.result_json.clone() else { return };
    if e.state != rule.state || e.fingerprint != rule.fingerprint || e.tool != rule.tool {
        return;
    }
    let core = effect::run(&step.state, Input::Row(Some(e.clone())), now).expect("run never fails but for start(effect)");
    let want = EffectResult { key: e.key.clone(), source: ResultSource::Recorded(json), replayed: true, reconciled: rule.reconciled };
    assert_eq!(core.action, Action::Finish(Finish::Effect(want)), "the replay rule answers otherwise than the core");
    assert_eq!(core.events, vec![rule.event.clone()], "the replay rule's event is not the core's");
}

fn start(u: &mut Unstructured<'_>, w: &World, host: &Host) -> Result<Option<Running>> {
    let existing: Vec<&RowKey> = host.rows.keys().collect();
    let some_row = |u: &mut Unstructured<'_>| -> Result<RowKey> {
        Ok(if !existing.is_empty() && u.ratio(7u8, 8u8)? {
            (*u.choose(&existing)?).clone()
        } else {
            ("acme".to_string(), "oncely1:absent".to_string())
        })
    };
    let (command, at, pass_through) = match u.int_in_range(0..=7u8)? {
        0..=3 => {
            let intent = gen::pick(u, &w.intents)?;
            let policy = gen::pick(u, &w.policies)?;
            let options = EffectOptions {
                owner: gen::text(u, OWNERS)?,
                max_attempts: u.int_in_range(0..=4u32)?,
                wait_ms: gen::maybe_millis(u)?,
                has_reconciler: u.arbitrary()?,
                approval_wait_ms: gen::maybe_millis(u)?,
            };
            let pass_through = !uses_ledger(policy.class);
            let at = match ledger::prepare(&intent, &policy, &options.owner) {
                Ok(c) => (c.scope, c.key),
                Err(_) => (String::new(), String::new()),
            };
            (Command::Effect(EffectStart { intent, policy, options }), at, pass_through)
        }
        4 => {
            let at = some_row(u)?;
            let cur = host.rows.get(&at);
            let event = match u.int_in_range(0..=8u8)? {
                0 => Event::Heartbeat(token(u, cur)?),
                1 => Event::Complete(Completion { token: token(u, cur)?, result_json: json_result(u)? }),
                2 => Event::FailDefinite(Failure { token: token(u, cur)?, reason: "declined".into() }),
                3 => Event::FailAmbiguous(Failure { token: token(u, cur)?, reason: "timeout".into() }),
                4 => Event::Sweep,
                5 => Event::Reconciled(Reconciliation { attempt: token(u, cur)?.attempt, verdict: verdict(u)? }),
                6 => Event::Resolve(Resolution {
                    settlement: if u.arbitrary()? { Settlement::Happened(json_result(u)?) } else { Settlement::NotHappened },
                    by: gen::text(u, &["ops", ""])?,
                    note: String::new(),
                    seen_version: crate::ledger::seen_version(u, cur)?,
                }),
                7 => Event::Purge,
                _ => Event::CompleteUnrecordable(Failure { token: token(u, cur)?, reason: "not json".into() }),
            };
            (Command::Event(EventStart { scope: at.0.clone(), key: at.1.clone(), event }), at, false)
        }
        5 | 6 => {
            let at = some_row(u)?;
            let job = if u.arbitrary()? { TendJob::Sweep } else { TendJob::Purge };
            let has_reconciler = u.arbitrary()?;
            (Command::Tend(TendStart { scope: at.0.clone(), key: at.1.clone(), job, has_reconciler }), at, false)
        }
        _ => {
            let at = some_row(u)?;
            let every_ms = gen::maybe_millis(u)?;
            let timeout_ms = gen::maybe_millis(u)?;
            (Command::Wait(WaitStart { scope: at.0.clone(), key: at.1.clone(), every_ms, timeout_ms }), at, false)
        }
    };
    let is_effect = matches!(command, Command::Effect(_));
    match effect::run(&[], Input::Start(command), host.now) {
        Ok(step) => {
            check_step(&step);
            Ok(Some(Running { step, at, pass_through, sandbox: None }))
        }
        Err(e) => {
            assert!(is_effect, "only starting an effect can fail: {e:?}");
            assert!(!e.message.is_empty());
            Ok(None)
        }
    }
}

fn verdict(u: &mut Unstructured<'_>) -> Result<ReconcileVerdict> {
    Ok(match u.int_in_range(0..=2u8)? {
        0 => ReconcileVerdict::Happened(json_result(u)?),
        1 => ReconcileVerdict::NotHappened,
        _ => ReconcileVerdict::Unknown("503".into()),
    })
}

fn tool_answer(u: &mut Unstructured<'_>) -> Result<Input> {
    Ok(match u.int_in_range(0..=5u8)? {
        0..=2 => Input::ToolReturned(json_result(u)?),
        3 => Input::ToolUnencodable("a socket".into()),
        _ => Input::ToolFailed(ToolFailure { definite: u.arbitrary()?, reason: gen::text(u, &["declined", "timeout"])? }),
    })
}

/// Apply a row write as a store does; `false`: not applied (a lost race).
/// `checked`: the machine was never misled, so its write must be one the protocol allows.
fn apply_write(host: &mut Host, at: &RowKey, w: &RowWrite, checked: bool) -> bool {
    let key = (w.row.scope.clone(), w.row.key.clone());
    let cur = host.rows.get(&key);
    if checked {
        assert_eq!(&key, at, "a machine wrote another row");
        match w.op {
            WriteOp::Insert => assert_eq!(w.row.version, 1),
            WriteOp::Update => assert_eq!(w.row.version, w.expected_version.wrapping_add(1)),
            WriteOp::Delete => assert!(matches!(w.row.state, EntryState::Done | EntryState::Failed)),
        }
        if w.op != WriteOp::Delete {
            assert_eq!(w.row.due_at, ledger::due_at(&w.row));
        }
    }
    match w.op {
        WriteOp::Insert => {
            if cur.is_some() {
                return false;
            }
            host.rows.insert(key, w.row.clone());
        }
        WriteOp::Update => {
            if cur.map(|e| e.version) != Some(w.expected_version) {
                return false;
            }
            host.rows.insert(key, w.row.clone());
        }
        WriteOp::Delete => {
            if cur.map(|e| e.version) != Some(w.expected_version) {
                return false;
            }
            host.rows.remove(&key);
            host.calls.retain(|(k, _)| *k != key);
        }
    }
    true
}

/// Do one step of a machine and send what happened; `false` once it has ended.
fn advance(u: &mut Unstructured<'_>, shared: &mut Host, m: &mut Running) -> Result<bool> {
    let step = m.step.clone();
    let checked = m.sandbox.is_none();
    let mut sandbox = m.sandbox.take();
    let host = sandbox.as_mut().unwrap_or(shared);
    let ended = advance_in(u, host, m, &step, checked);
    if sandbox.is_some() {
        m.sandbox = sandbox;
    }
    ended
}

fn advance_in(u: &mut Unstructured<'_>, host: &mut Host, m: &mut Running, step: &Step, checked: bool) -> Result<bool> {
    let mut input = None;
    let mut row = None;
    if let Some(r) = &step.read {
        if checked {
            assert_eq!((&r.scope, &r.key), (&m.at.0, &m.at.1), "a machine read another row");
        }
        row = host.rows.get(&(r.scope.clone(), r.key.clone())).cloned();
        if let (Some(rule), Some(e)) = (&step.replay, &row) {
            check_replay_rule(step, rule, e, host.now);
        }
        if u.ratio(1u8, 40u8)? {
            input = Some(Input::StoreFailed("the database is down".into()));
        } else if row.is_some() || step.write.is_none() {
            input = Some(Input::Row(row.clone()));
        }
    }
    if input.is_none() {
        if let Some(w) = &step.write {
            if u.ratio(1u8, 40u8)? {
                // A storage error: whether the write applied is unknown.
                if u.arbitrary()? {
                    apply_write(host, &m.at, w, checked);
                }
                input = Some(Input::StoreFailed("connection reset".into()));
            } else if u.ratio(1u8, 40u8)? || !apply_write(host, &m.at, w, checked) {
                // A race lost for real, or one the host reports without having tried (harmless).
                input = Some(Input::LostRace);
            }
        }
    }
    let input = match input {
        Some(i) => i,
        None => match &step.action {
            Action::Report => {
                if step.read.is_some() && step.write.is_none() {
                    Input::Row(row)
                } else {
                    Input::Written
                }
            }
            Action::CallTool(c) => {
                // Sometimes the worker stalls between its claim and its call (the clock jumps).
                if u.ratio(1u8, 8u8)? {
                    host.now = host.now.saturating_add(u.int_in_range(0..=5_000u64)?);
                }
                if c.not_after.is_some_and(|t| host.now >= t) {
                    // Past its lease: the host must not call.
                    Input::TooLate
                } else {
                    let key = &c.key;
                    if checked && !m.pass_through {
                        assert_eq!(key, &m.at.1);
                        let e = host.rows.get(&m.at).unwrap_or_else(|| panic!("call-tool without a row: {step:?}"));
                        assert_eq!(e.state, EntryState::Pending, "call-tool on a {:?} row", e.state);
                        assert!(
                            host.calls.insert((m.at.clone(), e.attempt)),
                            "the tool was called twice for attempt {} of {:?}",
                            e.attempt,
                            m.at
                        );
                    }
                    // Sometimes the call passes its deadline and the host abandons it.
                    if u.ratio(1u8, 8u8)? {
                        Input::Abandoned
                    } else {
                        tool_answer(u)?
                    }
                }
            }
            Action::RecallTool(key) => {
                assert!(!checked || key == &m.at.1);
                tool_answer(u)?
            }
            Action::CallReconciler(q) => {
                assert!(!checked || (&q.scope, &q.key) == (&m.at.0, &m.at.1));
                reconciler_answer(u)?
            }
            Action::SleepUntil(t) => {
                host.now = host.now.max(*t);
                Input::Woke
            }
            Action::Finish(_) | Action::Raise(_) => return Ok(false),
        },
    };
    // A host with a bug: the wrong input, or state it did not get from the core.
    let mut state = step.state.clone();
    let mut misled = false;
    let input = if u.ratio(1u8, 200u8)? {
        misled = true;
        pick_input(u)?
    } else {
        input
    };
    if u.ratio(1u8, 200u8)? && !state.is_empty() {
        misled = true;
        let i = u.choose_index(state.len())?;
        state[i] ^= u.arbitrary::<u8>()? | 1;
        if u.arbitrary()? {
            state.truncate(i);
        }
    }
    host.now = host.now.saturating_add(match u.int_in_range(0..=7u8)? {
        0 => u.arbitrary()?,
        1..=3 => 0,
        _ => u64::from(u.int_in_range(0..=1500u16)?),
    });
    let next = effect::run(&state, input, host.now).expect("run never fails but for start(effect)");
    check_step(&next);
    m.step = next;
    if misled && checked {
        m.sandbox = Some(host.clone());
    }
    Ok(true)
}

fn pick_input(u: &mut Unstructured<'_>) -> Result<Input> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => Input::Row(None),
        1 => Input::Written,
        2 => Input::LostRace,
        3 => Input::StoreFailed("x".into()),
        4 => tool_answer(u)?,
        5 => reconciler_answer(u)?,
        6 => Input::Woke,
        7 => Input::TooLate,
        8 => Input::Abandoned,
        _ => Input::ToolUnencodable("x".into()),
    })
}

/// What the host answers `call-reconciler` with: a verdict, no reconciler, or one that raised.
fn reconciler_answer(u: &mut Unstructured<'_>) -> Result<Input> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => Input::NoReconciler,
        1 => Input::ReconcilerFailed("connection refused".into()),
        _ => Input::Verdict(verdict(u)?),
    })
}
