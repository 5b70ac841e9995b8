//! Ledger throughput: effects per second (claim + complete, through the core and the driver)
//! against a raw SQL insert + update of the same row shape with the same durability, 8 workers,
//! on SQLite (WAL, synchronous=FULL) and on PostgreSQL (goal: ≥ 0.8× raw). PostgreSQL comes
//! from ONCELY_TEST_POSTGRES_URL or a throwaway cluster (tests/pg/start.sh).
//!
//! Then, outside criterion, "ledger cost per effect" (the comparison every host's benchmark
//! makes: bindings/python/bench_ledger.py, bindings/js/bench/ledger.mjs): oncely's public API,
//! `Ledger::effect(&intent, &policy).run(..)`, against the simplest correct hand-written ledger
//! in sqlx on the same pool — FRESH (distinct intents: key = SHA-256 of a JSON string of the
//! intent, INSERT `pending` under a unique (scope, key), call the no-op tool, UPDATE to `done`)
//! and REPLAY (the same intents again: oncely returns the recorded result; the baseline SELECTs
//! by key and parses the result), with 8 workers and with 1. The two sides alternate in rounds
//! (order flipped every round), each running for a fixed time; the median rate of each is
//! reported, with the median of the per-round ratios and the process's CPU per effect. On Redis
//! (a server of the bench's own, tests/redis/start.sh with `appendfsync always`, or
//! ONCELY_BENCH_REDIS_URL) the hand-written ledger is `SET key pending NX`, the tool, `SET key
//! done+result` (a replay: `GET`), on a connection of the same kind (the `redis` crate's
//! `ConnectionManager`) to the same server. Set
//! ONCELY_BENCH_QUICK=1 for a short run, ONCELY_BENCH_JSON=path to write the rows as JSON,
//! ONCELY_BENCH_INTERLEAVED=0 to skip it.

#![allow(missing_docs)] // criterion_group! generates undocumented functions

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use oncely::store::{AnyStore, PostgresStore, RedisStore, SqliteStore};
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

// --- Ledger cost per effect: oncely against the simplest correct hand-written ledger --------

const BASELINE_SQLITE: &str = "CREATE TABLE IF NOT EXISTS baseline_effects (scope TEXT NOT NULL, key TEXT NOT NULL, \
    tool TEXT NOT NULL, args TEXT NOT NULL, state TEXT NOT NULL, result TEXT, created_at INTEGER NOT NULL, \
    updated_at INTEGER NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID";
const BASELINE_POSTGRES: &str = "CREATE TABLE IF NOT EXISTS baseline_effects (scope TEXT NOT NULL, key TEXT NOT NULL, \
    tool TEXT NOT NULL, args TEXT NOT NULL, state TEXT NOT NULL, result TEXT, created_at BIGINT NOT NULL, \
    updated_at BIGINT NOT NULL, PRIMARY KEY (scope, key))";

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The baseline's key: SHA-256 (hex) of a JSON array of the intent's fields.
fn baseline_key(scope: &str, run: &str, step: &str, tool: &str, args: &str) -> String {
    use sha2::{Digest, Sha256};
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let preimage = serde_json::to_string(&(scope, run, step, tool, args)).unwrap();
    let digest = Sha256::digest(preimage.as_bytes());
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    out
}

/// The tool: a no-op returning a small JSON object, the same on both sides.
fn tool_result() -> serde_json::Value {
    serde_json::json!({"refund_id": "re_1", "status": "succeeded"})
}

fn settled(state: &str, result: Option<String>, key: &str) -> serde_json::Value {
    assert_eq!(state, "done", "{key} is {state}: in progress elsewhere");
    serde_json::from_str(&result.unwrap()).unwrap()
}

