//! `tests/vectors/effects.json`, replayed natively: the reference interpreter of `wit/effect.wit`
//! against the scripted world the file describes. Every host replays the same file with its own
//! interpreter and must give the same traces. `ONCELY_BLESS=1` writes `expect` from this run
//! (then review the diff).

mod common;

use common::s;
use oncely_core::effect;
use oncely_core::effect_wit::{
    Action, EffectError, EffectOptions, EffectResult, Finish, Input, Notice, NoticeKind, ResultSource, RowWrite, Step, TendJob, TendNote,
    ToolFailure, VerdictKind, WriteOp,
};
use oncely_core::keys_wit::Intent;
use oncely_core::ledger::Write;
use oncely_core::ledger_wit::{Entry, EntryState, Event, Outcome, ReconcileVerdict, Resolution, Settlement};
use oncely_core::policy_wit::ToolPolicy;
use oncely_core::{ledger, policy};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;

fn state_name(s: EntryState) -> &'static str {
    ledger::state_name(s)
}

/// One scenario's world: rows by (scope, key), a clock, a scripted tool, reconciler and store.
struct World {
    intent: Intent,
    policy: ToolPolicy,
    rows: BTreeMap<(String, String), Entry>,
    clock: u64,
    tool: VecDeque<Value>,
    reconciler: Option<VecDeque<Value>>,
    hooks: Vec<Value>,
    counts: HashMap<&'static str, u64>,
    trace: Vec<String>,
    /// Calls of `effect.run` (the start included).
    crossings: u64,
}

impl World {
    /// Apply scripted events (someone else's doing) straight to the row.
    fn happen(&mut self, steps: &Value) {
        for st in steps.as_array().unwrap() {
            let ev = common::event(st, &self.intent, &self.policy);
            let at = match &ev {
                Event::Begin(c) => (c.scope.clone(), c.key.clone()),
                _ => own_key(&self.intent, &self.policy),
            };
            let row = self.rows.get(&at).cloned();
            let t = ledger::handle(row, ev, st["now"].as_u64().unwrap()).unwrap_or_else(|e| panic!("scripted {st}: {}", e.message));
            match t.write {
                Some(Write::Insert(e)) | Some(Write::Update(oncely_core::ledger::Update { entry: e, .. })) => {
                    self.rows.insert((e.scope.clone(), e.key.clone()), e);
                }
                Some(Write::Delete(d)) => {
                    self.rows.remove(&(d.scope, d.key));
                }
                None => {}
            }
        }
    }

    /// After an operation applied: a scripted stall (the clock moves on, `after` events happen).
    fn after(&mut self, op: &'static str) {
        let n = self.counts.get(op).copied().unwrap_or(0);
        for h in self.hooks.clone() {
            if h["op"] == op && h["nth"].as_u64() == Some(n) {
                if let Some(ms) = h.get("stall_ms") {
                    self.trace.push(format!("stall {}", ms.as_u64().unwrap()));
                    self.clock += ms.as_u64().unwrap();
                }
                if let Some(after) = h.get("after") {
                    self.happen(after);
                }
            }
        }
    }

    /// Count an operation; run its hook. `Err` is a scripted storage failure.
    fn op(&mut self, op: &'static str) -> Result<(), String> {
        let n = {
            let c = self.counts.entry(op).or_insert(0);
            *c += 1;
            *c
        };
        for h in self.hooks.clone() {
            if h["op"] == op && h["nth"].as_u64() == Some(n) {
                if let Some(before) = h.get("before") {
                    self.happen(before);
                }
                if let Some(why) = h.get("fails") {
                    self.trace.push(format!("{op} failed"));
                    return Err(s(why));
                }
            }
        }
        Ok(())
    }

    fn read(&mut self, scope: &str, key: &str) -> Result<Option<Entry>, String> {
        self.op("read")?;
        let r = self.rows.get(&(scope.to_string(), key.to_string())).cloned();
        self.trace.push(format!("read {}", r.as_ref().map_or("absent", |e| state_name(e.state))));
        Ok(r)
    }

    fn write(&mut self, w: &RowWrite) -> Result<bool, String> {
        let at = (w.row.scope.clone(), w.row.key.clone());
        let stored = self.rows.get(&at).map(|e| e.version);
        let (op, applied) = match w.op {
            WriteOp::Insert => ("insert", self.op("insert").map(|()| stored.is_none())?),
            WriteOp::Update => ("update", self.op("update").map(|()| stored == Some(w.expected_version))?),
            WriteOp::Delete => ("delete", self.op("delete").map(|()| stored == Some(w.expected_version))?),
        };
        // A scripted `before` hook may have changed the row since `stored` was read.
        let applied = applied && self.rows.get(&at).map(|e| e.version) == stored;
        if applied {
            match w.op {
                WriteOp::Delete => {
                    self.rows.remove(&at);
                }
                _ => {
                    self.rows.insert(at, w.row.clone());
                }
            }
        }
        self.trace.push(if applied { op.to_string() } else { format!("{op} lost") });
        self.after(op);
        Ok(applied)
    }

