//! The provider side for axum and any `tower` stack: [`IdempotencyLayer`] makes your own HTTP
//! API honour the `Idempotency-Key` its clients send, with the same ledger as the client side.
//! Behind the crate feature `provider` (`cargo add oncely --features provider`).
//!
//! ```no_run
//! use axum::{routing::post, Router};
//! use oncely::provider::IdempotencyLayer;
//! # async fn refund() -> &'static str { "" }
//! # async fn app(ledger: oncely::Ledger) {
//! let app: Router = Router::new().route(
//!     "/refunds/{charge}",
//!     post(refund).layer(IdempotencyLayer::new(ledger, |req| req.headers()["x-account"].to_str().unwrap_or("").into()).required()),
//! );
//! # }
//! ```
//!
//! Every decision is the core's (`wit/provider.wit`, `docs/provider.md`): which requests are
//! keyed, the key and fingerprint, what a response means for the ledger, what a replay sends and
//! what each refusal says. The layer buffers the request and the handler's whole response,
//! records it, and only then answers; the handler runs in its own task, so a client that hangs
//! up (a timeout) never cancels it halfway: it finishes and is recorded, and the retry gets the
//! replay. A handler that panics or answers 5xx leaves its key in doubt (409 to every retry
//! until a lookup reconciler or a person settles it); it is never run again blindly.

use crate::error::Error;
use crate::ledger::{Ledger, ToolError};
use crate::wit::provider::{Admission, Answer, HttpRequest, HttpResponse, Operation, Recording, Refusal, Request as CoreRequest};
use axum::body::{to_bytes, Body};
use axum::extract::{MatchedPath, Request};
use axum::http::{self, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::ser::Error as _;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;
use tower::{Layer, Service};

/// What the handler can read from the request's extensions when its request is keyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    /// The key the client sent.
    pub client_key: String,
    /// The ledger key of the request (`oncely1:…`): store it with the effect, and a lookup
    /// reconciler finds it in one query.
    pub key: String,
}

type ScopeFn = Arc<dyn Fn(&Request) -> String + Send + Sync>;

/// A `tower` layer that runs each keyed request through the ledger. Put it on a route
/// (`MethodRouter::layer`) or on a router with `Router::route_layer`, so that the matched path
/// names the operation.
#[derive(Clone)]
pub struct IdempotencyLayer {
    config: Arc<Config>,
}

struct Config {
    ledger: Ledger,
    scope: ScopeFn,
    tool: Option<String>,
    policy_json: String,
    required: bool,
    /// None: the core's default (`core-defaults.provider-wait-ms`).
    wait: Option<Duration>,
    /// None: the core's default (`core-defaults.provider-max-body`).
    body_limit: Option<usize>,
    /// The core's provider defaults, read once: the wait (ms) and the body limit (bytes).
    defaults: OnceLock<(u64, u64)>,
}

impl Config {
    /// The wait and the body limit: as configured, else the core's defaults.
    fn limits(&self, rt: &crate::Runtime) -> Result<(Duration, usize), Error> {
        let (wait_ms, max_body) = match self.defaults.get() {
            Some(d) => *d,
            None => {
                let d = rt.defaults()?;
                *self.defaults.get_or_init(|| (d.provider_wait_ms, d.provider_max_body))
            }
        };
        let limit = self.body_limit.unwrap_or_else(|| usize::try_from(max_body).unwrap_or(usize::MAX));
        Ok((self.wait.unwrap_or(Duration::from_millis(wait_ms)), limit))
    }
}

impl IdempotencyLayer {
    /// A layer over `ledger`. `scope` names the client a request comes from: a stable tenant or
    /// account id (never the bearer token, which rotates: a retry would become a new effect).
    /// Keys of one scope are never seen by another.
    pub fn new<F>(ledger: Ledger, scope: F) -> Self
    where
        F: Fn(&Request) -> String + Send + Sync + 'static,
    {
        IdempotencyLayer {
            config: Arc::new(Config {
                ledger,
                scope: Arc::new(scope),
                tool: None,
                policy_json: String::new(),
                required: false,
                wait: None,
                body_limit: None,
                defaults: OnceLock::new(),
            }),
        }
    }

    fn with(mut self, f: impl FnOnce(&mut Config)) -> Self {
        let c = Arc::get_mut(&mut self.config).expect("configure the layer before cloning it");
        f(c);
        self
    }

    /// Refuse requests without a key (400 `idempotency-key-missing`).
    pub fn required(self) -> Self {
        self.with(|c| c.required = true)
    }

    /// The operation's name in the ledger. Default: the method and the matched route
    /// (`POST /refunds/{charge}`).
    pub fn tool(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.with(|c| c.tool = Some(name))
    }

    /// The operation's policy (`docs/key-scheme.md §6`): ignore pointers into the body, lease,
    /// retention, a lookup reconciler. Checked by the core when the layer is built.
    pub fn policy(self, json: &str) -> Result<Self, Error> {
        let check = Operation { tool: "check".into(), policy_json: json.into(), required: false };
        self.config.ledger.runtime().check_operation(&check)?.map_err(Error::Protocol)?;
        let json = json.to_string();
        Ok(self.with(|c| c.policy_json = json))
    }

