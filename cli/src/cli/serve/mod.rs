//! `oncely serve`: one long-running process over a ledger — the inbox where people settle what
//! only a person can and approve or deny calls awaiting approval (`/`), Prometheus metrics
//! (`/metrics`), webhooks for escalations, outcomes unknown too long, requests and decisions,
//! and the sweep, continuously.
//!
//! - `access`: credentials, sessions, and the cross-site checks.
//! - `pages`: the HTML.
//! - `metrics`: the Prometheus registry.
//! - `notify`: webhook notices, signed and retried.

mod access;
mod metrics;
mod notify;
mod pages;

use access::{Credentials, Session, Sessions, Throttle};
use anyhow::{Context, Result};
use axum::extract::rejection::{FormRejection, QueryRejection};
use axum::extract::{ConnectInfo, Extension, Form, Query, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use clap::Args;
use metrics::Metrics;
use notify::{Sent, Webhook};
use oncely::store::{WaitingCursor, WaitingPage};
use oncely::wit::ledger::{Attention, Decision, Entry, HeldDecision, LedgerErrorKind, Resolution, Settlement};
use oncely::{Error, Ledger};
use serde::Deserialize;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// The ledger: an existing SQLite file, a postgres:// URL or a redis:// URL (default: $ONCELY_DB).
    #[arg(long, env = "ONCELY_DB", hide_env_values = true)]
    db: String,
    /// Where to listen. 127.0.0.1 unless you say otherwise (put TLS in front of anything else).
    #[arg(long, default_value = "127.0.0.1:8471")]
    listen: std::net::SocketAddr,
    /// One token for everyone, in a file (taken whole; people give their name when they sign
    /// in). Default: $ONCELY_SERVE_TOKEN. There is no default token.
    #[arg(long, conflicts_with = "people_file")]
    token_file: Option<PathBuf>,
    /// One token per person: a file of `name:token` lines (the name is recorded with what that
    /// person settles).
    #[arg(long)]
    people_file: Option<PathBuf>,
    /// An entry in doubt for this long needs a person (the inbox, a webhook notice); default:
    /// the core's, 15 minutes.
    #[arg(long, value_parser = humantime::parse_duration)]
    in_doubt_after: Option<Duration>,
    /// Sweep this often (expire leases, escalate past deadlines) and look for new notices.
    #[arg(long, default_value = "5s", value_parser = interval)]
    sweep_every: Duration,
    /// POST a signed JSON notice here when an entry is escalated or in doubt too long, or a call
    /// awaits approval or is approved or denied (the secret: --webhook-secret-file or
    /// $ONCELY_WEBHOOK_SECRET).
    #[arg(long)]
    webhook: Option<String>,
    /// The webhook signature's shared secret (a file; or $ONCELY_WEBHOOK_SECRET).
    #[arg(long, env = "ONCELY_WEBHOOK_SECRET_FILE", hide_env_values = true)]
    webhook_secret_file: Option<PathBuf>,
    /// The first retry of a failed webhook after this long; each next one waits twice as long.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    webhook_retry: Duration,
    /// This server's address as people reach it (https://…, through your proxy): links in
    /// notices use it, and a form posted from it is this server's own. An https address marks
    /// the session cookie Secure.
    #[arg(long)]
    public_url: Option<String>,
    /// Mark the session cookie Secure (when people reach the inbox over HTTPS).
    #[arg(long)]
    secure_cookie: bool,
    /// Another name this server answers to (repeatable). Requests naming any other host are
    /// refused (DNS rebinding); always accepted: IP addresses, localhost and --public-url's host.
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// The request header your proxy puts the client's address in (e.g. X-Forwarded-For; its
    /// last value is taken): what sign-in attempts are limited by. Default: the TCP peer.
    #[arg(long, value_name = "HEADER")]
    client_ip_header: Option<header::HeaderName>,
}

/// A duration of more than zero.
fn interval(s: &str) -> Result<Duration, String> {
    match humantime::parse_duration(s) {
        Ok(d) if d.is_zero() => Err("must be more than zero".into()),
        Ok(d) => Ok(d),
        Err(e) => Err(e.to_string()),
    }
}