    fn call_tool(&mut self, what: &str) -> Input {
        self.trace.push(what.to_string());
        let b = self.tool.pop_front().unwrap_or_else(|| panic!("the tool was called more often than scripted"));
        if let Some(ms) = b.get("takes_ms") {
            self.clock += ms.as_u64().unwrap();
        }
        if let Some(m) = b.get("meanwhile") {
            self.happen(m);
        }
        if let Some(v) = b.get("returns") {
            Input::ToolReturned(v.to_string())
        } else if let Some(why) = b.get("unencodable") {
            Input::ToolUnencodable(s(why))
        } else {
            Input::ToolFailed(ToolFailure { definite: b["definite"].as_bool().unwrap(), reason: s(&b["fails"]) })
        }
    }

    fn reconcile(&mut self) -> Input {
        self.trace.push("reconciler".into());
        let v = self.reconciler.as_mut().unwrap().pop_front().expect("the reconciler was called more often than scripted");
        if v == "gone" {
            return Input::NoReconciler;
        }
        if let Some(why) = v.get("raises") {
            return Input::ReconcilerFailed(s(why));
        }
        Input::Verdict(if v == "not-happened" {
            ReconcileVerdict::NotHappened
        } else if let Some(r) = v.get("happened") {
            ReconcileVerdict::Happened(r.to_string())
        } else {
            ReconcileVerdict::Unknown(s(&v["unknown"]))
        })
    }

    /// The interpreter of `wit/effect.wit`: do what each step says until the machine finishes
    /// or raises. Returns the finish and the row read last.
    fn run(&mut self, first: Step) -> (Result<Finish, EffectError>, Option<Entry>) {
        let mut step = first;
        let mut last_row = None;
        self.crossings += 1;
        loop {
            let input = 'input: {
                if let Some(r) = &step.read {
                    match self.read(&r.scope, &r.key) {
                        Err(why) => break 'input Input::StoreFailed(why),
                        Ok(row) => {
                            last_row = row.clone();
                            if let Some(done) = replayed(&step, row.as_ref(), self.clock) {
                                self.trace.push(event_line(&step.replay.as_ref().unwrap().event));
                                return (Ok(done), last_row);
                            }
                            if row.is_some() || step.write.is_none() {
                                break 'input Input::Row(row);
                            }
                        }
                    }
                }
                if let Some(w) = &step.write {
                    match self.write(w) {
                        Err(why) => break 'input Input::StoreFailed(why),
                        Ok(false) => break 'input Input::LostRace,
                        Ok(true) => {}
                    }
                }
                // The step's events, delivered where the host comes to its action.
                for e in &step.events {
                    self.trace.push(event_line(e));
                }
                match step.action {
                    Action::Report if step.write.is_none() => Input::Row(last_row.clone()),
                    Action::Report => Input::Written,
                    // Past the lease: not called (nothing traced; the host sends `too-late`).
                    Action::CallTool(c) if c.not_after.is_some_and(|t| self.clock >= t) => Input::TooLate,
                    Action::CallTool(_) => self.call_tool("tool"),
                    Action::RecallTool(_) => self.call_tool("recall"),
                    Action::CallReconciler(_) => self.reconcile(),
                    Action::SleepUntil(t) => {
                        self.trace.push(format!("sleep {}", t - self.clock));
                        self.clock = t;
                        Input::Woke
                    }
                    Action::Finish(f) => return (Ok(f), last_row),
                    Action::Raise(e) => return (Err(e), last_row),
                }
            };
            self.crossings += 1;
            step = effect::run(&step.state, input, self.clock).unwrap();
        }
    }
}

/// The finish of a step's `replay` rule when `row` is the record it names (wit/effect.wit:
/// state done, the rule's fingerprint and tool, a result), checked against what the core decides
/// when the row is sent to it instead: the same finish, after the same one event.
fn replayed(step: &Step, row: Option<&Entry>, now: u64) -> Option<Finish> {
    let (rule, e) = (step.replay.as_ref()?, row?);
    if e.state != rule.state || e.fingerprint != rule.fingerprint || e.tool != rule.tool {
        return None;
    }
    let json = e.result_json.clone()?;
    let done = Finish::Effect(EffectResult {
        key: e.key.clone(),
        source: ResultSource::Recorded(json),
        replayed: true,
        reconciled: rule.reconciled,
    });
    let core = effect::run(&step.state, Input::Row(Some(e.clone())), now).unwrap();
    assert_eq!(core.action, Action::Finish(done.clone()), "the replay rule answers as the core");
    assert_eq!(core.events, vec![rule.event.clone()], "the replay rule's event is the core's");
    Some(done)
}

