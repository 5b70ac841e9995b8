//! What only the Redis store has (the rest of its contract is host/tests/storage.rs, which runs
//! on every store): the server's persistence read at open and what the ledger says it
//! guarantees, a claim that waits for replicas (`?wait_replicas=N`, `WAIT`) and fails when they
//! do not acknowledge, and a three-master cluster with replicas (tests/redis/cluster.sh): every
//! key of a scope in one slot, and the cross-scope reads.
//!
//! Each test starts servers of its own (tests/redis/start.sh): it changes their configuration or
//! needs replicas. Without redis-server the tests are skipped loudly, except under CI or
//! `ONCELY_REQUIRE_REDIS`.

use oncely_test_support as common;

use oncely::store::{AnyStore, ListFilter, RedisStore, Store};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::EntryState;
use oncely::{Error, Ledger, Runtime, StoreError, ToolError};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A server of the test's own (`tests/redis/start.sh` with `args`), or `None` (loudly) where
/// Redis is not required.
fn server(args: &[&str]) -> Option<String> {
    match common::start_redis(args) {
        Ok(url) => Some(url),
        Err(why) => {
            let required = std::env::var_os("CI").is_some() || std::env::var_os("ONCELY_REQUIRE_REDIS").is_some();
            assert!(!required, "Redis is required here (CI / ONCELY_REQUIRE_REDIS) but could not be started: {why}");
            eprintln!("\n*** SKIPPING a Redis test: {why} ***\n");
            None
        }
    }
}

