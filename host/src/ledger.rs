//! The ledger: the interpreter of the core's machines (`wit/effect.wit`) over a store, and the
//! API built on it. The interpreter (`Ledger::machine`) reads and writes rows, keeps the clock,
//! calls tools and reconcilers, and returns or raises what the core says; every decision — how
//! many attempts, how long to wait, how to retry recording a result, the order of reconciliation
//! paths, what a failure means — is the core's.
//!
//! ```no_run
//! # async fn demo() -> Result<(), oncely::Error> {
//! use oncely::{Ledger, ToolError};
//! use oncely::wit::keys::Intent;
//! let ledger = Ledger::open("ledger.db").await?;
//! let policy = ledger.runtime().parse_policy(
//!     r#"{"class":"irreversible-external","key":{"only":["/charge_id"]},"reconcile":"provider-idempotent"}"#,
//! )?;
//! let intent = Intent {
//!     scope: "acme".into(), run_id: "run-7".into(), step_id: "refund-1".into(),
//!     tool: "refund".into(), args_json: r#"{"charge_id":"ch_1","amount":500}"#.into(),
//! };
//! let refund = ledger
//!     .effect(&intent, &policy)
//!     .run(|key| async move {
//!         // Pass `key` on as the provider's Idempotency-Key.
//!         Ok::<_, ToolError>(serde_json::json!({"refund_id": "re_1", "key": key}))
//!     })
//!     .await?;
//! println!("{} (replayed: {})", refund.value, refund.replayed);
//! # Ok(()) }
//! ```

use crate::error::{Error, StoreError};
use crate::events::{emit, EventHook, LedgerEvent};
use crate::runtime::Runtime;
use crate::store::{AnyStore, Found, HistoryRecord, ListFilter, Recorded, Stats, Store, WaitingCursor, WaitingPage};
use crate::wit::effect::{
    Action, Command, CoreDefaults, EffectOptions, EffectResult as Finished, EffectStart, EventStart, Finish, Input, Notice, ReadRequest,
    ReplayRule, ResultSource, RowWrite, Step, TendJob, TendNote, TendStart, ToolCall, ToolFailure, VerdictKind, WaitStart, WriteOp,
};
use crate::wit::keys::Intent;
use crate::wit::ledger::{
    ApprovalRequest, Attention, Claim, ClaimToken, Completion, Decision, Entry, Event, Failure, Outcome, ReconcileRequest,
    ReconcileVerdict, Reconciliation, Resolution,
};
use crate::wit::policy::ToolPolicy;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How a tool call failed, as the tool wrapper tells the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// The provider said no: the effect did NOT happen (declined card, validation error).
    Definite(String),
    /// You cannot tell whether the effect happened (timeout, dropped connection, 5xx after
    /// sending). The ledger will reconcile before anything runs again.
    Ambiguous(String),
}

impl ToolError {
    /// A definite failure.
    pub fn definite(reason: impl Into<String>) -> Self {
        ToolError::Definite(reason.into())
    }
    /// An ambiguous failure.
    pub fn ambiguous(reason: impl Into<String>) -> Self {
        ToolError::Ambiguous(reason.into())
    }
}

/// What a tool call gets: the key to pass on to the provider, and the call's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The idempotency key: pass it on as the provider's Idempotency-Key.
    pub key: String,
    /// The attempt the call runs under (1 for the first); none for a pass-through tool or a
    /// reconciliation that calls a provider-idempotent tool again.
    pub attempt: Option<u32>,
    /// The core passes this call through: the tool's class needs no ledger (read-only,
    /// overwriting), nothing is claimed or recorded, and the tool's answer is the caller's.
    pub pass_through: bool,
    /// The call's deadline (ms since the Unix epoch, by the ledger's clock): the policy's
    /// `maxCallMs` after the claim. Use it for the provider client's timeouts; the ledger
    /// abandons the call then, as an ambiguous failure.
    pub deadline: Option<u64>,
}

/// A boxed future, for reconcilers.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Asked "did the effect with this key happen?" for one tool.
pub type Reconciler = Arc<dyn Fn(ReconcileRequest) -> BoxFuture<ReconcileVerdict> + Send + Sync>;

/// The clock: milliseconds since the Unix epoch.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The system clock.
pub fn system_clock() -> Clock {
    Arc::new(|| SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}

/// A ledger: the core's rules over a store (SQLite or PostgreSQL by default; any [`Store`]).
#[derive(Clone)]
pub struct Ledger<S = AnyStore> {
    rt: Runtime,
    store: S,
    owner: String,
    clock: Clock,
    reconcilers: Arc<RwLock<HashMap<String, Reconciler>>>,
    hooks: Arc<RwLock<Vec<EventHook>>>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for Ledger<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("store", &self.store).field("owner", &self.owner).finish_non_exhaustive()
    }
}

