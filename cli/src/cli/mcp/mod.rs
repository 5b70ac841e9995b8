//! `oncely mcp`: a gateway between any MCP client and any MCP server that gives every keyed tool
//! exactly-once `tools/call` — the intent key, the claim before the call, replay, reconciliation
//! (through the server's own lookup tool) and escalation — with no code in the agent
//! (docs/mcp.md).
//!
//! - [`catalog`]: the server's tools and the policy of each; the release check at start-up.
//! - [`identity`]: which intent a call is (scope, run, step).
//! - [`gateway`]: how each request is answered; keyed calls as effects through the ledger.
//! - [`lookup`]: reconciliation through the server's read-only lookup tool.
//! - [`answers`]: what the model reads when a keyed call does not simply return.
//! - [`approval`]: asking the agent's user to approve a call, through MCP elicitation.
//! - [`session`], [`upstream`]: the two sides of the protocol (rmcp); [`wire`]: what is read
//!   from an agent before the SDK reads it, and how a malformed message is answered;
//!   [`salvage`]: what can be read of a message serde_json cannot represent; [`unmodeled`]: what
//!   the server lists of its tools that the SDK does not model (a tool's `execution`), carried
//!   around it.

mod answers;
mod approval;
mod catalog;
mod gateway;
mod identity;
mod lookup;
mod salvage;
mod session;
mod unmodeled;
mod upstream;
mod wire;

use anyhow::{bail, Result};
use clap::Args;
use gateway::{Gateway, Settings};
use identity::Defaults;
use oncely::Ledger;
use rmcp::service::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use session::Session;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use upstream::Target;

#[derive(Args)]
pub struct McpArgs {
    /// The ledger: a SQLite file path, a postgres:// URL or a redis:// URL ($ONCELY_DB, else ./oncely.db).
    #[arg(long)]
    db: Option<String>,
    /// Policies for tools whose schema carries none: a JSON object, tool name → policy
    /// (docs/key-scheme.md §6).
    #[arg(long)]
    policies: Option<PathBuf>,
    /// The scope of calls that name none in `_meta["oncely/scope"]` ($ONCELY_SCOPE, else "mcp").
    #[arg(long)]
    scope: Option<String>,
    /// The run of calls that name none in `_meta["oncely/run"]` ($ONCELY_RUN, else the MCP
    /// session; protocol 2026-07-28 has none, and such a keyed call is refused). Give one to make a
    /// restarted agent, or several gateways, one run.
    #[arg(long)]
    run: Option<String>,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// The server is at this Streamable HTTP URL (instead of a command after `--`).
    #[arg(long)]
    upstream_url: Option<String>,
    /// The longest a request to the server may take, in ms (a keyed call: also at most its
    /// policy's maxCallMs); past it, a keyed call's outcome is unknown.
    #[arg(long, default_value_t = 60_000)]
    call_timeout: u64,
    /// How long a keyed call waits for the same call running elsewhere before answering
    /// "in progress", in ms (default: the core's, 30 000; 0: answer at once).
    #[arg(long)]
    wait: Option<u64>,
    /// Read an `isError` result of this tool as an unknown outcome (reconciled, never re-run
    /// blindly) instead of a failure: for servers that report a failed provider call, which may
    /// have happened, as `isError`. Repeat for several tools; `*` for every tool.
    #[arg(long, value_name = "TOOL")]
    is_error_unknown: Vec<String>,
    /// Refuse to start when the release check over the server's tools finds an error.
    #[arg(long)]
    strict: bool,
    /// Sweep the ledger every this many ms: expire leases, reconcile through lookup tools,
    /// escalate (0: never).
    #[arg(long, default_value_t = 5_000)]
    sweep_every: u64,
    /// The server's command and its arguments (after `--`).
    #[arg(last = true)]
    command: Vec<String>,
}

