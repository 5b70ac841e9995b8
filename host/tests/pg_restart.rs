//! PostgreSQL goes away in the middle of a stream of effects: a cluster of the test's own is
//! restarted with `pg_ctl -m fast` and then with `-m immediate` (kept down a second) while three
//! workers of one process run effects (fresh keys, and repeats of settled ones). What must hold:
//!
//! - a call in flight fails with a typed storage error (`Error::Storage`) that says what
//!   happened (connection refused, terminated, the server starting up, …), within a few seconds;
//!   or, if the tool already ran and its result could not be recorded, with `Error::InDoubt`;
//! - nothing is executed twice (the test counts executions per key, as the provider would), and
//!   every effect that returned a result is `done` in the ledger with that result;
//! - an effect whose call failed is recoverable: a retry of the same intent once the server is
//!   back replays it, reconciles it, or (it never ran) runs it — once;
//! - the process keeps running and, after each restart, every worker succeeds again within a
//!   bounded time.

use oncely_test_support as common;

use common::{postgres_own_cluster, restart_postgres};
use oncely::store::{AnyStore, ListFilter, PostgresOptions, PostgresStore};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{EntryState, ReconcileVerdict};
use oncely::wit::policy::ToolPolicy;
use oncely::{Error, Ledger, Runtime, StoreError, ToolError};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WORKERS: usize = 3;
/// A claim left pending by a call that failed is taken over (in doubt, then reconciled) once its
/// lease is over, and a lookup's "did not happen" is believed `maxCallMs` after that: both short, so
/// the retries do not wait long.
const POLICY: &str = r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find_charge"},"leaseMs":2000,"maxCallMs":1000,"reconcileAfterMs":0,"escalateAfterMs":600000}"#;
/// How long a call waits for a connection while the server is down.
const ACQUIRE: Duration = Duration::from_secs(1);
/// A storage error says what happened: one of these is in its message.
const SAYS_WHY: &[&str] = &[
    "refused",
    "terminat",
    "shutting down",
    "starting up",
    "not yet accepting",
    "recovery",
    "reset",
    "closed",
    "broken pipe",
    "end of file",
    "eof",
    "restarting",
];
/// After a restart, every worker must have succeeded again within this.
const BACK_WITHIN: Duration = Duration::from_secs(10);

/// What the "provider" saw: the result of every execution, per key.
type Executions = Arc<Mutex<HashMap<String, Vec<Value>>>>;

/// One call of a worker: when it started and ended, and how it failed (None: it returned).
struct Call {
    worker: usize,
    start: Instant,
    end: Instant,
    failure: Option<String>,
}

#[derive(Default)]
struct Log {
    calls: Vec<Call>,
    /// Every storage error a call returned, with how long the call took.
    storage: Vec<(String, Duration)>,
    in_doubt: Vec<String>,
    /// Intents whose call failed, to retry once the server is back.
    failed: Vec<Intent>,
    /// Intents that returned, and what they returned.
    returned: Vec<(Intent, String, Value)>,
    replays: u32,
}

fn intent(w: usize, i: u64) -> Intent {
    Intent {
        scope: "acme".into(),
        run_id: format!("run-{w}"),
        step_id: format!("charge-{i}"),
        tool: "charge".into(),
        args_json: json!({"worker": w, "n": i, "cents": 100 + i}).to_string(),
    }
}

/// The tool: the provider executes the charge (recorded), after a short call.
async fn charge(executions: Executions, key: String) -> Result<Value, ToolError> {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let value = json!({"charge_id": format!("ch_{}", SERIAL.fetch_add(1, Ordering::SeqCst)), "key": key.clone()});
    executions.lock().unwrap().entry(key).or_default().push(value.clone());
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(value)
}

async fn run_once(
    ledger: &Ledger,
    policy: &ToolPolicy,
    intent: &Intent,
    executions: &Executions,
) -> Result<oncely::EffectResult<Value>, Error> {
    ledger.effect(intent, policy).wait(Duration::from_secs(10)).run(|key| charge(executions.clone(), key)).await
}