/// What a sweep did (a tally of the core's notes, one per due entry).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SweepReport {
    /// Due entries looked at.
    pub examined: u32,
    /// Pending entries whose lease had expired (now in doubt).
    pub leases_expired: u32,
    /// Reconciliations run.
    pub reconciled: u32,
    /// … that found the effect happened (now done).
    pub happened: u32,
    /// … that found it did not happen (now failed: a new attempt may run).
    pub not_happened: u32,
    /// … that could not tell (still in doubt).
    pub unknown: u32,
    /// Entries escalated to a human by this sweep.
    pub escalated: Vec<String>,
    /// Settled entries past their retention, deleted.
    pub purged: u32,
    /// Entries the core refused to tend (and why); they are untouched.
    pub errors: Vec<String>,
}

impl SweepReport {
    fn add(&mut self, n: &TendNote) {
        self.examined += 1;
        self.leases_expired += u32::from(n.lease_expired);
        self.purged += u32::from(n.purged);
        if let Some(kind) = n.reconciled {
            self.reconciled += 1;
            *match kind {
                VerdictKind::Happened => &mut self.happened,
                VerdictKind::NotHappened => &mut self.not_happened,
                VerdictKind::Unknown => &mut self.unknown,
            } += 1;
        }
        if let Some(reason) = &n.escalated {
            self.escalated.push(format!("{} {} ({}): {reason}", n.scope, n.key, n.tool));
        }
        if let Some(why) = &n.skipped {
            self.errors.push(format!("{} {}: {why}", n.scope, n.key));
        }
    }
}

/// The result of an effect run through the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectResult<T> {
    /// The tool's result (fresh, replayed or reconciled).
    pub value: T,
    /// The idempotency key the tool was (or would have been) given.
    pub key: String,
    /// True when no tool call of this run produced the result.
    pub replayed: bool,
    /// True when this call settled an unknown outcome by reconciliation.
    pub reconciled: bool,
}

/// What a machine ended with: its finish, the tool's last value and the row read last.
struct Ended<T> {
    finish: Finish,
    value: Option<T>,
    row: Option<Entry>,
}

/// Whether `e` is the record a step's `replay` rule names: in its state, of its intent, with a
/// result (the rule's values; the host knows no state of its own).
fn records(r: &ReplayRule, e: &Recorded) -> bool {
    e.state == r.state && e.fingerprint == r.fingerprint && e.tool == r.tool && e.result_json.is_some()
}

/// What a replay compares of a row read whole.
fn recorded_of(e: &Entry) -> Recorded {
    Recorded { state: e.state, fingerprint: e.fingerprint.clone(), tool: e.tool.clone(), result_json: e.result_json.clone() }
}

/// The tool of machines that call none (the core never asks them to).
fn no_tool(_call: Call) -> std::future::Ready<Result<(), ToolError>> {
    std::future::ready(Err(ToolError::Ambiguous("this machine calls no tool".into())))
}

impl Ledger<AnyStore> {
    /// Open the ledger at `location`: a SQLite file path (created if needed) or a
    /// `postgres://` URL. Migrations are applied on open.
    pub async fn open(location: &str) -> Result<Ledger, Error> {
        let store = AnyStore::open(location).await?;
        Ok(Ledger::with_store(Runtime::shared()?, store))
    }

    /// Sweep in the background: [`sweep`](Self::sweep) at once (what a crashed worker left),
    /// then `every` after each pass ends, with this ledger's reconcilers, until the returned
    /// [`Sweeper`] is stopped or dropped. Each pass's report, or its error, goes to `on_pass`;
    /// a failed pass does not end the loop. Needs a tokio runtime. Panics if `every` is zero.
    pub fn start_sweeper<F>(&self, scope: Option<String>, every: Duration, on_pass: F) -> Sweeper
    where
        F: Fn(Result<SweepReport, Error>) + Send + Sync + 'static,
    {
        assert!(!every.is_zero(), "start_sweeper: the interval must be more than zero");
        let ledger = self.clone();
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let task = tokio::spawn(async move {
            loop {
                on_pass(ledger.sweep(scope.as_deref()).await);
                tokio::select! {
                    () = tokio::time::sleep(every) => {}
                    _ = stopped.changed() => return,
                }
            }
        });
        Sweeper { stop, task: Some(task) }
    }
}

