//! Ledger throughput: effects per second (claim + complete, through the core and the driver)
//! against a raw SQL insert + update of the same row shape with the same durability, 8 workers,
//! on SQLite (WAL, synchronous=FULL) and on PostgreSQL (goal: ≥ 0.8× raw). PostgreSQL comes
//! from ONCELY_TEST_POSTGRES_URL or a throwaway cluster (tests/pg/start.sh).

#![allow(missing_docs)] // criterion_group! generates undocumented functions

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oncely::store::{AnyStore, PostgresStore, SqliteStore};
use oncely::wit::keys::Intent;
use oncely::{Ledger, Runtime, ToolError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const WORKERS: u64 = 8;
static SEQ: AtomicU64 = AtomicU64::new(0);

fn postgres_base() -> String {
    if let Ok(u) = std::env::var("ONCELY_TEST_POSTGRES_URL") {
        return u;
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/pg/start.sh");
    let o = std::process::Command::new(script).arg(std::process::id().to_string()).output().expect("tests/pg/start.sh");
    assert!(o.status.success(), "PostgreSQL is needed for this benchmark: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

async fn fresh_pg_db(base: &str, name: &str) -> String {
    use sqlx::Connection;
    let mut c = sqlx::PgConnection::connect(base).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}"))).execute(&mut c).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&mut c).await.unwrap();
    format!("{}/{name}", base.rsplit_once('/').unwrap().0)
}

/// oncely: `WORKERS` tasks each run `n` effects with distinct keys.
async fn oncely_effects(ledger: &Ledger, n: u64) -> Duration {
    let policy = ledger.runtime().parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"provider-idempotent"}"#).unwrap();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..WORKERS {
        let (ledger, policy) = (ledger.clone(), policy.clone());
        tasks.push(tokio::spawn(async move {
            for _ in 0..n {
                let i = SEQ.fetch_add(1, Ordering::Relaxed);
                let intent = Intent {
                    scope: "bench".into(),
                    run_id: "run".into(),
                    step_id: format!("s{i}"),
                    tool: "refund".into(),
                    args_json: format!("{{\"charge\":\"ch_{i}\",\"cents\":500}}"),
                };
                ledger.effect(&intent, &policy).run(|_| async { Ok::<_, ToolError>(serde_json::json!({"refund":"re_1"})) }).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed()
}

/// The same rows written by hand: one INSERT and one UPDATE per effect, nothing else.
macro_rules! raw_effects {
    ($pool:expr, $n:expr, $insert:expr, $update:expr) => {{
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..WORKERS {
            let pool = $pool.clone();
            tasks.push(tokio::spawn(async move {
                for _ in 0..$n {
                    let i = SEQ.fetch_add(1, Ordering::Relaxed) as i64;
                    let key = format!("oncely1:{i:064x}");
                    sqlx::query($insert)
                        .bind("bench")
                        .bind(&key)
                        .bind("refund")
                        .bind("f".repeat(64))
                        .bind(format!("{{\"cents\":500,\"charge\":\"ch_{i}\"}}"))
                        .bind(i)
                        .execute(&pool)
                        .await
                        .unwrap();
                    sqlx::query($update).bind("{\"refund\":\"re_1\"}").bind(i).bind("bench").bind(&key).execute(&pool).await.unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        start.elapsed()
    }};
}

const RAW_TABLE: &str = "CREATE TABLE raw_effects (scope TEXT NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, fingerprint TEXT NOT NULL, \
    args TEXT NOT NULL, state TEXT NOT NULL, version BIGINT NOT NULL, updated_at BIGINT NOT NULL, result TEXT, PRIMARY KEY (scope, key))";

fn ledger_throughput(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();
    let mut g = c.benchmark_group("ledger-8-workers");
    g.sample_size(10).measurement_time(Duration::from_secs(8)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(WORKERS));

    // SQLite: the oncely store and a raw table, both WAL + synchronous=FULL.
    let sqlite_path = dir.path().join("ledger.db");
    let store = rt.block_on(SqliteStore::open(sqlite_path.to_str().unwrap())).unwrap();
    let raw_pool = store.pool().clone();
    rt.block_on(sqlx::query(RAW_TABLE).execute(&raw_pool)).unwrap();
    let ledger = Ledger::with_store(runtime.clone(), AnyStore::Sqlite(store));
    g.bench_function(BenchmarkId::new("sqlite", "oncely"), |b| b.to_async(&rt).iter_custom(|n| oncely_effects(&ledger, n)));
    g.bench_function(BenchmarkId::new("sqlite", "raw-sql"), |b| {
        b.to_async(&rt).iter_custom(|n| {
            let raw_pool = raw_pool.clone();
            async move { raw_effects!(raw_pool, n,
                "INSERT INTO raw_effects VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 1, ?6, NULL)",
                "UPDATE raw_effects SET state = 'done', result = ?1, version = 2, updated_at = ?2 WHERE scope = ?3 AND key = ?4 AND version = 1") }
        })
    });

    // PostgreSQL: the same, on one server.
    let base = postgres_base();
    let url = rt.block_on(fresh_pg_db(&base, "oncely_bench"));
    let store = rt.block_on(PostgresStore::connect(&url)).unwrap();
    let raw_pool = store.pool().clone();
    rt.block_on(sqlx::query(RAW_TABLE).execute(&raw_pool)).unwrap();
    let ledger = Ledger::with_store(runtime, AnyStore::Postgres(store));
    g.bench_function(BenchmarkId::new("postgres", "oncely"), |b| b.to_async(&rt).iter_custom(|n| oncely_effects(&ledger, n)));
    g.bench_function(BenchmarkId::new("postgres", "raw-sql"), |b| {
        b.to_async(&rt).iter_custom(|n| {
            let raw_pool = raw_pool.clone();
            async move { raw_effects!(raw_pool, n,
                "INSERT INTO raw_effects VALUES ($1, $2, $3, $4, $5, 'pending', 1, $6, NULL)",
                "UPDATE raw_effects SET state = 'done', result = $1, version = 2, updated_at = $2 WHERE scope = $3 AND key = $4 AND version = 1") }
        })
    });
    g.finish();
}

criterion_group!(benches, ledger_throughput);
criterion_main!(benches);
