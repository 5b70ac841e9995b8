//! Shared test support for the oncely crates' tests (`oncely`, `oncely-cli` and this crate's
//! own): the repository's vector files, a fresh PostgreSQL database per test, a fresh SQLite file
//! per test, and a settable clock. Never published. The crate also holds the test-only binaries
//! `oncely-test-worker` and `oncely-test-provider` (src/bin/) and the tests that run them.

use oncely::store::{AnyStore, PostgresStore, RedisStore, SqliteStore};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{
    ClaimToken, Completion, Decision, Event, Failure, HeldDecision, ReconcileVerdict, Reconciliation, Resolution, Settlement,
};
use oncely::wit::policy::ToolPolicy;
use oncely::Runtime;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A vector file of `tests/vectors/`, parsed.
pub fn vectors(name: &str) -> serde_json::Value {
    let p = repo().join("tests/vectors").join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// The RFC 8785 reference data, kept in the repository (`tests/vectors/jcs`, Apache-2.0).
pub fn jcs_vectors() -> PathBuf {
    let dir = repo().join("tests/vectors/jcs");
    assert!(dir.join("input").is_dir(), "{} is missing: the RFC 8785 reference data is part of the repository", dir.display());
    dir
}

/// A settable clock for ledgers under test.
#[derive(Clone, Default)]
pub struct TestClock(pub Arc<AtomicU64>);

impl TestClock {
    /// A clock that reads `ms`.
    pub fn at(ms: u64) -> TestClock {
        TestClock(Arc::new(AtomicU64::new(ms)))
    }
    /// Set the time to `ms`.
    pub fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::SeqCst);
    }
    /// Move the time on by `ms`.
    pub fn advance(&self, ms: u64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
    /// The clock, for a ledger.
    pub fn clock(&self) -> oncely::ledger::Clock {
        let c = self.0.clone();
        Arc::new(move || c.load(Ordering::SeqCst))
    }
}

/// The server's base URL: `ONCELY_TEST_POSTGRES_URL`, else a throwaway cluster started once for
/// this test process (stopped when it exits). `None` (with a loud message) only outside CI.
pub fn postgres_base() -> Option<String> {
    static BASE: OnceLock<Option<String>> = OnceLock::new();
    BASE.get_or_init(|| {
        if let Ok(url) = std::env::var("ONCELY_TEST_POSTGRES_URL") {
            return Some(url);
        }
        let out = std::process::Command::new(repo().join("tests/pg/start.sh")).arg(std::process::id().to_string()).output();
        match out {
            Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).trim().to_string()),
            other => no_postgres(other, "no ONCELY_TEST_POSTGRES_URL and no server could be started"),
        }
    })
    .clone()
}

/// `tests/pg/start.sh` failed: fail under CI / ONCELY_REQUIRE_POSTGRES, else skip loudly.
fn no_postgres<T>(out: std::io::Result<std::process::Output>, what: &str) -> Option<T> {
    let why = match out {
        Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
        Err(e) => e.to_string(),
    };
    let required = std::env::var_os("CI").is_some() || std::env::var_os("ONCELY_REQUIRE_POSTGRES").is_some();
    assert!(!required, "PostgreSQL is required here (CI / ONCELY_REQUIRE_POSTGRES) but could not be started: {why}");
    eprintln!("\n*** SKIPPING PostgreSQL tests: {what}: {why} ***\n");
    None
}

/// A throwaway cluster of the test's own, for tests that restart the server (never the shared
/// one of `postgres_base`, which other tests use concurrently): its URL, and its directory for
/// [`restart_postgres`]. Stopped when this test process exits. `None` (loudly) only outside CI.
pub fn postgres_own_cluster() -> Option<(String, PathBuf)> {
    let out = std::process::Command::new(repo().join("tests/pg/start.sh")).args(["--with-dir", &std::process::id().to_string()]).output();
    match out {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            let mut lines = text.lines();
            let url = lines.next().expect("tests/pg/start.sh printed a URL").to_string();
            let dir = PathBuf::from(lines.next().expect("tests/pg/start.sh --with-dir printed the cluster's directory"));
            Some((url, dir))
        }
        other => no_postgres(other, "no server of the test's own could be started"),
    }
}