/// A background sweep ([`Ledger::start_sweeper`]). Stopping lets a pass in flight finish;
/// dropping it stops the loop too.
#[derive(Debug)]
#[must_use = "dropping the Sweeper stops it"]
pub struct Sweeper {
    stop: tokio::sync::watch::Sender<bool>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Sweeper {
    /// Stop sweeping; returns once a pass in flight has finished.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Sweeper {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

impl<S: Store> Ledger<S> {
    /// A ledger over an open store.
    pub fn with_store(rt: Runtime, store: S) -> Ledger<S> {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        Ledger {
            rt,
            store,
            owner: format!("pid{}-{nanos:08x}", std::process::id()),
            clock: system_clock(),
            reconcilers: Arc::default(),
            hooks: Arc::default(),
        }
    }

    /// Use `owner` as this worker's id in claims.
    pub fn with_owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = owner.into();
        self
    }

    /// Call `hook` with every decision of this ledger and of its clones (claimed, executed,
    /// replayed, conflict, in doubt, reconciled, escalated, resolved: [`crate::events`]). Every
    /// decision also goes to `tracing` (target `oncely`), hook or not.
    pub fn on_event<F>(&self, hook: F)
    where
        F: Fn(&LedgerEvent) + Send + Sync + 'static,
    {
        self.hooks.write().unwrap_or_else(std::sync::PoisonError::into_inner).push(Arc::new(hook));
    }

    /// Deliver a step's events (the core's decisions, `wit/effect.wit`) to `tracing` and the
    /// hooks, in order. The host decides none.
    fn deliver(&self, events: Vec<Notice>) {
        if events.is_empty() {
            return;
        }
        let hooks = self.hooks.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        for n in events {
            emit(&hooks, &LedgerEvent::from(n));
        }
    }

    /// Use another clock (tests, simulations).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// This worker's owner id.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The component runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Now, by this ledger's clock.
    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    /// Register the reconciler of `tool`: asked whether the effect with a key happened.
    pub fn reconciler<F, Fut>(&self, tool: &str, f: F)
    where
        F: Fn(ReconcileRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ReconcileVerdict> + Send + 'static,
    {
        let r: Reconciler = Arc::new(move |req| Box::pin(f(req)));
        self.reconcilers.write().unwrap_or_else(|p| p.into_inner()).insert(tool.to_string(), r);
    }

    /// Unregister the reconciler of `tool` (a sweep from now on leaves its in-doubt entries
    /// alone, and an effect of the tool reconciles as `provider-idempotent` tools do, or not at
    /// all). Whether one was registered.
    pub fn remove_reconciler(&self, tool: &str) -> bool {
        self.reconcilers.write().unwrap_or_else(|p| p.into_inner()).remove(tool).is_some()
    }

    fn reconciler_of(&self, tool: &str) -> Option<Reconciler> {
        self.reconcilers.read().unwrap_or_else(|p| p.into_inner()).get(tool).cloned()
    }

    /// The interpreter of `wit/effect.wit`: start the machine `command`, then do what each step
    /// says — read, write, call, sleep — and send back what happened, until it finishes or
    /// raises. It has no rule of its own.
    async fn machine<T, F, Fut>(&self, command: Command, mut tool: F) -> Result<Ended<T>, Error>
    where
        T: Serialize,
        F: FnMut(Call) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        let mut step = self.rt.run(&[], &Input::Start(command), self.now())?.map_err(Error::Key)?;
        let (mut value, mut row, mut store_error) = (None, None, None);
        loop {
            let Step { state, mut read, replay, write, events, action } = step;
            let mut known = None;
            if let (Some(rule), Some(r)) = (replay, &read) {
                // A replay in one crossing; on a store with a narrow read, one read of the four
                // columns the rule compares (wit/effect.wit), and the whole row only when they are
                // not this effect's record.
                match self.store.recorded(&r.scope, &r.key).await {
                    Err(e) => known = Some(failed(&mut store_error, e)),
                    // No row: the step's write comes next, as after a whole read that found none.
                    Ok(None) if write.is_some() => (read, row) = (None, None),
                    Ok(None) => known = Some(Input::Row(None)),
                    Ok(Some(found)) => {
                        let (c, whole) = match found {
                            Found::Recorded(c) => (c, None),
                            Found::Row(e) => (recorded_of(&e), Some(*e)),
                        };
                        if records(&rule, &c) {
                            let finish = Finish::Effect(Finished {
                                key: r.key.clone(),
                                source: ResultSource::Recorded(c.result_json.unwrap_or_default()),
                                replayed: true,
                                reconciled: rule.reconciled,
                            });
                            self.deliver(vec![rule.event]);
                            return Ok(Ended { finish, value, row: whole });
                        }
                        if let Some(e) = whole {
                            row = Some(e.clone());
                            known = Some(Input::Row(Some(e)));
                        }
                    }
                }
            }
            let input = match known {
                Some(input) => Some(input),
                None => self.storage(read, write.as_ref(), events, &mut row, &mut store_error).await,
            };
            let input = match input {
                Some(input) => input,
                None => match action {
                    Action::Report if write.is_none() => Input::Row(row.clone()),
                    Action::Report => Input::Written,
                    // Never start a call on a lease that has run out: the claim may be another's by now.
                    Action::CallTool(c) if c.not_after.is_some_and(|t| self.now() >= t) => Input::TooLate,
                    Action::CallTool(c) => self.guarded_call(&mut tool, c, &mut value).await,
                    Action::RecallTool(key) => {
                        call(&mut tool, Call { key, attempt: None, deadline: None, pass_through: false }, &mut value).await
                    }
                    Action::CallReconciler(q) => match self.reconciler_of(&q.tool) {
                        // Its own task, so that a reconciler that panics is a failed reconciler
                        // (the outcome stays unknown), not a failed sweep or effect.
                        Some(r) => match tokio::spawn(r(q)).await {
                            Ok(verdict) => Input::Verdict(verdict),
                            Err(e) => Input::ReconcilerFailed(panic_text(e)),
                        },
                        None => Input::NoReconciler,
                    },
                    Action::SleepUntil(t) => {
                        tokio::time::sleep(Duration::from_millis(t.saturating_sub(self.now()))).await;
                        Input::Woke
                    }
                    Action::Finish(finish) => return Ok(Ended { finish, value, row }),
                    Action::Raise(e) => return Err(Error::from_effect(e, store_error)),
                },
            };
            step = self.rt.run(&state, &input, self.now())?.map_err(Error::Key)?;
        }
    }

    /// A step's read and write, the storage half of the interpreter: the input they already
    /// give (a row found, or absent with nothing to write; a lost race; a storage error), or
    /// none when the step's action comes next — then the step's events, true now that its read
    /// and write went through, are delivered first.
    async fn storage(
        &self,
        read: Option<ReadRequest>,
        write: Option<&RowWrite>,
        events: Vec<Notice>,
        row: &mut Option<Entry>,
        store_error: &mut Option<StoreError>,
    ) -> Option<Input> {
        if let Some(r) = read {
            match self.store.get(&r.scope, &r.key).await {
                Err(e) => return Some(failed(store_error, e)),
                Ok(found) => *row = found,
            }
            if row.is_some() || write.is_none() {
                return Some(Input::Row(row.clone()));
            }
        }
        if let Some(w) = write {
            match self.apply(w).await {
                Err(e) => return Some(failed(store_error, e)),
                Ok(false) => return Some(Input::LostRace),
                Ok(true) => {}
            }
        }
        self.deliver(events);
        None
    }

    /// Heartbeat a claim while its call runs: the core's machine for the event
    /// `heartbeat(token)`, which only reads and writes. Whether to beat on: false once the core
    /// refuses the beat (`ledger`: the claim moved on); a storage error keeps the beats going
    /// (the next one may get through), as `wit/effect.wit`'s `call-tool` says.
    async fn beat(&self, scope: &str, key: &str, token: &ClaimToken) -> bool {
        let command = Command::Event(EventStart { scope: scope.to_string(), key: key.to_string(), event: Event::Heartbeat(token.clone()) });
        // Boxed: the heartbeat's machine runs inside the call of another machine.
        match Box::pin(self.machine(command, no_tool)).await {
            Ok(_) => true,
            Err(e) => !matches!(e, Error::Ledger(_) | Error::Protocol(_) | Error::Trap(_) | Error::Key(_)),
        }
    }

    /// Call the tool under its claim: heartbeat the claim every `heartbeat-ms` while the call
    /// runs, and abandon the call at its deadline (an ambiguous failure: it may have happened).
    async fn guarded_call<T, F, Fut>(&self, tool: &mut F, c: ToolCall, value: &mut Option<T>) -> Input
    where
        T: Serialize,
        F: FnMut(Call) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        let attempt = c.token.as_ref().map(|t| t.attempt);
        let pass_through = c.token.is_none();
        let the_call = call(tool, Call { key: c.key.clone(), attempt, deadline: c.deadline, pass_through }, value);
        let beats = async {
            if let (Some(every), Some(token)) = (c.heartbeat_ms, &c.token) {
                loop {
                    tokio::time::sleep(Duration::from_millis(every)).await;
                    // A refused heartbeat (the claim moved on): stop beating; the call goes on,
                    // and its report settles what it can.
                    if !self.beat(&c.scope, &c.key, token).await {
                        break;
                    }
                }
            }
            std::future::pending::<()>().await
        };
        let deadline = async {
            match c.deadline {
                Some(d) => tokio::time::sleep(Duration::from_millis(d.saturating_sub(self.now()))).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            input = the_call => input,
            () = beats => unreachable!("the heartbeat loop never ends"),
            () = deadline => Input::Abandoned,
        }
    }

    async fn apply(&self, w: &RowWrite) -> Result<bool, StoreError> {
        match w.op {
            WriteOp::Insert => self.store.insert(&w.row, w.claims).await,
            WriteOp::Update => self.store.update(w.expected_version, &w.row, w.history, w.claims).await,
            WriteOp::Delete => self.store.delete(&w.row.scope, &w.row.key, w.expected_version).await,
        }
    }

    /// Apply one event to `(scope, key)` and return the core's outcome (see `wit/ledger.wit`).
    pub async fn drive(&self, scope: &str, key: &str, event: &Event) -> Result<Outcome, Error> {
        let command = Command::Event(EventStart { scope: scope.to_string(), key: key.to_string(), event: event.clone() });
        match self.machine(command, no_tool).await?.finish {
            Finish::Event(outcome) => Ok(outcome),
            other => Err(unexpected(&other)),
        }
    }

    /// Claim the key of `intent` before calling the tool. Returns the claim (its key is what the
    /// provider should get) and what to do (see `wit/ledger.wit`).
    pub async fn begin(&self, intent: &Intent, policy: &ToolPolicy) -> Result<(Claim, Outcome), Error> {
        let claim = self.rt.prepare(intent, policy, &self.owner)?;
        let outcome = self.drive(&claim.scope, &claim.key, &Event::Begin(claim.clone())).await?;
        Ok((claim, outcome))
    }

    /// Record the result of the attempt `token` holds.
    pub async fn complete(&self, scope: &str, key: &str, token: &ClaimToken, result_json: &str) -> Result<Outcome, Error> {
        let ev = Event::Complete(Completion { token: token.clone(), result_json: result_json.to_string() });
        self.drive(scope, key, &ev).await
    }

    /// Record a definite failure: the effect did not happen.
    pub async fn fail_definite(&self, scope: &str, key: &str, token: &ClaimToken, reason: &str) -> Result<Outcome, Error> {
        let ev = Event::FailDefinite(Failure { token: token.clone(), reason: reason.to_string() });
        self.drive(scope, key, &ev).await
    }

    /// Record an ambiguous failure: the outcome is unknown. The answer is `reconcile` (you hold
    /// the slot) or `escalated`.
    pub async fn fail_ambiguous(&self, scope: &str, key: &str, token: &ClaimToken, reason: &str) -> Result<Outcome, Error> {
        let ev = Event::FailAmbiguous(Failure { token: token.clone(), reason: reason.to_string() });
        self.drive(scope, key, &ev).await
    }

    /// Extend the lease of a long call.
    pub async fn heartbeat(&self, scope: &str, key: &str, token: &ClaimToken) -> Result<Outcome, Error> {
        self.drive(scope, key, &Event::Heartbeat(token.clone())).await
    }

    /// Report what a reconciliation of `attempt` found.
    pub async fn reconciled(&self, scope: &str, key: &str, attempt: u32, verdict: ReconcileVerdict) -> Result<Outcome, Error> {
        self.drive(scope, key, &Event::Reconciled(Reconciliation { attempt, verdict })).await
    }

    /// A human's verdict on an in-doubt or escalated entry, given the entry's version the person
    /// looked at (`resolution.seen_version`): refused (`Error::Ledger`, kind `Changed`) if the
    /// entry has moved since. Returns the settlement's id, kept in the entry and its history.
    pub async fn resolve(&self, scope: &str, key: &str, resolution: Resolution) -> Result<String, Error> {
        match self.drive(scope, key, &Event::Resolve(resolution)).await? {
            Outcome::Settled(id) => Ok(id),
            other => Err(Error::Protocol(format!("resolve ended with {other:?}, not a settlement"))),
        }
    }

    /// A person approves the call that awaits approval (its policy's `approval`): the next ask
    /// of the intent runs it once, while the approval holds. `decision.seen_version` is the
    /// entry's version the person decided on (`Error::AwaitingApproval` and `get` give it):
    /// refused (`Error::Ledger`, kind `Changed`) if the entry has moved since. Returns the
    /// decision's id, kept in the entry and its history.
    pub async fn approve(&self, scope: &str, key: &str, decision: Decision) -> Result<String, Error> {
        self.decide(scope, key, &Event::Approve(decision)).await
    }

    /// A person denies the call that awaits approval (or an approval not yet used): it will not
    /// happen, and every later ask gets `Error::Denied` with the note as the reason. Returns the
    /// decision's id.
    pub async fn deny(&self, scope: &str, key: &str, decision: Decision) -> Result<String, Error> {
        self.decide(scope, key, &Event::Deny(decision)).await
    }

    async fn decide(&self, scope: &str, key: &str, event: &Event) -> Result<String, Error> {
        match self.drive(scope, key, event).await? {
            Outcome::Settled(id) => Ok(id),
            other => Err(Error::Protocol(format!("a person's decision ended with {other:?}, not a settlement"))),
        }
    }

    /// The history of one entry, oldest first (`Store::history`).
    pub async fn history(&self, scope: &str, key: &str) -> Result<Vec<HistoryRecord>, Error> {
        Ok(self.store.history(scope, key).await?)
    }

    /// Counts per state and the oldest in-doubt time, over every scope (`Store::stats`).
    pub async fn stats(&self) -> Result<Stats, Error> {
        Ok(self.store.stats().await?)
    }

    /// Delete one settled entry whose retention has passed.
    pub async fn purge(&self, scope: &str, key: &str) -> Result<Outcome, Error> {
        self.drive(scope, key, &Event::Purge).await
    }

    /// Tend one due row with `job`; the core's note on what it did.
    async fn tend(&self, row: &Entry, job: TendJob) -> Result<TendNote, Error> {
        let has_reconciler = job == TendJob::Sweep && self.reconciler_of(&row.tool).is_some();
        let command = Command::Tend(TendStart { scope: row.scope.clone(), key: row.key.clone(), job, has_reconciler });
        match self.machine(command, no_tool).await?.finish {
            Finish::Tended(note) => Ok(note),
            other => Err(unexpected(&other)),
        }
    }

    /// Delete every settled entry whose retention has passed (of one scope, or all): one pass
    /// over the rows due now (at most the core's `due-batch`). Entries due for other work are left to
    /// `sweep`; a storage error ends the pass (run it again).
    pub async fn purge_expired(&self, scope: Option<&str>) -> Result<u32, Error> {
        let mut purged = 0;
        for row in self.store.due(scope, self.now(), self.defaults()?.due_batch).await? {
            purged += u32::from(self.tend(&row, TendJob::Purge).await?.purged);
        }
        Ok(purged)
    }

    /// Time-driven work on every due entry: expire leases, run the registered reconcilers of
    /// in-doubt entries, escalate what is past its deadline, purge settled entries past their
    /// retention. Never calls a tool. A storage error ends the pass (run it again).
    pub async fn sweep(&self, scope: Option<&str>) -> Result<SweepReport, Error> {
        let mut report = SweepReport::default();
        for row in self.store.due(scope, self.now(), self.defaults()?.due_batch).await? {
            report.add(&self.tend(&row, TendJob::Sweep).await?);
        }
        Ok(report)
    }

    /// Whether running `intent` under `policy` now would wait for a person's approval (the
    /// core's `ledger.asks-approval` on the entry as it stands): the policy asks for one on these
    /// arguments and neither an approval that holds nor a denial is recorded. What an agent
    /// framework's own approval step asks before it asks its person, so that its decision and
    /// the ledger's are one (docs/choosing-keys.md).
    pub async fn asks_approval(&self, intent: &Intent, policy: &ToolPolicy) -> Result<bool, Error> {
        let claim = self.rt.prepare(intent, policy, &self.owner)?;
        let current = self.store.get(&claim.scope, &claim.key).await?;
        self.rt.asks_approval(current.as_ref(), &claim, self.now())
    }

    /// Record the request for a person's approval of running `intent` under `policy`, and claim
    /// nothing (the core's `ask` event): what an agent framework's own approval step does before
    /// it asks its person, so that the inbox lists the same one request and a person may decide
    /// in either place. The request (recorded now or found), or `Error::Denied` when a person
    /// denied the call; `None` when there is nothing to ask: a person approved it (the next
    /// effect runs under the approval), it ran, or the policy asks for no approval here.
    pub async fn request_approval(&self, intent: &Intent, policy: &ToolPolicy) -> Result<Option<ApprovalRequest>, Error> {
        let claim = self.rt.prepare(intent, policy, &self.owner)?;
        let (scope, key) = (claim.scope.clone(), claim.key.clone());
        match self.drive(&scope, &key, &Event::Ask(claim)).await? {
            Outcome::AwaitingApproval(r) => Ok(Some(r)),
            Outcome::Denied(d) => Err(Error::Denied(d)),
            _ => Ok(None),
        }
    }

    /// One entry.
    pub async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, Error> {
        Ok(self.store.get(scope, key).await?)
    }

    /// Entries of one scope (every scope when `None`), newest first.
    pub async fn list(&self, scope: Option<&str>, filter: &ListFilter) -> Result<Vec<Entry>, Error> {
        let limit = if filter.limit == 0 { self.defaults()?.page_size } else { filter.limit };
        Ok(self.store.list(scope, &ListFilter { limit, ..filter.clone() }).await?)
    }

    /// One page of the entries that need a person now, every scope, in the order they have
    /// waited (`page`): each escalated entry, and each in doubt for `in_doubt_after_ms` or longer
    /// (`None`: the core's default, `in-doubt-after-ms` of `core-defaults`), with why — the
    /// core's `ledger.needs-person`, asked of every row the store's index finds. Nothing is capped:
    /// follow [`Waiting::next`] for the next page.
    pub async fn needs_person(&self, in_doubt_after_ms: Option<u64>, page: &WaitingPage) -> Result<Waiting, Error> {
        let now = self.now();
        let since = self.rt.needs_person_since(now, in_doubt_after_ms)?;
        let (limit, wanted) = self.one_more(page)?;
        let rows = self.store.waiting(since, &wanted).await?;
        self.waiting_page(rows, limit, now, in_doubt_after_ms)
    }

    /// The page's size (`0`: the core's) and the page to ask the store for: one row more than
    /// the page holds, which says whether there is a next page.
    fn one_more(&self, page: &WaitingPage) -> Result<(u32, WaitingPage), Error> {
        let limit = if page.limit == 0 { self.defaults()?.page_size } else { page.limit }.min(u32::MAX - 1);
        Ok((limit, WaitingPage { limit: limit + 1, ..page.clone() }))
    }

    /// The page of `rows` (read with [`Ledger::one_more`]), each with why it needs a person.
    fn waiting_page(&self, mut rows: Vec<Entry>, limit: u32, now: u64, in_doubt_after_ms: Option<u64>) -> Result<Waiting, Error> {
        let next = if rows.len() > limit as usize {
            rows.truncate(limit as usize);
            rows.last().map(WaitingCursor::of)
        } else {
            None
        };
        let mut entries = Vec::with_capacity(rows.len());
        for e in rows {
            if let Some(why) = self.rt.needs_person(&e, now, in_doubt_after_ms)? {
                entries.push((e, why));
            }
        }
        Ok(Waiting { entries, next })
    }

    /// How many entries need a person now, every scope (escalated, in doubt, awaiting approval):
    /// what every page of [`Ledger::needs_person`] and of [`Ledger::awaiting_approval`] holds
    /// together, counted by the store.
    pub async fn needs_person_count(&self, in_doubt_after_ms: Option<u64>) -> Result<WaitingCount, Error> {
        let since = self.rt.needs_person_since(self.now(), in_doubt_after_ms)?;
        let (escalated, in_doubt) = self.store.waiting_count(since).await?;
        let awaiting_approval = self.store.awaiting_count().await?;
        Ok(WaitingCount { escalated, in_doubt, awaiting_approval })
    }

    /// One page of the calls awaiting a person's approval (their policy's `approval`), every
    /// scope, in the order they were asked (`page`), each with why (the core's
    /// `ledger.needs-person`: `Attention::Approval`). Follow [`Waiting::next`] for the next page.
    pub async fn awaiting_approval(&self, page: &WaitingPage) -> Result<Waiting, Error> {
        let (limit, wanted) = self.one_more(page)?;
        let rows = self.store.awaiting(&wanted).await?;
        self.waiting_page(rows, limit, self.now(), None)
    }

    /// The entry of `scope` and `tool`, other than `key`, a person approved most recently (not
    /// denied since), and who approved it: what a new request of the same tool is compared with.
    pub async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<(Entry, String)>, Error> {
        let Some(e) = self.store.last_approved(scope, tool, key).await? else { return Ok(None) };
        let history = self.store.history(&e.scope, &e.key).await?;
        let by = history
            .iter()
            .rev()
            .find(|h| h.state == crate::wit::ledger::EntryState::Approved)
            .and_then(|h| h.resolved_by.clone())
            .unwrap_or_default();
        Ok(Some((e, by)))
    }

    /// Wait until `(scope, key)` is settled (done or failed), escalated or absent, looking every
    /// `every`, for at most `timeout` (`None`: the core's defaults, 50 ms and 30 s). Returns the
    /// entry as last seen.
    pub async fn wait_settled(
        &self,
        scope: &str,
        key: &str,
        every: Option<Duration>,
        timeout: Option<Duration>,
    ) -> Result<Option<Entry>, Error> {
        let command = Command::Wait(WaitStart {
            scope: scope.to_string(),
            key: key.to_string(),
            every_ms: every.map(millis),
            timeout_ms: timeout.map(millis),
        });
        Ok(self.machine(command, no_tool).await?.row)
    }

    /// An effect to run through the ledger (see the module example).
    pub fn effect<'a>(&'a self, intent: &'a Intent, policy: &'a ToolPolicy) -> Effect<'a, S> {
        Effect { ledger: self, intent, policy, max_attempts: 0, wait: None, approval_wait: None }
    }

    /// The core's defaults (`wit/effect.wit`'s `core-defaults`): what every option left out
    /// means, the same in every host.
    pub fn defaults(&self) -> Result<CoreDefaults, Error> {
        self.rt.defaults()
    }
}

