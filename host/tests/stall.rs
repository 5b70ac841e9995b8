//! A worker that stalls while it holds a claim (a GC pause, a stopped VM, a slow connect), on real
//! stores (a SQLite file, PostgreSQL and Redis), with two workers on separate connections and a real
//! clock. The rules under test (docs/reliability.md, "A stalled worker"):
//!
//! - a call never starts once its claim's lease has run out;
//! - a lookup's "did not happen" is believed only once the stalled attempt can no longer be in
//!   flight: its lease's end plus the policy's `maxCallMs` (the grace);
//! - a call longer than the lease keeps its claim by heartbeats;
//! - past the grace, a lookup cannot see a call that lands later: that is the residual case,
//!   pinned here as it is — unless the provider deduplicates by the key, which fences it.
//!
//! Timings: lease 500 ms, maxCallMs 1,500 ms (the grace ends 2,000 ms after the claim); the
//! second worker arrives at 700 ms. Every margin is at least 300 ms.

use oncely_test_support as common;

use oncely::store::{AnyStore, ListFilter, Store};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Entry, EntryState, ReconcileVerdict};
use oncely::{Error, Ledger, Runtime, StoreError, ToolError};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LEASE_MS: u64 = 500;
const MAX_CALL_MS: u64 = 1_500;
const SECOND_WORKER_AT: Duration = Duration::from_millis(700);

/// A store that stalls its caller after an insert applied, when told to: the worker stalls
/// between its claim and its call.
#[derive(Debug)]
struct Stalling {
    inner: AnyStore,
    after_insert_ms: AtomicU64,
    /// While armed, updates are counted and the first one fails (a heartbeat's write).
    armed: AtomicBool,
    armed_updates: AtomicU64,
}

impl Store for Stalling {
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        self.inner.get(scope, key).await
    }
    async fn insert(&self, entry: &Entry, claims: bool) -> Result<bool, StoreError> {
        let applied = self.inner.insert(entry, claims).await?;
        let ms = self.after_insert_ms.swap(0, Ordering::SeqCst);
        if ms > 0 {
            // The whole worker stalls (its thread is blocked), as a paused process would.
            std::thread::sleep(Duration::from_millis(ms));
        }
        Ok(applied)
    }
    async fn update(&self, expected_version: u64, entry: &Entry, history: bool, claims: bool) -> Result<bool, StoreError> {
        if self.armed.load(Ordering::SeqCst) && self.armed_updates.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(StoreError::Other("the database is restarting".into()));
        }
        self.inner.update(expected_version, entry, history, claims).await
    }
    async fn delete(&self, scope: &str, key: &str, expected_version: u64) -> Result<bool, StoreError> {
        self.inner.delete(scope, key, expected_version).await
    }
    async fn list(&self, scope: Option<&str>, filter: &ListFilter) -> Result<Vec<Entry>, StoreError> {
        self.inner.list(scope, filter).await
    }
    async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, StoreError> {
        self.inner.due(scope, now, limit).await
    }
    async fn history(&self, scope: &str, key: &str) -> Result<Vec<oncely::store::HistoryRecord>, StoreError> {
        self.inner.history(scope, key).await
    }
    async fn stats(&self) -> Result<oncely::store::Stats, StoreError> {
        self.inner.stats().await
    }
    async fn waiting(&self, in_doubt_by: Option<u64>, page: &oncely::store::WaitingPage) -> Result<Vec<Entry>, StoreError> {
        self.inner.waiting(in_doubt_by, page).await
    }
    async fn waiting_count(&self, in_doubt_by: Option<u64>) -> Result<(u64, u64), StoreError> {
        self.inner.waiting_count(in_doubt_by).await
    }
    async fn awaiting(&self, page: &oncely::store::WaitingPage) -> Result<Vec<Entry>, StoreError> {
        self.inner.awaiting(page).await
    }
    async fn awaiting_count(&self) -> Result<u64, StoreError> {
        self.inner.awaiting_count().await
    }
    async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        self.inner.last_approved(scope, tool, key).await
    }
}