/// The origin (`scheme://host[:port]`) of a URL.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty())?;
    Some(format!("{scheme}://{host}"))
}

struct App {
    ledger: Ledger,
    credentials: Credentials,
    sessions: Sessions,
    throttle: Throttle,
    /// Host names (lowercase, without port) this server answers to besides IP addresses and
    /// localhost.
    hosts: Vec<String>,
    client_ip_header: Option<header::HeaderName>,
    metrics: Arc<Metrics>,
    in_doubt_after: Duration,
    secure_cookie: bool,
    public_origin: Option<String>,
    /// Where notices go, if anywhere.
    notices: Option<Notices>,
}

/// The webhook, what it has sent, and its HTTP client.
struct Notices {
    hook: Webhook,
    sent: Sent,
    client: reqwest::Client,
}

type Shared = Arc<App>;

pub async fn run(a: ServeArgs) -> Result<ExitCode> {
    let filter = std::env::var("ONCELY_LOG").ok().and_then(|l| l.parse::<tracing::Level>().ok()).unwrap_or(tracing::Level::INFO);
    let _ = tracing_subscriber::fmt().with_max_level(filter).with_writer(std::io::stderr).try_init();
    let credentials = Credentials::load(a.people_file.as_deref(), a.token_file.as_deref(), std::env::var("ONCELY_SERVE_TOKEN").ok())?;
    let mut hosts: Vec<String> = a.allowed_hosts.iter().map(|h| access::host_name(h).to_ascii_lowercase()).collect();
    hosts.extend(
        a.public_url
            .as_deref()
            .and_then(origin_of)
            .map(|o| access::host_name(o.split_once("://").map_or("", |p| p.1)).to_ascii_lowercase()),
    );
    let ledger = crate::cli::ledger::open_existing(&a.db, "oncely-serve").await?;
    let webhook = match &a.webhook {
        Some(url) => {
            let secret = match (&a.webhook_secret_file, std::env::var("ONCELY_WEBHOOK_SECRET")) {
                (Some(f), _) => std::fs::read(f).with_context(|| format!("reading {}", f.display()))?,
                (None, Ok(s)) => s.into_bytes(),
                (None, Err(_)) => anyhow::bail!("--webhook needs a secret: --webhook-secret-file or ONCELY_WEBHOOK_SECRET"),
            };
            let secret = secret.trim_ascii().to_vec();
            anyhow::ensure!(secret.len() >= 16, "the webhook secret must be at least 16 bytes");
            Some(Webhook {
                url: url.clone(),
                secret,
                public_url: a.public_url.clone(),
                first_delay: a.webhook_retry,
                max_delay: Duration::from_secs(300),
                attempts: 8,
                in_flight: Arc::new(tokio::sync::Semaphore::new(notify::IN_FLIGHT)),
            })
        }
        None => None,
    };
    let metrics = Arc::new(Metrics::default());
    let seen = metrics.clone();
    ledger.on_event(move |e| seen.observe(e));
    let app = Arc::new(App {
        ledger: ledger.clone(),
        credentials,
        sessions: Sessions::default(),
        throttle: Throttle::default(),
        hosts,
        client_ip_header: a.client_ip_header.clone(),
        metrics: metrics.clone(),
        in_doubt_after: match a.in_doubt_after {
            Some(d) => d,
            None => Duration::from_millis(ledger.defaults()?.in_doubt_after_ms),
        },
        secure_cookie: a.secure_cookie || a.public_url.as_deref().is_some_and(|u| u.starts_with("https://")),
        public_origin: a.public_url.as_deref().and_then(origin_of),
        notices: webhook.map(|hook| Notices { hook, sent: Sent::default(), client: reqwest::Client::new() }),
    });

    // The sweep (no reconcilers here: agents' sweepers run those), and the notices.
    let sweeper = ledger.start_sweeper(None, a.sweep_every, |pass| {
        if let Err(e) = pass {
            tracing::error!(target: "oncely::serve", error = %e, "sweep failed; trying again next interval");
        }
    });
    let watcher = app.notices.is_some().then(|| {
        let app = app.clone();
        let every = a.sweep_every;
        tokio::spawn(async move {
            let Some(n) = &app.notices else { return };
            // The calls awaiting approval at the last scan, and their versions: one that has
            // moved since was decided (here, with the CLI, by a library…), or asked again.
            let mut asked: HashMap<(String, String), u64> = HashMap::new();
            loop {
                match everyone_waiting(&app).await {
                    Ok(entries) => {
                        if let Err(e) = n.hook.scan(app.ledger.runtime(), &entries, app.ledger.now(), &n.sent, &n.client, &app.metrics) {
                            tracing::error!(target: "oncely::serve", error = %e, "notices were not sent: the core could not be asked");
                        }
                        let now_asked: HashMap<(String, String), u64> = entries
                            .iter()
                            .filter(|(_, why)| *why == Attention::Approval)
                            .map(|(e, _)| ((e.scope.clone(), e.key.clone()), e.version))
                            .collect();
                        for (at, version) in &asked {
                            if now_asked.get(at) != Some(version) {
                                decisions_since(&app, n, &at.0, &at.1, *version).await;
                            }
                        }
                        asked = now_asked;
                    }
                    Err(e) => tracing::error!(target: "oncely::serve", error = %e, "looking for notices failed"),
                }
                tokio::time::sleep(every).await;
            }
        })
    });

    // Who may reach what is decided before anything of a request is read: the pages need a
    // signed-in person, metrics a person or a bearer token; every route, a host of ours.
    let people = Router::new()
        .route("/", get(inbox))
        .route("/entry", get(entry))
        .route("/settle", post(settle))
        .route("/decide", post(decide))
        .route_layer(from_fn_with_state(app.clone(), signed_in));
    let scrapers = Router::new().route("/metrics", get(metrics_text)).route_layer(from_fn_with_state(app.clone(), scraper));
    let router = Router::new()
        .merge(people)
        .merge(scrapers)
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
        .route("/healthz", get(|| async { "ok" }))
        .layer(from_fn_with_state(app.clone(), known_host))
        .with_state(app.clone());
    let listener = tokio::net::TcpListener::bind(a.listen).await.with_context(|| format!("listening on {}", a.listen))?;
    tracing::info!(target: "oncely::serve", "oncely serve: the inbox at http://{}/ (ledger {}; credentials: {})", listener.local_addr()?, crate::cli::ledger::redacted(&a.db), app.credentials.describe());
    if !a.listen.ip().is_loopback() && !a.public_url.as_deref().is_some_and(|u| u.starts_with("https://")) {
        eprintln!(
            "oncely serve: warning: listening on {} over plain HTTP: tokens and session cookies would cross the network in the clear. Put TLS in front (a reverse proxy; SECURITY.md) and give --public-url https://…",
            a.listen
        );
    }
    eprintln!("oncely serve: listening on http://{}/", listener.local_addr()?);
    axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>()).with_graceful_shutdown(shutdown()).await?;
    if let Some(w) = watcher {
        w.abort();
    }
    sweeper.stop().await;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("a SIGTERM handler");
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Every entry that needs a person, and why (the core's `ledger.needs-person`: awaiting
/// approval, escalated, or in doubt for the threshold or longer), the longest waiting first:
/// every page of the ledger's `awaiting_approval` and `needs_person`, for the webhook's scan.
async fn everyone_waiting(app: &App) -> Result<Vec<(Entry, Attention)>, Error> {
    let mut found = Vec::new();
    let mut page = WaitingPage { limit: 500, ..Default::default() };
    loop {
        let p = app.ledger.awaiting_approval(&page).await?;
        found.extend(p.entries);
        match p.next {
            Some(next) => page.after = Some(next),
            None => break,
        }
    }
    let mut page = WaitingPage { limit: 500, ..Default::default() };
    loop {
        let p = app.ledger.needs_person(Some(ms(app.in_doubt_after)), &page).await?;
        found.extend(p.entries);
        match p.next {
            Some(next) => page.after = Some(next),
            None => return Ok(found),
        }
    }
}

/// Send the notices of the decisions made on `(scope, key)` after `version` (approved, denied:
/// its history says which, and under which id), wherever they were made.
async fn decisions_since(app: &App, n: &Notices, scope: &str, key: &str, version: u64) {
    let (history, entry) = match (app.ledger.history(scope, key).await, app.ledger.get(scope, key).await) {
        (Ok(h), Ok(Some(e))) => (h, e),
        (Ok(_), Ok(None)) => return,
        (Err(e), _) | (_, Err(e)) => {
            tracing::error!(target: "oncely::serve", error = %e, "a decision's notice was not sent: the entry could not be read");
            return;
        }
    };
    let rt = app.ledger.runtime();
    for h in history.iter().filter(|h| h.version > version) {
        // Which records note a person's decision is the core's (`ledger.history-decision`).
        let approved = match rt.history_decision(h.state, h.settlement.as_deref()) {
            Ok(Some(approved)) => approved,
            Ok(None) => continue,
            Err(e) => {
                tracing::error!(target: "oncely::serve", error = %e, "a decision's notice was not sent: the core could not be asked");
                return;
            }
        };
        if let Some(id) = &h.settlement {
            n.hook.decided(&entry, approved, id.clone(), app.ledger.now(), &n.client, &app.metrics);
        }
    }
}

/// Refuse a request that names a host this server is not (a DNS-rebinding page's): 421.
async fn known_host(State(app): State<Shared>, request: Request, next: Next) -> Response {
    if let Some(host) = request.headers().get(header::HOST) {
        let name = host.to_str().map(access::host_name).unwrap_or("");
        let ok = name.parse::<IpAddr>().is_ok()
            || name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok()
            || name.eq_ignore_ascii_case("localhost")
            || app.hosts.iter().any(|h| h.eq_ignore_ascii_case(name));
        if !ok {
            tracing::warn!(target: "oncely::serve", host = name, "a request for another host was refused");
            return (
                StatusCode::MISDIRECTED_REQUEST,
                "this server answers to its IP addresses, localhost, --public-url's host and --allowed-host names only\n",
            )
                .into_response();
        }
    }
    next.run(request).await
}

/// The address a request comes from: the last value of `--client-ip-header` when given and
/// readable, else the TCP peer.
fn client(app: &App, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
    app.client_ip_header
        .as_ref()
        .and_then(|h| headers.get_all(h).iter().next_back())
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(peer.ip())
}

/// The pages: a signed-in person only (the session goes to the handler); else to the sign-in
/// page (a form post: 401), before the request's query or form is read.
async fn signed_in(State(app): State<Shared>, mut request: Request, next: Next) -> Response {
    match app.sessions.of(request.headers()) {
        Some(s) => {
            request.extensions_mut().insert(s);
            next.run(request).await
        }
        None if request.method() == Method::GET => to_login(request.uri()),
        None => page(StatusCode::UNAUTHORIZED, pages::message(None, "Not signed in", "Sign in to settle entries.")),
    }
}

/// `/metrics`: a signed-in person, or a bearer token (checked within the throttle).
async fn scraper(State(app): State<Shared>, ConnectInfo(peer): ConnectInfo<SocketAddr>, request: Request, next: Next) -> Response {
    if app.sessions.of(request.headers()).is_some() {
        return next.run(request).await;
    }
    let Some(token) = access::bearer(request.headers()) else {
        return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "a bearer token is needed\n").into_response();
    };
    if let Err(wait) = app.throttle.admit(client(&app, request.headers(), peer)) {
        app.metrics.token_check("bearer", "throttled");
        return too_many(wait, "too many token checks; try again later\n".into_response());
    }
    if app.credentials.check(token).is_none() {
        app.metrics.token_check("bearer", "wrong");
        tracing::warn!(target: "oncely::serve", "a wrong bearer token");
        return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "a bearer token is needed\n").into_response();
    }
    app.metrics.token_check("bearer", "ok");
    next.run(request).await
}