/// One page of [`Ledger::needs_person`].
#[derive(Debug, Clone)]
pub struct Waiting {
    /// The entries, each with why it needs a person.
    pub entries: Vec<(Entry, Attention)>,
    /// Where the next page starts (`WaitingPage::after`); `None`: this was the last.
    pub next: Option<WaitingCursor>,
}

/// How many entries need a person ([`Ledger::needs_person_count`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaitingCount {
    /// Escalated.
    pub escalated: u64,
    /// In doubt for the threshold or longer (not yet escalated).
    pub in_doubt: u64,
    /// Awaiting a person's approval before they run.
    pub awaiting_approval: u64,
}

impl WaitingCount {
    /// All together.
    pub fn total(&self) -> u64 {
        self.escalated + self.in_doubt + self.awaiting_approval
    }
}

/// What a reconciler's task that did not finish raised, as Rust prints a panic's message.
fn panic_text(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return e.to_string();
    }
    let payload = e.into_panic();
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => (*s).to_string(),
        (_, Some(s)) => s.clone(),
        _ => "the reconciler panicked".to_string(),
    }
}

/// A duration in whole milliseconds, as the core takes it (saturating).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Mark a storage failure for the core, keeping the error itself for the caller.
fn failed(keep: &mut Option<StoreError>, e: StoreError) -> Input {
    let message = e.to_string();
    *keep = Some(e);
    Input::StoreFailed(message)
}

