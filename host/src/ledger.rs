//! The ledger driver: the small loop that reads an entry, asks the core for the transition,
//! applies the write atomically and retries on a lost race — and the API built on it.
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

use crate::error::Error;
use crate::runtime::Runtime;
use crate::store::{AnyStore, ListFilter, Store};
use crate::wit::keys::Intent;
use crate::wit::ledger::{
    Claim, ClaimToken, Completion, Entry, EntryState, Escalation, Event, Failure, Outcome, ReconcileRequest, ReconcileVerdict,
    Reconciliation, Resolution, Settlement, Write,
};
use crate::wit::policy::{ReconcilePath, ToolPolicy};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

/// How many lost compare-and-swap races in a row before giving up.
const MAX_RACES: u32 = 64;

/// A ledger: the core's rules over a store.
#[derive(Clone)]
pub struct Ledger {
    rt: Runtime,
    store: AnyStore,
    owner: String,
    clock: Clock,
    reconcilers: Arc<RwLock<HashMap<String, Reconciler>>>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("store", &self.store).field("owner", &self.owner).finish_non_exhaustive()
    }
}

/// What a sweep did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SweepReport {
    /// Unsettled entries looked at.
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
    /// Entries the sweep could not process (and why); they are untouched.
    pub errors: Vec<String>,
}

/// The result of an effect run through the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectResult<T> {
    /// The tool's result (fresh, replayed or reconciled).
    pub value: T,
    /// The idempotency key the tool was (or would have been) given.
    pub key: String,
    /// True when the result came from the ledger, not from calling the tool now.
    pub replayed: bool,
    /// True when this call settled an unknown outcome by reconciliation.
    pub reconciled: bool,
}

impl Ledger {
    /// Open the ledger at `location`: a SQLite file path (created if needed) or a
    /// `postgres://` URL. Migrations are applied on open.
    pub async fn open(location: &str) -> Result<Ledger, Error> {
        let store = AnyStore::open(location).await?;
        Ok(Ledger::with_store(Runtime::shared()?, store))
    }

    /// A ledger over an open store.
    pub fn with_store(rt: Runtime, store: AnyStore) -> Ledger {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        Ledger { rt, store, owner: format!("pid{}-{nanos:08x}", std::process::id()), clock: system_clock(), reconcilers: Arc::default() }
    }

    /// Use `owner` as this worker's id in claims.
    pub fn with_owner(mut self, owner: impl Into<String>) -> Ledger {
        self.owner = owner.into();
        self
    }

