//! `oncely explain`: why two intents do or don't share a key.

use super::input::{read_text, spec_of, IntentJson};
use super::{render, untrusted};
use anyhow::{Context, Result};
use clap::Args;
use oncely::Runtime;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ExplainArgs {
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
}

pub fn run(args: ExplainArgs) -> Result<ExitCode> {
    let (a, b, policy) = (args.a.as_path(), args.b.as_path(), args.policy.as_deref());
    let rt = Runtime::shared()?;
    let ta = read_text(a)?;
    let tb = read_text(b)?;
    let ia: IntentJson = serde_json::from_str(&ta).with_context(|| format!("{}: not an intent", a.display()))?;
    let ib: IntentJson = serde_json::from_str(&tb).with_context(|| format!("{}: not an intent", b.display()))?;
    let spec = match (policy, ia.policy) {
        (Some(_), _) => spec_of(&rt, policy)?,
        (None, Some(p)) => rt.parse_policy(p.get())?.key.map_or_else(|| rt.default_spec(), Ok)?,
        (None, None) => rt.default_spec()?,
    };
    let e = rt.explain(&ia.intent(), &ib.intent(), &spec)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", untrusted::json(&render::explanation(&e)))?;
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
        let at = d.pointer.as_deref().map(|p| format!(" at {}", untrusted::line(p))).unwrap_or_default();
        let show = |v: &Option<String>| v.as_deref().map_or_else(|| "(absent)".into(), |v| untrusted::line(v).into_owned());
        writeln!(out, "  - {}{at}: {} vs {} — {}", render::part(d.part), show(&d.a), show(&d.b), render::effect(d.effect))?;
    }
    if e.differences.is_empty() {
        writeln!(out, "  (the intents are identical)")?;
    }
    Ok(ExitCode::SUCCESS)
}