async fn worker(w: usize, ledger: Ledger, executions: Executions, stop: Arc<AtomicBool>, log: Arc<Mutex<Log>>) {
    let policy = ledger.runtime().parse_policy(POLICY).unwrap();
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        // Every fourth call repeats an effect some worker already got a result for.
        let repeat = if n.is_multiple_of(4) {
            let l = log.lock().unwrap();
            (!l.returned.is_empty()).then(|| l.returned[(n as usize / 4) % l.returned.len()].0.clone())
        } else {
            None
        };
        let it = repeat.clone().unwrap_or_else(|| intent(w, n));
        let start = Instant::now();
        let r = run_once(&ledger, &policy, &it, &executions).await;
        let end = Instant::now();
        let mut l = log.lock().unwrap();
        let failure = match r {
            Ok(res) => {
                if repeat.is_some() {
                    assert!(res.replayed, "worker {w}: a repeat of a settled effect executed again");
                    l.replays += 1;
                } else {
                    l.returned.push((it, res.key, res.value));
                }
                None
            }
            Err(Error::Storage(e)) => {
                l.storage.push((e.to_string(), end - start));
                l.failed.push(it);
                Some(e.to_string())
            }
            Err(e @ Error::InDoubt { .. }) => {
                l.in_doubt.push(e.to_string());
                l.failed.push(it);
                Some(e.to_string())
            }
            Err(e) => panic!("worker {w}: a call failed with an error that is neither storage nor in-doubt: {e}"),
        };
        l.calls.push(Call { worker: w, start, end, failure });
    }
}

/// Once the server is back (`back`, until `until`), every call succeeds (a connection it dropped
/// is never handed out again), and every worker has succeeded again within `BACK_WITHIN`.
fn served_again(log: &Log, back: Instant, until: Instant, what: &str) {
    let late: Vec<_> = log.calls.iter().filter(|c| c.start >= back && c.end <= until).filter_map(|c| c.failure.as_ref()).take(3).collect();
    assert!(late.is_empty(), "{what}: calls started after the server was back failed: {late:?}");
    for w in 0..WORKERS {
        let first = log.calls.iter().filter(|c| c.worker == w && c.start >= back && c.failure.is_none()).map(|c| c.end).min();
        let first = first.unwrap_or_else(|| panic!("{what}: worker {w} never succeeded again after the server came back"));
        assert!(first - back <= BACK_WITHIN, "{what}: worker {w} succeeded again only after {:?}", first - back);
    }
}