    /// Wait this long for a concurrent request with the same key, and replay its response;
    /// by default the core's (`provider-wait-ms`, 0: answer 409 with `Retry-After` at once).
    pub fn wait(self, d: Duration) -> Self {
        self.with(|c| c.wait = Some(d))
    }

    /// The largest request body read; by default the core's (`provider-max-body`, 1 MiB). A
    /// larger one is answered 413 `request-too-large`.
    pub fn body_limit(self, bytes: usize) -> Self {
        self.with(|c| c.body_limit = Some(bytes))
    }
}

impl<S> Layer<S> for IdempotencyLayer {
    type Service = Idempotency<S>;

    fn layer(&self, inner: S) -> Idempotency<S> {
        Idempotency { inner, config: self.config.clone() }
    }
}

/// The service [`IdempotencyLayer`] wraps around a handler.
#[derive(Clone)]
pub struct Idempotency<S> {
    inner: S,
    config: Arc<Config>,
}

impl<S> Service<Request> for Idempotency<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        // The clone that was polled ready serves this request (tower's rule).
        let fresh = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, fresh);
        let config = self.config.clone();
        Box::pin(async move {
            // Its own task: a client that hangs up never cancels a handler halfway.
            let task = tokio::spawn(handle(config, ready, req));
            Ok(task.await.unwrap_or_else(|_| plain(StatusCode::INTERNAL_SERVER_ERROR, "the idempotency layer failed")))
        })
    }
}

/// The recorded result: the core's JSON text, stored verbatim.
enum Recorded {
    Text(Box<RawValue>),
    Unrecordable(String),
}

impl Serialize for Recorded {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        match self {
            Recorded::Text(raw) => raw.serialize(s),
            Recorded::Unrecordable(why) => Err(Z::Error::custom(why)),
        }
    }
}

impl<'de> Deserialize<'de> for Recorded {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Recorded::Text)
    }
}

/// The handler's own answer in this run: its response, or its panic.
enum Answered {
    Response(http::response::Parts, axum::body::Bytes),
    Panicked,
}

/// The handler's answer in this run, once it has one.
type Slot = Arc<Mutex<Option<Answered>>>;