/// A hand-written ledger over one sqlx pool: run the tool at most once per intent. It is correct
/// either way (a conflicting INSERT falls back to the SELECT, a SELECT that finds nothing to the
/// INSERT) and takes its shortest path on each measure (`assume_new`). Returns (value, replayed).
macro_rules! baseline_effect {
    ($name:ident, $pool:ty, $insert:expr, $update:expr, $select:expr) => {
        async fn $name(
            pool: &$pool,
            scope: &str,
            run: &str,
            step: &str,
            tool: &str,
            args: &str,
            assume_new: bool,
        ) -> (serde_json::Value, bool) {
            use sqlx::Row;
            let key = baseline_key(scope, run, step, tool, args);
            if !assume_new {
                if let Some(row) = sqlx::query($select).bind(scope).bind(&key).fetch_optional(pool).await.unwrap() {
                    return (settled(row.get::<&str, _>(0), row.get(1), &key), true);
                }
            }
            let now = now_ms();
            let ins = sqlx::query($insert).bind(scope).bind(&key).bind(tool).bind(args).bind(now).bind(now).execute(pool).await.unwrap();
            if ins.rows_affected() != 1 {
                let row = sqlx::query($select).bind(scope).bind(&key).fetch_one(pool).await.unwrap();
                return (settled(row.get::<&str, _>(0), row.get(1), &key), true);
            }
            let value = async { tool_result() }.await;
            let text = serde_json::to_string(&value).unwrap();
            sqlx::query($update).bind(text).bind(now_ms()).bind(scope).bind(&key).execute(pool).await.unwrap();
            (value, false)
        }
    };
}

baseline_effect!(
    baseline_sqlite,
    sqlx::SqlitePool,
    "INSERT INTO baseline_effects (scope, key, tool, args, state, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6) ON CONFLICT (scope, key) DO NOTHING",
    "UPDATE baseline_effects SET state = 'done', result = ?1, updated_at = ?2 WHERE scope = ?3 AND key = ?4",
    "SELECT state, result FROM baseline_effects WHERE scope = ?1 AND key = ?2"
);
baseline_effect!(
    baseline_postgres,
    sqlx::PgPool,
    "INSERT INTO baseline_effects (scope, key, tool, args, state, created_at, updated_at) VALUES ($1, $2, $3, $4, 'pending', $5, $6) ON CONFLICT (scope, key) DO NOTHING",
    "UPDATE baseline_effects SET state = 'done', result = $1, updated_at = $2 WHERE scope = $3 AND key = $4",
    "SELECT state, result FROM baseline_effects WHERE scope = $1 AND key = $2"
);

/// The hand-written ledger in Redis: `SET NX` claims the key (a JSON record, `pending`), the tool
/// runs, `SET` records `done` and the result; a replay `GET`s it. Correct either way, like the SQL
/// baseline (a lost `SET NX` falls back to the `GET`).
async fn baseline_redis(
    conn: &redis::aio::ConnectionManager,
    scope: &str,
    run: &str,
    step: &str,
    tool: &str,
    args: &str,
    assume_new: bool,
) -> (serde_json::Value, bool) {
    let mut conn = conn.clone();
    let key = format!("baseline:{{{scope}}}:{}", baseline_key(scope, run, step, tool, args));
    let recorded = |text: String| {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        settled(v["state"].as_str().unwrap(), v.get("result").map(|r| r.to_string()), &key)
    };
    if !assume_new {
        let got: Option<String> = redis::cmd("GET").arg(&key).query_async(&mut conn).await.unwrap();
        if let Some(text) = got {
            return (recorded(text), true);
        }
    }
    let pending = serde_json::json!({"state": "pending", "tool": tool, "args": args, "created_at": now_ms()}).to_string();
    let claimed: Option<String> = redis::cmd("SET").arg(&key).arg(pending).arg("NX").query_async(&mut conn).await.unwrap();
    if claimed.is_none() {
        let text: String = redis::cmd("GET").arg(&key).query_async(&mut conn).await.unwrap();
        return (recorded(text), true);
    }
    let value = async { tool_result() }.await;
    let done = serde_json::json!({"state": "done", "tool": tool, "result": value, "updated_at": now_ms()}).to_string();
    let () = redis::cmd("SET").arg(&key).arg(done).query_async(&mut conn).await.unwrap();
    (value, false)
}