/// An event as the vectors trace it: `event KIND TOOL: DETAIL` (`event KIND TOOL` without a
/// detail).
fn event_line(e: &Notice) -> String {
    let kind = match e.kind {
        NoticeKind::Claimed => "claimed",
        NoticeKind::Executed => "executed",
        NoticeKind::Replayed => "replayed",
        NoticeKind::Conflict => "conflict",
        NoticeKind::InDoubt => "in-doubt",
        NoticeKind::Reconciled => "reconciled",
        NoticeKind::Escalated => "escalated",
        NoticeKind::Resolved => "resolved",
        NoticeKind::AwaitingApproval => "awaiting-approval",
        NoticeKind::Approved => "approved",
        NoticeKind::Denied => "denied",
    };
    if e.detail.is_empty() {
        format!("event {kind} {}", e.tool)
    } else {
        format!("event {kind} {}: {}", e.tool, e.detail)
    }
}

fn error_kind(e: &EffectError) -> &'static str {
    match e {
        EffectError::Conflict(_) => "conflict",
        EffectError::InProgress(_) => "in-progress",
        EffectError::InDoubt(_) => "in-doubt",
        EffectError::Escalated(_) => "escalated",
        EffectError::ToolFailed(_) => "tool-failed",
        EffectError::ResultNotRecorded(_) => "result-not-recorded",
        EffectError::Storage(_) => "storage",
        EffectError::Ledger(_) => "ledger",
        EffectError::Contention(_) => "contention",
        EffectError::AwaitingApproval(_) => "awaiting-approval",
        EffectError::Denied(_) => "denied",
    }
}

fn note_json(n: &TendNote) -> Value {
    json!({
        "lease_expired": n.lease_expired,
        "reconciled": n.reconciled.map(|k| match k {
            VerdictKind::Happened => "happened",
            VerdictKind::NotHappened => "not-happened",
            VerdictKind::Unknown => "unknown",
        }),
        "escalated": n.escalated.is_some(),
        "purged": n.purged,
        "skipped": n.skipped.is_some(),
    })
}

fn result_json((r, last_row): (Result<Finish, EffectError>, Option<Entry>)) -> Value {
    match r {
        Ok(Finish::Effect(e)) => {
            let mut out = json!({"replayed": e.replayed, "reconciled": e.reconciled});
            match e.source {
                ResultSource::ToolValue => out["source"] = json!("tool-value"),
                ResultSource::Recorded(text) => {
                    out["source"] = json!("recorded");
                    out["value"] = serde_json::from_str(&text).unwrap();
                }
            }
            json!({ "return": out })
        }
        Ok(Finish::Waited) => json!({"waited": last_row.map_or("absent", |e| state_name(e.state))}),
        Ok(Finish::Event(Outcome::Settled(_))) => json!({"settled": true}),
        Ok(other) => panic!("unexpected finish {other:?}"),
        Err(e) => raised(error_kind(&e), retry_after(&e)),
    }
}

/// When the error says to look again (ms): an in-progress claim's, an in-doubt entry's next
/// reconciliation (null when not known).
fn retry_after(e: &EffectError) -> Option<Option<u64>> {
    match e {
        EffectError::InProgress(b) => Some(Some(b.retry_after_ms)),
        EffectError::InDoubt(d) => Some(d.retry_after_ms),
        _ => None,
    }
}

/// A `raise` result, with its `retry_after_ms` (kept only where a scenario pins it).
fn raised(kind: &str, retry_after_ms: Option<Option<u64>>) -> Value {
    match retry_after_ms {
        Some(ms) => json!({ "raise": kind, "retry_after_ms": ms }),
        None => json!({ "raise": kind }),
    }
}