async fn handle<S>(config: Arc<Config>, inner: S, req: Request) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    let rt = config.ledger.runtime().clone();
    let (wait, body_limit) = match config.limits(&rt) {
        Ok(limits) => limits,
        Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let tool = config.tool.clone().unwrap_or_else(|| {
        let path = req.extensions().get::<MatchedPath>().map_or_else(|| req.uri().path().to_string(), |m| m.as_str().to_string());
        format!("{} {path}", req.method())
    });
    let scope = (config.scope)(&req);
    let (parts, body) = req.into_parts();
    let keys: Vec<String> =
        parts.headers.get_all("idempotency-key").iter().map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()).collect();
    let content_type = parts.headers.get(http::header::CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let operation = Operation { tool, policy_json: config.policy_json.clone(), required: config.required };
    let request = |body: Vec<u8>| {
        CoreRequest::Http(HttpRequest {
            method: parts.method.as_str().to_string(),
            path: parts.uri.path().to_string(),
            query: parts.uri.query().unwrap_or("").to_string(),
            content_type: content_type.clone().unwrap_or_default(),
            body,
            keys: keys.clone(),
        })
    };
    // First without the body: whether the request passes or is refused never depends on it, so
    // an unkeyed request reaches the handler untouched (its body unread); only a keyed one is read.
    let body = match admit(&rt, &scope, &operation, &request(Vec::new())) {
        Err(answer) => return *answer,
        Ok(Admission::Pass) => {
            let mut inner = inner;
            return inner.call(Request::from_parts(parts, body)).await.unwrap_or_else(|e| match e {});
        }
        Ok(Admission::Refuse(r)) => return problem(&r),
        Ok(Admission::Keyed(_)) => match Limited::new(body, body_limit).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
                return match rt.oversized(body_limit as u64) {
                    Ok(r) => problem(&r),
                    Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
                }
            }
            // The client went away mid-upload: nothing was done, and nobody reads this.
            Err(e) => return plain(StatusCode::BAD_REQUEST, &format!("the request body could not be read: {e}")),
        },
    };
    let keyed = match admit(&rt, &scope, &operation, &request(body.to_vec())) {
        Err(answer) => return *answer,
        Ok(Admission::Keyed(k)) => k,
        Ok(Admission::Refuse(r)) => return problem(&r),
        Ok(Admission::Pass) => return plain(StatusCode::INTERNAL_SERVER_ERROR, "the core passed a keyed request"),
    };
    let keys = Keys { client_key: keyed.client_key.clone(), key: keyed.key.clone() };
    let slot: Slot = Arc::default();
    let run = {
        let slot = slot.clone();
        let rt = rt.clone();
        let ledger = &config.ledger;
        ledger.effect(&keyed.intent, &keyed.policy).wait(wait).run(move |_key| {
            let mut req = Request::from_parts(parts.clone(), Body::from(body.clone()));
            req.extensions_mut().insert(keys.clone());
            let mut inner = inner.clone();
            let slot = slot.clone();
            let rt = rt.clone();
            async move {
                let answered = tokio::spawn(async move {
                    let response = inner.call(req).await.unwrap_or_else(|e| match e {});
                    let (parts, body) = response.into_parts();
                    (parts, to_bytes(body, usize::MAX).await)
                })
                .await;
                let (parts, bytes) = match answered {
                    Ok((parts, Ok(bytes))) => (parts, bytes),
                    Ok((_, Err(e))) => return Err(ToolError::ambiguous(format!("the handler's response body failed: {e}"))),
                    Err(e) => {
                        *slot.lock().unwrap() = Some(Answered::Panicked);
                        return Err(ToolError::ambiguous(format!("the handler panicked: {e}")));
                    }
                };
                let response = HttpResponse {
                    status: parts.status.as_u16(),
                    headers: parts
                        .headers
                        .iter()
                        .filter_map(|(n, v)| Some((n.as_str().to_string(), v.to_str().ok()?.to_string())))
                        .collect(),
                    body: bytes.to_vec(),
                };
                *slot.lock().unwrap() = Some(Answered::Response(parts, bytes));
                match rt.record_http(&response) {
                    Ok(Recording::Returned(json)) => RawValue::from_string(json)
                        .map(Recorded::Text)
                        .map_err(|e| ToolError::ambiguous(format!("the core recorded invalid JSON: {e}"))),
                    Ok(Recording::Failed(f)) if f.definite => Err(ToolError::Definite(f.reason)),
                    Ok(Recording::Failed(f)) => Err(ToolError::Ambiguous(f.reason)),
                    Ok(Recording::Unrecordable(why)) => Ok(Recorded::Unrecordable(why)),
                    Err(e) => Err(ToolError::ambiguous(e.to_string())),
                }
            }
        })
    };
    let outcome = run.await;
    let ran = slot.lock().unwrap().take();
    match outcome {
        // The handler's own response when its value is the result (`tool-value`); else the
        // recorded one (a replay, or a reconciliation's verdict).
        Ok(r) => match (r.replayed || r.reconciled, ran) {
            (false, Some(Answered::Response(parts, bytes))) => Response::from_parts(parts, Body::from(bytes)),
            (_, _) => match r.value {
                Recorded::Text(raw) => match rt.replay_http(raw.get()) {
                    Ok(replay) => from_core(replay),
                    Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
                },
                Recorded::Unrecordable(why) => plain(StatusCode::INTERNAL_SERVER_ERROR, &why),
            },
        },
        Err(e) => {
            let Some(error) = e.effect_error() else {
                return plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string());
            };
            // The handler's own answer stands when it has one (a response, or its panic: a 500
            // as for any crash); a handler abandoned at its deadline has none yet.
            match rt.refuse(&error, ran.is_some()) {
                Ok(Answer::Handler) => match ran {
                    Some(Answered::Response(parts, bytes)) => Response::from_parts(parts, Body::from(bytes)),
                    _ => plain(StatusCode::INTERNAL_SERVER_ERROR, "the handler failed"),
                },
                Ok(Answer::Refuse(r)) => problem(&r),
                Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            }
        }
    }
}

/// The core's admission, or the answer to a misconfiguration (logged).
fn admit(rt: &crate::Runtime, scope: &str, operation: &Operation, request: &CoreRequest) -> Result<Admission, Box<Response>> {
    match rt.admit(scope, operation, request) {
        Ok(Ok(a)) => Ok(a),
        Ok(Err(why)) => {
            tracing::error!(target: "oncely", "idempotency layer misconfigured: {why}");
            Err(Box::new(plain(StatusCode::INTERNAL_SERVER_ERROR, "the idempotency layer is misconfigured")))
        }
        Err(e) => Err(Box::new(plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()))),
    }
}

fn from_core(r: HttpResponse) -> Response {
    let mut out = Response::new(Body::from(r.body));
    *out.status_mut() = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in r.headers {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&value)) {
            out.headers_mut().append(n, v);
        }
    }
    out
}

fn problem(r: &Refusal) -> Response {
    let mut out = Response::new(Body::from(r.problem_json.clone()));
    *out.status_mut() = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    out.headers_mut().insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"));
    if let Some(s) = r.retry_after_s {
        out.headers_mut().insert(http::header::RETRY_AFTER, HeaderValue::from(s));
    }
    out
}

fn plain(status: StatusCode, text: &str) -> Response {
    let mut out = Response::new(Body::from(text.to_string()));
    *out.status_mut() = status;
    out.headers_mut().insert(http::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    out
}
