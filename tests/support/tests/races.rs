//! Duplicate dispatch and crashes, on SQLite and on a real PostgreSQL:
//! - 16 concurrent claimants per key (tasks with their own connections, and separate OS
//!   processes) execute the effect exactly once; the others replay it;
//! - a process killed between claim and complete leaves an entry that the sweep turns in-doubt
//!   and then reconciled (or escalated), and that is never executed again.

use oncely_test_support as common;

use common::{locations, TestClock};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{EntryState, ReconcileVerdict};
use oncely::{Error, Ledger, ToolError};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CLAIMANTS: usize = 16;
const POLICY: &str =
    r#"{"class":"irreversible-external","key":{"ignore":["/attempt_note"]},"reconcile":{"lookup":"find"},"leaseMs":60000}"#;

fn intent(step: &str) -> Intent {
    Intent {
        scope: "acme".into(),
        run_id: "run-1".into(),
        step_id: step.into(),
        tool: "refund".into(),
        args_json: "{\"charge\":\"ch_1\",\"cents\":500}".into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_concurrent_claimants_execute_once() {
    for (name, location, _guard) in locations().await {
        let executions = Arc::new(AtomicU32::new(0));
        let mut tasks = Vec::new();
        for w in 0..CLAIMANTS {
            // Each claimant opens the ledger itself: its own pool, its own connections.
            let ledger = Ledger::open(&location).await.unwrap().with_owner(format!("task-{w}"));
            let executions = executions.clone();
            tasks.push(tokio::spawn(async move {
                let policy = ledger.runtime().parse_policy(POLICY).unwrap();
                ledger
                    .effect(&intent("s1"), &policy)
                    .run(|_key| {
                        let executions = executions.clone();
                        async move {
                            executions.fetch_add(1, Ordering::SeqCst);
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            Ok::<_, ToolError>(format!("refund by task-{w}"))
                        }
                    })
                    .await
                    .unwrap()
            }));
        }
        let mut results = Vec::new();
        for t in tasks {
            results.push(t.await.unwrap());
        }
        assert_eq!(executions.load(Ordering::SeqCst), 1, "{name}: executions");
        assert_eq!(results.iter().filter(|r| !r.replayed).count(), 1, "{name}: exactly one fresh result");
        assert!(results.iter().all(|r| r.value == results[0].value && r.key == results[0].key), "{name}: everyone sees the same result");
    }
}

/// The test worker (src/bin/oncely-test-worker.rs): one effect through the ledger, in a process
/// of its own.
fn test_worker() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oncely-test-worker"))
}

fn exec(location: &str, owner: &str, marker: &std::path::Path, policy: &str, extra: &[&str]) -> Command {
    let mut c = test_worker();
    c.args(["--db", location, "--scope", "acme", "--run", "run-1", "--step", "s1", "--tool", "refund"])
        .args(["--args", "{\"charge\":\"ch_1\",\"cents\":500}", "--policy", policy, "--owner", owner, "--marker"])
        .arg(marker)
        .args(extra)
        .env("ONCELY_CACHE_DIR", cache_dir());
    c
}

fn cache_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("oncely-test-cache")
}