    /// Use another clock (tests, simulations).
    pub fn with_clock(mut self, clock: Clock) -> Ledger {
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
    pub fn store(&self) -> &AnyStore {
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

    fn reconciler_of(&self, tool: &str) -> Option<Reconciler> {
        self.reconcilers.read().unwrap_or_else(|p| p.into_inner()).get(tool).cloned()
    }

    /// The driver: read, ask the core, write atomically; on a lost race, read again.
    pub async fn drive(&self, scope: &str, key: &str, event: &Event) -> Result<Outcome, Error> {
        Ok(self.drive_from(scope, key, event, None).await?.0)
    }

    /// The driver, starting from a row the caller believes current (`known`: `Some(None)` for
    /// "absent", `Some(Some(e))` for the row it just wrote) to save a read; a wrong belief only
    /// costs a lost compare-and-swap and a re-read. Returns the outcome and the row as written.
    async fn drive_from(
        &self,
        scope: &str,
        key: &str,
        event: &Event,
        mut known: Option<Option<Entry>>,
    ) -> Result<(Outcome, Option<Entry>), Error> {
        for _ in 0..MAX_RACES {
            let current = match known.take() {
                Some(k) => k,
                None => self.store.get(scope, key).await?,
            };
            let t = self.rt.handle(current.as_ref(), event, self.now())?.map_err(Error::Ledger)?;
            let (applied, row) = match t.write {
                None => (true, current),
                Some(Write::Insert(e)) => (self.store.insert(&e).await?, Some(e)),
                Some(Write::Update(u)) => (self.store.update(u.expected_version, &u.entry).await?, Some(u.entry)),
                Some(Write::Delete(d)) => (self.store.delete(&d.scope, &d.key, d.expected_version).await?, None),
            };
            if applied {
                return Ok((t.outcome, row));
            }
        }
        Err(Error::Contention(MAX_RACES))
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

    /// A human's verdict on an in-doubt or escalated entry.
    pub async fn resolve(&self, scope: &str, key: &str, settlement: Settlement, by: &str, note: &str) -> Result<Outcome, Error> {
        let ev = Event::Resolve(Resolution { settlement, by: by.to_string(), note: note.to_string() });
        self.drive(scope, key, &ev).await
    }

    /// Delete one settled entry whose retention has passed.
    pub async fn purge(&self, scope: &str, key: &str) -> Result<Outcome, Error> {
        self.drive(scope, key, &Event::Purge).await
    }

    /// Delete every settled entry whose retention has passed (of one scope, or all).
    pub async fn purge_expired(&self, scope: Option<&str>) -> Result<u32, Error> {
        let mut purged = 0;
        loop {
            let batch = self.store.expired(scope, self.now(), 500).await?;
            if batch.is_empty() {
                return Ok(purged);
            }
            let mut progressed = false;
            for e in batch {
                // Another process may purge it first, or a claim may revive it: not an error.
                if let Ok(Outcome::Purged) = self.purge(&e.scope, &e.key).await {
                    purged += 1;
                    progressed = true;
                }
            }
            if !progressed {
                return Ok(purged);
            }
        }
    }

    /// One entry.
    pub async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, Error> {
        Ok(self.store.get(scope, key).await?)
    }

    /// Entries of one scope.
    pub async fn list(&self, scope: &str, filter: &ListFilter) -> Result<Vec<Entry>, Error> {
        Ok(self.store.list(scope, filter).await?)
    }

    /// Wait until `(scope, key)` is settled (done or failed) or needs a human, polling every
    /// `every`, for at most `timeout`. Returns the entry as last seen.
    pub async fn wait_settled(&self, scope: &str, key: &str, every: Duration, timeout: Duration) -> Result<Option<Entry>, Error> {
        let deadline = Instant::now() + timeout;
        loop {
            let e = self.store.get(scope, key).await?;
            let settled = e.as_ref().is_none_or(|e| matches!(e.state, EntryState::Done | EntryState::Failed | EntryState::Escalated));
            if settled || Instant::now() >= deadline {
                return Ok(e);
            }
            tokio::time::sleep(every.min(deadline.saturating_duration_since(Instant::now()))).await;
        }
    }

    /// Time-driven work: expire leases, run the registered reconcilers of in-doubt entries,
    /// escalate what is past its deadline. Never re-executes a tool.
    pub async fn sweep(&self, scope: Option<&str>) -> Result<SweepReport, Error> {
        let mut report = SweepReport::default();
        for e in self.store.unsettled(scope, 10_000).await? {
            report.examined += 1;
            match self.drive(&e.scope, &e.key, &Event::Sweep).await {
                Ok(Outcome::Reconcile(req)) => {
                    if e.state == EntryState::Pending {
                        report.leases_expired += 1;
                    }
                    let verdict = match self.reconciler_of(&req.tool) {
                        Some(r) => r(req.clone()).await,
                        None => ReconcileVerdict::Unknown(format!("no reconciler is registered for {:?} in this process", req.tool)),
                    };
                    self.record_verdict(&req, verdict, &mut report).await;
                }
                Ok(Outcome::Escalated(x)) => {
                    if e.state == EntryState::Pending {
                        report.leases_expired += 1;
                    }
                    report.escalated.push(escalation_line(&x));
                }
                Ok(_) => {}
                Err(err) => report.errors.push(format!("{} {}: {err}", e.scope, e.key)),
            }
        }
        Ok(report)
    }

    async fn record_verdict(&self, req: &ReconcileRequest, verdict: ReconcileVerdict, report: &mut SweepReport) {
        report.reconciled += 1;
        let kind = match &verdict {
            ReconcileVerdict::Happened(_) => 0,
            ReconcileVerdict::NotHappened => 1,
            ReconcileVerdict::Unknown(_) => 2,
        };
        match self.reconciled(&req.scope, &req.key, req.attempt, verdict).await {
            Ok(Outcome::Escalated(x)) => report.escalated.push(escalation_line(&x)),
            Ok(_) => match kind {
                0 => report.happened += 1,
                1 => report.not_happened += 1,
                _ => report.unknown += 1,
            },
            Err(err) => report.errors.push(format!("{} {}: {err}", req.scope, req.key)),
        }
    }

    /// An effect to run through the ledger (see the module example).
    pub fn effect<'a>(&'a self, intent: &'a Intent, policy: &'a ToolPolicy) -> Effect<'a> {
        Effect { ledger: self, intent, policy, max_attempts: 3, wait: Duration::from_secs(30) }
    }
}

fn escalation_line(x: &Escalation) -> String {
    format!("{} {} ({}): {}", x.scope, x.key, x.tool, x.reason)
}

/// A tool call guarded by the ledger; built by [`Ledger::effect`], run by [`Effect::run`].
#[derive(Debug)]
pub struct Effect<'a> {
    ledger: &'a Ledger,
    intent: &'a Intent,
    policy: &'a ToolPolicy,
    max_attempts: u32,
    wait: Duration,
}