/// 429, with when to try again.
fn too_many(wait: Duration, body: Response) -> Response {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut r = body;
    *r.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    r.headers_mut().insert(header::RETRY_AFTER, secs.max(1).into());
    r
}

/// To the sign-in page, and back to `uri` after it.
fn to_login(uri: &Uri) -> Response {
    let back = uri.path_and_query().map_or("/", |p| p.as_str());
    Redirect::to(&format!("/login?next={}", pages::query_value(back))).into_response()
}

/// Where to go after signing in (printable ASCII: the sign-in links percent-encode it): a path of this server only (never `//host` or `/\host`).
fn safe_next(next: Option<&str>) -> &str {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.starts_with("/\\") && n.chars().all(|c| c.is_ascii_graphic()) => n,
        _ => "/",
    }
}

/// The headers of every page: never cached, never framed (a settle button cannot be clicked
/// through another site's frame), no script, forms only to this server.
const PAGE_HEADERS: [(header::HeaderName, &str); 5] = [
    (header::CACHE_CONTROL, "no-store"),
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on a form
    // post, and the cross-site check could no longer tell a page of ours.
    (header::REFERRER_POLICY, "same-origin"),
];

fn page(status: StatusCode, markup: maud::Markup) -> Response {
    (status, PAGE_HEADERS, Html(markup.into_string())).into_response()
}

