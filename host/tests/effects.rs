//! `tests/vectors/effects.json` through the Rust host's real interpreter (`Ledger::effect`,
//! `sweep`, `purge_expired`, `wait_settled`) over a scripted store, tool, reconciler and clock:
//! the same traces as the core's reference interpreter (guest/tests/effect_vectors.rs) and every
//! other host. Time is tokio's paused clock, so a sleep of the core's moves the scripted clock.

use oncely_test_support as common;

use oncely::store::{ListFilter, Store};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Entry, Event, ReconcileVerdict, Resolution, Settlement};
use oncely::wit::policy::ToolPolicy;
use oncely::{Error, Ledger, Runtime, StoreError, ToolError};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}")).to_string()
}

/// The scripted world behind the store: rows, the store's script, and the trace.
#[derive(Default)]
struct World {
    rows: BTreeMap<(String, String), Entry>,
    hooks: Vec<Value>,
    counts: HashMap<&'static str, u64>,
    trace: Vec<String>,
    /// The clock at the last traced operation: a jump since is the core's sleep.
    seen: u64,
}

/// Everything a scenario shares.
struct Script {
    world: Mutex<World>,
    rt: Runtime,
    intent: Intent,
    policy: ToolPolicy,
    start: tokio::time::Instant,
    base: u64,
    /// Scripted stalls of the whole host: the clock jumps, and no timer of the host fires
    /// meanwhile (no heartbeat, no deadline), as when a process is paused.
    stalled: std::sync::atomic::AtomicU64,
}

impl Script {
    fn now(&self) -> u64 {
        self.base + self.start.elapsed().as_millis() as u64 + self.stalled.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn stall(&self, ms: u64) {
        self.stalled.fetch_add(ms, std::sync::atomic::Ordering::SeqCst);
    }

    fn trace(&self, what: String) {
        let now = self.now();
        let mut w = self.world.lock().unwrap();
        if now > w.seen {
            let slept = now - w.seen;
            w.trace.push(format!("sleep {slept}"));
        }
        w.seen = now;
        w.trace.push(what);
    }

    /// Someone else's doing: scripted events applied through a ledger whose store runs no hooks.
    fn happen(self: &Arc<Self>, steps: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            for st in steps.as_array().unwrap() {
                let at = st["now"].as_u64().unwrap();
                let ev = common::event(&self.rt, st, &self.intent, &self.policy);
                let key = match &ev {
                    Event::Begin(c) => c.key.clone(),
                    _ => self.rt.prepare(&self.intent, &self.policy, "w").unwrap().key,
                };
                let quiet = ScriptedStore { script: self.clone(), hooks: false };
                let other = Ledger::with_store(self.rt.clone(), quiet).with_clock(Arc::new(move || at));
                other.drive(&self.intent.scope, &key, &ev).await.unwrap_or_else(|e| panic!("scripted {st}: {e}"));
            }
        })
    }
}

#[derive(Clone)]
struct ScriptedStore {
    script: Arc<Script>,
    hooks: bool,
}

impl std::fmt::Debug for ScriptedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScriptedStore")
    }
}

impl ScriptedStore {
    /// Count `op`, run its scripted `before` events, fail it when scripted to.
    async fn op(&self, op: &'static str) -> Result<(), StoreError> {
        if !self.hooks {
            return Ok(());
        }
        let hooks: Vec<Value> = {
            let mut w = self.script.world.lock().unwrap();
            let n = {
                let c = w.counts.entry(op).or_insert(0);
                *c += 1;
                *c
            };
            w.hooks.iter().filter(|h| h["op"] == op && h["nth"].as_u64() == Some(n)).cloned().collect()
        };
        for h in hooks {
            if let Some(before) = h.get("before") {
                self.script.happen(before.clone()).await;
            }
            if let Some(why) = h.get("fails") {
                self.script.trace(format!("{op} failed"));
                return Err(StoreError::Other(s(why)));
            }
        }
        Ok(())
    }