/// The provider: what it executed, by key (a provider-idempotent one executes a key once).
#[derive(Default)]
struct Provider {
    executed: Mutex<Vec<String>>,
    by_key: Mutex<HashMap<String, serde_json::Value>>,
    dedupes: bool,
}

impl Provider {
    fn refund(&self, key: &str) -> serde_json::Value {
        let mut by_key = self.by_key.lock().unwrap();
        if self.dedupes {
            if let Some(done) = by_key.get(key) {
                return done.clone();
            }
        }
        let mut executed = self.executed.lock().unwrap();
        executed.push(key.to_string());
        let r = serde_json::json!({"refund_id": format!("re_{}", executed.len())});
        by_key.insert(key.to_string(), r.clone());
        r
    }
    fn find(&self, key: &str) -> Option<serde_json::Value> {
        self.by_key.lock().unwrap().get(key).cloned()
    }
    fn executions(&self) -> usize {
        self.executed.lock().unwrap().len()
    }
}

/// How worker A's tool spends its time before reaching the provider.
#[derive(Clone, Copy)]
enum Call {
    /// Straight away.
    Now,
    /// The whole worker stalls (the thread is blocked: no heartbeat runs either), as when its
    /// process is paused.
    Stalled(Duration),
    /// The call is slow; the worker lives (its heartbeats run).
    Slow(Duration),
}

struct World {
    location: String,
    reconcile: &'static str,
    lease_ms: u64,
    max_call_ms: u64,
    second_worker_at: Duration,
    provider: Arc<Provider>,
    _dir: Option<tempfile::TempDir>,
}

fn intent() -> Intent {
    Intent {
        scope: "acme".into(),
        run_id: "run-1".into(),
        step_id: "refund-1".into(),
        tool: "refund".into(),
        args_json: r#"{"charge_id":"ch_1","amount":500}"#.into(),
    }
}

/// One ledger for the two workers; `None` when PostgreSQL (or Redis) is not available.
async fn world(backend: &str, reconcile: &'static str, dedupes: bool) -> Option<World> {
    let (dir, location) = match backend {
        "sqlite" => {
            let (dir, path) = common::sqlite_path();
            (Some(dir), path)
        }
        "redis" => (None, common::redis_ledger()?),
        _ => (None, common::postgres_db().await?),
    };
    Some(World {
        location,
        reconcile,
        lease_ms: LEASE_MS,
        max_call_ms: MAX_CALL_MS,
        second_worker_at: SECOND_WORKER_AT,
        provider: Arc::new(Provider { dedupes, ..Provider::default() }),
        _dir: dir,
    })
}

impl World {
    /// A worker: its own connection, and the lookup reconciler (unless provider-idempotent).
    async fn worker(&self, owner: &str) -> Ledger<Stalling> {
        let store = Stalling {
            inner: AnyStore::open(&self.location).await.unwrap(),
            after_insert_ms: 0.into(),
            armed: false.into(),
            armed_updates: 0.into(),
        };
        let l = Ledger::with_store(Runtime::shared().unwrap(), store).with_owner(owner);
        if self.reconcile == "lookup" {
            let p = self.provider.clone();
            l.reconciler("refund", move |req| {
                let found = p.find(&req.key);
                async move {
                    match found {
                        Some(v) => ReconcileVerdict::Happened(v.to_string()),
                        None => ReconcileVerdict::NotHappened,
                    }
                }
            });
        }
        l
    }