fn viewer(s: &Session) -> pages::Viewer<'_> {
    pages::Viewer { name: &s.name, csrf: &s.csrf }
}

fn failure(who: Option<pages::Viewer<'_>>, e: impl std::fmt::Display) -> Response {
    tracing::error!(target: "oncely::serve", error = %e, "request failed");
    page(StatusCode::SERVICE_UNAVAILABLE, pages::message(who, "The ledger could not be read", &e.to_string()))
}

#[derive(Deserialize)]
struct InboxQuery {
    order: Option<String>,
    /// Where the page starts: after the entry in doubt since `after_since` (ms) of
    /// `after_scope` and `after_key` (the last of the previous page).
    after_since: Option<u64>,
    after_scope: Option<String>,
    after_key: Option<String>,
    /// Where the page's calls awaiting approval start: after the one asked at
    /// `approvals_after_since` (ms) of `approvals_after_scope` and `approvals_after_key`.
    approvals_after_since: Option<u64>,
    approvals_after_scope: Option<String>,
    approvals_after_key: Option<String>,
}

fn cursor(since: Option<u64>, scope: Option<String>, key: Option<String>) -> Option<WaitingCursor> {
    match (since, scope, key) {
        (Some(since), Some(scope), Some(key)) => Some(WaitingCursor { since, scope, key }),
        _ => None,
    }
}

