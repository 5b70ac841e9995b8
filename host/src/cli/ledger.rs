//! `oncely ledger list|show|sweep|resolve|purge`: the effect ledger for humans (`--json` for
//! scripts). No reconcilers run from the CLI: a sweep expires leases and escalates; a human
//! settles what is escalated with `resolve`.

use super::render;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use oncely::store::{parse_state, ListFilter};
use oncely::wit::ledger::{Outcome, Settlement};
use oncely::Ledger;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
pub struct LedgerArgs {
    /// The ledger: a SQLite file path or a postgres:// URL ($ONCELY_DB, else ./oncely.db).
    #[arg(long, global = true)]
    db: Option<String>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: LedgerCommand,
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// List the entries of a scope, newest first.
    List {
        /// The scope.
        #[arg(long)]
        scope: String,
        /// Only this state (pending, done, failed, in-doubt, escalated).
        #[arg(long)]
        state: Option<String>,
        /// Only this tool.
        #[arg(long)]
        tool: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Show one entry.
    Show {
        /// The scope.
        #[arg(long)]
        scope: String,
        /// The key (oncely1:…).
        key: String,
    },
    /// Expire leases, escalate what is past its deadline (no reconcilers run from the CLI).
    Sweep {
        /// Only this scope.
        #[arg(long)]
        scope: Option<String>,
    },
    /// Settle an in-doubt or escalated entry by hand.
    Resolve {
        /// The scope.
        #[arg(long)]
        scope: String,
        /// The key.
        key: String,
        /// The effect happened; this JSON is its result (replayed from now on).
        #[arg(long, conflicts_with = "not_happened", required_unless_present = "not_happened")]
        happened: Option<String>,
        /// The effect did not happen; a new attempt may run.
        #[arg(long)]
        not_happened: bool,
        /// Who decides (recorded).
        #[arg(long)]
        by: String,
        /// Why (recorded).
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Delete settled entries whose retention has passed (one KEY, or all of a scope, or all).
    Purge {
        /// Only this scope.
        #[arg(long)]
        scope: Option<String>,
        /// Only this key (needs --scope).
        key: Option<String>,
    },
}

pub async fn run(a: LedgerArgs) -> Result<ExitCode> {
    let db = a.db.or_else(|| std::env::var("ONCELY_DB").ok()).unwrap_or_else(|| "oncely.db".into());
    let ledger = Ledger::open(&db).await.with_context(|| format!("opening the ledger {db}"))?.with_owner("oncely-cli");
    let mut out = std::io::stdout().lock();
    match a.command {
        LedgerCommand::List { scope, state, tool, limit } => {
            let state = match state {
                Some(s) => Some(parse_state(&s).with_context(|| format!("unknown state {s:?}"))?),
                None => None,
            };
            let entries = ledger.list(&scope, &ListFilter { state, tool, limit }).await?;
            if a.json {
                writeln!(out, "{}", serde_json::Value::Array(entries.iter().map(render::entry).collect()))?;
            } else {
                for e in &entries {
                    writeln!(out, "{}", render::entry_line(e))?;
                }
            }
        }
        LedgerCommand::Show { scope, key } => match ledger.get(&scope, &key).await? {
            Some(e) => writeln!(out, "{}", serde_json::to_string_pretty(&render::entry(&e))?)?,
            None => bail!("no entry {key} in scope {scope:?}"),
        },
        LedgerCommand::Sweep { scope } => {
            let r = ledger.sweep(scope.as_deref()).await?;
            if a.json {
                writeln!(out, "{}", serde_json::to_string(&r)?)?;
            } else {
                writeln!(
                    out,
                    "examined {}, leases expired {}, reconciled {} (happened {}, not happened {}, unknown {}), escalated {}, purged {}",
                    r.examined,
                    r.leases_expired,
                    r.reconciled,
                    r.happened,
                    r.not_happened,
                    r.unknown,
                    r.escalated.len(),
                    r.purged
                )?;
                for x in &r.escalated {
                    writeln!(out, "escalated: {x}")?;
                }
                for x in &r.errors {
                    writeln!(out, "error: {x}")?;
                }
            }
        }
        LedgerCommand::Resolve { scope, key, happened, not_happened: _, by, note } => {
            let settlement = match happened {
                Some(result) => {
                    ledger.runtime().canonicalize(&result).context("--happened must be the effect's result as JSON")?;
                    Settlement::Happened(result)
                }
                None => Settlement::NotHappened,
            };
            let o = ledger.resolve(&scope, &key, settlement, &by, &note).await?;
            if let Outcome::Recorded(s) = o {
                writeln!(out, "{key}: {}", oncely::store::state_name(s))?;
            }
        }
        LedgerCommand::Purge { scope, key } => match (scope, key) {
            (Some(scope), Some(key)) => {
                ledger.purge(&scope, &key).await?;
                writeln!(out, "purged 1")?;
            }
            (None, Some(_)) => bail!("purging one key needs --scope"),
            (scope, None) => writeln!(out, "purged {}", ledger.purge_expired(scope.as_deref()).await?)?,
        },
    }
    Ok(ExitCode::SUCCESS)
}
