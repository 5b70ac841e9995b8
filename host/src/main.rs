//! `oncely`: canonical JSON, intent keys, the release gate over MCP tool lists, the effect
//! ledger for humans, and a demo. Exit codes: 0 success; 1 the command ran and the answer is
//! "no" (a failed check, invalid lines in `--lines` mode); 2 an error (bad input, usage,
//! storage). Errors go to stderr; stdout never carries half an answer.

mod cli;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use cli::render;
use oncely::store::{parse_state, ListFilter};
use oncely::wit::keys::{Intent, KeySpec};
use oncely::wit::ledger::{Outcome, Settlement};
use oncely::wit::policy::ToolPolicy;
use oncely::{Error, Ledger, Runtime};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::{BufRead, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "oncely", version, about = "Exactly-once effects for AI-agent tool calls")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the RFC 8785 canonical form of a JSON document (stdin when no FILE); no newline added.
    Canon {
        /// The document; stdin when absent.
        file: Option<PathBuf>,
        /// One JSON document per input line, one canonical document per output line.
        #[arg(long)]
        lines: bool,
    },
    /// Print the idempotency key of an intent.
    Key(KeyArgs),
    /// Explain why two intents (JSON files) do or don't share a key.
    Explain {
        /// First intent: {"scope","run","step","tool","args"[,"policy"]}.
        a: PathBuf,
        /// Second intent.
        b: PathBuf,
        /// Policy document (its key spec is used); else A's "policy", else the default spec.
        #[arg(long)]
        policy: Option<PathBuf>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Release gate: check an MCP tool list with oncely policies; exit 1 on any error finding.
    Check {
        /// A tools/list result ({"tools":[…]}), a JSON-RPC response, or an array of tools.
        tools: PathBuf,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Inspect and settle the effect ledger.
    Ledger(LedgerArgs),
    /// The main job: a flaky refund provider, a naive retry loop, and oncely, side by side.
    Demo {
        /// The SQLite ledger to use (default: a fresh file in a temporary directory).
        #[arg(long)]
        db: Option<PathBuf>,
    },
    /// Write the core component (.wasm) this binary embeds, for packaging.
    Component {
        /// Where to write it.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Args)]
struct KeyArgs {
    /// Scope (tenant).
    #[arg(long, required_unless_present = "lines")]
    scope: Option<String>,
    /// Run id.
    #[arg(long, required_unless_present = "lines")]
    run: Option<String>,
    /// Step id.
    #[arg(long, required_unless_present = "lines")]
    step: Option<String>,
    /// Tool name.
    #[arg(long, required_unless_present = "lines")]
    tool: Option<String>,
    /// Arguments as JSON text.
    #[arg(long, conflicts_with = "args_file")]
    args: Option<String>,
    /// Arguments from a JSON file.
    #[arg(long)]
    args_file: Option<PathBuf>,
    /// Policy document whose key spec to use (default: all arguments, identity step).
    #[arg(long)]
    policy: Option<PathBuf>,
    /// Print key, preimage and fingerprint as JSON.
    #[arg(long)]
    json: bool,
    /// Read JSONL intents {"scope","run","step","tool","args"} from stdin; one key per line out.
    #[arg(long)]
    lines: bool,
}

#[derive(Args)]
struct LedgerArgs {
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
    /// Test helper (hidden): run one effect through the ledger whose "tool" appends a line to
    /// MARKER (so tests can count executions across processes and languages).
    #[command(hide = true)]
    Exec(ExecArgs),
    /// Delete settled entries whose retention has passed (one KEY, or all of a scope, or all).
    Purge {
        /// Only this scope.
        #[arg(long)]
        scope: Option<String>,
        /// Only this key (needs --scope).
        key: Option<String>,
    },
}

#[derive(Args)]
struct ExecArgs {
    #[arg(long)]
    scope: String,
    #[arg(long)]
    run: String,
    #[arg(long)]
    step: String,
    #[arg(long)]
    tool: String,
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
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("oncely: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Canon { file, lines } => canon(file, lines),
        Command::Key(args) => key(args),
        Command::Explain { a, b, policy, json } => explain(&a, &b, policy.as_deref(), json),
        Command::Check { tools, json } => check(&tools, json),
        Command::Ledger(args) => tokio_main(ledger(args)),
        Command::Demo { db } => tokio_main(cli::demo::run(db)),
        Command::Component { out } => {
            write_atomically(&out, oncely::runtime::COMPONENT)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn tokio_main<F: std::future::Future<Output = Result<ExitCode>>>(f: F) -> Result<ExitCode> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(f)
}

fn read_input(file: Option<&std::path::Path>) -> Result<Vec<u8>> {
    match file {
        Some(p) => std::fs::read(p).with_context(|| format!("reading {}", p.display())),
        None => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).context("reading stdin")?;
            Ok(buf)
        }
    }
}

/// Write a whole file or nothing: a temporary file renamed into place.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming into {}", path.display()))
}

fn canon(file: Option<PathBuf>, lines: bool) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let input = read_input(file.as_deref())?;
    if !lines {
        let out = rt.canonicalize_bytes(&input)?;
        std::io::stdout().write_all(out.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut bad = 0u64;
    for (n, line) in input.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match rt.canonicalize_bytes(line) {
            Ok(c) => {
                out.write_all(c.as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(Error::Canon(e)) => {
                bad += 1;
                eprintln!("oncely: line {}: {}", n + 1, e.message);
            }
            Err(e) => return Err(e.into()),
        }
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("oncely: {bad} invalid line(s)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn load_policy(rt: &Runtime, path: &std::path::Path) -> Result<ToolPolicy> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    rt.parse_policy(&text).with_context(|| format!("policy {}", path.display()))
}

fn spec_of(rt: &Runtime, policy: Option<&std::path::Path>) -> Result<KeySpec> {
    match policy {
        Some(p) => match load_policy(rt, p)?.key {
            Some(k) => Ok(k),
            None => Ok(rt.default_spec()?),
        },
        None => Ok(rt.default_spec()?),
    }
}

/// An intent as JSON: the arguments are kept as raw text so the core sees exactly what was
/// written (a big integer or a duplicate member is the core's to judge, not serde's).
#[derive(Deserialize)]
struct IntentJson<'a> {
    scope: String,
    run: String,
    step: String,
    tool: String,
    #[serde(borrow)]
    args: &'a RawValue,
    #[serde(default, borrow)]
    policy: Option<&'a RawValue>,
}

impl IntentJson<'_> {
    fn intent(&self) -> Intent {
        Intent {
            scope: self.scope.clone(),
            run_id: self.run.clone(),
            step_id: self.step.clone(),
            tool: self.tool.clone(),
            args_json: self.args.get().to_string(),
        }
    }
}

fn key(a: KeyArgs) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let spec = spec_of(&rt, a.policy.as_deref())?;
    if a.lines {
        return key_lines(&rt, &spec, a.json);
    }
    let args_json = match (a.args, a.args_file) {
        (Some(t), _) => t,
        (None, Some(f)) => std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?,
        (None, None) => bail!("give the arguments with --args JSON or --args-file FILE"),
    };
    let intent = Intent {
        scope: a.scope.unwrap_or_default(),
        run_id: a.run.unwrap_or_default(),
        step_id: a.step.unwrap_or_default(),
        tool: a.tool.unwrap_or_default(),
        args_json,
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", render::derived(&rt.derive(&intent, &spec)?))?;
    } else {
        writeln!(out, "{}", rt.key(&intent, &spec)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn key_lines(rt: &Runtime, spec: &KeySpec, json: bool) -> Result<ExitCode> {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut bad = 0u64;
    let mut batch: Vec<(usize, Intent)> = Vec::new();
    let flush = |batch: &mut Vec<(usize, Intent)>, out: &mut BufWriter<_>, bad: &mut u64| -> Result<()> {
        let intents: Vec<Intent> = batch.iter().map(|(_, i)| i.clone()).collect();
        for ((n, _), r) in batch.iter().zip(rt.derive_many(&intents, spec)?) {
            match r {
                Ok(d) if json => writeln!(out, "{}", render::derived(&d))?,
                Ok(d) => writeln!(out, "{}", d.key)?,
                Err(e) => {
                    *bad += 1;
                    eprintln!("oncely: line {n}: {}", e.message);
                }
            }
        }
        batch.clear();
        Ok(())
    };
    for (i, line) in stdin.lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<IntentJson>(&line) {
            Ok(ij) => batch.push((i + 1, ij.intent())),
            Err(e) => {
                // Keep output lines in input order: finish the batch before reporting.
                flush(&mut batch, &mut out, &mut bad)?;
                bad += 1;
                eprintln!("oncely: line {}: not an intent object: {e}", i + 1);
            }
        }
        if batch.len() >= 1024 {
            flush(&mut batch, &mut out, &mut bad)?;
        }
    }
    flush(&mut batch, &mut out, &mut bad)?;
    out.flush()?;
    if bad > 0 {
        eprintln!("oncely: {bad} invalid line(s)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn explain(a: &std::path::Path, b: &std::path::Path, policy: Option<&std::path::Path>, json: bool) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let ta = std::fs::read_to_string(a).with_context(|| format!("reading {}", a.display()))?;
    let tb = std::fs::read_to_string(b).with_context(|| format!("reading {}", b.display()))?;
    let ia: IntentJson = serde_json::from_str(&ta).with_context(|| format!("{}: not an intent", a.display()))?;
    let ib: IntentJson = serde_json::from_str(&tb).with_context(|| format!("{}: not an intent", b.display()))?;
    let spec = match (policy, ia.policy) {
        (Some(_), _) => spec_of(&rt, policy)?,
        (None, Some(p)) => rt.parse_policy(p.get())?.key.map_or_else(|| rt.default_spec(), Ok)?,
        (None, None) => rt.default_spec()?,
    };
    let e = rt.explain(&ia.intent(), &ib.intent(), &spec)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", render::explanation(&e))?;
        return Ok(ExitCode::SUCCESS);
    }
    let verdict = match render::verdict(e.verdict) {
        "same-intent" => "same key, same parameters: a repeat replays the recorded result",
        "conflict" => "same key, DIFFERENT parameters: a repeat is refused as a conflict",
        _ => "different keys: two distinct effects",
    };
    writeln!(out, "{verdict}")?;
    writeln!(out, "  A: {}\n  B: {}", e.key_a.key, e.key_b.key)?;
    for d in &e.differences {
        let at = d.pointer.as_deref().map(|p| format!(" at {p}")).unwrap_or_default();
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".into());
        writeln!(out, "  - {}{at}: {} vs {} — {}", render::part(d.part), show(&d.a), show(&d.b), render::effect(d.effect))?;
    }
    if e.differences.is_empty() {
        writeln!(out, "  (the intents are identical)")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn check(tools: &std::path::Path, json: bool) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let text = std::fs::read_to_string(tools).with_context(|| format!("reading {}", tools.display()))?;
    let r = rt.check_manifest(&text)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", render::report(&r))?;
    } else {
        for t in &r.tools {
            writeln!(out, "{:<24} {}", t.name, render::class(t.policy.class))?;
        }
        for f in &r.findings {
            writeln!(out, "{}: {} [{}] {}", render::severity(f.severity), f.tool.as_deref().unwrap_or("-"), f.code, f.message)?;
        }
        let errors = r.findings.iter().filter(|f| render::severity(f.severity) == "error").count();
        writeln!(out, "{}", if r.passed { "check passed".to_string() } else { format!("check FAILED: {errors} error(s)") })?;
    }
    Ok(if r.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

async fn ledger(a: LedgerArgs) -> Result<ExitCode> {
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
                    "examined {}, leases expired {}, reconciled {} (happened {}, not happened {}, unknown {}), escalated {}",
                    r.examined,
                    r.leases_expired,
                    r.reconciled,
                    r.happened,
                    r.not_happened,
                    r.unknown,
                    r.escalated.len()
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
        LedgerCommand::Exec(x) => {
            let ledger = ledger.with_owner(x.owner.clone());
            let policy = ledger.runtime().parse_policy(&x.policy)?;
            let intent = Intent { scope: x.scope, run_id: x.run, step_id: x.step, tool: x.tool, args_json: x.args };
            let (marker, owner, sleep, crash) = (x.marker, x.owner, x.sleep_ms, x.crash_after_call);
            let r = ledger
                .effect(&intent, &policy)
                .wait(std::time::Duration::from_millis(x.wait_ms))
                .run(|key| {
                    let (marker, owner) = (marker.clone(), owner.clone());
                    async move {
                        use std::io::Write as _;
                        let mut f = std::fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(&marker)
                            .map_err(|e| oncely::ToolError::definite(e.to_string()))?;
                        f.write_all(format!("{key} {owner}\n").as_bytes()).map_err(|e| oncely::ToolError::ambiguous(e.to_string()))?;
                        f.sync_all().ok();
                        if sleep > 0 {
                            tokio::time::sleep(std::time::Duration::from_millis(sleep)).await;
                        }
                        if crash {
                            std::process::exit(137);
                        }
                        Ok(serde_json::json!({"by": owner}))
                    }
                })
                .await?;
            writeln!(out, "{}", serde_json::json!({"key": r.key, "replayed": r.replayed, "reconciled": r.reconciled, "value": r.value}))?;
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