async fn inbox(State(app): State<Shared>, Extension(s): Extension<Session>, q: Result<Query<InboxQuery>, QueryRejection>) -> Response {
    let Ok(Query(q)) = q else { return refused(&s, StatusCode::BAD_REQUEST, "The address is not one of the inbox's.") };
    let newest_first = q.order.as_deref() == Some("newest");
    let after = cursor(q.after_since, q.after_scope, q.after_key);
    let approvals_after = cursor(q.approvals_after_since, q.approvals_after_scope, q.approvals_after_key);
    // Pages of the core's size (`core-defaults.page-size`).
    let wanted = WaitingPage { newest_first, after: after.clone(), limit: 0 };
    let approvals_wanted = WaitingPage { newest_first, after: approvals_after.clone(), limit: 0 };
    let threshold = Some(ms(app.in_doubt_after));
    let (found, approvals, count) = match (
        app.ledger.needs_person(threshold, &wanted).await,
        app.ledger.awaiting_approval(&approvals_wanted).await,
        app.ledger.needs_person_count(threshold).await,
    ) {
        (Ok(found), Ok(approvals), Ok(count)) => (found, approvals, count),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return failure(Some(viewer(&s)), e),
    };
    let entries: Vec<Entry> = found.entries.into_iter().map(|(e, _)| e).collect();
    let asked: Vec<Entry> = approvals.entries.into_iter().map(|(e, _)| e).collect();
    let shown = pages::InboxPage {
        approvals: &asked,
        approvals_after: approvals_after.as_ref(),
        approvals_next: approvals.next.as_ref(),
        entries: &entries,
        count,
        newest_first,
        after: after.as_ref(),
        next: found.next.as_ref(),
        in_doubt_after: &humantime::format_duration(app.in_doubt_after).to_string(),
    };
    page(StatusCode::OK, pages::inbox(viewer(&s), &shown, app.ledger.now()))
}