impl Effect<'_> {
    /// How many times this call may execute the tool (new attempts only follow a definite
    /// "did not happen"). Default 3.
    pub fn max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n.max(1);
        self
    }

    /// How long to wait for another worker's claim to settle before giving up with
    /// [`Error::InProgress`]. Default 30 s.
    pub fn wait(mut self, d: Duration) -> Self {
        self.wait = d;
        self
    }

    /// Run the tool at most once per intent. `tool` gets the idempotency key (pass it on to the
    /// provider). A repeat of an intent that already happened returns the recorded result
    /// (`replayed`); an unknown outcome is reconciled (the registered reconciler, or, for
    /// `provider-idempotent` tools, the same call again with the same key) and never retried
    /// blindly. Results are stored as JSON: `T` must serialize, and a replay deserializes it.
    pub async fn run<T, F, Fut>(self, mut tool: F) -> Result<EffectResult<T>, Error>
    where
        T: Serialize + DeserializeOwned,
        F: FnMut(String) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        let l = self.ledger;
        let claim = l.rt.prepare(self.intent, self.policy, &l.owner)?;
        let (scope, key) = (claim.scope.clone(), claim.key.clone());
        let deadline = Instant::now() + self.wait;
        let mut executions = 0u32;
        let mut reconciled = false;
        let mut next: Option<Outcome> = None;
        // First claim: assume no row yet (the common case) and insert directly.
        let mut known: Option<Option<Entry>> = Some(None);
        loop {
            let (outcome, row) = match next.take() {
                Some(o) => (o, None),
                None => l.drive_from(&scope, &key, &Event::Begin(claim.clone()), known.take()).await?,
            };
            match outcome {
                Outcome::PassThrough => {
                    let value = tool(key.clone()).await.map_err(|e| match e {
                        ToolError::Definite(r) | ToolError::Ambiguous(r) => Error::ToolFailed(r),
                    })?;
                    return Ok(EffectResult { value, key, replayed: false, reconciled: false });
                }
                Outcome::Execute(token) => {
                    executions += 1;
                    match tool(key.clone()).await {
                        Ok(value) => {
                            let json = serde_json::to_string(&value)?;
                            self.record_completion(&scope, &key, &token, &json, row).await?;
                            return Ok(EffectResult { value, key, replayed: false, reconciled });
                        }
                        Err(ToolError::Definite(reason)) => {
                            l.fail_definite(&scope, &key, &token, &reason).await?;
                            return Err(Error::ToolFailed(reason));
                        }
                        Err(ToolError::Ambiguous(reason)) => {
                            next = Some(l.fail_ambiguous(&scope, &key, &token, &reason).await?);
                        }
                    }
                }
                Outcome::Replay(r) => {
                    let value = serde_json::from_str(&r.result_json)?;
                    return Ok(EffectResult { value, key, replayed: true, reconciled });
                }
                Outcome::Reconcile(req) => {
                    reconciled = true;
                    let verdict = match l.reconciler_of(&req.tool) {
                        Some(r) => r(req.clone()).await,
                        None if req.path == ReconcilePath::ProviderIdempotent => match tool(key.clone()).await {
                            // The provider deduplicates by key: asking again is finding out.
                            Ok(v) => ReconcileVerdict::Happened(serde_json::to_string(&v)?),
                            Err(ToolError::Definite(_)) => ReconcileVerdict::NotHappened,
                            Err(ToolError::Ambiguous(r)) => ReconcileVerdict::Unknown(r),
                        },
                        None => ReconcileVerdict::Unknown(format!("no reconciler is registered for {:?}", req.tool)),
                    };
                    let why = match &verdict {
                        ReconcileVerdict::Unknown(r) => r.clone(),
                        _ => String::new(),
                    };
                    match l.reconciled(&scope, &key, req.attempt, verdict).await? {
                        Outcome::Recorded(EntryState::InDoubt) => return Err(Error::InDoubt { key, reason: why }),
                        Outcome::Recorded(EntryState::Failed) if executions >= self.max_attempts => {
                            return Err(Error::ToolFailed(format!("the effect did not happen after {executions} attempt(s)")));
                        }
                        Outcome::Escalated(x) => return Err(Error::Escalated { key, reason: x.reason }),
                        // Done: the next begin replays it. Failed: the next begin executes anew.
                        _ => {}
                    }
                }
                Outcome::InProgress(p) => {
                    if Instant::now() >= deadline {
                        return Err(Error::InProgress { key, owner: p.owner, state: p.state });
                    }
                    let pause = Duration::from_millis(p.retry_after_ms.clamp(5, 250));
                    tokio::time::sleep(pause.min(deadline.saturating_duration_since(Instant::now()))).await;
                }
                Outcome::Escalated(x) => return Err(Error::Escalated { key, reason: x.reason }),
                Outcome::Conflict(c) => return Err(Error::Conflict { key, pointer: c.pointer }),
                // Only after an event other than begin (nothing to do but ask again).
                Outcome::Recorded(_) | Outcome::Purged | Outcome::Idle(_) => {}
            }
        }
    }

    /// Record a result, retrying transient storage failures: the effect already happened, so
    /// losing the record would leave it to reconciliation.
    async fn record_completion(&self, scope: &str, key: &str, token: &ClaimToken, json: &str, row: Option<Entry>) -> Result<(), Error> {
        let mut last = None;
        let ev = Event::Complete(Completion { token: token.clone(), result_json: json.to_string() });
        // Start from the row our claim wrote: no read needed unless someone changed it since.
        let mut known = row.map(Some);
        for i in 0..5u64 {
            match self.ledger.drive_from(scope, key, &ev, known.take()).await {
                Ok(_) => return Ok(()),
                Err(Error::Storage(e)) => {
                    last = Some(e);
                    tokio::time::sleep(Duration::from_millis(50 << i)).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(Error::InDoubt {
            key: key.to_string(),
            reason: format!(
                "the tool succeeded but its result could not be recorded ({}); the entry will be reconciled",
                last.map(|e| e.to_string()).unwrap_or_default()
            ),
        })
    }
}