fn marker_lines(marker: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(marker).unwrap_or_default().lines().map(str::to_string).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn sixteen_processes_execute_once() {
    // Warm the compilation cache once so sixteen processes do not all compile at the same time:
    // one effect on a ledger of its own.
    let (_warm_dir, warm_db) = common::sqlite_path();
    let warm = exec(&warm_db, "warm", &std::path::Path::new(&warm_db).with_extension("marker"), POLICY, &[]).output().unwrap();
    assert!(warm.status.success(), "{}", String::from_utf8_lossy(&warm.stderr));
    for (name, location, _guard) in locations().await {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("executions.txt");
        let children: Vec<_> = (0..CLAIMANTS)
            .map(|w| {
                exec(&location, &format!("proc-{w}"), &marker, POLICY, &["--sleep-ms", "300"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut outputs = Vec::new();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
            outputs.push(serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap());
        }
        assert_eq!(marker_lines(&marker).len(), 1, "{name}: the tool ran {:?}", marker_lines(&marker));
        assert_eq!(outputs.iter().filter(|o| o["replayed"] == false).count(), 1, "{name}");
        assert!(outputs.iter().all(|o| o["value"] == outputs[0]["value"]), "{name}");
    }
}

/// Kill a process after its effect happened and before it recorded the result.
fn run_and_kill(location: &str, marker: &std::path::Path, policy: &str) {
    let mut child =
        exec(location, "doomed", marker, policy, &["--sleep-ms", "60000"]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let start = std::time::Instant::now();
    while marker_lines(marker).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(60), "the effect never happened");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no cleanup, no complete.
    child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_process_is_reconciled_never_re_executed() {
    let short = r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find"},"leaseMs":1000,"reconcileAfterMs":0}"#;
    for (name, location, _guard) in locations().await {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("executions.txt");
        run_and_kill(&location, &marker, short);

        let clock = TestClock::at(now_ms());
        let ledger = Ledger::open(&location).await.unwrap().with_owner("sweeper").with_clock(clock.clock());
        let policy = ledger.runtime().parse_policy(short).unwrap();
        let key = ledger.runtime().prepare(&intent("s1"), &policy, "x").unwrap().key;
        assert_eq!(ledger.get("acme", &key).await.unwrap().unwrap().state, EntryState::Pending, "{name}");
        // The lease is live: a duplicate is told to wait, not to run.
        let r = ledger.effect(&intent("s1"), &policy).wait(Duration::ZERO).run(|_| async { Ok::<_, ToolError>(0) }).await;
        assert!(matches!(r, Err(Error::InProgress { .. })), "{name}: {r:?}");

        // The reconciler asks the "provider" (the marker file) whether the key's effect happened.
        let m = marker.clone();
        ledger.reconciler("refund", move |req| {
            let found = marker_lines(&m).iter().any(|l| l.starts_with(&req.key));
            async move {
                if found {
                    ReconcileVerdict::Happened("{\"by\":\"doomed\"}".into())
                } else {
                    ReconcileVerdict::NotHappened
                }
            }
        });
        clock.advance(1_001);
        let report = ledger.sweep(Some("acme")).await.unwrap();
        assert_eq!((report.leases_expired, report.happened), (1, 1), "{name}: {report:?}");
        assert_eq!(ledger.get("acme", &key).await.unwrap().unwrap().state, EntryState::Done, "{name}");

        // Every later attempt, in-process or in another process, replays.
        let o = exec(&location, "late", &marker, short, &[]).output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let out: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(out["replayed"], true, "{name}");
        assert_eq!(marker_lines(&marker).len(), 1, "{name}: executed again");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_process_without_a_reconciler_is_escalated_never_re_executed() {
    let manual = r#"{"class":"irreversible-external","key":{},"reconcile":"manual","leaseMs":1000}"#;
    for (name, location, _guard) in locations().await {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("executions.txt");
        run_and_kill(&location, &marker, manual);
        let clock = TestClock::at(now_ms() + 1_001);
        let ledger = Ledger::open(&location).await.unwrap().with_clock(clock.clock());
        let report = ledger.sweep(None).await.unwrap();
        assert_eq!(report.escalated.len(), 1, "{name}: {report:?}");
        let policy = ledger.runtime().parse_policy(manual).unwrap();
        let r = ledger.effect(&intent("s1"), &policy).run(|_| async { Ok::<_, ToolError>(0) }).await;
        assert!(matches!(r, Err(Error::Escalated { .. })), "{name}: {r:?}");
        assert_eq!(marker_lines(&marker).len(), 1, "{name}");
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A process SIGKILLed while it waited for a person's approval: the next process asking the same
/// intent finds the same request (no second request, no second notice); one approval, and the
/// waiting process pays once.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_process_killed_while_awaiting_approval_resumes_into_the_same_request() {
    const APPROVAL: &str = r#"{"class":"irreversible-external","key":{},"reconcile":"provider-idempotent","approval":"always"}"#;
    for (name, location, _guard) in locations().await {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("executions.txt");
        let mut first = exec(&location, "proc-1", &marker, APPROVAL, &["--approval-wait-ms", "60000"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let person = Ledger::open(&location).await.unwrap().with_owner("inbox");
        let asked = loop {
            if let Some(e) = person.list(Some("acme"), &Default::default()).await.unwrap().into_iter().next() {
                break e;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(asked.state, EntryState::AwaitingApproval, "{name}");
        first.kill().unwrap(); // SIGKILL, while it waits
        first.wait().unwrap();
        // Started again: the same request (the same version: nothing written), waiting; approved.
        let second = exec(&location, "proc-2", &marker, APPROVAL, &["--approval-wait-ms", "60000"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let still = person.get("acme", &asked.key).await.unwrap().unwrap();
        assert_eq!((still.state, still.version), (EntryState::AwaitingApproval, asked.version), "{name}: one request");
        let decision = oncely::wit::ledger::Decision { by: "alice".into(), note: String::new(), seen_version: still.version };
        person.approve("acme", &asked.key, decision).await.unwrap();
        let o = second.wait_with_output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let out: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!((out["key"].as_str(), &out["replayed"]), (Some(asked.key.as_str()), &serde_json::json!(false)), "{name}");
        assert_eq!(marker_lines(&marker).len(), 1, "{name}: paid once");
        let states: Vec<EntryState> = person.history("acme", &asked.key).await.unwrap().iter().map(|h| h.state).collect();
        assert_eq!(states[..2], [EntryState::AwaitingApproval, EntryState::Approved], "{name}: one request, one approval");
    }
}
