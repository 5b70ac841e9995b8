//! `oncely-test-worker`: a test helper, never shipped. It runs ONE effect through the Rust
//! host's ledger whose "tool" appends `"<key> <owner>"` to MARKER (so tests can count executions
//! across processes and languages), then prints `{"key","replayed","reconciled","value"}`.
//! `--crash-after-call` dies (exit 137) after the effect and before its result is recorded.
//!
//! Built only with the `test-hooks` feature (`required-features` in host/Cargo.toml):
//! `cargo test --features test-hooks` for the Rust tests,
//! `cargo build --release -p oncely --features test-hooks --bin oncely-test-worker` for the
//! Python and JavaScript ones. `cargo install --path host` and a plain `cargo build` leave it
//! out. `bindings/python/tests/workers/exec_worker.py` and `bindings/js/test/helpers/worker.mjs`
//! take the same options and print the same line.

use anyhow::{Context, Result};
use clap::Parser;
use oncely::wit::keys::Intent;
use oncely::{Ledger, ToolError};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "oncely-test-worker", about = "Test helper: one effect through the ledger; the tool appends to MARKER")]
struct Args {
    /// The ledger: a SQLite file path or a postgres:// URL.
    #[arg(long)]
    db: String,
    #[arg(long)]
    scope: String,
    #[arg(long)]
    run: String,
    #[arg(long)]
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

async fn run(x: Args) -> Result<()> {
    let ledger = Ledger::open(&x.db).await.with_context(|| format!("opening the ledger {}", x.db))?.with_owner(x.owner.clone());
    let policy = ledger.runtime().parse_policy(&x.policy)?;
    let intent = Intent { scope: x.scope, run_id: x.run, step_id: x.step, tool: x.tool, args_json: x.args };
    let (marker, owner, sleep, crash) = (x.marker, x.owner, x.sleep_ms, x.crash_after_call);
    let r = ledger
        .effect(&intent, &policy)
        .wait(Duration::from_millis(x.wait_ms))
        .run(|key| {
            let (marker, owner) = (marker.clone(), owner.clone());
            async move {
                let mut f =
                    std::fs::OpenOptions::new().create(true).append(true).open(&marker).map_err(|e| ToolError::definite(e.to_string()))?;
                f.write_all(format!("{key} {owner}\n").as_bytes()).map_err(|e| ToolError::ambiguous(e.to_string()))?;
                f.sync_all().ok();
                if sleep > 0 {
                    tokio::time::sleep(Duration::from_millis(sleep)).await;
                }
                if crash {
                    std::process::exit(137);
                }
                Ok(serde_json::json!({"by": owner}))
            }
        })
        .await?;
    let line = serde_json::json!({"key": r.key, "replayed": r.replayed, "reconciled": r.reconciled, "value": r.value});
    writeln!(std::io::stdout().lock(), "{line}")?;
    Ok(())
}