    /// Once `op` applied: its scripted stall (the clock jumps) and `after` events.
    async fn after(&self, op: &'static str) {
        if !self.hooks {
            return;
        }
        let hooks: Vec<Value> = {
            let w = self.script.world.lock().unwrap();
            let n = w.counts.get(op).copied().unwrap_or(0);
            w.hooks.iter().filter(|h| h["op"] == op && h["nth"].as_u64() == Some(n)).cloned().collect()
        };
        for h in hooks {
            if let Some(ms) = h.get("stall_ms").and_then(Value::as_u64) {
                self.script.trace(format!("stall {ms}"));
                self.script.stall(ms);
                let now = self.script.now();
                self.script.world.lock().unwrap().seen = now;
            }
            if let Some(after) = h.get("after") {
                self.script.happen(after.clone()).await;
            }
        }
    }

    fn version(&self, scope: &str, key: &str) -> Option<u64> {
        self.script.world.lock().unwrap().rows.get(&(scope.to_string(), key.to_string())).map(|e| e.version)
    }

    fn done(&self, op: &str, applied: bool) -> Result<bool, StoreError> {
        if self.hooks {
            self.script.trace(if applied { op.to_string() } else { format!("{op} lost") });
        }
        Ok(applied)
    }
}

impl Store for ScriptedStore {
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        self.op("read").await?;
        let row = self.script.world.lock().unwrap().rows.get(&(scope.to_string(), key.to_string())).cloned();
        if self.hooks {
            self.script.trace(format!("read {}", row.as_ref().map_or("absent", |e| oncely::store::state_name(e.state))));
        }
        Ok(row)
    }
    async fn insert(&self, e: &Entry, _claims: bool) -> Result<bool, StoreError> {
        self.op("insert").await?;
        let applied = self.version(&e.scope, &e.key).is_none();
        if applied {
            self.script.world.lock().unwrap().rows.insert((e.scope.clone(), e.key.clone()), e.clone());
        }
        let applied = self.done("insert", applied)?;
        self.after("insert").await;
        Ok(applied)
    }
    async fn update(&self, expected: u64, e: &Entry, _history: bool, _claims: bool) -> Result<bool, StoreError> {
        self.op("update").await?;
        let applied = self.version(&e.scope, &e.key) == Some(expected);
        if applied {
            self.script.world.lock().unwrap().rows.insert((e.scope.clone(), e.key.clone()), e.clone());
        }
        let applied = self.done("update", applied)?;
        self.after("update").await;
        Ok(applied)
    }
    async fn delete(&self, scope: &str, key: &str, expected: u64) -> Result<bool, StoreError> {
        self.op("delete").await?;
        let applied = self.version(scope, key) == Some(expected);
        if applied {
            self.script.world.lock().unwrap().rows.remove(&(scope.to_string(), key.to_string()));
        }
        let applied = self.done("delete", applied)?;
        self.after("delete").await;
        Ok(applied)
    }
    async fn list(&self, _scope: Option<&str>, _filter: &ListFilter) -> Result<Vec<Entry>, StoreError> {
        unreachable!("the machines never list")
    }
    async fn history(&self, _scope: &str, _key: &str) -> Result<Vec<oncely::store::HistoryRecord>, StoreError> {
        unreachable!("the machines never read a history")
    }
    async fn stats(&self) -> Result<oncely::store::Stats, StoreError> {
        unreachable!("the machines never count")
    }
    async fn waiting(&self, _in_doubt_by: Option<u64>, _page: &oncely::store::WaitingPage) -> Result<Vec<Entry>, StoreError> {
        unreachable!("the machines never read the inbox")
    }
    async fn waiting_count(&self, _in_doubt_by: Option<u64>) -> Result<(u64, u64), StoreError> {
        unreachable!("the machines never count")
    }
    async fn awaiting(&self, _page: &oncely::store::WaitingPage) -> Result<Vec<Entry>, StoreError> {
        unreachable!("the machines never read the inbox")
    }
    async fn awaiting_count(&self) -> Result<u64, StoreError> {
        unreachable!("the machines never read the inbox")
    }
    async fn last_approved(&self, _scope: &str, _tool: &str, _key: &str) -> Result<Option<Entry>, StoreError> {
        unreachable!("the machines never read the inbox")
    }
    async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, StoreError> {
        let mut due: Vec<Entry> = self
            .script
            .world
            .lock()
            .unwrap()
            .rows
            .values()
            .filter(|e| scope.is_none_or(|s| s == e.scope) && e.due_at.is_some_and(|d| d <= now))
            .cloned()
            .collect();
        due.sort_by_key(|e| e.due_at);
        due.truncate(limit as usize);
        self.script.trace(format!("due {}", due.len()));
        Ok(due)
    }
}