#[derive(Deserialize)]
struct EntryQuery {
    scope: String,
    key: String,
    settled: Option<String>,
    decided: Option<String>,
}

async fn entry(State(app): State<Shared>, Extension(s): Extension<Session>, q: Result<Query<EntryQuery>, QueryRejection>) -> Response {
    let Ok(Query(q)) = q else { return refused(&s, StatusCode::BAD_REQUEST, "The address names no entry (scope and key).") };
    let flash = q.settled.map(pages::Flash::Settled).or(q.decided.map(pages::Flash::Decided));
    entry_page(&app, &s, &q.scope, &q.key, flash.as_ref(), StatusCode::OK).await
}

async fn entry_page(app: &App, s: &Session, scope: &str, key: &str, flash: Option<&pages::Flash>, status: StatusCode) -> Response {
    match (app.ledger.get(scope, key).await, app.ledger.history(scope, key).await) {
        (Ok(Some(e)), Ok(h)) => {
            // "Settled" and "recorded" are said only of the decision the entry holds (not of any
            // link's word).
            let flash = flash.filter(|f| match f {
                pages::Flash::Settled(id) | pages::Flash::Decided(id) => e.settlement.as_ref() == Some(id),
                pages::Flash::Refused(_) => true,
            });
            // What a person may do here: settle an outcome, or decide on a request, or withdraw
            // an approval not yet used (the core says which: `settleable`, `decision-of`).
            let rt = app.ledger.runtime();
            let open = match (rt.settleable(e.state), rt.decision_of(&e)) {
                (Err(e), _) | (_, Err(e)) => return failure(Some(viewer(s)), e),
                (Ok(true), _) => pages::Open::Settle,
                (_, Ok(Some(HeldDecision::Asked(_)))) => pages::Open::Decide,
                (_, Ok(Some(HeldDecision::Approved(a)))) if a.unused => pages::Open::Withdraw,
                _ => pages::Open::Nothing,
            };
            let last = if open == pages::Open::Decide {
                match app.ledger.last_approved(&e.scope, &e.tool, &e.key).await {
                    Ok(last) => last,
                    Err(e) => return failure(Some(viewer(s)), e),
                }
            } else {
                None
            };
            page(status, pages::entry(viewer(s), &e, &h, flash, open, last.as_ref(), app.ledger.now()))
        }
        (Ok(None), _) => page(StatusCode::NOT_FOUND, pages::message(Some(viewer(s)), "No such entry", "It may have been purged.")),
        (Err(e), _) | (_, Err(e)) => failure(Some(viewer(s)), e),
    }
}

#[derive(Deserialize)]
struct SettleForm {
    csrf: Option<String>,
    scope: String,
    key: String,
    version: u64,
    verdict: String,
    result: Option<String>,
    note: Option<String>,
}