/// When the server last started (a restart changes it).
async fn server_started(url: &str) -> String {
    use sqlx::Connection;
    let mut c = sqlx::PgConnection::connect(url).await.expect("connect to the restarted server");
    let (t,): (String,) = sqlx::query_as("SELECT pg_postmaster_start_time()::text").fetch_one(&mut c).await.unwrap();
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn effects_survive_postgres_restarts_fast_and_immediate() {
    let Some((url, dir)) = postgres_own_cluster() else { return };
    let t0 = Instant::now();
    let options = PostgresOptions { acquire_timeout: ACQUIRE, ..PostgresOptions::default() };
    let store = PostgresStore::connect_with(&url, &options).await.unwrap();
    let ledger = Ledger::with_store(Runtime::shared().unwrap(), AnyStore::Postgres(store)).with_owner("stream");
    let executions: Executions = Arc::default();
    // The provider's lookup: did the charge with this key happen, and with what result?
    let ex = executions.clone();
    ledger.reconciler("charge", move |req| {
        let found = ex.lock().unwrap().get(&req.key).and_then(|v| v.first().cloned());
        async move {
            match found {
                Some(v) => ReconcileVerdict::Happened(v.to_string()),
                None => ReconcileVerdict::NotHappened,
            }
        }
    });

    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Log::default()));
    let tasks: Vec<_> =
        (0..WORKERS).map(|w| tokio::spawn(worker(w, ledger.clone(), executions.clone(), stop.clone(), log.clone()))).collect();

    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut started = vec![server_started(&url).await];
    let t = Instant::now();
    restart_postgres(&dir, "fast", 0).await;
    started.push(server_started(&url).await);
    let back_fast = Instant::now();
    eprintln!("restart fast took {:?}", back_fast - t);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let t = Instant::now();
    let down_immediate = t;
    restart_postgres(&dir, "immediate", 2).await;
    let back_immediate = Instant::now();
    started.push(server_started(&url).await);
    eprintln!("restart immediate took {:?}", back_immediate - t);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    stop.store(true, Ordering::SeqCst);
    for t in tasks {
        t.await.expect("a worker panicked");
    }
    let mut log = Arc::try_unwrap(log).ok().unwrap().into_inner().unwrap();
    served_again(&log, back_fast, down_immediate, "after -m fast");
    served_again(&log, back_immediate, Instant::now(), "after -m immediate");

    // Retry every intent whose call failed, as its caller would, now that the server is back.
    let policy = ledger.runtime().parse_policy(POLICY).unwrap();
    let (mut replayed, mut reconciled, mut fresh) = (0, 0, 0);
    let mut retried = HashSet::new();
    for it in std::mem::take(&mut log.failed) {
        if !retried.insert((it.run_id.clone(), it.step_id.clone())) {
            continue;
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        let res = loop {
            match run_once(&ledger, &policy, &it, &executions).await {
                Ok(res) => break res,
                Err(e @ (Error::Storage(_) | Error::InDoubt { .. } | Error::InProgress { .. })) if Instant::now() < deadline => {
                    eprintln!("retry of {}: {e}", it.step_id);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => panic!("the retry of {} failed: {e}", it.step_id),
            }
        };
        match (res.replayed, res.reconciled) {
            (_, true) => reconciled += 1,
            (true, false) => replayed += 1,
            (false, false) => fresh += 1,
        }
        if !log.returned.iter().any(|(_, k, _)| *k == res.key) {
            log.returned.push((it, res.key, res.value));
        }
    }

    // Nothing executed twice; every result returned is the one executed, and is what the
    // ledger holds for its key, `done`.
    let executions = executions.lock().unwrap().clone();
    for (key, results) in executions.iter() {
        assert_eq!(results.len(), 1, "{key} was executed {} times", results.len());
    }
    for (it, key, value) in &log.returned {
        assert_eq!(executions.get(key).map(|v| &v[0]), Some(value), "{}: the result returned is not the one executed", it.step_id);
        let entry = ledger.get("acme", key).await.unwrap().unwrap_or_else(|| panic!("{}: no entry", it.step_id));
        assert_eq!(entry.state, EntryState::Done, "{}", it.step_id);
        let recorded: Value = serde_json::from_str(entry.result_json.as_deref().unwrap()).unwrap();
        assert_eq!(&recorded, value, "{}: the ledger holds another result", it.step_id);
    }
    // Nothing is left pending or in doubt: every claim made is accounted for.
    let all = ledger.list(Some("acme"), &ListFilter { limit: 100_000, ..ListFilter::default() }).await.unwrap();
    assert_eq!(all.len(), log.returned.len(), "every entry is one that returned");
    assert!(all.iter().all(|e| e.state == EntryState::Done));
    assert_eq!(executions.len(), log.returned.len(), "every execution's effect returned");

    // The server did go away twice (the test tested something): it started three times. Whether
    // a call failed depends on where each worker was; a call in its tool rides the outage out
    // (recording is retried for 7.55 s). The errors callers saw say what happened, and came
    // within a few seconds.
    assert!(started[0] != started[1] && started[1] != started[2], "the server was not restarted: {started:?}");
    for (message, took) in &log.storage {
        let lower = message.to_lowercase();
        assert!(SAYS_WHY.iter().any(|k| lower.contains(k)), "a storage error that does not say what happened: {message}");
        assert!(*took < ACQUIRE + Duration::from_secs(5), "a call took {took:?} to fail: {message}");
    }

    let mut kinds: HashMap<String, usize> = HashMap::new();
    for (m, _) in &log.storage {
        *kinds.entry(m.chars().take(110).collect()).or_default() += 1;
    }
    eprintln!(
        "{} calls ({} repeats replayed), {} effects done, {} storage errors, {} in doubt; retried {}: {replayed} replayed, {reconciled} reconciled, {fresh} ran; {:?} in all",
        log.calls.len(),
        log.replays,
        log.returned.len(),
        log.storage.len(),
        log.in_doubt.len(),
        retried.len(),
        t0.elapsed()
    );
    for (k, n) in kinds {
        eprintln!("  {n:>3} × {k}");
    }
    for m in &log.in_doubt {
        eprintln!("  in doubt: {m}");
    }
}

/// No server at all: opening fails at once (not after the acquire timeout, nor with sqlx's bare
/// "pool timed out" after 30 s), and says why.
#[tokio::test]
async fn a_server_that_is_down_is_reported_as_such_at_once() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    let options = PostgresOptions { acquire_timeout: Duration::from_secs(20), ..PostgresOptions::default() };
    let start = Instant::now();
    let err = PostgresStore::connect_with(&url, &options).await.unwrap_err();
    let took = start.elapsed();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(err.to_string().contains("Connection refused"), "{err}");
    assert!(took < Duration::from_secs(10), "took {took:?}: a refused connection is known at once, not after the acquire timeout (20 s)");
    eprintln!("{err} ({took:?})");
}
