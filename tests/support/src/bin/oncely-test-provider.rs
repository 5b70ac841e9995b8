//! `oncely-test-provider`: a test helper, never shipped. A small refunds API on axum behind
//! `oncely::provider::IdempotencyLayer`, for this crate's `tests/provider.rs` to drive as a real
//! server process with a real HTTP client. It prints `listening <port>` once it accepts
//! connections.
//!
//! Every POST first appends `arrive <path> <key>` (before the layer: the request reached the
//! server). Routes (the account is the `x-account` header; scope `acct:<account>`):
//! - `POST /refunds/{charge}` (key required; lease 1.5 s; bodies up to 64 KiB): appends
//!   `start <charge> <client key>` to EFFECTS (fsynced) when it starts; with `"hold": true` in
//!   the body it waits for the file EFFECTS.release-<charge>; sleeps `sleep_ms`; `"fail": "panic"` panics, `"fail": "500"` answers 500,
//!   `"fail": "429"` answers 429; else appends `done <charge> <response body>` and answers 201
//!   with a `Location`, a `Set-Cookie` and a body that differs on every execution.
//! - `GET /refunds/{charge}`: 200, through the layer (GET is never keyed).
//! - `POST /charges/{id}` (key required; a lookup reconciler, due at once): appends `charge
//!   <ledger key>` and answers 500, as if the charge went through and the answer was lost; the
//!   reconciler finds the line and says it happened, with `{"charge": id, "found": true}`.
//! - `POST /payouts` (key optional; `requested_at` ignored in the fingerprint): appends
//!   `payout <body>` and answers 200.
//!
//! Part of the unpublished crate `oncely-test-support` (tests/support/), never shipped.

use anyhow::Result;
use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use clap::Parser;
use oncely::provider::{IdempotencyLayer, Keys};
use oncely::wit::ledger::ReconcileVerdict;
use oncely::Ledger;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
struct Args {
    /// The ledger: a SQLite file path, a postgres:// URL or a redis:// URL.
    #[arg(long)]
    db: String,
    /// Where handlers append what they do.
    #[arg(long)]
    effects: PathBuf,
    /// Wait for a concurrent request with the same key this long (ms) instead of answering 409;
    /// absent: the core's default.
    #[arg(long)]
    wait_ms: Option<u64>,
    /// The largest request body read (bytes); absent: the core's default.
    #[arg(long)]
    body_limit: Option<usize>,
}

struct App {
    effects: PathBuf,
    counter: AtomicU64,
}

impl App {
    fn append(&self, line: &str) {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.effects).expect("open EFFECTS");
        writeln!(f, "{line}").expect("append");
        f.sync_all().expect("fsync");
    }
}

fn account(req: &Request) -> String {
    let a = req.headers().get("x-account").and_then(|v| v.to_str().ok()).unwrap_or("default");
    format!("acct:{a}")
}

async fn refund(State(app): State<Arc<App>>, Path(charge): Path<String>, keys: Option<axum::Extension<Keys>>, body: String) -> Response {
    let Ok(body) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "the body must be JSON").into_response();
    };
    let key = keys.map(|k| k.0.client_key).unwrap_or_default();
    app.append(&format!("start {charge} {key}"));
    if body["hold"] == true {
        let release = app.effects.with_extension(format!("release-{charge}"));
        while !release.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    if let Some(ms) = body["sleep_ms"].as_u64() {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    match body["fail"].as_str() {
        Some("panic") => panic!("the refund handler crashed"),
        Some("500") => return (StatusCode::INTERNAL_SERVER_ERROR, "the refund failed halfway").into_response(),
        Some("429") => return (StatusCode::TOO_MANY_REQUESTS, "slow down").into_response(),
        _ => {}
    }
    let n = app.counter.fetch_add(1, Ordering::SeqCst) + 1;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let out = json!({"refund": format!("re_{n}_{nanos}"), "charge": charge, "amount": body["amount"]}).to_string();
    app.append(&format!("done {charge} {out}"));
    (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json"), (header::LOCATION, "/refunds/re_1"), (header::SET_COOKIE, "session=abc")],
        out,
    )
        .into_response()
}

async fn charge(State(app): State<Arc<App>>, keys: axum::Extension<Keys>) -> Response {
    app.append(&format!("charge {}", keys.0.key));
    (StatusCode::BAD_GATEWAY, "the card network did not answer").into_response()
}

/// Outside the layer: note that a request reached the server.
async fn arrive(State(app): State<Arc<App>>, req: Request, next: axum::middleware::Next) -> Response {
    if req.method() == axum::http::Method::POST {
        let key = req.headers().get("idempotency-key").and_then(|v| v.to_str().ok()).unwrap_or("");
        app.append(&format!("arrive {} {key}", req.uri().path()));
    }
    next.run(req).await
}

async fn payout(State(app): State<Arc<App>>, body: String) -> String {
    app.append(&format!("payout {body}"));
    format!("paid {}", app.counter.fetch_add(1, Ordering::SeqCst))
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let ledger = Ledger::open(&args.db).await?;
    let app = Arc::new(App { effects: args.effects, counter: AtomicU64::new(0) });
    let mut refunds = IdempotencyLayer::new(ledger.clone(), account).required().policy(r#"{"leaseMs": 1500}"#)?;
    if let Some(bytes) = args.body_limit {
        refunds = refunds.body_limit(bytes);
    }
    if let Some(ms) = args.wait_ms {
        refunds = refunds.wait(Duration::from_millis(ms));
    }
    let effects = app.effects.clone();
    ledger.reconciler("POST /charges/{id}", move |req| {
        let found = std::fs::read_to_string(&effects).unwrap_or_default().lines().any(|l| l == format!("charge {}", req.key));
        async move {
            if found {
                ReconcileVerdict::Happened(json!({"found": true, "key": req.key}).to_string())
            } else {
                ReconcileVerdict::NotHappened
            }
        }
    });
    let charges = IdempotencyLayer::new(ledger.clone(), account)
        .required()
        .policy(r#"{"reconcile": {"lookup": "find_charge"}, "reconcileAfterMs": 0}"#)?;
    let payouts = IdempotencyLayer::new(ledger, account).policy(r#"{"key": {"ignore": ["/requested_at"]}}"#)?;
    let router = Router::new()
        .route("/refunds/{charge}", post(refund).get(|| async { "refunds" }).route_layer(refunds))
        .route("/charges/{id}", post(charge).route_layer(charges))
        .route("/payouts", post(payout).route_layer(payouts))
        .layer(axum::middleware::from_fn_with_state(app.clone(), arrive))
        .with_state(app);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?.port());
    std::io::stdout().flush()?;
    axum::serve(listener, router).await?;
    Ok(())
}
