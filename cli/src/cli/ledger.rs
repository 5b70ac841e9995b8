//! `oncely ledger list|show|sweep|resolve|approve|deny|purge`: the effect ledger for humans
//! (`--json` for scripts). No reconcilers run from the CLI: a sweep expires leases and escalates;
//! a human settles what is escalated with `resolve`, and decides a call that awaits approval
//! with `approve` or `deny`.

use super::{render, untrusted};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use oncely::store::{parse_state, ListFilter};
use oncely::wit::ledger::{Decision, Resolution, Settlement};
use oncely::Ledger;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Args)]
pub struct LedgerArgs {
    /// The ledger: an existing SQLite file, a postgres:// URL or a redis:// URL (default: $ONCELY_DB).
    #[arg(long, global = true, env = "ONCELY_DB", hide_env_values = true)]
    db: Option<String>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: LedgerCommand,
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// List entries, newest first: every scope unless --scope says which.
    List {
        /// Only this scope.
        #[arg(long)]
        scope: Option<String>,
        /// Only this state (pending, done, failed, in-doubt, escalated, awaiting-approval,
        /// approved, denied).
        #[arg(long)]
        state: Option<String>,
        /// Only this tool.
        #[arg(long)]
        tool: Option<String>,
        /// Only entries written since then: a duration back from now (30m, 2h, 7d) or a time
        /// (2026-12-01T09:00:00Z).
        #[arg(long, value_parser = parse_since)]
        since: Option<Since>,
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
        /// The entry's version you decided on (`ledger show` prints it): the settlement is
        /// refused if the entry changed since.
        #[arg(long = "version", value_name = "N")]
        seen_version: u64,
        /// Why (recorded).
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Approve a call that awaits approval: the next ask of it runs it once.
    Approve(DecisionArgs),
    /// Deny a call that awaits approval (or an approval not yet used): it will not happen.
    Deny(DecisionArgs),
    /// Delete settled entries whose retention has passed (one KEY, or all of a scope, or all).
    Purge {
        /// Only this scope.
        #[arg(long)]
        scope: Option<String>,
        /// Only this key (needs --scope).
        key: Option<String>,
    },
}

/// A person's decision on a call that awaits approval.
#[derive(Args)]
struct DecisionArgs {
    /// The scope.
    #[arg(long)]
    scope: String,
    /// The key.
    key: String,
    /// Who decides (recorded).
    #[arg(long)]
    by: String,
    /// The entry's version you decided on (`ledger show` prints it, with the arguments): the
    /// decision is refused if the entry changed since.
    #[arg(long = "version", value_name = "N")]
    seen_version: u64,
    /// Why (recorded; for a denial, the reason the agent reads).
    #[arg(long, default_value = "")]
    note: String,
}

/// `--since`: a duration back from now, or a point in time.
#[derive(Debug, Clone, Copy)]
pub enum Since {
    Ago(Duration),
    At(SystemTime),
}

fn parse_since(s: &str) -> Result<Since, String> {
    if let Ok(d) = humantime::parse_duration(s) {
        return Ok(Since::Ago(d));
    }
    humantime::parse_rfc3339_weak(s)
        .map(Since::At)
        .map_err(|_| format!("{s:?} is neither a duration (30m, 2h, 7d) nor a time (2026-12-01T09:00:00Z)"))
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The ledger named by `--db` or $ONCELY_DB. A SQLite file must exist: these commands read and
/// settle entries, and a new empty file would only hide a wrong path.
async fn open(db: Option<String>) -> Result<Ledger> {
    let Some(db) = db else {
        bail!("which ledger? give --db FILE (a SQLite file), --db postgres://… or --db redis://… (or set ONCELY_DB)");
    };
    open_existing(&db, "oncely-cli").await
}

/// The ledger at `db`, which must exist if it is a SQLite file; `owner` names this process in
/// the ledger.
pub async fn open_existing(db: &str, owner: &str) -> Result<Ledger> {
    if !db.contains("://") && !Path::new(db).is_file() {
        bail!("no ledger at {db}: the file does not exist (a ledger file is created by the first effect recorded in it; check --db)");
    }
    Ok(Ledger::open(db).await.with_context(|| format!("opening the ledger {}", redacted(db)))?.with_owner(owner))
}

/// A ledger location fit to print: a URL's password replaced by `***`.
pub fn redacted(location: &str) -> String {
    let Some((scheme, rest)) = location.split_once("://") else { return location.to_string() };
    let Some((userinfo, host)) = rest.rsplit_once('@') else { return location.to_string() };
    match userinfo.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
        None => location.to_string(),
    }
}

pub async fn run(a: LedgerArgs) -> Result<ExitCode> {
    let ledger = open(a.db).await?;
    let mut out = std::io::stdout().lock();
    match a.command {
        LedgerCommand::List { scope, state, tool, since, limit } => {
            let state = match state {
                Some(s) => Some(parse_state(&s).with_context(|| format!("unknown state {s:?}"))?),
                None => None,
            };
            let since = since.map(|s| match s {
                Since::Ago(d) => ledger.now().saturating_sub(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                Since::At(t) => millis(t),
            });
            let entries = ledger.list(scope.as_deref(), &ListFilter { state, tool, since, limit }).await?;
            if a.json {
                writeln!(out, "{}", untrusted::json(&serde_json::Value::Array(entries.iter().map(render::entry).collect())))?;
            } else {
                for e in &entries {
                    writeln!(out, "{}", render::entry_line(e))?;
                }
            }
        }
        LedgerCommand::Show { scope, key } => match ledger.get(&scope, &key).await? {
            Some(e) => {
                let mut shown = render::entry(&e);
                shown["history"] = render::history(&ledger.history(&scope, &key).await?);
                writeln!(out, "{}", untrusted::json_pretty(&shown))?
            }
            None => bail!("no entry {key} in scope {scope:?}"),
        },
        LedgerCommand::Sweep { scope } => {
            let r = ledger.sweep(scope.as_deref()).await?;
            if a.json {
                writeln!(out, "{}", untrusted::json(&serde_json::to_value(&r)?))?;
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
                    writeln!(out, "escalated: {}", untrusted::line(x))?;
                }
                for x in &r.errors {
                    writeln!(out, "error: {}", untrusted::line(x))?;
                }
            }
        }
        LedgerCommand::Resolve { scope, key, happened, not_happened: _, by, note, seen_version } => {
            let settlement = match happened {
                Some(result) => {
                    ledger.runtime().canonicalize(&result).context("--happened must be the effect's result as JSON")?;
                    Settlement::Happened(result)
                }
                None => Settlement::NotHappened,
            };
            let state = if matches!(settlement, Settlement::Happened(_)) { "done" } else { "failed" };
            let id = ledger.resolve(&scope, &key, Resolution { settlement, by, note, seen_version }).await?;
            if a.json {
                writeln!(out, "{}", untrusted::json(&serde_json::json!({"key": key, "state": state, "settlement": id})))?;
            } else {
                writeln!(out, "{}: {state} (settlement {id})", untrusted::line(&key))?;
            }
        }
        LedgerCommand::Approve(d) => decide(&ledger, &mut out, a.json, d, true).await?,
        LedgerCommand::Deny(d) => decide(&ledger, &mut out, a.json, d, false).await?,
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

/// `approve` or `deny`: the decision's id, and the state the entry is in now.
async fn decide(ledger: &Ledger, out: &mut impl Write, json: bool, d: DecisionArgs, approve: bool) -> Result<()> {
    let DecisionArgs { scope, key, by, seen_version, note } = d;
    let decision = Decision { by, note, seen_version };
    let (id, state) = if approve {
        (ledger.approve(&scope, &key, decision).await?, "approved")
    } else {
        (ledger.deny(&scope, &key, decision).await?, "denied")
    };
    if json {
        writeln!(out, "{}", untrusted::json(&serde_json::json!({"key": key, "state": state, "decision": id})))?;
    } else {
        writeln!(out, "{}: {state} (decision {id})", untrusted::line(&key))?;
    }
    Ok(())
}