/// A Redis server of the bench's own (appendfsync always: what a claim needs to survive a
/// power loss, docs/reliability.md), or ONCELY_BENCH_REDIS_URL.
fn redis_url() -> String {
    if let Ok(u) = std::env::var("ONCELY_BENCH_REDIS_URL") {
        return u;
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/redis/start.sh");
    let o = std::process::Command::new(script)
        .args(["--appendfsync", "always", &std::process::id().to_string()])
        .output()
        .expect("tests/redis/start.sh");
    assert!(o.status.success(), "redis-server is needed for this benchmark: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[derive(Clone)]
enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
    Redis(redis::aio::ConnectionManager),
}

const SCOPE: &str = "bench";
const TOOL: &str = "refund";

fn args_of(i: u64) -> String {
    format!("{{\"amount\":500,\"charge_id\":\"ch_{i}\",\"currency\":\"usd\"}}")
}

/// What both sides run against: oncely's ledger and the baseline's pool (the same database),
/// the policy, and the run id of this comparison's intents.
#[derive(Clone)]
struct Setup {
    ledger: Ledger,
    policy: oncely::wit::policy::ToolPolicy,
    pool: Pool,
    run: String,
}

/// Effect `i` of worker `w` on either side; panics unless `replayed` is what the measure expects.
async fn one_effect(s: &Setup, who: Side, w: usize, i: u64, fresh: bool) {
    let (step, args) = (format!("w{w}-s{i}"), args_of(i));
    let replayed = match who {
        Side::Oncely => {
            let intent = Intent { scope: SCOPE.into(), run_id: s.run.clone(), step_id: step, tool: TOOL.into(), args_json: args };
            let r = s.ledger.effect(&intent, &s.policy).run(|_key| async { Ok::<_, ToolError>(tool_result()) }).await.unwrap();
            r.replayed
        }
        Side::Baseline => match &s.pool {
            Pool::Sqlite(p) => baseline_sqlite(p, SCOPE, &s.run, &step, TOOL, &args, fresh).await.1,
            Pool::Postgres(p) => baseline_postgres(p, SCOPE, &s.run, &step, TOOL, &args, fresh).await.1,
            Pool::Redis(c) => baseline_redis(c, SCOPE, &s.run, &step, TOOL, &args, fresh).await.1,
        },
    };
    assert_eq!(replayed, !fresh, "{who:?}: replayed = {replayed} on a {} effect", if fresh { "fresh" } else { "replay" });
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Oncely,
    Baseline,
}

/// CPU seconds of this process so far (user + system, from /proc/self/stat; NaN elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return f64::NAN };
    let Some((_, rest)) = stat.rsplit_once(')') else { return f64::NAN };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command: state is field 3, utime 14 and stime 15 (1-based), in clock ticks (100/s).
    let ticks = |i: usize| f.get(i - 3).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (ticks(14) + ticks(15)) / 100.0
}

/// Per-worker counters of one side: intents made (for replays) and the replay cursor.
#[derive(Clone, Default)]
struct Made {
    made: Vec<u64>,
    cursor: Vec<u64>,
}

/// Run one side with `workers` tasks for `secs`; returns (effects, elapsed s, CPU s).
async fn batch(s: &Setup, who: Side, fresh: bool, secs: f64, m: &mut Made) -> (u64, f64, f64) {
    let workers = m.made.len();
    let c0 = cpu_seconds();
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(secs);
    let mut tasks = Vec::new();
    for w in 0..workers {
        let s = s.clone();
        let (mut made, mut cursor) = (m.made[w], m.cursor[w]);
        assert!(fresh || made > 0, "replay before any fresh effect");
        tasks.push(tokio::spawn(async move {
            let mut n = 0u64;
            loop {
                let i = if fresh {
                    made += 1;
                    made - 1
                } else {
                    cursor += 1;
                    (cursor - 1) % made
                };
                one_effect(&s, who, w, i, fresh).await;
                n += 1;
                if Instant::now() >= deadline {
                    return (n, made, cursor);
                }
            }
        }));
    }
    let mut total = 0;
    for (w, t) in tasks.into_iter().enumerate() {
        let (n, made, cursor) = t.await.unwrap();
        total += n;
        m.made[w] = made;
        m.cursor[w] = cursor;
    }
    (total, start.elapsed().as_secs_f64(), cpu_seconds() - c0)
}

/// `done` rows in (oncely's table, the baseline's).
async fn done_rows(pool: &Pool) -> (i64, i64) {
    match pool {
        Pool::Sqlite(p) => (
            sqlx::query_scalar("SELECT count(*) FROM oncely_effects WHERE state = 'done'").fetch_one(p).await.unwrap(),
            sqlx::query_scalar("SELECT count(*) FROM baseline_effects WHERE state = 'done'").fetch_one(p).await.unwrap(),
        ),
        Pool::Postgres(p) => (
            sqlx::query_scalar("SELECT count(*) FROM oncely.effects WHERE state = 'done'").fetch_one(p).await.unwrap(),
            sqlx::query_scalar("SELECT count(*) FROM baseline_effects WHERE state = 'done'").fetch_one(p).await.unwrap(),
        ),
        Pool::Redis(c) => {
            // oncely's per-state count of the scope; the baseline's keys, each read back.
            use redis::AsyncCommands;
            let mut c = c.clone();
            let n: Option<i64> = redis::cmd("HGET").arg(format!("oncely:{{{SCOPE}}}:n")).arg("done").query_async(&mut c).await.unwrap();
            let keys: Vec<String> = {
                let mut it: redis::AsyncIter<String> = c.scan_match(format!("baseline:{{{SCOPE}}}:*")).await.unwrap();
                let mut v = Vec::new();
                while let Some(k) = it.next_item().await {
                    v.push(k.unwrap());
                }
                v
            };
            let mut done = 0;
            for chunk in keys.chunks(1000) {
                let texts: Vec<String> = redis::cmd("MGET").arg(chunk).query_async(&mut c).await.unwrap();
                done += texts.iter().filter(|t| t.contains("\"state\":\"done\"")).count() as i64;
            }
            (n.unwrap_or(0), done)
        }
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let h = s.len() / 2;
    if s.len() % 2 == 1 {
        s[h]
    } else {
        (s[h - 1] + s[h]) / 2.0
    }
}

/// Fresh then replay, `rounds` alternating rounds each; one JSON row per measure.
async fn compare(backend: &str, workers: usize, ledger: &Ledger, pool: &Pool, rounds: usize, secs: f64) -> Vec<serde_json::Value> {
    let policy = ledger.runtime().parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"provider-idempotent"}"#).unwrap();
    let run = format!("run-{}-w{workers}", std::process::id());
    let setup = Setup { ledger: ledger.clone(), policy, pool: pool.clone(), run };
    let mut made = [Made { made: vec![0; workers], cursor: vec![0; workers] }, Made { made: vec![0; workers], cursor: vec![0; workers] }];
    let sides = [Side::Oncely, Side::Baseline];
    let before = done_rows(pool).await;
    for (k, who) in sides.iter().enumerate() {
        batch(&setup, *who, true, 0.2, &mut made[k]).await; // warm-up
    }
    let mut rows = Vec::new();
    for (measure, fresh, goal) in [("fresh", true, 0.8), ("replay", false, 0.5)] {
        let mut rates = [Vec::new(), Vec::new()];
        let mut n = [0u64; 2];
        let mut cpu = [0f64; 2];
        for r in 0..rounds {
            let order = if r % 2 == 0 { [0, 1] } else { [1, 0] };
            for k in order {
                let (c, dt, cs) = batch(&setup, sides[k], fresh, secs, &mut made[k]).await;
                rates[k].push(c as f64 / dt);
                n[k] += c;
                cpu[k] += cs;
            }
        }
        let (o, b) = (median(&rates[0]), median(&rates[1]));
        let paired = median(&rates[0].iter().zip(&rates[1]).map(|(x, y)| x / y).collect::<Vec<_>>());
        let row = serde_json::json!({
            "host": "rust", "backend": backend, "measure": measure, "workers": workers,
            "oncely": o, "baseline": b, "ratio": o / b, "goal": goal, "paired_ratio": paired,
            "oncely_cpu_us": cpu[0] / n[0] as f64 * 1e6, "baseline_cpu_us": cpu[1] / n[1] as f64 * 1e6,
            "oncely_best": rates[0].iter().cloned().fold(0.0, f64::max),
            "baseline_best": rates[1].iter().cloned().fold(0.0, f64::max),
            "rounds": rounds, "stat": "median",
        });
        println!(
            "{backend:9} {measure:7} {workers:>7} {o:>9.0} {b:>10.0} {:>5.2}x {:>6} {paired:>6.2}x  {:>15}  {:>16}",
            o / b,
            format!(">={goal}"),
            format!(
                "{:.0} / {:.0}",
                row["oncely_cpu_us"].as_f64().unwrap_or(f64::NAN),
                row["baseline_cpu_us"].as_f64().unwrap_or(f64::NAN)
            ),
            format!("{:.0} / {:.0}", row["oncely_best"].as_f64().unwrap(), row["baseline_best"].as_f64().unwrap()),
        );
        rows.push(row);
    }
    // Every fresh effect left one `done` row, on each side.
    let after = done_rows(pool).await;
    let made_total = |k: usize| made[k].made.iter().sum::<u64>() as i64;
    assert_eq!((after.0 - before.0, after.1 - before.1), (made_total(0), made_total(1)), "done rows (oncely, baseline) vs fresh effects");
    rows
}

fn interleaved() {
    if std::env::var("ONCELY_BENCH_INTERLEAVED").as_deref() == Ok("0") {
        return;
    }
    let quick = std::env::var("ONCELY_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let (rounds, secs) = if quick { (5, 0.25) } else { (9, 0.5) };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();
    println!("\nledger cost per effect, oncely vs hand-written SQL (Redis: SET NX + SET): {rounds} rounds x {secs} s per side per measure, median kept");
    println!(
        "{:9} {:7} {:>7} {:>9} {:>10} {:>6} {:>6} {:>7}  {:>15}  {:>16}",
        "backend", "measure", "workers", "oncely/s", "baseline/s", "ratio", "goal", "paired", "CPU µs/effect", "best /s"
    );
    let mut rows = Vec::new();
    rt.block_on(async {
        let path = dir.path().join("ledger-ab.db");
        let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let pool = store.pool().clone();
        sqlx::query(BASELINE_SQLITE).execute(&pool).await.unwrap();
        let ledger = Ledger::with_store(runtime.clone(), AnyStore::Sqlite(store));
        for workers in [8, 1] {
            rows.extend(compare("sqlite", workers, &ledger, &Pool::Sqlite(pool.clone()), rounds, secs).await);
        }
        let url = fresh_pg_db(&postgres_base(), "oncely_bench_ab").await;
        let store = PostgresStore::connect(&url).await.unwrap();
        let pool = store.pool().clone();
        sqlx::query(BASELINE_POSTGRES).execute(&pool).await.unwrap();
        let ledger = Ledger::with_store(runtime.clone(), AnyStore::Postgres(store));
        for workers in [8, 1] {
            rows.extend(compare("postgres", workers, &ledger, &Pool::Postgres(pool.clone()), rounds, secs).await);
        }
        let url = redis_url();
        let store = RedisStore::connect(&url).await.unwrap();
        let conn = redis::Client::open(url.as_str()).unwrap().get_connection_manager().await.unwrap();
        let ledger = Ledger::with_store(runtime.clone(), AnyStore::Redis(store));
        for workers in [8, 1] {
            rows.extend(compare("redis", workers, &ledger, &Pool::Redis(conn.clone()), rounds, secs).await);
        }
    });
    println!("(oncely / baseline; ratio = median oncely rate / median baseline rate; paired = median of per-round ratios; CPU = this process, not the database server)");
    if let Ok(path) = std::env::var("ONCELY_BENCH_JSON") {
        std::fs::write(&path, serde_json::to_string_pretty(&serde_json::json!({"host": "rust", "rows": rows})).unwrap()).unwrap();
    }
}

criterion_group!(benches, ledger_throughput);

fn main() {
    benches();
    // `cargo bench` passes --bench; `cargo test --benches` does not: there, skip the long part.
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
    Criterion::default().configure_from_args().final_summary();
}