    fn policy(&self, l: &Ledger<Stalling>) -> oncely::wit::policy::ToolPolicy {
        let reconcile = if self.reconcile == "lookup" { r#"{"lookup":"find_refund"}"# } else { r#""provider-idempotent""# };
        let (lease, max_call) = (self.lease_ms, self.max_call_ms);
        let doc = format!(
            r#"{{"class":"irreversible-external","key":{{}},"reconcile":{reconcile},"leaseMs":{lease},"maxCallMs":{max_call},"reconcileAfterMs":100,"escalateAfterMs":60000}}"#
        );
        l.runtime().parse_policy(&doc).unwrap()
    }

    /// Run the intent on a worker (its tool spends `call` first, then calls the provider).
    async fn run(&self, l: &Ledger<Stalling>, call: Call) -> Result<oncely::EffectResult<serde_json::Value>, Error> {
        let policy = self.policy(l);
        let p = self.provider.clone();
        l.effect(&intent(), &policy)
            .wait(Duration::from_secs(10))
            .run(|key| {
                let p = p.clone();
                async move {
                    match call {
                        Call::Now => {}
                        Call::Stalled(d) => std::thread::sleep(d),
                        Call::Slow(d) => tokio::time::sleep(d).await,
                    }
                    Ok::<_, ToolError>(p.refund(&key))
                }
            })
            .await
    }
}

type Outcome = Result<oncely::EffectResult<serde_json::Value>, Error>;

/// Worker A (in a process of its own: a thread with its own runtime, so that a stall stops
/// everything it does) runs the intent, stalling `after_claim` ms right after its claim and
/// spending `call` in its tool; worker B runs it at 700 ms. Returns both results.
async fn race(w: &Arc<World>, after_claim: u64, call: Call) -> (Outcome, Outcome) {
    let wa = w.clone();
    let a = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let l = wa.worker("a").await;
            l.store().after_insert_ms.store(after_claim, Ordering::SeqCst);
            wa.run(&l, call).await
        })
    });
    tokio::time::sleep(w.second_worker_at).await;
    let b = w.worker("b").await;
    let b = w.run(&b, Call::Now).await;
    (tokio::task::spawn_blocking(move || a.join().unwrap()).await.unwrap(), b)
}

async fn entry(w: &World, key: &str) -> Entry {
    let l = w.worker("reader").await;
    l.get("acme", key).await.unwrap().unwrap()
}

async fn stalled_between_claim_and_call(backend: &str) {
    let Some(w) = world(backend, "lookup", false).await else { return };
    let w = Arc::new(w);
    // A stalls 1,000 ms right after its claim: past its lease (500), within the grace (2,000).
    let (a, b) = race(&w, 1_000, Call::Now).await;
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(w.provider.executions(), 1, "{backend}: the stalled worker must not call on its expired lease");
    assert_eq!(a.value, b.value, "{backend}");
    let e = entry(&w, &a.key).await;
    assert_eq!(e.state, EntryState::Done, "{backend}");
    // Its first attempt was recorded as never executed; the one execution is a later attempt.
    assert!(e.attempt >= 2, "{backend}: attempt {}", e.attempt);
}

async fn stalled_inside_the_call_within_the_grace(backend: &str) {
    let Some(w) = world(backend, "lookup", false).await else { return };
    let w = Arc::new(w);
    // A passed its pre-call check, then stalls 1,100 ms before reaching the provider (no
    // heartbeat either): B arrives at 700, finds the lease expired, and its lookup finds nothing
    // yet — not believed before 2,000. A's call lands at 1,100; B gets its result.
    let (a, b) = race(&w, 0, Call::Stalled(Duration::from_millis(1_100))).await;
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(w.provider.executions(), 1, "{backend}: a stall within the grace must not execute twice");
    assert_eq!(a.value, b.value, "{backend}");
    assert!(!a.replayed && b.replayed, "{backend}");
}

async fn stalled_past_the_grace_is_the_residual_case(backend: &str) {
    let Some(w) = world(backend, "lookup", false).await else { return };
    let w = Arc::new(w);
    // A stalls 4,000 ms inside its call: past the grace (2,000). B's lookup at 2,000 finds
    // nothing and is believed; B executes. A's call then lands too: two executions, which the
    // ledger cannot prevent (docs/reliability.md) — and A's late completion is refused loudly.
    let (a, b) = race(&w, 0, Call::Stalled(Duration::from_millis(4_000))).await;
    assert_eq!(w.provider.executions(), 2, "{backend}: the residual case, as documented");
    assert!(matches!(a, Err(Error::Ledger(_))), "{backend}: A's late completion must be refused, got {a:?}");
    let b = b.unwrap();
    assert!(!b.replayed && b.reconciled, "{backend}");
}