#[test]
fn effect_vectors() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/effects.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bless = std::env::var_os("ONCELY_BLESS").is_some();
    let base_intent = doc["intent"].clone();
    let base_options = doc["options"].clone();
    let policies = doc["policies"].clone();
    let scenarios = doc["scenarios"].as_array_mut().unwrap();
    assert!(scenarios.len() >= 30, "effects.json must hold at least 30 scenarios");
    for sc in scenarios.iter_mut() {
        let name = s(&sc["name"]);
        eprintln!("scenario: {name}");
        let intent_of = |i: &Value| Intent {
            scope: s(&i["scope"]),
            run_id: s(&i["run"]),
            step_id: s(&i["step"]),
            tool: s(&i["tool"]),
            args_json: s(&i["args"]),
        };
        // Scripted events are about the base intent; the run may be another's.
        let base = intent_of(&base_intent);
        let intent = intent_of(sc.get("intent").unwrap_or(&base_intent));
        let pol = policy::parse_policy(&policies[s(&sc["policy"])].to_string()).unwrap();
        let mut options = base_options.clone();
        if let Some(o) = sc.get("options") {
            for (k, v) in o.as_object().unwrap() {
                options[k] = v.clone();
            }
        }
        let mut w = World {
            intent: base,
            policy: pol.clone(),
            rows: BTreeMap::new(),
            clock: 0,
            tool: sc.get("tool").and_then(Value::as_array).cloned().unwrap_or_default().into(),
            reconciler: sc.get("reconciler").and_then(Value::as_array).map(|v| v.clone().into()),
            hooks: sc.get("store").and_then(Value::as_array).cloned().unwrap_or_default(),
            counts: HashMap::new(),
            trace: Vec::new(),
            crossings: 0,
        };
        if let Some(p) = sc.get("prelude") {
            w.happen(p);
        }
        let run = sc.get("run").cloned().unwrap_or(json!("effect"));
        let result = if run == "effect" {
            w.clock = sc["now"].as_u64().unwrap();
            let opts = EffectOptions {
                owner: s(&options["owner"]),
                max_attempts: options["max_attempts"].as_u64().unwrap() as u32,
                wait_ms: options["wait_ms"].as_u64(),
                has_reconciler: w.reconciler.is_some(),
                approval_wait_ms: options.get("approval_wait_ms").and_then(Value::as_u64),
            };
            let first = effect::start_effect(&intent, &pol, &opts, w.clock).unwrap();
            result_json(w.run(first))
        } else {
            let (job, b) = run.as_object().unwrap().iter().next().unwrap();
            w.clock = b["now"].as_u64().unwrap();
            match job.as_str() {
                "wait" => {
                    let (scope, key) = own_key(&intent, &pol);
                    let first = effect::start_wait(
                        scope,
                        key,
                        b.get("every_ms").and_then(Value::as_u64),
                        b.get("timeout_ms").and_then(Value::as_u64),
                        w.clock,
                    );
                    result_json(w.run(first))
                }
                "resolve" => {
                    // A person's verdict, at the version of the row as it stands (an event machine).
                    let (scope, key) = own_key(&intent, &pol);
                    let seen_version = w.rows.get(&(scope.clone(), key.clone())).map_or(0, |e| e.version);
                    let settlement = match b["settlement"].get("happened") {
                        Some(v) => Settlement::Happened(v.to_string()),
                        None => Settlement::NotHappened,
                    };
                    let resolution = Resolution { settlement, by: s(&b["by"]), note: String::new(), seen_version };
                    let first = effect::start_event(scope, key, Event::Resolve(resolution), w.clock);
                    result_json(w.run(first))
                }
                job => {
                    let job = if job == "sweep" { TendJob::Sweep } else { TendJob::Purge };
                    let mut due: Vec<Entry> = w.rows.values().filter(|e| e.due_at.is_some_and(|d| d <= w.clock)).cloned().collect();
                    due.sort_by_key(|e| e.due_at);
                    w.trace.push(format!("due {}", due.len()));
                    let mut notes = Vec::new();
                    for row in due {
                        let first = effect::start_tend(row.scope, row.key, job, w.reconciler.is_some(), w.clock);
                        match w.run(first) {
                            (Ok(Finish::Tended(n)), _) => notes.push(note_json(&n)),
                            other => notes.push(result_json(other)),
                        }
                    }
                    json!({ "tended": notes })
                }
            }
        };
        let own = w.rows.get(&own_key(&intent, &pol));
        let mut row = own.map_or(json!("absent"), |e| json!({"state": state_name(e.state), "version": e.version, "attempt": e.attempt}));
        // The stored reason, where a scenario pins it (the core words every reason).
        if let (Some(e), Some(_)) = (own, sc.pointer("/expect/row/reason")) {
            row["reason"] = json!(e.reason);
        }
        for e in w.rows.values() {
            assert_eq!(e.due_at, ledger::due_at(e), "{name}: due-at");
        }
        let mut result = result;
        // When to look again, where a scenario pins it (the core computes it).
        if sc.pointer("/expect/result/retry_after_ms").is_none() {
            if let Some(m) = result.as_object_mut() {
                m.remove("retry_after_ms");
            }
        }
        let mut got = json!({ "trace": w.trace, "result": result, "row": row });
        // How many calls of `effect.run` the host made, where a scenario pins it.
        if sc.pointer("/expect/crossings").is_some() {
            got["crossings"] = json!(w.crossings);
        }
        if bless {
            sc["expect"] = got;
        } else {
            assert_eq!(&got, sc.get("expect").unwrap_or(&Value::Null), "{name}");
        }
    }
    if bless {
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
}

/// The scenario's own (scope, key).
fn own_key(i: &Intent, p: &ToolPolicy) -> (String, String) {
    (i.scope.clone(), ledger::prepare(i, p, "w").unwrap().key)
}