async fn settle(
    State(app): State<Shared>,
    Extension(s): Extension<Session>,
    headers: HeaderMap,
    form: Result<Form<SettleForm>, FormRejection>,
) -> Response {
    let f = match accepted(&app, &s, &headers, form, |f: &SettleForm| f.csrf.as_deref(), "a settlement was refused") {
        Ok(f) => f,
        Err(refusal) => return *refusal,
    };
    let settlement = match f.verdict.as_str() {
        "happened" => {
            let result = f.result.unwrap_or_default();
            if let Err(e) = app.ledger.runtime().canonicalize(&result) {
                let why = format!("The result must be JSON: {e}. Nothing was recorded.");
                return entry_page(&app, &s, &f.scope, &f.key, Some(&pages::Flash::Refused(why)), StatusCode::UNPROCESSABLE_ENTITY).await;
            }
            Settlement::Happened(result)
        }
        "not-happened" => Settlement::NotHappened,
        _ => return page(StatusCode::BAD_REQUEST, pages::message(Some(viewer(&s)), "Refused", "Unknown verdict.")),
    };
    let resolution = Resolution { settlement, by: s.name.clone(), note: f.note.unwrap_or_default(), seen_version: f.version };
    match app.ledger.resolve(&f.scope, &f.key, resolution).await {
        Ok(id) => {
            let href = format!("/entry?scope={}&key={}&settled={id}", pages::query_value(&f.scope), pages::query_value(&f.key));
            Redirect::to(&href).into_response()
        }
        Err(Error::Ledger(l)) => {
            let why = not_recorded(f.version, &l);
            entry_page(&app, &s, &f.scope, &f.key, Some(&pages::Flash::Refused(why)), StatusCode::CONFLICT).await
        }
        Err(e) => failure(Some(viewer(&s)), e),
    }
}

#[derive(Deserialize)]
struct DecideForm {
    csrf: Option<String>,
    scope: String,
    key: String,
    version: u64,
    decision: String,
    note: Option<String>,
}

/// Approve or deny a call awaiting approval (or deny an approval not used yet), as the person
/// signed in, on the version they saw.
async fn decide(
    State(app): State<Shared>,
    Extension(s): Extension<Session>,
    headers: HeaderMap,
    form: Result<Form<DecideForm>, FormRejection>,
) -> Response {
    let f = match accepted(&app, &s, &headers, form, |f: &DecideForm| f.csrf.as_deref(), "a decision was refused") {
        Ok(f) => f,
        Err(refusal) => return *refusal,
    };
    let decision = Decision { by: s.name.clone(), note: f.note.unwrap_or_default(), seen_version: f.version };
    let approve = match f.decision.as_str() {
        "approve" => true,
        "deny" => false,
        _ => return page(StatusCode::BAD_REQUEST, pages::message(Some(viewer(&s)), "Refused", "Unknown decision.")),
    };
    let decided =
        if approve { app.ledger.approve(&f.scope, &f.key, decision).await } else { app.ledger.deny(&f.scope, &f.key, decision).await };
    match decided {
        Ok(id) => {
            let href = format!("/entry?scope={}&key={}&decided={id}", pages::query_value(&f.scope), pages::query_value(&f.key));
            Redirect::to(&href).into_response()
        }
        Err(Error::Ledger(l)) => {
            let why = not_recorded(f.version, &l);
            entry_page(&app, &s, &f.scope, &f.key, Some(&pages::Flash::Refused(why)), StatusCode::CONFLICT).await
        }
        Err(e) => failure(Some(viewer(&s)), e),
    }
}

/// A form that changes something, read whole and from this server's own pages (its session's
/// CSRF token, no cross-site Origin): else the page that refuses it (nothing recorded).
fn accepted<F>(
    app: &App,
    s: &Session,
    headers: &HeaderMap,
    form: Result<Form<F>, FormRejection>,
    csrf: impl Fn(&F) -> Option<&str>,
    what: &'static str,
) -> Result<F, Box<Response>> {
    let f = match form {
        Ok(Form(f)) => f,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return Err(Box::new(refused(s, StatusCode::PAYLOAD_TOO_LARGE, "The form is larger than 2 MB. Nothing was recorded.")))
        }
        Err(_) => return Err(Box::new(refused(s, StatusCode::BAD_REQUEST, "The form is incomplete. Nothing was recorded."))),
    };
    if let Some(why) = access::cross_site(headers, csrf(&f), Some(s), app.public_origin.as_deref()) {
        tracing::warn!(target: "oncely::serve", why, "{what}");
        return Err(Box::new(page(StatusCode::FORBIDDEN, pages::message(Some(viewer(s)), "Refused", why))));
    }
    Ok(f)
}