async fn provider_idempotent_fences_a_stall_of_any_length(backend: &str) {
    let Some(w) = world(backend, "provider-idempotent", true).await else { return };
    let w = Arc::new(w);
    // The same 4,000 ms stall, but the provider deduplicates by the key: B's reconciliation
    // calls it again with the same key, and A's late call is a duplicate there.
    let (a, b) = race(&w, 0, Call::Stalled(Duration::from_millis(4_000))).await;
    assert_eq!(w.provider.executions(), 1, "{backend}: the provider's key fences the late call");
    let b = b.unwrap();
    assert!(b.reconciled, "{backend}");
    // A's late completion carries the same result: recorded as it is.
    assert_eq!(a.unwrap().value, b.value, "{backend}");
}

async fn a_long_call_keeps_its_claim_by_heartbeats(backend: &str) {
    let Some(w) = world(backend, "lookup", false).await else { return };
    // Lease 1,500 ms (a heartbeat every 500); A's call takes 2,500 ms, but A lives: its
    // heartbeats keep the claim, so B, arriving at 1,800 (after the first lease's end), waits
    // and replays instead of reconciling.
    let w = Arc::new(World { lease_ms: 1_500, max_call_ms: 3_000, second_worker_at: Duration::from_millis(1_800), ..w });
    let (a, b) = race(&w, 0, Call::Slow(Duration::from_millis(2_500))).await;
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(w.provider.executions(), 1, "{backend}");
    assert!(!b.reconciled && b.replayed, "{backend}: B must have waited for the live claim");
    let e = entry(&w, &a.key).await;
    assert!(e.version >= 4, "{backend}: heartbeats were written (version {})", e.version);
    assert_eq!(e.attempt, 1, "{backend}");
}

async fn heartbeats_beat_on_through_a_storage_error(backend: &str) {
    let Some(w) = world(backend, "lookup", false).await else { return };
    // Lease 300 ms: a heartbeat every 100 ms through a 1 s call. The first beat's write fails;
    // the beats go on (wit/effect.wit, call-tool) instead of leaving the claim to run out.
    let w = World { lease_ms: 300, max_call_ms: 3_000, ..w };
    let l = Arc::new(w.worker("A").await);
    let policy = w.policy(&l);
    let p = w.provider.clone();
    let held = l.clone();
    let r = l
        .effect(&intent(), &policy)
        .run(|key| {
            let (p, held) = (p.clone(), held.clone());
            async move {
                held.store().armed.store(true, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_secs(1)).await;
                held.store().armed.store(false, Ordering::SeqCst);
                Ok::<_, ToolError>(p.refund(&key))
            }
        })
        .await
        .unwrap();
    assert!(!r.replayed, "{backend}");
    let beats = l.store().armed_updates.load(Ordering::SeqCst);
    assert!(beats >= 3, "{backend}: {beats} heartbeat writes: the beats stopped at the failure");
    let e = l.get("acme", &r.key).await.unwrap().unwrap();
    assert_eq!((e.state, e.attempt), (EntryState::Done, 1), "{backend}");
    assert_eq!(w.provider.executions(), 1, "{backend}");
}

macro_rules! on_every_backend {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                super::$name("sqlite").await;
            })*
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                super::$name("postgres").await;
            })*
        }
        mod redis {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                super::$name("redis").await;
            })*
        }
    };
}

on_every_backend!(
    stalled_between_claim_and_call,
    stalled_inside_the_call_within_the_grace,
    stalled_past_the_grace_is_the_residual_case,
    provider_idempotent_fences_a_stall_of_any_length,
    a_long_call_keeps_its_claim_by_heartbeats,
    heartbeats_beat_on_through_a_storage_error,
);