/// Call the tool and tell the core what it did (its value kept for a `tool-value` finish).
async fn call<T, F, Fut>(tool: &mut F, c: Call, value: &mut Option<T>) -> Input
where
    T: Serialize,
    F: FnMut(Call) -> Fut,
    Fut: Future<Output = Result<T, ToolError>>,
{
    match tool(c).await {
        Ok(v) => {
            let input = match serde_json::to_string(&v) {
                Ok(json) => Input::ToolReturned(json),
                Err(e) => Input::ToolUnencodable(e.to_string()),
            };
            *value = Some(v);
            input
        }
        Err(ToolError::Definite(reason)) => Input::ToolFailed(ToolFailure { definite: true, reason }),
        Err(ToolError::Ambiguous(reason)) => Input::ToolFailed(ToolFailure { definite: false, reason }),
    }
}

fn unexpected(f: &Finish) -> Error {
    Error::Protocol(format!("the core finished a machine with {f:?}, which its start does not call for"))
}

/// A tool call guarded by the ledger; built by [`Ledger::effect`], run by [`Effect::run`].
#[derive(Debug)]
pub struct Effect<'a, S = AnyStore> {
    ledger: &'a Ledger<S>,
    intent: &'a Intent,
    policy: &'a ToolPolicy,
    max_attempts: u32,
    wait: Option<Duration>,
    approval_wait: Option<Duration>,
}