pub async fn run(a: McpArgs) -> Result<ExitCode> {
    let target = match (a.upstream_url, a.command.is_empty()) {
        (Some(url), true) => Target::Url(url),
        (None, false) => Target::Command(a.command),
        (Some(_), false) => bail!("give the server either as --upstream-url or as a command after --, not both"),
        (None, true) => bail!("no server: give its command after -- (oncely mcp -- npx my-server) or --upstream-url"),
    };
    let db = a.db.or_else(|| std::env::var("ONCELY_DB").ok()).unwrap_or_else(|| "oncely.db".into());
    let ledger = Ledger::open(&db).await?;
    let policy_file = match &a.policies {
        Some(p) => catalog::read_policy_file(p)?,
        None => Default::default(),
    };
    let settings = Settings {
        defaults: Defaults {
            scope: a.scope.or_else(|| std::env::var("ONCELY_SCOPE").ok()).unwrap_or_else(|| "mcp".into()),
            run: a.run.or_else(|| std::env::var("ONCELY_RUN").ok()).filter(|r| !r.is_empty()),
        },
        call_timeout: Duration::from_millis(a.call_timeout),
        wait: a.wait.map(Duration::from_millis),
        is_error_unknown: a.is_error_unknown,
    };
    let gw = Gateway::start(ledger, target, settings, policy_file).await?;
    // stdout may be the MCP stream: everything the gateway says goes to stderr.
    eprintln!(
        "oncely mcp: server {:?} {} (protocol {})",
        gw.info.server_info.name,
        gw.info.server_info.version,
        gw.info.protocol_version.as_str()
    );
    if let Some(note) = no_run_note(a.listen.is_some(), gw.settings.defaults.run.is_some(), &gw.info.protocol_version) {
        eprintln!("oncely mcp: {note}");
    }
    let catalog = gw.catalog().await.map_err(|e| anyhow::anyhow!(e.message))?;
    for line in catalog.findings() {
        eprintln!("oncely mcp: {line}");
    }
    if !catalog.report.passed {
        if a.strict {
            gw.upstream.close().await;
            bail!("the release check over the server's tools failed (--strict)");
        }
        eprintln!("oncely mcp: the release check failed; serving anyway (--strict refuses)");
    }
    // The background sweep: expire leases, reconcile in-doubt entries through the server's
    // lookup tools, escalate what is past its deadline, purge what is past its retention.
    let sweeper = (a.sweep_every > 0).then(|| {
        gw.ledger.start_sweeper(None, Duration::from_millis(a.sweep_every), |pass| match pass {
            Ok(r) => r.escalated.iter().for_each(|e| eprintln!("oncely mcp: escalated to a human: {e}")),
            Err(e) => eprintln!("oncely mcp: sweep: {e}"),
        })
    });
    let served = match a.listen {
        None => serve_stdio(gw.clone()).await,
        Some(addr) => serve_http(gw.clone(), addr).await,
    };
    // No sweep pass (a lookup at the server) after this; calls still in flight finish and
    // record their results before the server goes.
    if let Some(s) = sweeper {
        s.stop().await;
    }
    gw.calls.close();
    if tokio::time::timeout(gw.settings.call_timeout, gw.calls.wait()).await.is_err() {
        eprintln!("oncely mcp: keyed calls still running at exit are left to reconciliation");
    }
    gw.upstream.close().await;
    served.map(|()| ExitCode::SUCCESS)
}

/// What the gateway says at start-up when it was given no `--run`: which calls then have a run.
fn no_run_note(listen: bool, run: bool, server: &rmcp::model::ProtocolVersion) -> Option<&'static str> {
    match (run, listen, server.has_initialize()) {
        (true, _, _) | (false, false, true) => None,
        (false, true, true) => Some(
            "no --run: each HTTP session is a run of its own, and a client whose session expired (idle 5 min) or \
             that reconnects starts a new one; give --run to keep it",
        ),
        (false, true, false) => Some(
            "no --run: a keyed call that names no run (_meta[\"oncely/run\"]) is keyed by its HTTP session before \
             protocol 2026-07-28 (a client that reconnects starts a new one) and refused on 2026-07-28, which has \
             no sessions; give --run to name one",
        ),
        (false, false, false) => Some(
            "no --run: protocol 2026-07-28 has no sessions, so an agent speaking it gets a keyed call that names no \
             run (_meta[\"oncely/run\"]) refused; give --run to name one",
        ),
    }
}

async fn serve_stdio(gw: Arc<Gateway>) -> Result<()> {
    // One agent: the server is told what that agent offers (roots, sampling, elicitation).
    gw.upstream.follow_first_agent();
    let running = Session::new(gw.clone()).serve(wire::stdio(gw.unmodeled.clone())).await?;
    running.waiting().await?;
    Ok(())
}

async fn serve_http(gw: Arc<Gateway>, addr: SocketAddr) -> Result<()> {
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts.push(addr.ip().to_string());
    // The gateway reads a body of at most MAX_LINE bytes first (wire::normalize_http), as over
    // stdio; the normalized body it passes on may be a little longer.
    config.max_request_body_bytes = wire::MAX_LINE.saturating_mul(2);
    let stop = config.cancellation_token.clone();
    let sessions = gw.clone();
    let service = StreamableHttpService::new(move || Ok(Session::new(sessions.clone())), Arc::new(LocalSessionManager::default()), config);
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(gw.unmodeled.clone(), wire::normalize_http));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("oncely mcp: serving http://{}/mcp", listener.local_addr()?);
    let shutdown = async move {
        let _ = tokio::signal::ctrl_c().await;
        // Ends the sessions' open event streams, which a graceful shutdown would wait for.
        stop.cancel();
    };
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await?;
    Ok(())
}