/// `redis-cli -u url args…`, its output.
fn cli(url: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("redis-cli").arg("-u").arg(url).args(args).output().expect("run redis-cli");
    assert!(out.status.success(), "redis-cli {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn port(url: &str) -> String {
    url.rsplit(':').next().unwrap().trim_end_matches('/').to_string()
}

fn intent(scope: &str, n: u32) -> Intent {
    Intent {
        scope: scope.into(),
        run_id: "r".into(),
        step_id: format!("s{n}"),
        tool: "refund".into(),
        args_json: format!("{{\"charge\":\"ch_{n}\"}}"),
    }
}

const POLICY: &str = r#"{"class":"irreversible-external","key":{},"reconcile":"manual"}"#;

#[tokio::test(flavor = "multi_thread")]
async fn the_servers_persistence_is_read_at_open_and_said() {
    let Some(url) = server(&[]) else { return };
    // tests/redis/start.sh: an append-only file, fsync'd once a second (Redis's default).
    let store = RedisStore::connect(&url).await.unwrap();
    let d = store.durability().clone();
    assert_eq!((d.appendonly.as_deref(), d.appendfsync.as_deref(), d.cluster), (Some("yes"), Some("everysec"), false));
    assert!(!d.claims_survive_a_crash());
    assert!(d.guarantee().contains("last second of claims"), "{}", d.guarantee());
    cli(&url, &["CONFIG", "SET", "appendfsync", "always"]);
    let d = RedisStore::connect(&url).await.unwrap().durability().clone();
    assert!(d.claims_survive_a_crash(), "{d:?}");
    assert!(d.guarantee().contains("survives a crash or power loss"), "{}", d.guarantee());
    cli(&url, &["CONFIG", "SET", "appendonly", "no"]);
    let d = RedisStore::connect(&url).await.unwrap().durability().clone();
    assert!(!d.claims_survive_a_crash() && d.guarantee().contains("appendonly no"), "{}", d.guarantee());
    // Opened by location, as `Ledger::open` and the CLI's --db do.
    assert!(matches!(AnyStore::open(&url).await.unwrap(), AnyStore::Redis(_)));
    assert!(matches!(AnyStore::open(&format!("{url}?wait_replicas=many")).await, Err(StoreError::Location(_))));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_claim_waits_for_the_replicas_it_asks_for() {
    let Some(primary) = server(&[]) else { return };
    let rt = Runtime::shared().unwrap();
    let policy = rt.parse_policy(POLICY).unwrap();
    let calls = Arc::new(AtomicU32::new(0));
    let run = |ledger: Ledger<AnyStore>, n: u32| {
        let (calls, policy) = (calls.clone(), policy.clone());
        async move {
            let tool = move |_| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move { Ok::<_, ToolError>(serde_json::json!({"refund": n})) }
            };
            ledger.effect(&intent("acme", n), &policy).run(tool).await
        }
    };
    // No replica required: a claim returns at once.
    let none = Ledger::open(&format!("{primary}?prefix=w0&wait_replicas=0")).await.unwrap();
    run(none, 1).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // One required, none there: the claim fails as a storage failure and the tool is not called.
    // (Longer than the redis crate's default response timeout, 500 ms, which the store lengthens.)
    let one = format!("{primary}?prefix=w1&wait_replicas=1&wait_timeout_ms=800");
    let ledger = Ledger::open(&one).await.unwrap();
    let started = std::time::Instant::now();
    match run(ledger.clone(), 2).await {
        Err(Error::Storage(StoreError::NotReplicated { wanted: 1, acked: 0, timeout_ms: 800 })) => {}
        other => panic!("a claim no replica acknowledged was not refused: {other:?}"),
    }
    assert!(started.elapsed() >= std::time::Duration::from_millis(800));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the tool was called on an unreplicated claim");
    // The claim was written on the primary: it is held (pending), and settled as any claim whose
    // worker stopped; the same intent now waits for it instead of running.
    let held = ledger.list(Some("acme"), &ListFilter { limit: 10, ..Default::default() }).await.unwrap();
    assert_eq!(held.iter().map(|e| e.state).collect::<Vec<_>>(), vec![EntryState::Pending]);

    // Which writes wait is the core's mark (`row-write.claims`), not the store's guess: a call
    // that awaits a person's approval leaves no claim, so its write does not wait, and it is
    // answered at once even with no replica there.
    let asking = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual","approval":"always"}"#).unwrap();
    let started = std::time::Instant::now();
    match ledger.effect(&intent("acme", 9), &asking).run(|_| async { Ok::<_, ToolError>(serde_json::json!({})) }).await {
        Err(Error::AwaitingApproval(_)) => {}
        other => panic!("a request for approval waited for a replica, or was not recorded: {other:?}"),
    }
    assert!(started.elapsed() < std::time::Duration::from_millis(800), "the request for approval waited for WAIT");

    // With a replica in sync, the same option lets claims through, and the replica has them.
    let replica = server(&["--replica-of", &port(&primary)]).expect("a replica of a server that started");
    let r = run(Ledger::open(&one).await.unwrap(), 3).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let key = format!("w1:{{acme}}:e:{}", r.key);
    assert_eq!(cli(&replica, &["HGET", &key, "s"]), "done", "the replica holds the claim and its end");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_three_master_cluster_keeps_each_scope_in_one_slot() {
    let out = std::process::Command::new(common::repo().join("tests/redis/cluster.sh")).arg(std::process::id().to_string()).output();
    let url = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        other => {
            let why = other.map_or_else(|e| e.to_string(), |o| String::from_utf8_lossy(&o.stderr).to_string());
            let required = std::env::var_os("CI").is_some() || std::env::var_os("ONCELY_REQUIRE_REDIS").is_some();
            assert!(!required, "a Redis cluster is required here (CI / ONCELY_REQUIRE_REDIS) but could not be started: {why}");
            eprintln!("\n*** SKIPPING the Redis cluster test: {why} ***\n");
            return;
        }
    };
    let rt = Runtime::shared().unwrap();
    let policy = rt.parse_policy(POLICY).unwrap();
    let short = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual","leaseMs":1}"#).unwrap();
    // Every claim waits for its master's replica.
    let ledger = Ledger::open(&format!("{url}?wait_replicas=1&wait_timeout_ms=2000")).await.unwrap();
    let AnyStore::Redis(store) = ledger.store() else { panic!("not a Redis store") };
    assert!(store.durability().cluster);
    let scopes: Vec<String> = (0..24).map(|i| format!("tenant-{i}")).collect();
    let mut keys = Vec::new();
    for (i, scope) in scopes.iter().enumerate() {
        let r = ledger.effect(&intent(scope, i as u32), &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!("ok")) }).await;
        keys.push(r.unwrap().key);
        // And one claim left held: its worker died.
        ledger.begin(&intent(scope, 1000 + i as u32), &short).await.unwrap();
    }
    // The scopes are spread over the masters; within a scope every key is in one slot.
    let slot = |k: &str| cli(&url, &["CLUSTER", "KEYSLOT", k]);
    let mut slots = std::collections::HashSet::new();
    for (scope, key) in scopes.iter().zip(&keys) {
        let names = [format!("e:{key}"), format!("h:{key}"), "due".into(), "upd".into(), "n".into(), "ap:refund".into()];
        let s: std::collections::HashSet<String> = names.iter().map(|n| slot(&format!("oncely:{{{scope}}}:{n}"))).collect();
        assert_eq!(s.len(), 1, "{scope}: {s:?}");
        slots.extend(s);
    }
    assert!(slots.len() > 3, "{slots:?}");
    // Cross-scope reads gather every scope.
    let all = ledger.list(None, &ListFilter { limit: 1000, ..Default::default() }).await.unwrap();
    assert_eq!(all.len(), 48);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let due = store.due(None, now, 1000).await.unwrap();
    assert_eq!(due.iter().filter(|e| e.state == EntryState::Pending).count(), 24);
    let report = ledger.sweep(None).await.unwrap();
    assert_eq!(report.leases_expired, 24, "{report:?}");
    let stats = ledger.stats().await.unwrap();
    let count = |s: EntryState| stats.by_state.iter().find(|(x, _)| *x == s).unwrap().1;
    assert_eq!((count(EntryState::Done), count(EntryState::Escalated)), (24, 24), "{stats:?}");
    assert_eq!(ledger.needs_person_count(None).await.unwrap().escalated, 24);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tls_server_is_reached_by_rediss_and_its_authority() {
    let Some(url) = server(&["--tls"]) else { return };
    assert!(url.starts_with("rediss://") && url.contains("?tls_ca="), "{url}");
    let ledger = Ledger::open(&format!("{url}&prefix=tls")).await.unwrap();
    let policy = Runtime::shared().unwrap().parse_policy(POLICY).unwrap();
    let r = ledger.effect(&intent("acme", 1), &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!("ok")) }).await.unwrap();
    let again = ledger.effect(&intent("acme", 1), &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!("twice")) }).await;
    assert!(again.unwrap().replayed);
    assert_eq!(ledger.get("acme", &r.key).await.unwrap().unwrap().state, EntryState::Done);
    // Without the authority, the system's roots do not know the test's: refused.
    let (bare, _) = url.split_once('?').unwrap();
    assert!(AnyStore::open(bare).await.is_err(), "a server with an unknown authority was trusted");
}