/// Restart the cluster in `dir` (from [`postgres_own_cluster`]) with `pg_ctl`'s shutdown `mode`
/// (`fast` or `immediate`), keeping it down `down_secs` seconds; returns once it accepts
/// connections again (`tests/pg/restart.sh`).
pub async fn restart_postgres(dir: &std::path::Path, mode: &str, down_secs: u32) {
    let out = tokio::process::Command::new(repo().join("tests/pg/restart.sh"))
        .arg(dir)
        .arg(mode)
        .arg(down_secs.to_string())
        .output()
        .await
        .expect("run tests/pg/restart.sh");
    assert!(out.status.success(), "tests/pg/restart.sh {mode} failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// A fresh, empty database on the test server, as a URL.
pub async fn postgres_db() -> Option<String> {
    let base = postgres_base()?;
    static N: AtomicU64 = AtomicU64::new(0);
    let name = format!("oncely_test_{}_{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst));
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&base).await.expect("connect to the test server");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&mut conn).await.expect("create database");
    let (head, _) = base.rsplit_once('/').expect("a URL with a database name");
    Some(format!("{head}/{name}"))
}

/// The Redis server's URL: `ONCELY_TEST_REDIS_URL`, else a throwaway server started once for this
/// test process (`tests/redis/start.sh`, stopped when it exits). `None` (with a loud message)
/// only outside CI and without `ONCELY_REQUIRE_REDIS`.
pub fn redis_base() -> Option<String> {
    static BASE: OnceLock<Option<String>> = OnceLock::new();
    BASE.get_or_init(|| {
        if let Ok(url) = std::env::var("ONCELY_TEST_REDIS_URL") {
            return Some(url);
        }
        match start_redis(&[]) {
            Ok(url) => Some(url),
            Err(why) => {
                let required = std::env::var_os("CI").is_some() || std::env::var_os("ONCELY_REQUIRE_REDIS").is_some();
                assert!(!required, "Redis is required here (CI / ONCELY_REQUIRE_REDIS) but could not be started: {why}");
                eprintln!("\n*** SKIPPING Redis tests: no ONCELY_TEST_REDIS_URL and no server could be started: {why} ***\n");
                None
            }
        }
    })
    .clone()
}

/// A Redis server of the test's own (`tests/redis/start.sh` with `args`: `--replica-of PORT`,
/// `--cluster`), stopped when this test process exits: its URL, or why it could not start.
pub fn start_redis(args: &[&str]) -> Result<String, String> {
    let out = std::process::Command::new(repo().join("tests/redis/start.sh"))
        .args(args)
        .arg(std::process::id().to_string())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// A fresh, empty ledger on the test's Redis server, as a URL: its keys under a prefix of its own.
pub fn redis_ledger() -> Option<String> {
    let base = redis_base()?;
    static N: AtomicU64 = AtomicU64::new(0);
    let sep = if base.contains('?') { '&' } else { '?' };
    Some(format!("{base}{sep}prefix=oncely-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)))
}

/// A fresh SQLite ledger file (the directory lives as long as the returned guard).
pub fn sqlite_path() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("ledger.db").to_str().unwrap().to_string();
    (dir, p)
}

/// Every backend, fresh: SQLite always; PostgreSQL and Redis when a server is available.
pub async fn stores() -> Vec<(&'static str, AnyStore, Option<tempfile::TempDir>)> {
    let (dir, path) = sqlite_path();
    let mut v = vec![("sqlite", AnyStore::Sqlite(SqliteStore::open(&path).await.unwrap()), Some(dir))];
    if let Some(url) = postgres_db().await {
        v.push(("postgres", AnyStore::Postgres(PostgresStore::connect(&url).await.unwrap()), None));
    }
    if let Some(url) = redis_ledger() {
        v.push(("redis", AnyStore::Redis(RedisStore::connect(&url).await.unwrap()), None));
    }
    v
}

/// Locations (path or URL) of fresh ledgers of every kind, for multi-process tests.
pub async fn locations() -> Vec<(&'static str, String, Option<tempfile::TempDir>)> {
    let (dir, path) = sqlite_path();
    let mut v = vec![("sqlite", path, Some(dir))];
    if let Some(url) = postgres_db().await {
        v.push(("postgres", url, None));
    }
    if let Some(url) = redis_ledger() {
        v.push(("redis", url, None));
    }
    v
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}")).to_string()
}

fn token(v: &Value) -> ClaimToken {
    ClaimToken { attempt: v["attempt"].as_u64().unwrap() as u32, owner: s(&v["owner"]) }
}

/// What `ledger.decision-of` says, as ledger.json writes it (a step's `expect.decision`).
pub fn decision_json(d: Option<HeldDecision>) -> Value {
    match d {
        None => Value::Null,
        Some(HeldDecision::Asked(_)) => "asked".into(),
        Some(HeldDecision::Approved(a)) => serde_json::json!({"approved": {"by": a.by, "unused": a.unused}}),
        Some(HeldDecision::Denied(d)) => serde_json::json!({"denied": {"by": d.by, "reason": d.reason}}),
    }
}

/// The event a ledger.json step describes.
pub fn event(rt: &Runtime, step: &Value, base: &Intent, pol: &ToolPolicy) -> Event {
    let ev = &step["event"];
    if let Some(name) = ev.as_str() {
        return if name == "sweep" { Event::Sweep } else { Event::Purge };
    }
    let (name, b) = ev.as_object().unwrap().iter().next().unwrap();
    match name.as_str() {
        "begin" | "ask" => {
            let mut i = base.clone();
            if let Some(a) = b.get("args") {
                i.args_json = s(a);
            }
            let c = rt.prepare(&i, pol, &s(&b["owner"])).unwrap();
            if name == "ask" {
                Event::Ask(c)
            } else {
                Event::Begin(c)
            }
        }
        "heartbeat" => Event::Heartbeat(token(b)),
        "complete" => Event::Complete(Completion { token: token(b), result_json: s(&b["result"]) }),
        "fail_definite" => Event::FailDefinite(Failure { token: token(b), reason: s(&b["reason"]) }),
        "fail_ambiguous" => Event::FailAmbiguous(Failure { token: token(b), reason: s(&b["reason"]) }),
        "complete_unrecordable" => Event::CompleteUnrecordable(Failure { token: token(b), reason: s(&b["reason"]) }),
        "reconciled" => Event::Reconciled(Reconciliation {
            attempt: b["attempt"].as_u64().unwrap() as u32,
            verdict: match (b.get("happened"), b.get("not_happened")) {
                (Some(r), _) => ReconcileVerdict::Happened(s(r)),
                (None, Some(_)) => ReconcileVerdict::NotHappened,
                _ => ReconcileVerdict::Unknown(s(&b["unknown"])),
            },
        }),
        "resolve" => Event::Resolve(Resolution {
            settlement: b.get("happened").map_or(Settlement::NotHappened, |r| Settlement::Happened(s(r))),
            by: s(&b["by"]),
            note: s(&b["note"]),
            seen_version: b["version"].as_u64().expect("a resolve step names the version it saw"),
        }),
        "approve" | "deny" => {
            let d = Decision {
                by: s(&b["by"]),
                note: s(&b["note"]),
                seen_version: b["version"].as_u64().expect("an approve or deny step names the version it saw"),
            };
            if name == "approve" {
                Event::Approve(d)
            } else {
                Event::Deny(d)
            }
        }
        other => panic!("unknown event {other}"),
    }
}

/// A server process a test started; killed when dropped.
pub struct Server {
    /// The server's process.
    pub child: std::process::Child,
    /// Its base URL (`http://127.0.0.1:PORT`).
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
