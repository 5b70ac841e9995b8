//! One storage conformance suite, run on SQLite and on a real PostgreSQL: the store contract
//! (insert-if-absent, compare-and-swap, scope in every query), every ledger scenario of
//! `tests/vectors/ledger.json` driven through a real store, and scope isolation.

use oncely_test_support as common;

use common::{postgres_db, sqlite_path, stores, vectors, TestClock};
use oncely::store::{AnyStore, Found, ListFilter, PostgresStore, SqliteStore, Store};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Entry, EntryState, Event, Outcome};
use oncely::{Error, Ledger, Runtime, ToolError};
use serde_json::Value;
use sqlx::SqlSafeStr;
use std::sync::atomic::{AtomicU64, Ordering};

fn s(v: &Value) -> String {
    v.as_str().unwrap().to_string()
}

async fn claimed_entry(store: &AnyStore, scope: &str, key_args: &str) -> Entry {
    let rt = Runtime::shared().unwrap();
    let p = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual"}"#).unwrap();
    let i = Intent { scope: scope.into(), run_id: "r".into(), step_id: "s".into(), tool: "t".into(), args_json: key_args.into() };
    // The claim as the core writes it (through the ledger, at a fixed time).
    let ledger = Ledger::with_store(rt, store.clone()).with_owner("w1").with_clock(std::sync::Arc::new(|| 1000));
    let (c, outcome) = ledger.begin(&i, &p).await.unwrap();
    assert!(matches!(outcome, Outcome::Execute(_)), "{outcome:?}");
    store.get(scope, &c.key).await.unwrap().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn store_contract() {
    for (name, store, _guard) in stores().await {
        let e = claimed_entry(&store, "acme", "{\"n\":1}").await;
        // Insert-if-absent: a second claim of the same (scope, key) does not insert.
        assert!(!store.insert(&e, true).await.unwrap(), "{name}: insert over an existing row");
        assert_eq!(store.get("acme", &e.key).await.unwrap().as_ref(), Some(&e), "{name}: round trip");
        // Compare-and-swap: only from the current version.
        let mut next = e.clone();
        next.version = 2;
        next.state = EntryState::Done;
        next.result_json = Some("{\"ok\":true}".into());
        assert!(!store.update(7, &next, true, true).await.unwrap(), "{name}: update from a wrong version");
        assert!(store.update(1, &next, true, true).await.unwrap(), "{name}");
        assert!(!store.update(1, &next, true, true).await.unwrap(), "{name}: the same CAS twice");
        assert_eq!(store.get("acme", &e.key).await.unwrap().unwrap().state, EntryState::Done);
        // The history: the insert's record, then each update the core marked as kept, with
        // the written row's fields (`at` its `updated_at`); an unmarked update keeps none.
        let kept = |h: Vec<oncely::store::HistoryRecord>| h.into_iter().map(|r| (r.version, r.at, r.state)).collect::<Vec<_>>();
        let both = vec![(1, e.updated_at, EntryState::Pending), (2, next.updated_at, EntryState::Done)];
        assert_eq!(kept(store.history("acme", &e.key).await.unwrap()), both, "{name}");
        let mut quiet = next.clone();
        quiet.version = 3;
        quiet.updated_at += 5;
        assert!(store.update(2, &quiet, false, false).await.unwrap(), "{name}");
        assert_eq!(kept(store.history("acme", &e.key).await.unwrap()), both, "{name}: an unmarked update");
        assert!(!store.delete("acme", &e.key, 1).await.unwrap(), "{name}: delete from a wrong version");
        // Lists and due rows are scoped.
        let pending = claimed_entry(&store, "acme", "{\"n\":2}").await;
        let page = ListFilter { limit: 10, ..Default::default() };
        assert_eq!(store.list(Some("acme"), &page).await.unwrap().len(), 2, "{name}");
        assert_eq!(store.list(Some("other"), &page).await.unwrap().len(), 0, "{name}");
        // A limit of 0 is the ledger's to read (the core's page size): a store given it returns none.
        assert!(store.list(Some("acme"), &ListFilter::default()).await.unwrap().is_empty(), "{name}: limit 0");
        let f = ListFilter { state: Some(EntryState::Pending), limit: 10, ..Default::default() };
        assert_eq!(store.list(Some("acme"), &f).await.unwrap(), vec![pending.clone()], "{name}");
        // Across scopes, newest first; and written since a time.
        let elsewhere = claimed_entry(&store, "other", "{\"n\":3}").await;
        let all = store.list(None, &page).await.unwrap();
        assert_eq!(all.len(), 3, "{name}: every scope");
        assert!(all.windows(2).all(|w| w[0].updated_at >= w[1].updated_at), "{name}: newest first");
        let newest = all.iter().map(|e| e.updated_at).max().unwrap();
        let since = |t: u64| ListFilter { since: Some(t), limit: 10, ..Default::default() };
        assert!(store.list(None, &since(newest + 1)).await.unwrap().is_empty(), "{name}: --since");
        assert!(store.list(None, &since(newest)).await.unwrap().iter().all(|e| e.updated_at >= newest), "{name}");
        assert!(store.list(None, &since(0)).await.unwrap().len() == 3, "{name}");
        assert!(store.delete("other", &elsewhere.key, elsewhere.version).await.unwrap(), "{name}");
        // Due rows: selected by the due time the core wrote, per scope or across scopes.
        let at = pending.due_at.expect("a pending claim is due when its lease ends");
        assert_eq!(at, pending.lease_until, "{name}");
        assert!(store.due(Some("acme"), at - 1, 10).await.unwrap().is_empty(), "{name}");
        assert_eq!(store.due(Some("acme"), at, 10).await.unwrap().len(), 2, "{name}");
        assert!(store.due(Some("other"), at, 10).await.unwrap().is_empty(), "{name}");
        assert_eq!(store.due(None, at, 1).await.unwrap().len(), 1, "{name}: the limit");
        assert!(store.delete("acme", &e.key, 3).await.unwrap(), "{name}");
        assert!(store.get("acme", &e.key).await.unwrap().is_none(), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_ledger_scenario_through_real_storage() {
    let rt = Runtime::shared().unwrap();
    for (name, store, _guard) in stores().await {
        for sc in vectors("ledger.json")["scenarios"].as_array().unwrap() {
            let scenario = format!("{name}: {}", s(&sc["name"]));
            let pol = rt.parse_policy(&sc["policy"].to_string()).unwrap();
            let mut base = Intent {
                scope: s(&sc["intent"]["scope"]),
                run_id: s(&sc["intent"]["run"]),
                step_id: s(&sc["intent"]["step"]),
                tool: s(&sc["intent"]["tool"]),
                args_json: s(&sc["intent"]["args"]),
            };
            // Each scenario starts from no entry: give it its own scope.
            base.scope = format!("{}-{}", base.scope, s(&sc["name"]).len() + sc["steps"].as_array().unwrap().len() * 1000);
            let key = rt.prepare(&base, &pol, "probe").unwrap().key;
            let clock = TestClock::default();
            let ledger = Ledger::with_store(rt.clone(), store.clone()).with_clock(clock.clock());
            for (i, step) in sc["steps"].as_array().unwrap().iter().enumerate() {
                clock.set(step["now"].as_u64().unwrap());
                let mut ev = common::event(&rt, step, &base, &pol);
                // Steps that override args keep the scenario's scope.
                if let Event::Begin(c) | Event::Ask(c) = &mut ev {
                    c.scope = base.scope.clone();
                }
                let got = match ledger.drive(&base.scope, &key, &ev).await {
                    Ok(o) => Ok(o),
                    Err(Error::Ledger(e)) => Err(e),
                    Err(e) => panic!("{scenario} step {i}: {e}"),
                };
                let want = &step["expect"];
                check(&scenario, i, want, &got);
                let e = store.get(&base.scope, &key).await.unwrap();
                assert_eq!(e.as_ref().map_or("absent", |e| oncely::store::state_name(e.state)), s(&want["state"]), "{scenario} step {i}");
                if let Some(v) = want.get("version") {
                    assert_eq!(e.as_ref().map(|e| e.version), v.as_u64(), "{scenario} step {i}");
                }
            }
        }
    }
}

fn check(scenario: &str, i: usize, want: &Value, got: &Result<Outcome, oncely::wit::ledger::LedgerError>) {
    match got {
        Ok(o) => {
            let kind = match o {
                Outcome::Execute(_) => "execute",
                Outcome::Replay(_) => "replay",
                Outcome::InProgress(_) => "in-progress",
                Outcome::Reconcile(_) => "reconcile",
                Outcome::Escalated(_) => "escalated",
                Outcome::Conflict(_) => "conflict",
                Outcome::PassThrough => "pass-through",
                Outcome::Recorded(_) => "recorded",
                Outcome::Settled(_) => "settled",
                Outcome::Purged => "purged",
                Outcome::Idle(_) => "idle",
                Outcome::AwaitingApproval(_) => "awaiting-approval",
                Outcome::Denied(_) => "denied",
            };
            assert_eq!(Some(kind), want["outcome"].as_str(), "{scenario} step {i}: {o:?}");
        }
        Err(e) => assert!(want.get("error").is_some(), "{scenario} step {i}: unexpected {}", e.message),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_scope_never_reads_or_replays_another_scopes_result() {
    let rt = Runtime::shared().unwrap();
    let policy = rt
        .parse_policy(r#"{"class":"irreversible-external","key":{"only":["/charge"],"identity":"run"},"reconcile":"provider-idempotent"}"#)
        .unwrap();
    for (name, store, _guard) in stores().await {
        let ledger = Ledger::with_store(rt.clone(), store.clone());
        let mk = |scope: &str| Intent {
            scope: scope.into(),
            run_id: "r".into(),
            step_id: "s".into(),
            tool: "refund".into(),
            args_json: "{\"charge\":\"ch_1\"}".into(),
        };
        let (a, b) = (mk("tenant-a"), mk("tenant-b"));
        let ra = ledger.effect(&a, &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!("a's secret")) }).await.unwrap();
        let rb = ledger.effect(&b, &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!("b's result")) }).await.unwrap();
        assert!(!ra.replayed && !rb.replayed, "{name}: tenant b must execute its own effect");
        assert_ne!(ra.key, rb.key, "{name}: the scope is part of the key");
        assert_eq!(rb.value, "b's result", "{name}");
        // Even asking for a's key under b's scope finds nothing.
        assert!(ledger.get("tenant-b", &ra.key).await.unwrap().is_none(), "{name}");
        assert_eq!(ledger.list(Some("tenant-b"), &ListFilter::default()).await.unwrap().len(), 1, "{name}");
    }
}

/// A real store that counts its reads: the whole row (`get`) and a replay's (`recorded`).
#[derive(Debug)]
struct CountingReads {
    inner: AnyStore,
    gets: AtomicU64,
    narrow: AtomicU64,
}

impl CountingReads {
    /// (whole-row reads, replay reads) since the last look.
    fn reads(&self) -> (u64, u64) {
        (self.gets.swap(0, Ordering::SeqCst), self.narrow.swap(0, Ordering::SeqCst))
    }
}

impl Store for CountingReads {
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, oncely::StoreError> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        self.inner.get(scope, key).await
    }
    async fn recorded(&self, scope: &str, key: &str) -> Result<Option<Found>, oncely::StoreError> {
        self.narrow.fetch_add(1, Ordering::SeqCst);
        self.inner.recorded(scope, key).await
    }
    async fn insert(&self, entry: &Entry, claims: bool) -> Result<bool, oncely::StoreError> {
        self.inner.insert(entry, claims).await
    }
    async fn update(&self, expected_version: u64, entry: &Entry, history: bool, claims: bool) -> Result<bool, oncely::StoreError> {
        self.inner.update(expected_version, entry, history, claims).await
    }
    async fn delete(&self, scope: &str, key: &str, expected_version: u64) -> Result<bool, oncely::StoreError> {
        self.inner.delete(scope, key, expected_version).await
    }
    async fn list(&self, scope: Option<&str>, filter: &ListFilter) -> Result<Vec<Entry>, oncely::StoreError> {
        self.inner.list(scope, filter).await
    }
    async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, oncely::StoreError> {
        self.inner.due(scope, now, limit).await
    }
    async fn history(&self, scope: &str, key: &str) -> Result<Vec<oncely::store::HistoryRecord>, oncely::StoreError> {
        self.inner.history(scope, key).await
    }
    async fn stats(&self) -> Result<oncely::store::Stats, oncely::StoreError> {
        self.inner.stats().await
    }
    async fn waiting(&self, in_doubt_by: Option<u64>, page: &oncely::store::WaitingPage) -> Result<Vec<Entry>, oncely::StoreError> {
        self.inner.waiting(in_doubt_by, page).await
    }
    async fn waiting_count(&self, in_doubt_by: Option<u64>) -> Result<(u64, u64), oncely::StoreError> {
        self.inner.waiting_count(in_doubt_by).await
    }
    async fn awaiting(&self, page: &oncely::store::WaitingPage) -> Result<Vec<Entry>, oncely::StoreError> {
        self.inner.awaiting(page).await
    }
    async fn awaiting_count(&self) -> Result<u64, oncely::StoreError> {
        self.inner.awaiting_count().await
    }
    async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<Entry>, oncely::StoreError> {
        self.inner.last_approved(scope, tool, key).await
    }
}

/// A replay reads the four columns its rule compares (`Store::recorded`), never the whole row;
/// a row that is not the effect's record (the same key, other arguments: a conflict) is then
/// read whole; a fresh effect's one read finds nothing and its claim follows.
#[tokio::test(flavor = "multi_thread")]
async fn a_replay_reads_only_what_its_rule_compares() {
    let rt = Runtime::shared().unwrap();
    let policy =
        rt.parse_policy(r#"{"class":"irreversible-external","key":{"only":["/charge"]},"reconcile":"provider-idempotent"}"#).unwrap();
    for (name, store, _guard) in stores().await {
        let ledger =
            Ledger::with_store(rt.clone(), CountingReads { inner: store.clone(), gets: AtomicU64::new(0), narrow: AtomicU64::new(0) });
        let intent = |args: &str| Intent {
            scope: "acme".into(),
            run_id: "r".into(),
            step_id: "s".into(),
            tool: "refund".into(),
            args_json: args.into(),
        };
        let first = intent(r#"{"charge":"ch_1","amount":500}"#);
        let fresh = ledger.effect(&first, &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!({"id": "re_1"})) }).await.unwrap();
        assert!(!fresh.replayed, "{name}");
        assert_eq!(ledger.store().reads(), (0, 1), "{name}: a fresh effect: one replay read, nothing found");
        let again = ledger.effect(&first, &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!({"id": "re_2"})) }).await.unwrap();
        assert!(again.replayed, "{name}");
        assert_eq!(again.value, serde_json::json!({"id": "re_1"}), "{name}: the recorded result");
        assert_eq!(ledger.store().reads(), (0, 1), "{name}: a replay reads the four columns only");
        let Found::Recorded(c) = store.recorded("acme", &fresh.key).await.unwrap().unwrap() else {
            panic!("{name}: a real store reads the four columns, not the row");
        };
        let whole = store.get("acme", &fresh.key).await.unwrap().unwrap();
        assert_eq!(
            (c.state, &c.fingerprint, &c.tool, &c.result_json),
            (whole.state, &whole.fingerprint, &whole.tool, &whole.result_json),
            "{name}"
        );
        assert!(store.recorded("acme", "no-such-key").await.unwrap().is_none(), "{name}");
        let other = intent(r#"{"charge":"ch_1","amount":700}"#);
        let conflict = ledger.effect(&other, &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!({"id": "re_3"})) }).await;
        assert!(matches!(conflict, Err(Error::Conflict { .. })), "{name}: {conflict:?}");
        assert_eq!(ledger.store().reads(), (1, 1), "{name}: not this effect's record: then the whole row");
    }
}

