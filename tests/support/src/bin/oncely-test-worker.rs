//! `oncely-test-worker`: a test helper, never shipped. It runs ONE effect through the Rust
//! host's ledger whose "tool" appends `"<key> <owner>"` to MARKER (so tests can count executions
//! across processes and languages), then prints `{"key","replayed","reconciled","value"}`.
//! `--crash-after-call` dies (exit 137) after the effect and before its result is recorded.
//!
//! Options for the chaos harness (`scripts/chaos`), all off by default:
//! - `--steps-file FILE`: run one effect per line of FILE (the line is the step id; the other
//!   intent fields come from the options), in order, instead of the single `--step`; print one
//!   line per effect, `{"step","key","replayed","reconciled","value"}` or
//!   `{"step","error","message"}` (`error`: the error's code — `in-progress`, `in-doubt`,
//!   `escalated`, `conflict`, `tool-failed`, `result-not-recorded`, `storage`, `ledger`,
//!   `contention`, `awaiting-approval`, `denied`, `other`), and go on with the next line; exit 0 once the file is walked.
//! - `--reconcile-from-marker`: register a reconciler for TOOL that looks the key up in MARKER:
//!   happened (`{"by": the owner on the key's first line}`) if a line starts with the key, else
//!   not happened.
//! - `--stall-before-call-ms N`: the tool sleeps N ms before it appends (a stall after any check
//!   made before the call).
//! - `--stall-after-claim-ms N`: sleep N ms right after a claim (the insert of a new entry) is
//!   written, before the core is told (a stall between the claim and the call).
//! - `--approval-wait-ms N`: a call awaiting a person's approval waits up to N ms for the decision.
//!
//! Part of the unpublished crate `oncely-test-support` (tests/support/), so neither the `oncely`
//! crate nor `cargo install --path cli` carries it: `cargo test` builds it for the Rust tests
//! (tests/races.rs), `cargo build --release -p oncely-test-support --bin oncely-test-worker` for
//! the Python and JavaScript ones. `bindings/python/tests/workers/exec_worker.py` and
//! `bindings/js/test/helpers/worker.mjs` take the same options and print the same lines.

use anyhow::{Context, Result};
use clap::Parser;
use oncely::store::{AnyStore, HistoryRecord, ListFilter, Stats, Store};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Entry, ReconcileVerdict};
use oncely::wit::policy::ToolPolicy;
use oncely::{Error, Ledger, Runtime, StoreError, ToolError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "oncely-test-worker", about = "Test helper: effects through the ledger; the tool appends to MARKER")]
struct Args {
    /// The ledger: a SQLite file path, a postgres:// URL or a redis:// URL.
    #[arg(long)]
    db: String,
    #[arg(long)]
    scope: String,
    #[arg(long)]
    run: String,
    #[arg(long, default_value = "step-1")]
    step: String,
    #[arg(long)]
    tool: String,
    /// The arguments (JSON text).
    #[arg(long)]
    args: String,
    /// Policy document (JSON text).
    #[arg(long)]
    policy: String,
    #[arg(long)]
    owner: String,
    /// The file the tool appends "<key> <owner>" to.
    #[arg(long)]
    marker: PathBuf,
    /// Hold the call this long before returning.
    #[arg(long, default_value_t = 0)]
    sleep_ms: u64,
    /// Die (exit 137) right after the effect, before its result is recorded.
    #[arg(long)]
    crash_after_call: bool,
    /// How long to wait for another worker's claim (ms).
    #[arg(long, default_value_t = 30_000)]
    wait_ms: u64,
    /// Run one effect per line of this file (the line is the step id), printing a line for each.
    #[arg(long)]
    steps_file: Option<PathBuf>,
    /// Register a reconciler for TOOL that looks the key up in MARKER.
    #[arg(long)]
    reconcile_from_marker: bool,
    /// The tool sleeps this long before it appends to MARKER (ms).
    #[arg(long, default_value_t = 0)]
    stall_before_call_ms: u64,
    /// Sleep this long right after a claim is written, before the core is told (ms).
    #[arg(long, default_value_t = 0)]
    stall_after_claim_ms: u64,
    /// Wait this long for a person's decision on a call awaiting approval (ms; 0: do not wait).
    #[arg(long, default_value_t = 0)]
    approval_wait_ms: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match tokio_main(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oncely-test-worker: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn tokio_main(args: Args) -> Result<()> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run(args))
}

/// The ledger's store, with an optional stall right after a claim is written.
#[derive(Debug)]
struct Stalling {
    inner: AnyStore,
    after_claim: Duration,
}