/// A value `serde_json` refuses to encode: a map with non-string keys.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum Out {
    Json(Value),
    Unencodable(BTreeMap<(u8, u8), u8>),
}

fn error_kind(e: &Error) -> &'static str {
    match e {
        Error::Conflict { .. } => "conflict",
        Error::InProgress { .. } => "in-progress",
        Error::InDoubt { .. } => "in-doubt",
        Error::Escalated { .. } => "escalated",
        Error::ToolFailed(_) => "tool-failed",
        Error::ResultNotRecorded { .. } => "result-not-recorded",
        Error::Storage(_) => "storage",
        Error::Ledger(_) => "ledger",
        Error::Contention(_) => "contention",
        Error::AwaitingApproval(_) => "awaiting-approval",
        Error::Denied(_) => "denied",
        other => panic!("unexpected error {other}"),
    }
}

async fn scenario(doc: &Value, sc: &Value) -> Value {
    let rt = Runtime::shared().unwrap();
    // The ledger's own runtime where the scenario pins the calls of `effect.run` it makes
    // (scripted happenings use `rt`).
    let pinned = sc.pointer("/expect/crossings").is_some();
    let core = if pinned { Runtime::new().unwrap() } else { rt.clone() };
    let intent_of = |i: &Value| Intent {
        scope: s(&i["scope"]),
        run_id: s(&i["run"]),
        step_id: s(&i["step"]),
        tool: s(&i["tool"]),
        args_json: s(&i["args"]),
    };
    let base = intent_of(&doc["intent"]);
    let intent = intent_of(sc.get("intent").unwrap_or(&doc["intent"]));
    let policy = rt.parse_policy(&doc["policies"][s(&sc["policy"])].to_string()).unwrap();
    let run = sc.get("run").cloned().unwrap_or(json!("effect"));
    let now = if run == "effect" {
        sc["now"].as_u64().unwrap()
    } else {
        run.as_object().unwrap().values().next().unwrap()["now"].as_u64().unwrap()
    };
    let script = Arc::new(Script {
        world: Mutex::new(World { hooks: sc.get("store").and_then(Value::as_array).cloned().unwrap_or_default(), ..World::default() }),
        rt: rt.clone(),
        intent: base,
        policy: policy.clone(),
        start: tokio::time::Instant::now(),
        base: now,
        stalled: 0.into(),
    });
    if let Some(p) = sc.get("prelude") {
        script.happen(p.clone()).await;
    }
    script.world.lock().unwrap().seen = now;
    let store = ScriptedStore { script: script.clone(), hooks: true };
    let clock_script = script.clone();
    let mut options = doc["options"].clone();
    if let Some(o) = sc.get("options") {
        for (k, v) in o.as_object().unwrap() {
            options[k] = v.clone();
        }
    }
    let ledger = Ledger::with_store(core.clone(), store).with_owner(s(&options["owner"])).with_clock(Arc::new(move || clock_script.now()));
    // The events the ledger delivers, traced where it delivers them.
    let event_script = script.clone();
    let queue = Arc::new(Mutex::new(sc.get("reconciler").and_then(Value::as_array).cloned().unwrap_or_default()));
    let (gone_queue, gone_ledger) = (queue.clone(), ledger.clone());
    let gone_tool = intent.tool.clone();
    ledger.on_event(move |e| {
        event_script.trace(event_line(e));
        // `gone`: the reconciler is unregistered right before the core asks for it (the step
        // that put the entry in doubt delivers its events just before its action).
        let mut q = gone_queue.lock().unwrap();
        if e.kind.name() == "in-doubt" && q.first().is_some_and(|v| v == "gone") {
            q.remove(0);
            assert!(gone_ledger.remove_reconciler(&gone_tool));
            event_script.trace("reconciler".into());
        }
    });
    if sc.get("reconciler").is_some() {
        let (q, sc2) = (queue.clone(), script.clone());
        ledger.reconciler(&intent.tool, move |_req| {
            let v = q.lock().unwrap().remove(0);
            sc2.trace("reconciler".into());
            async move {
                if let Some(why) = v.get("raises") {
                    panic!("{}", s(why));
                }
                if v == "not-happened" {
                    ReconcileVerdict::NotHappened
                } else if let Some(r) = v.get("happened") {
                    ReconcileVerdict::Happened(r.to_string())
                } else {
                    ReconcileVerdict::Unknown(s(&v["unknown"]))
                }
            }
        });
    }
    let result = if run == "effect" {
        let tool_script = Arc::new(Mutex::new(sc.get("tool").and_then(Value::as_array).cloned().unwrap_or_default()));
        let (own_scope, own_key) = (intent.scope.clone(), rt.prepare(&intent, &policy, "w").unwrap().key);
        let tool = |_key: String| {
            let (script, tool_script, own) = (script.clone(), tool_script.clone(), (own_scope.clone(), own_key.clone()));
            async move {
                // A call while the entry is in doubt is the reconciliation of a provider-idempotent tool.
                let recall = script.world.lock().unwrap().rows.get(&own).is_some_and(|e| oncely::store::state_name(e.state) == "in-doubt");
                script.trace(if recall { "recall".into() } else { "tool".into() });
                let b = tool_script.lock().unwrap().remove(0);
                if let Some(ms) = b.get("takes_ms") {
                    script.stall(ms.as_u64().unwrap());
                }
                if let Some(m) = b.get("meanwhile") {
                    script.happen(m.clone()).await;
                }
                script.world.lock().unwrap().seen = script.now();
                if let Some(v) = b.get("returns") {
                    Ok(Out::Json(v.clone()))
                } else if b.get("unencodable").is_some() {
                    Ok(Out::Unencodable(BTreeMap::from([((1, 2), 3)])))
                } else if b["definite"] == true {
                    Err(ToolError::definite(s(&b["fails"])))
                } else {
                    Err(ToolError::ambiguous(s(&b["fails"])))
                }
            }
        };
        let opts_wait = options["wait_ms"].as_u64().map(std::time::Duration::from_millis);
        let approval_wait = options.get("approval_wait_ms").and_then(Value::as_u64).map(std::time::Duration::from_millis);
        let mut effect = ledger.effect(&intent, &policy).wait(opts_wait).wait_for_approval(approval_wait);
        if options["max_attempts"].as_u64().unwrap() > 0 {
            effect = effect.max_attempts(options["max_attempts"].as_u64().unwrap() as u32);
        }
        match effect.run(tool).await {
            Ok(r) => {
                let mut out = json!({"replayed": r.replayed, "reconciled": r.reconciled});
                // A recorded value comes back decoded; the tool's own value is returned as it was.
                let fresh = !r.replayed;
                out["source"] = json!(if fresh { "tool-value" } else { "recorded" });
                if !fresh {
                    let Out::Json(v) = r.value else { panic!("a recorded value decodes as JSON") };
                    out["value"] = v;
                }
                json!({ "return": out })
            }
            Err(e) => {
                let mut r = json!({ "raise": error_kind(&e) });
                // When to look again, where a scenario pins it (the core computes it).
                if sc.pointer("/expect/result/retry_after_ms").is_some() {
                    r["retry_after_ms"] = match &e {
                        Error::InProgress(b) => json!(b.retry_after_ms),
                        Error::InDoubt(d) => json!(d.retry_after_ms),
                        _ => Value::Null,
                    };
                }
                r
            }
        }
    } else {
        let (job, b) = run.as_object().unwrap().iter().next().unwrap();
        match job.as_str() {
            "wait" => {
                let key = rt.prepare(&intent, &policy, "w").unwrap().key;
                let every = b.get("every_ms").and_then(Value::as_u64).map(std::time::Duration::from_millis);
                let timeout = b.get("timeout_ms").and_then(Value::as_u64).map(std::time::Duration::from_millis);
                let row = ledger.wait_settled(&intent.scope, &key, every, timeout).await.unwrap();
                json!({"waited": row.map_or("absent", |e| oncely::store::state_name(e.state))})
            }
            "resolve" => {
                // A person's verdict, at the version of the row as it stands (seen without a trace).
                let key = rt.prepare(&intent, &policy, "w").unwrap().key;
                let seen_version = script.world.lock().unwrap().rows.get(&(intent.scope.clone(), key.clone())).map_or(0, |e| e.version);
                let settlement = match b["settlement"].get("happened") {
                    Some(v) => Settlement::Happened(v.to_string()),
                    None => Settlement::NotHappened,
                };
                let resolution = Resolution { settlement, by: s(&b["by"]), note: String::new(), seen_version };
                match ledger.resolve(&intent.scope, &key, resolution).await {
                    Ok(_) => json!({"settled": true}),
                    Err(e) => json!({ "raise": error_kind(&e) }),
                }
            }
            "sweep" => {
                let r = ledger.sweep(None).await.unwrap();
                let notes: Vec<Value> = (0..r.examined)
                    .map(|_| {
                        json!({
                            "lease_expired": r.leases_expired > 0,
                            "reconciled": if r.happened > 0 { json!("happened") } else if r.not_happened > 0 { json!("not-happened") } else if r.unknown > 0 { json!("unknown") } else { Value::Null },
                            "escalated": !r.escalated.is_empty(),
                            "purged": r.purged > 0,
                            "skipped": !r.errors.is_empty(),
                        })
                    })
                    .collect();
                json!({ "tended": notes })
            }
            _ => {
                let purged = ledger.purge_expired(None).await.unwrap();
                let w = script.world.lock().unwrap();
                let examined =
                    w.trace.iter().filter(|t| t.starts_with("due ")).map(|t| t[4..].parse::<usize>().unwrap()).next().unwrap_or(0);
                drop(w);
                let notes: Vec<Value> = (0..examined)
                    .map(|_| json!({"lease_expired": false, "reconciled": null, "escalated": false, "purged": purged > 0, "skipped": purged == 0}))
                    .collect();
                json!({ "tended": notes })
            }
        }
    };
    let key = rt.prepare(&intent, &policy, "w").unwrap().key;
    let w = script.world.lock().unwrap();
    let own = w.rows.get(&(intent.scope.clone(), key));
    let mut row =
        own.map_or(json!("absent"), |e| json!({"state": oncely::store::state_name(e.state), "version": e.version, "attempt": e.attempt}));
    // The stored reason, where a scenario pins it (the core words every reason).
    if let (Some(e), Some(_)) = (own, sc.pointer("/expect/row/reason")) {
        row["reason"] = json!(e.reason);
    }
    let trace = w.trace.clone();
    let mut got = json!({ "trace": trace, "result": result, "row": row });
    if pinned {
        // The start included.
        got["crossings"] = json!(core.machine_steps());
    }
    got
}

/// An event as the vectors trace it: `event KIND TOOL: DETAIL` (`event KIND TOOL` without a
/// detail).
fn event_line(e: &oncely::LedgerEvent) -> String {
    if e.detail.is_empty() {
        format!("event {} {}", e.kind.name(), e.tool)
    } else {
        format!("event {} {}: {}", e.kind.name(), e.tool, e.detail)
    }
}

#[tokio::test(start_paused = true)]
async fn every_effect_scenario_gives_the_reference_trace() {
    let doc = common::vectors("effects.json");
    let scenarios = doc["scenarios"].as_array().unwrap();
    assert!(scenarios.len() >= 30);
    for sc in scenarios {
        let got = scenario(&doc, sc).await;
        assert_eq!(got, sc["expect"], "{}", s(&sc["name"]));
    }
}