// --- migration bookkeeping ------------------------------------------------------------------

/// The migration files of `dialect`, in order: (version, description, success, SHA-384), the
/// rows sqlx records for them.
fn migration_rows(dialect: &str) -> Vec<(i64, String, bool, Vec<u8>)> {
    let dir = common::repo().join("migrations").join(dialect);
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no migration files", dir.display());
    files
        .iter()
        .map(|f| {
            let name = f.file_stem().unwrap().to_str().unwrap();
            let (version, description) = name.split_once('_').unwrap();
            let version = version.parse().unwrap();
            let m = sqlx::migrate::Migration::new(
                version,
                "x".into(),
                sqlx::migrate::MigrationType::Simple,
                sqlx::AssertSqlSafe(std::fs::read_to_string(f).unwrap()).into_sql_str(),
                false,
            );
            (version, description.replace('_', " "), true, m.checksum.to_vec())
        })
        .collect()
}

/// The versions of `dialect`'s migrations.
fn versions(dialect: &str) -> Vec<(i64,)> {
    migration_rows(dialect).into_iter().map(|r| (r.0,)).collect()
}

/// An application's own sqlx migrator: one migration, recorded in sqlx's default table
/// (`_sqlx_migrations`; on PostgreSQL, in `public`).
fn application_migrator() -> sqlx::migrate::Migrator {
    sqlx::migrate::Migrator::with_migrations(vec![sqlx::migrate::Migration::new(
        1,
        "create users".into(),
        sqlx::migrate::MigrationType::Simple,
        sqlx::AssertSqlSafe("CREATE TABLE users (id BIGINT PRIMARY KEY)").into_sql_str(),
        false,
    )])
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_bookkeeping_lives_in_the_oncely_schema() {
    let Some(url) = postgres_db().await else { return };
    let store = PostgresStore::connect(&url).await.unwrap();
    assert_eq!(PostgresStore::MIGRATIONS_TABLE, "oncely._sqlx_migrations");
    let (public, ours): (Option<String>, Option<String>) =
        sqlx::query_as("SELECT to_regclass('public._sqlx_migrations')::text, to_regclass('oncely._sqlx_migrations')::text")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(public, None, "nothing lands in public, where an application's own sqlx migrations live");
    assert_eq!(ours.as_deref(), Some("oncely._sqlx_migrations"));
    let rows: Vec<(i64, String, bool, Vec<u8>)> =
        sqlx::query_as("SELECT version, description, success, checksum FROM oncely._sqlx_migrations ORDER BY version")
            .fetch_all(store.pool())
            .await
            .unwrap();
    assert_eq!(rows, migration_rows("postgres"));
    // Not one table outside the oncely schema.
    let elsewhere: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_schema::text, table_name::text FROM information_schema.tables \
         WHERE table_schema NOT IN ('oncely', 'pg_catalog', 'information_schema')",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert_eq!(elsewhere, vec![]);
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_bookkeeping_is_oncelys_own_table() {
    let (_dir, path) = sqlite_path();
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(SqliteStore::MIGRATIONS_TABLE, "_oncely_migrations");
    let tables: Vec<(String, String)> =
        sqlx::query_as("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
            .fetch_all(store.pool())
            .await
            .unwrap();
    let named = |t: &str, n: &str| (t.to_string(), n.to_string());
    // Each row keeps its history; `oncely_history` is a view over it.
    assert_eq!(tables, vec![named("table", "_oncely_migrations"), named("table", "oncely_effects"), named("view", "oncely_history")]);
    let rows: Vec<(i64, String, bool, Vec<u8>)> =
        sqlx::query_as("SELECT version, description, success, checksum FROM _oncely_migrations ORDER BY version")
            .fetch_all(store.pool())
            .await
            .unwrap();
    assert_eq!(rows, migration_rows("sqlite"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_applications_own_sqlx_migrations_are_left_alone() {
    type Recorded = Vec<(i64, String, bool, Vec<u8>, i64)>;
    const APP_ROWS: &str = "SELECT version, description, success, checksum, execution_time FROM _sqlx_migrations ORDER BY version";
    const APP_ROWS_PG: &str =
        "SELECT version, description, success, checksum, execution_time FROM public._sqlx_migrations ORDER BY version";
    // SQLite: the application's migrations and the ledger in one file.
    {
        let (_dir, path) = sqlite_path();
        let app = sqlx::SqlitePool::connect(&format!("sqlite://{path}?mode=rwc")).await.unwrap();
        application_migrator().run(&app).await.unwrap();
        let before: Recorded = sqlx::query_as(APP_ROWS).fetch_all(&app).await.unwrap();
        assert_eq!(before.len(), 1);
        for _ in 0..2 {
            let store = SqliteStore::open(&path).await.unwrap();
            store.pool().close().await;
        }
        // Neither migrator sees the other's rows: the application's still runs, and its table is as it was.
        application_migrator().run(&app).await.unwrap();
        let after: Recorded = sqlx::query_as(APP_ROWS).fetch_all(&app).await.unwrap();
        assert_eq!(after, before);
        let ours: Vec<(i64,)> = sqlx::query_as("SELECT version FROM _oncely_migrations ORDER BY version").fetch_all(&app).await.unwrap();
        assert_eq!(ours, versions("sqlite"));
    }
    // PostgreSQL: the application's bookkeeping in public._sqlx_migrations.
    let Some(url) = postgres_db().await else { return };
    let app = sqlx::PgPool::connect(&url).await.unwrap();
    application_migrator().run(&app).await.unwrap();
    let before: Recorded = sqlx::query_as(APP_ROWS_PG).fetch_all(&app).await.unwrap();
    assert_eq!(before.len(), 1);
    for _ in 0..2 {
        let store = PostgresStore::connect(&url).await.unwrap();
        store.pool().close().await;
    }
    application_migrator().run(&app).await.unwrap();
    let after: Recorded = sqlx::query_as(APP_ROWS_PG).fetch_all(&app).await.unwrap();
    assert_eq!(after, before);
    let ours: Vec<(i64,)> = sqlx::query_as("SELECT version FROM oncely._sqlx_migrations ORDER BY version").fetch_all(&app).await.unwrap();
    assert_eq!(ours, versions("postgres"));
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_sqlite_openers_of_a_fresh_file_all_open_it() {
    // Separate pools stand for separate processes: what SQLite answers "locked" without waiting
    // (a stale read snapshot, the journal mode being set) is tried again, never returned.
    for _ in 0..5 {
        let (_dir, path) = sqlite_path();
        let opens: Vec<_> = (0..12)
            .map(|_| {
                let path = path.clone();
                tokio::spawn(async move { SqliteStore::open(&path).await })
            })
            .collect();
        for o in opens {
            let store = o.await.unwrap().unwrap_or_else(|e| panic!("an opener failed: {e}"));
            let rows: Vec<(i64,)> =
                sqlx::query_as("SELECT version FROM _oncely_migrations ORDER BY version").fetch_all(store.pool()).await.unwrap();
            assert_eq!(rows, versions("sqlite"));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_postgres_openers_migrate_once() {
    // sqlx's advisory lock is taken before the schema and the bookkeeping table are created, so
    // openers racing on a fresh database queue instead of colliding on CREATE SCHEMA.
    let Some(url) = postgres_db().await else { return };
    let opens: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { PostgresStore::connect(&url).await })
        })
        .collect();
    let mut stores = Vec::new();
    for o in opens {
        stores.push(o.await.unwrap().unwrap());
    }
    let rows: Vec<(i64,)> =
        sqlx::query_as("SELECT version FROM oncely._sqlx_migrations ORDER BY version").fetch_all(stores[0].pool()).await.unwrap();
    assert_eq!(rows, versions("postgres"));
}

/// What a dead worker left is settled by a background sweeper, without anyone calling `sweep`:
/// a claim reconciled by its registered reconciler, one with no automatic reconciliation
/// escalated on time; after `stop`, no pass runs.
#[tokio::test(flavor = "multi_thread")]
async fn a_background_sweeper_settles_what_a_dead_worker_left() {
    use oncely::wit::ledger::ReconcileVerdict;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;
    let rt = Runtime::shared().unwrap();
    let lookup = rt
        .parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"},"leaseMs":1,"reconcileAfterMs":0}"#)
        .unwrap();
    let manual =
        rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual","leaseMs":1,"escalateAfterMs":0}"#).unwrap();
    for (name, store, _guard) in stores().await {
        let ledger = Ledger::with_store(rt.clone(), store.clone());
        ledger.reconciler("refund", |_req| async { ReconcileVerdict::Happened(r#"{"refund":"re_1"}"#.into()) });
        let intent = |tool: &str| Intent {
            scope: "acme".into(),
            run_id: "r".into(),
            step_id: "s".into(),
            tool: tool.into(),
            args_json: "{}".into(),
        };
        // Claimed, and the worker died: never completed.
        let (refund, _) = ledger.begin(&intent("refund"), &lookup).await.unwrap();
        let (email, _) = ledger.begin(&intent("send_email"), &manual).await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;

        let passes = std::sync::Arc::new(AtomicU32::new(0));
        let failures = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let (seen, failed) = (passes.clone(), failures.clone());
        let sweeper = ledger.start_sweeper(Some("acme".into()), Duration::from_millis(20), move |pass| {
            if let Err(e) = pass {
                failed.lock().unwrap().push(e.to_string());
            }
            seen.fetch_add(1, Ordering::SeqCst);
        });
        let state = |key: String| {
            let ledger = ledger.clone();
            async move { ledger.get("acme", &key).await.unwrap().unwrap().state }
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while (state(refund.key.clone()).await, state(email.key.clone()).await) != (EntryState::Done, EntryState::Escalated) {
            assert!(
                std::time::Instant::now() < deadline,
                "{name}: not settled by the sweeper; failed passes: {:?}",
                failures.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let entry = ledger.get("acme", &refund.key).await.unwrap().unwrap();
        assert_eq!(entry.result_json.as_deref(), Some(r#"{"refund":"re_1"}"#), "{name}");
        sweeper.stop().await;
        let after = passes.load(Ordering::SeqCst);
        assert!(after >= 1, "{name}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(passes.load(Ordering::SeqCst), after, "{name}: a pass ran after stop");
        assert!(failures.lock().unwrap().is_empty(), "{name}: {:?}", failures.lock().unwrap());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_settlement_needs_the_version_it_was_decided_on_and_is_kept_in_the_history() {
    use oncely::wit::ledger::{LedgerErrorKind, Resolution, Settlement};
    let rt = Runtime::shared().unwrap();
    let manual = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual","leaseMs":1000}"#).unwrap();
    for (name, store, _guard) in stores().await {
        let clock = TestClock::at(10_000);
        let ledger = Ledger::with_store(rt.clone(), store.clone()).with_owner("w1").with_clock(clock.clock());
        let i = Intent { scope: "acme".into(), run_id: "r".into(), step_id: "s".into(), tool: "refund".into(), args_json: "{}".into() };
        let (claim, outcome) = ledger.begin(&i, &manual).await.unwrap();
        let Outcome::Execute(token) = outcome else { panic!("{name}: {outcome:?}") };
        // A heartbeat changes the lease only: nothing for the history.
        clock.advance(100);
        ledger.heartbeat("acme", &claim.key, &token).await.unwrap();
        // The worker dies; the sweep finds the lease over and, with manual reconciliation,
        // escalates at once.
        clock.advance(5_000);
        ledger.sweep(Some("acme")).await.unwrap();
        let seen = ledger.get("acme", &claim.key).await.unwrap().unwrap();
        assert_eq!(seen.state, EntryState::Escalated, "{name}");
        let resolution = |v: u64| Resolution {
            settlement: Settlement::Happened(r#"{"refund":"re_1"}"#.into()),
            by: "ops@acme".into(),
            note: "in the dashboard".into(),
            seen_version: v,
        };
        // A person who looked at an earlier version is refused, and nothing is written.
        match ledger.resolve("acme", &claim.key, resolution(seen.version - 1)).await {
            Err(Error::Ledger(e)) => assert_eq!(e.kind, LedgerErrorKind::Changed, "{name}: {}", e.message),
            other => panic!("{name}: a stale settlement was not refused: {other:?}"),
        }
        assert_eq!(ledger.get("acme", &claim.key).await.unwrap().unwrap(), seen, "{name}");
        let id = ledger.resolve("acme", &claim.key, resolution(seen.version)).await.unwrap();
        assert!(id.starts_with("stl-") && id.len() == 20, "{name}: {id}");
        let settled = ledger.get("acme", &claim.key).await.unwrap().unwrap();
        assert_eq!((settled.state, settled.settlement.as_deref()), (EntryState::Done, Some(id.as_str())), "{name}");
        // The same verdict sent twice (a form submitted again) is refused: the entry moved.
        assert!(ledger.resolve("acme", &claim.key, resolution(seen.version)).await.is_err(), "{name}");

        let history = ledger.history("acme", &claim.key).await.unwrap();
        let states: Vec<_> = history.iter().map(|h| (h.version, oncely::store::state_name(h.state))).collect();
        // Claim (v1), heartbeat (v2: not kept), lease over → in doubt (v3) and escalated (v4,
        // the same sweep), settled (v5).
        let last = history.last().unwrap();
        assert_eq!(states.first(), Some(&(1, "pending")), "{name}: {states:?}");
        assert!(!states.iter().any(|(v, _)| *v == 2), "{name}: the heartbeat was kept: {states:?}");
        assert!(states.iter().any(|(_, s)| *s == "escalated"), "{name}: {states:?}");
        assert_eq!((last.version, last.state), (settled.version, EntryState::Done), "{name}: {states:?}");
        assert_eq!(last.settlement.as_deref(), Some(id.as_str()), "{name}");
        assert_eq!(last.resolved_by.as_deref(), Some("ops@acme"), "{name}");
        assert!(history.windows(2).all(|w| w[0].version < w[1].version && w[0].at <= w[1].at), "{name}: {history:?}");

        // Counts per state, and the oldest in-doubt time (an escalated entry waits for a person,
        // not a reconciler: it is counted by state only).
        let lookup = rt.parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"},"leaseMs":1000}"#).unwrap();
        let (email, _) = ledger.begin(&Intent { tool: "email".into(), ..i.clone() }, &manual).await.unwrap();
        let (sms, _) = ledger.begin(&Intent { tool: "sms".into(), ..i.clone() }, &lookup).await.unwrap();
        clock.advance(5_000);
        ledger.sweep(Some("acme")).await.unwrap();
        assert_eq!(ledger.get("acme", &email.key).await.unwrap().unwrap().state, EntryState::Escalated, "{name}");
        // No reconciler for sms here: its lease ran out, it is in doubt, and its first
        // reconciliation is left to a process that has one (due at once, never attempted here).
        let sms = ledger.get("acme", &sms.key).await.unwrap().unwrap();
        assert_eq!((sms.state, sms.reconcile_attempts, sms.due_at), (EntryState::InDoubt, 0, sms.next_reconcile_at), "{name}");
        ledger.sweep(Some("acme")).await.unwrap();
        assert_eq!(ledger.get("acme", &sms.key).await.unwrap().unwrap(), sms, "{name}: a second sweep left it as it was");
        let stats = ledger.stats().await.unwrap();
        let count = |s: EntryState| stats.by_state.iter().find(|(x, _)| *x == s).unwrap().1;
        let counts = [EntryState::Done, EntryState::Escalated, EntryState::InDoubt, EntryState::Pending].map(count);
        assert_eq!(counts, [1, 1, 1, 0], "{name}");
        assert_eq!(stats.oldest_in_doubt_since, sms.in_doubt_since, "{name}");

        // A purge takes the history with the entry.
        assert!(store.delete("acme", &claim.key, settled.version).await.unwrap(), "{name}");
        assert!(ledger.history("acme", &claim.key).await.unwrap().is_empty(), "{name}");
    }
}

/// The entry of a real effect left unknown under `policy` at `at`: escalated (a manual tool) or
/// in doubt (a tool with a lookup).
async fn unknown_entry(store: &AnyStore, policy: &str, at: u64) -> Entry {
    let rt = Runtime::shared().unwrap();
    let p = rt.parse_policy(policy).unwrap();
    let i = Intent { scope: "acme".into(), run_id: "r".into(), step_id: "s".into(), tool: "charge".into(), args_json: "{}".into() };
    let ledger = Ledger::with_store(rt, store.clone()).with_owner("w1").with_clock(std::sync::Arc::new(move || at));
    let (c, outcome) = ledger.begin(&i, &p).await.unwrap();
    let Outcome::Execute(token) = outcome else { panic!("{outcome:?}") };
    ledger.fail_ambiguous("acme", &c.key, &token, "the connection dropped").await.unwrap();
    let e = store.get("acme", &c.key).await.unwrap().unwrap();
    store.delete("acme", &c.key, e.version).await.unwrap();
    e
}

/// A copy of `e` under another scope and key, unknown since `since`.
fn copy(e: &Entry, scope: &str, key: String, since: u64) -> Entry {
    Entry { scope: scope.into(), key, in_doubt_since: Some(since), updated_at: since, ..e.clone() }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_inbox_hides_none_of_the_oldest_entries() {
    // The cap this replaces: 1,000 escalated and 1,000 in-doubt entries read newest first, so
    // with 100 old escalations, one old in-doubt entry and then 1,000 new of each, the inbox said
    // 2,000 and the oldest 101 were missing. Now every page is read in the order of waiting.
    const MIN: u64 = 60_000;
    const DAY: u64 = 24 * 60 * MIN;
    let now = 100 * DAY;
    let rt = Runtime::shared().unwrap();
    let after = rt.defaults().unwrap().in_doubt_after_ms;
    for (name, store, _guard) in stores().await {
        let escalated =
            unknown_entry(&store, r#"{"class":"irreversible-external","key":{},"reconcile":"manual","escalateAfterMs":0}"#, 0).await;
        let in_doubt = unknown_entry(
            &store,
            r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"},"escalateAfterMs":864000000}"#,
            0,
        )
        .await;
        assert_eq!((escalated.state, in_doubt.state), (EntryState::Escalated, EntryState::InDoubt), "{name}");
        let mut all = Vec::new();
        for i in 0..100u64 {
            all.push(copy(&escalated, "acme", format!("old-escalated-{i:03}"), now - 10 * DAY + i));
        }
        all.push(copy(&in_doubt, "acme", "old-in-doubt".into(), now - 9 * DAY));
        for i in 0..1000u64 {
            // Two scopes at the same times: the scope breaks the tie.
            let scope = if i % 2 == 0 { "acme" } else { "beta" };
            all.push(copy(&escalated, scope, format!("new-escalated-{i:04}"), now - 60 * MIN + i / 2));
            all.push(copy(&in_doubt, scope, format!("new-in-doubt-{i:04}"), now - 30 * MIN + i / 2));
        }
        // Not yet for a person: in doubt for less than the threshold, and settled entries.
        for i in 0..50u64 {
            all.push(copy(&in_doubt, "acme", format!("recent-in-doubt-{i:02}"), now - MIN + i));
            let mut done = copy(&in_doubt, "acme", format!("done-{i:02}"), now - 11 * DAY);
            (done.state, done.in_doubt_since) = (EntryState::Done, None);
            all.push(done);
        }
        for e in &all {
            assert!(store.insert(e, e.state == EntryState::Pending).await.unwrap(), "{name}");
        }
        // What the core says needs a person, in the order of waiting.
        let mut want: Vec<&Entry> = all.iter().filter(|e| rt.needs_person(e, now, None).unwrap().is_some()).collect();
        want.sort_by_key(|e| (e.in_doubt_since, e.scope.clone(), e.key.clone()));
        assert_eq!(want.len(), 2101, "{name}");

        let ledger = Ledger::with_store(Runtime::shared().unwrap(), store.clone()).with_clock(std::sync::Arc::new(move || now));
        let count = ledger.needs_person_count(Some(after)).await.unwrap();
        assert_eq!((count.escalated, count.in_doubt, count.total()), (1100, 1001, 2101), "{name}");
        assert_eq!(ledger.needs_person_count(None).await.unwrap(), count, "{name}: the core's default threshold");
        for newest_first in [false, true] {
            let mut page = oncely::store::WaitingPage { newest_first, after: None, limit: 100 };
            let mut got = Vec::new();
            loop {
                let p = ledger.needs_person(Some(after), &page).await.unwrap();
                got.extend(p.entries.into_iter().map(|(e, _)| e));
                match p.next {
                    Some(next) => page.after = Some(next),
                    None => break,
                }
            }
            let mut expected: Vec<Entry> = want.iter().map(|e| (*e).clone()).collect();
            if newest_first {
                expected.reverse();
            }
            let keys = |v: &[Entry]| v.iter().map(|e| format!("{}/{}", e.scope, e.key)).collect::<Vec<_>>();
            assert_eq!(keys(&got), keys(&expected), "{name}: newest first {newest_first}");
            assert_eq!(got, expected, "{name}");
        }
        let first = ledger.needs_person(None, &oncely::store::WaitingPage::default()).await.unwrap();
        assert_eq!(first.entries.len(), 100, "{name}: a page holds 100 unless told");
        assert_eq!(first.entries[0].0.key, "old-escalated-000", "{name}: the longest waiting first");
        assert_eq!(first.entries[100 - 1].0.key, "old-escalated-099", "{name}");
        let why: Vec<_> = ledger
            .needs_person(None, &oncely::store::WaitingPage { after: first.next.clone(), limit: 1, ..Default::default() })
            .await
            .unwrap()
            .entries;
        assert_eq!((why[0].0.key.as_str(), why[0].1), ("old-in-doubt", oncely::wit::ledger::Attention::InDoubt), "{name}");
    }
}
