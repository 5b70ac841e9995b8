//! `oncely key`: the idempotency key of one intent, or of each JSONL intent on stdin.

use super::input::{read_text, spec_of, IntentJson};
use super::render;
use anyhow::{bail, Context, Result};
use clap::Args;
use oncely::wit::keys::{Intent, KeySpec};
use oncely::Runtime;
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct KeyArgs {
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

pub fn run(a: KeyArgs) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let spec = spec_of(&rt, a.policy.as_deref())?;
    if a.lines {
        return lines(&rt, &spec, a.json);
    }
    let args_json = match (a.args, a.args_file) {
        (Some(t), _) => t,
        (None, Some(f)) => read_text(&f)?,
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

/// `--lines`: JSONL intents from stdin, derived in batches; output lines keep the input order.
fn lines(rt: &Runtime, spec: &KeySpec, json: bool) -> Result<ExitCode> {
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
