//! `oncely`, the command of the crate `oncely-cli` (the library is the crate `oncely`, `host/`):
//! canonical JSON, intent keys, why two intents share a key, the release gate over MCP tool
//! lists, the effect ledger for humans, the MCP gateway (`oncely mcp`), the inbox (`oncely
//! serve`), a demo, and the embedded core component written out for packaging. Exit codes: 0
//! success; 1 the command ran and the answer is "no" (a failed check, invalid lines in
//! `--lines` mode); 2 an error (bad input, usage, storage). Errors go to stderr; stdout never
//! carries half an answer.
//!
//! This file is the command line and the exit codes; each command family is a module of `cli/`.

mod cli;

use anyhow::Result;
use clap::{Parser, Subcommand};
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
    Canon(cli::canon::CanonArgs),
    /// Print the idempotency key of an intent.
    Key(cli::key::KeyArgs),
    /// Explain why two intents (JSON files) do or don't share a key.
    Explain(cli::explain::ExplainArgs),
    /// Release gate: check an MCP tool list with oncely policies; exit 1 on any error finding.
    Check(cli::check::CheckArgs),
    /// Inspect and settle the effect ledger.
    Ledger(cli::ledger::LedgerArgs),
    /// A gateway that gives any MCP server's keyed tools exactly-once tools/call.
    #[cfg(feature = "mcp")]
    Mcp(cli::mcp::McpArgs),
    /// The inbox where people settle what only a person can, Prometheus metrics, webhooks, and
    /// the sweep: one long-running process over a ledger.
    #[cfg(feature = "serve")]
    Serve(cli::serve::ServeArgs),
    /// The main job: a flaky refund provider, a naive retry loop, and oncely, side by side.
    Demo(cli::demo::DemoArgs),
    /// Write the core component (.wasm) this binary embeds, for packaging.
    Component(cli::component::ComponentArgs),
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
            eprintln!("oncely: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line, each said once: a cause that the line already ends with
/// (drivers repeat their source at the end of their own message) is left out.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() || line.ends_with(text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(text);
    }
    line.replace('\n', " ")
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Canon(args) => cli::canon::run(args),
        Command::Key(args) => cli::key::run(args),
        Command::Explain(args) => cli::explain::run(args),
        Command::Check(args) => cli::check::run(args),
        Command::Ledger(args) => tokio_main(cli::ledger::run(args)),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => tokio_main(cli::mcp::run(args)),
        #[cfg(feature = "serve")]
        Command::Serve(args) => tokio_main(cli::serve::run(args)),
        Command::Demo(args) => tokio_main(cli::demo::run(args)),
        Command::Component(args) => cli::component::run(args),
    }
}

fn tokio_main<F: std::future::Future<Output = Result<ExitCode>>>(f: F) -> Result<ExitCode> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(f)
}