impl<S: Store> Effect<'_, S> {
    /// How many times this call may execute the tool (new attempts only follow a definite
    /// "did not happen" from reconciliation). 0 (the default) means the core's default, 3, as in
    /// every host.
    pub fn max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n;
        self
    }

    /// How long to wait for another worker's claim to settle before giving up with
    /// [`Error::InProgress`]. Unset or `None`: the core's default, 30 s; zero: do not wait.
    pub fn wait(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.wait = d.into();
        self
    }

    /// When the call awaits a person's approval (its policy's `approval`), wait up to `d` for
    /// their decision (the row is looked at every second): approved in time, the call runs;
    /// denied, [`Error::Denied`]. Unset, `None` or zero (the default): do not wait, return
    /// [`Error::AwaitingApproval`] at once.
    pub fn wait_for_approval(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.approval_wait = d.into();
        self
    }

    /// Run the tool at most once per intent. `tool` gets the idempotency key (pass it on to the
    /// provider). A repeat of an intent that already happened returns the recorded result
    /// (`replayed`); an unknown outcome is reconciled (the registered reconciler, or, for
    /// `provider-idempotent` tools, the same call again with the same key) and never retried
    /// blindly. Results are stored as JSON: `T` must serialize, and a replay deserializes it.
    ///
    /// A dropped future is cancelled: where a caller may stop waiting (a timeout around it, a
    /// client that disconnects), spawn the effect as a task of its own, so that once its claim
    /// is written the call runs to its result and is recorded (wit/effect.wit, "A caller that
    /// stops waiting"); the gateway and the provider layer do.
    pub async fn run<T, F, Fut>(self, mut tool: F) -> Result<EffectResult<T>, Error>
    where
        T: Serialize + DeserializeOwned,
        F: FnMut(String) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        self.run_call(move |c: Call| tool(c.key)).await
    }

    /// [`Effect::run`], with the tool given the whole [`Call`]: its key, attempt and deadline.
    /// While the call runs the ledger heartbeats its claim (every third of the lease), so a call
    /// longer than the lease keeps it; at the deadline (`maxCallMs`) the call is abandoned as an
    /// ambiguous failure. A call never starts once its claim's lease has run out (the worker
    /// stalled between its claim and its call): the attempt is recorded as never executed and
    /// the run claims again.
    pub async fn run_call<T, F, Fut>(self, tool: F) -> Result<EffectResult<T>, Error>
    where
        T: Serialize + DeserializeOwned,
        F: FnMut(Call) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        let l = self.ledger;
        let options = EffectOptions {
            owner: l.owner.clone(),
            max_attempts: self.max_attempts,
            wait_ms: self.wait.map(millis),
            has_reconciler: l.reconciler_of(&self.intent.tool).is_some(),
            approval_wait_ms: self.approval_wait.map(millis),
        };
        let command = Command::Effect(EffectStart { intent: self.intent.clone(), policy: self.policy.clone(), options });
        let ended = l.machine(command, tool).await?;
        let Finish::Effect(r) = ended.finish else { return Err(unexpected(&ended.finish)) };
        let value = match r.source {
            ResultSource::ToolValue => ended.value.ok_or_else(|| Error::Protocol("the core returned a tool value no tool gave".into()))?,
            ResultSource::Recorded(json) => serde_json::from_str(&json)?,
        };
        Ok(EffectResult { value, key: r.key, replayed: r.replayed, reconciled: r.reconciled })
    }
}
