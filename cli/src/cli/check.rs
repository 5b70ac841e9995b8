//! `oncely check`: the release gate over an MCP tool list.

use super::input::read_text;
use super::{render, untrusted};
use anyhow::Result;
use clap::Args;
use oncely::Runtime;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CheckArgs {
    /// A tools/list result ({"tools":[…]}), a JSON-RPC response, or an array of tools.
    tools: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

pub fn run(a: CheckArgs) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let text = read_text(&a.tools)?;
    let r = rt.check_manifest(&text)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", untrusted::json(&render::report(&r)))?;
    } else {
        for t in &r.tools {
            writeln!(out, "{:<24} {}", untrusted::line(&t.name), render::class(t.policy.class))?;
        }
        for f in &r.findings {
            let tool = untrusted::line(f.tool.as_deref().unwrap_or("-"));
            writeln!(out, "{}: {tool} [{}] {}", render::severity(f.severity), f.code, untrusted::line(&f.message))?;
        }
        let errors = r.findings.iter().filter(|f| render::severity(f.severity) == "error").count();
        writeln!(out, "{}", if r.passed { "check passed".to_string() } else { format!("check FAILED: {errors} error(s)") })?;
    }
    Ok(if r.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