/// Why the ledger refused a person's decision on the version they saw.
fn not_recorded(version: u64, l: &oncely::wit::ledger::LedgerError) -> String {
    match l.kind {
        LedgerErrorKind::Changed => {
            format!("Not recorded: the entry changed while you were looking at version {version} ({}). Review it again below.", l.message)
        }
        _ => format!("Not recorded: {}", l.message),
    }
}

/// A page that says why a request was refused.
fn refused(s: &Session, status: StatusCode, why: &str) -> Response {
    page(status, pages::message(Some(viewer(s)), "Refused", why))
}

#[derive(Deserialize)]
struct LoginQuery {
    next: Option<String>,
}

async fn login_page(State(app): State<Shared>, Query(q): Query<LoginQuery>) -> Response {
    page(StatusCode::OK, pages::login(app.credentials.shared(), safe_next(q.next.as_deref()), None))
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
    name: Option<String>,
    next: Option<String>,
}

async fn login(
    State(app): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    form: Result<Form<LoginForm>, FormRejection>,
) -> Response {
    if let Some(why) = access::cross_site(&headers, None, None, app.public_origin.as_deref()) {
        return page(StatusCode::FORBIDDEN, pages::message(None, "Refused", why));
    }
    let Ok(Form(f)) = form else {
        return page(StatusCode::BAD_REQUEST, pages::login(app.credentials.shared(), "/", Some("The form is incomplete.")));
    };
    let next = safe_next(f.next.as_deref()).to_string();
    if let Err(wait) = app.throttle.admit(client(&app, &headers, peer)) {
        app.metrics.token_check("sign-in", "throttled");
        tracing::warn!(target: "oncely::serve", "sign-ins throttled");
        let why = format!("Too many sign-in attempts. Try again in {} s.", wait.as_secs() + 1);
        return too_many(wait, page(StatusCode::OK, pages::login(app.credentials.shared(), &next, Some(&why))));
    }
    let name = match app.credentials.check(&f.token) {
        Some(Some(name)) => name,
        Some(None) => match f.name.as_deref().map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => {
                return page(
                    StatusCode::BAD_REQUEST,
                    pages::login(true, &next, Some("Give your name: it is recorded with what you settle.")),
                )
            }
        },
        None => {
            app.metrics.token_check("sign-in", "wrong");
            tracing::warn!(target: "oncely::serve", "a sign-in with a wrong token");
            return page(StatusCode::UNAUTHORIZED, pages::login(app.credentials.shared(), &next, Some("That token is not valid.")));
        }
    };
    app.metrics.token_check("sign-in", "ok");
    let id = app.sessions.open(name);
    (StatusCode::SEE_OTHER, [(header::SET_COOKIE, access::session_cookie(&id, app.secure_cookie)), (header::LOCATION, next)])
        .into_response()
}

#[derive(Deserialize)]
struct LogoutForm {
    csrf: Option<String>,
}

async fn logout(State(app): State<Shared>, headers: HeaderMap, form: Result<Form<LogoutForm>, FormRejection>) -> Response {
    let csrf = form.ok().and_then(|Form(f)| f.csrf);
    if let Some(s) = app.sessions.of(&headers) {
        if let Some(why) = access::cross_site(&headers, csrf.as_deref(), Some(&s), app.public_origin.as_deref()) {
            return page(StatusCode::FORBIDDEN, pages::message(Some(viewer(&s)), "Refused", why));
        }
    }
    app.sessions.close(&headers);
    (StatusCode::SEE_OTHER, [(header::SET_COOKIE, access::cleared_cookie()), (header::LOCATION, "/login".to_string())]).into_response()
}

async fn metrics_text(State(app): State<Shared>) -> Response {
    let stats = match app.ledger.stats().await {
        Ok(s) => s,
        Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    };
    let waiting = match app.ledger.needs_person_count(Some(ms(app.in_doubt_after))).await {
        Ok(c) => c.total(),
        Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    };
    let body = app.metrics.render(&stats, waiting, app.ledger.now());
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], body).into_response()
}