impl Store for Stalling {
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        self.inner.get(scope, key).await
    }
    async fn insert(&self, entry: &Entry, claims: bool) -> Result<bool, StoreError> {
        let claimed = self.inner.insert(entry, claims).await?;
        if claimed && !self.after_claim.is_zero() {
            tokio::time::sleep(self.after_claim).await;
        }
        Ok(claimed)
    }
    async fn update(&self, expected_version: u64, entry: &Entry, history: bool, claims: bool) -> Result<bool, StoreError> {
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
    async fn history(&self, scope: &str, key: &str) -> Result<Vec<HistoryRecord>, StoreError> {
        self.inner.history(scope, key).await
    }
    async fn stats(&self) -> Result<Stats, StoreError> {
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

/// The owner on the first line of MARKER that records `key`, if any.
fn marker_owner(marker: &Path, key: &str) -> std::io::Result<Option<String>> {
    let text = match std::fs::read_to_string(marker) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other?,
    };
    Ok(text.lines().find_map(|l| l.strip_prefix(key).and_then(|rest| rest.strip_prefix(' ')).map(str::to_string)))
}

/// The error's code, the same in the three workers.
fn code(e: &Error) -> &'static str {
    match e {
        Error::InProgress { .. } => "in-progress",
        Error::InDoubt { .. } => "in-doubt",
        Error::Escalated { .. } => "escalated",
        Error::Conflict { .. } => "conflict",
        Error::ToolFailed(_) => "tool-failed",
        Error::ResultNotRecorded { .. } => "result-not-recorded",
        Error::Storage(_) => "storage",
        Error::Ledger(_) => "ledger",
        Error::Contention(_) => "contention",
        Error::AwaitingApproval(_) => "awaiting-approval",
        Error::Denied(_) => "denied",
        _ => "other",
    }
}

struct Worker {
    ledger: Ledger<Stalling>,
    policy: ToolPolicy,
    x: Args,
}

impl Worker {
    async fn effect(&self, step: &str) -> Result<oncely::EffectResult<serde_json::Value>, Error> {
        let x = &self.x;
        let intent = Intent {
            scope: x.scope.clone(),
            run_id: x.run.clone(),
            step_id: step.to_string(),
            tool: x.tool.clone(),
            args_json: x.args.clone(),
        };
        let (marker, owner, sleep, crash, stall) = (&x.marker, &x.owner, x.sleep_ms, x.crash_after_call, x.stall_before_call_ms);
        self.ledger
            .effect(&intent, &self.policy)
            .wait(Duration::from_millis(x.wait_ms))
            .wait_for_approval(Duration::from_millis(x.approval_wait_ms))
            .run(|key| async move {
                if stall > 0 {
                    tokio::time::sleep(Duration::from_millis(stall)).await;
                }
                let mut f =
                    std::fs::OpenOptions::new().create(true).append(true).open(marker).map_err(|e| ToolError::definite(e.to_string()))?;
                f.write_all(format!("{key} {owner}\n").as_bytes()).map_err(|e| ToolError::ambiguous(e.to_string()))?;
                f.sync_all().ok();
                if sleep > 0 {
                    tokio::time::sleep(Duration::from_millis(sleep)).await;
                }
                if crash {
                    std::process::exit(137);
                }
                Ok(serde_json::json!({"by": owner}))
            })
            .await
    }
}

async fn run(x: Args) -> Result<()> {
    let inner = AnyStore::open(&x.db).await.map_err(Error::from).with_context(|| format!("opening the ledger {}", x.db))?;
    let store = Stalling { inner, after_claim: Duration::from_millis(x.stall_after_claim_ms) };
    let ledger = Ledger::with_store(Runtime::shared()?, store).with_owner(x.owner.clone());
    if x.reconcile_from_marker {
        let marker = x.marker.clone();
        ledger.reconciler(&x.tool, move |req| {
            let found = marker_owner(&marker, &req.key);
            async move {
                match found {
                    Ok(Some(owner)) => ReconcileVerdict::Happened(serde_json::json!({"by": owner}).to_string()),
                    Ok(None) => ReconcileVerdict::NotHappened,
                    Err(e) => ReconcileVerdict::Unknown(format!("reading the marker: {e}")),
                }
            }
        });
    }
    let policy = ledger.runtime().parse_policy(&x.policy)?;
    let steps_file = x.steps_file.clone();
    let w = Worker { ledger, policy, x };
    let Some(steps_file) = steps_file else {
        let r = w.effect(&w.x.step).await?;
        let line = serde_json::json!({"key": r.key, "replayed": r.replayed, "reconciled": r.reconciled, "value": r.value});
        writeln!(std::io::stdout().lock(), "{line}")?;
        return Ok(());
    };
    let steps = std::fs::read_to_string(&steps_file).with_context(|| format!("reading {}", steps_file.display()))?;
    for step in steps.lines().filter(|l| !l.is_empty()) {
        let line = match w.effect(step).await {
            Ok(r) => serde_json::json!({"step": step, "key": r.key, "replayed": r.replayed, "reconciled": r.reconciled, "value": r.value}),
            Err(e) => serde_json::json!({"step": step, "error": code(&e), "message": e.to_string()}),
        };
        writeln!(std::io::stdout().lock(), "{line}")?;
    }
    Ok(())
}
