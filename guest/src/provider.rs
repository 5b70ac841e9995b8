//! The provider side (`wit/provider.wit`): how a server that receives a client's idempotency key
//! turns its request into a ledger intent, what its handler's response means for the ledger,
//! how a recorded response is replayed, and what every refusal says. Middleware in every host
//! (ASGI, Hono, Express, tower, MCP tool wrappers) only moves bytes; the rules are here:
//!
//! - the key: one `Idempotency-Key` field, an RFC 8941 sf-string or a raw token, 1–255 printable
//!   ASCII characters; on MCP `_meta.idempotencyKey`, `_meta["oncely/key"]` and
//!   `params.idempotencyKey` must agree;
//! - the ledger key is derived from scope, operation and the client's key alone (`only`,
//!   identity `scope`); the fingerprint covers method, path, query and the canonical JSON body
//!   (or the body's SHA-256 when it is not JSON), minus the policy's ignore pointers;
//! - safe methods and the classes that do not use the ledger pass through;
//! - 2xx, 3xx and 4xx are recorded and replayed, except 408/409/425/429 (nothing was done:
//!   definite failures); 5xx is an unknown outcome (in doubt, never run again blindly);
//! - the answers: 400 missing/invalid key, 422 reused key with the differing pointer, 409 in
//!   progress (with `Retry-After`), in doubt or escalated, 5xx for the ledger's own failures.

use crate::canonical::canonicalize_bytes;
use crate::effect_wit::{EffectError, ToolFailure};
use crate::json::{self, write_string, Value};
use crate::keys::{derive, parse_spec, sha256_hex};
use crate::keys_wit::{Intent, KeyIdentity, KeySpec};
use crate::policy::{parse_policy_or, uses_ledger};
use crate::policy_wit::{EffectClass, ReconcilePath, ToolPolicy};
use crate::prelude::*;
use crate::provider_wit::{
    Admission, Answer, Guest, HttpRequest, HttpResponse, KeyedCall, McpCall, Operation, Recording, Refusal, Request,
};
use crate::text::{push_u64, put, Q};

/// Where the problem types are documented (`type` is this + `#` + the kind).
pub const PROBLEM_DOCS: &str = "https://github.com/oncely/oncely/blob/main/docs/provider.md";
/// The longest key accepted (characters).
pub const MAX_KEY_CHARS: usize = 255;
/// The largest response body recorded (bytes); a larger one is recorded without a result.
pub const MAX_RECORDED_BODY: usize = 1024 * 1024;
/// The response header fields a replay repeats (lowercase).
pub const STORED_HEADERS: [&str; 10] = [
    "content-type",
    "content-encoding",
    "content-language",
    "content-location",
    "location",
    "etag",
    "last-modified",
    "link",
    "cache-control",
    "vary",
];
/// The args member that holds the client's key.
const KEY_MEMBER: &str = "/idempotencyKey";
/// The member a body that is not JSON is fingerprinted under (escaped as a pointer token).
const BYTES_MEMBER: &str = "oncely/bytes";

/// A refusal with its problem document.
fn refusal(
    status: u16,
    kind: &str,
    title: &str,
    detail: String,
    pointer: Option<String>,
    part: Option<&str>,
    retry: Option<u64>,
) -> Refusal {
    // Members in canonical (sorted) order.
    let mut doc = String::from("{\"detail\":");
    write_string(&detail, &mut doc);
    if let Some(part) = part {
        put(&mut doc, ",\"part\":");
        write_string(part, &mut doc);
    }
    if let Some(p) = &pointer {
        put(&mut doc, ",\"pointer\":");
        write_string(p, &mut doc);
    }
    put(&mut doc, ",\"status\":");
    push_u64(u64::from(status), &mut doc);
    put(&mut doc, ",\"title\":");
    write_string(title, &mut doc);
    put(&mut doc, ",\"type\":");
    write_string(&msg![PROBLEM_DOCS, "#", kind], &mut doc);
    put(&mut doc, "}");
    Refusal {
        status,
        kind: kind.to_string(),
        title: title.to_string(),
        detail,
        pointer,
        part: part.map(ToString::to_string),
        retry_after_s: retry,
        problem_json: doc,
    }
}

/// `provider.mcp-refusal`: the `CallToolResult` JSON of a refusal (members in canonical order).
pub fn mcp_refusal(r: &Refusal, client_key: Option<&str>) -> String {
    let mut out = String::from("{\"_meta\":{");
    if let Some(k) = client_key {
        put(&mut out, "\"oncely/key\":");
        write_string(k, &mut out);
        put(&mut out, ",");
    }
    if let Some(p) = &r.pointer {
        put(&mut out, "\"oncely/pointer\":");
        write_string(p, &mut out);
        put(&mut out, ",");
    }
    put(&mut out, "\"oncely/refusal\":");
    write_string(&r.kind, &mut out);
    if let Some(s) = r.retry_after_s {
        put(&mut out, ",\"oncely/retryAfterS\":");
        push_u64(s, &mut out);
    }
    put(&mut out, "},\"content\":[{\"text\":");
    write_string(&msg!["oncely: ", r.detail], &mut out);
    put(&mut out, ",\"type\":\"text\"}],\"isError\":true}");
    out
}

fn missing() -> Refusal {
    refusal(
        400,
        "idempotency-key-missing",
        "Idempotency-Key is missing",
        "This operation needs an idempotency key: send a new unique key (a UUID) with the request, and the same key with every retry of it."
            .into(),
        None,
        None,
        None,
    )
}

/// The refusal of a request whose body is over the middleware's limit.
pub fn oversized(limit: u64) -> Refusal {
    refusal(
        413,
        "request-too-large",
        "The request is too large",
        msg!["A request with an idempotency key may carry at most ", limit, " bytes; nothing was done."],
        None,
        None,
        None,
    )
}

fn invalid(why: String) -> Refusal {
    refusal(400, "idempotency-key-invalid", "Idempotency-Key is invalid", msg![why, " Nothing was done."], None, None, None)
}

/// A key's characters: 1–255 printable ASCII.
fn check_key(k: &str) -> Result<(), String> {
    if k.is_empty() {
        return Err("The idempotency key is empty.".into());
    }
    if k.len() > MAX_KEY_CHARS {
        return Err(msg!["The idempotency key is ", k.len(), " characters long; at most 255 are accepted."]);
    }
    if !k.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        return Err("The idempotency key must be printable ASCII (0x20-0x7E).".into());
    }
    Ok(())
}

/// One `Idempotency-Key` field value: an sf-string (`"…"`, with `\"` and `\\`), or the raw
/// token as most clients send it.
fn parse_field(value: &str) -> Result<String, String> {
    let v = value.trim_ascii();
    let Some(inner) = v.strip_prefix('"') else {
        // Fetch's Headers and Node join repeated fields with ", ": a bare key never holds one.
        if v.contains(',') {
            return Err(
                "The Idempotency-Key field holds a comma: send exactly one key, in one field (a key with a comma must be a quoted string)."
                    .into(),
            );
        }
        check_key(v)?;
        return Ok(v.to_string());
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    loop {
        match chars.next() {
            None => return Err("The Idempotency-Key string has no closing quote.".into()),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some(c @ ('"' | '\\')) => out.push(c),
                _ => return Err("The Idempotency-Key string has an escape other than \\\" or \\\\.".into()),
            },
            Some(c) => out.push(c),
        }
    }
    if chars.next().is_some() {
        return Err("The Idempotency-Key field has more after its closing quote.".into());
    }
    check_key(&out)?;
    Ok(out)
}

fn http_key(fields: &[String]) -> Result<Option<String>, String> {
    match fields {
        [] => Ok(None),
        [one] => parse_field(one).map(Some),
        _ => Err(msg!["The request has ", fields.len(), " Idempotency-Key fields; send exactly one."]),
    }
}

fn mcp_key(call: &McpCall) -> Result<Option<String>, String> {
    let meta = if call.meta_json.trim_ascii().is_empty() { None } else { json::parse(&call.meta_json).ok() };
    let mut found: Vec<(&str, String)> = Vec::new();
    if let Some(Value::Object(members)) = &meta {
        for (name, value) in members {
            let place = match name.as_ref() {
                "idempotencyKey" => "_meta.idempotencyKey",
                "oncely/key" => "_meta[\"oncely/key\"]",
                _ => continue,
            };
            match value {
                Value::String(s) => found.push((place, s.to_string())),
                Value::Null => {}
                _ => return Err(msg!["The idempotency key in ", place, " is not a string."]),
            }
        }
    }
    if let Some(k) = &call.params_key {
        found.push(("params.idempotencyKey", k.clone()));
    }
    let Some((first_place, first)) = found.first() else { return Ok(None) };
    if let Some((place, _)) = found.iter().find(|(_, k)| k != first) {
        return Err(msg!["The call carries two different idempotency keys (", *first_place, " and ", *place, ")."]);
    }
    check_key(first)?;
    Ok(Some(first.clone()))
}

/// A JSON media type: `application/json`, or any `…/…+json`.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim_ascii().to_ascii_lowercase();
    essence == "application/json" || (essence.contains('/') && essence.ends_with("+json"))
}

/// The fingerprinted form of a body: its canonical JSON when it is JSON, else its digest.
fn body_value(bytes: &[u8], json_type: bool, out: &mut String) {
    if bytes.is_empty() {
        put(out, "null");
        return;
    }
    if json_type {
        if let Ok(text) = canonicalize_bytes(bytes) {
            put(out, &text);
            return;
        }
    }
    put(out, "{\"");
    put(out, BYTES_MEMBER);
    put(out, "\":{\"length\":");
    push_u64(bytes.len() as u64, out);
    put(out, ",\"sha256\":\"");
    put(out, &sha256_hex(bytes));
    put(out, "\"}}");
}

/// The operation's policy, as `admit` uses it.
pub fn check_operation(op: &Operation) -> Result<ToolPolicy, String> {
    if op.tool.is_empty() {
        return Err("the operation's tool name is empty".into());
    }
    let mut policy = if op.policy_json.trim_ascii().is_empty() {
        crate::policy::default_policy(EffectClass::IrreversibleExternal)
    } else {
        parse_policy_or(&op.policy_json, EffectClass::IrreversibleExternal)
            .map_err(|e| msg!["the policy of ", Q(&op.tool), " cannot be read: ", e.message, " (at ", Q(&e.at), ")"])?
    };
    match policy.reconcile {
        ReconcilePath::ProviderIdempotent => {
            return Err(msg![
                "the policy of ",
                Q(&op.tool),
                " says reconcile \"provider-idempotent\", but this is the provider: a reconciliation would run the handler again. Use a lookup or \"manual\"."
            ])
        }
        ReconcilePath::None => policy.reconcile = ReconcilePath::Manual,
        _ => {}
    }
    let ignore = match policy.key.take() {
        Some(spec) if spec.only.is_some() => {
            return Err(msg!["the policy of ", Q(&op.tool), " has key.only; on the provider side the client's key is the key"])
        }
        Some(spec) => spec.ignore,
        None => Vec::new(),
    };
    let spec = provider_spec(&ignore, "");
    parse_spec(&spec).map_err(|e| msg!["the policy of ", Q(&op.tool), " has a bad ignore pointer: ", e.message])?;
    policy.key = Some(KeySpec { only: Some(vec![KEY_MEMBER.into()]), ignore, identity: KeyIdentity::Scope });
    Ok(policy)
}

/// The key spec of a request: the client's key alone, ignores moved under `under`.
fn provider_spec(ignore: &[String], under: &str) -> KeySpec {
    KeySpec { only: Some(vec![KEY_MEMBER.into()]), ignore: ignore.iter().map(|p| msg![under, p]).collect(), identity: KeyIdentity::Scope }
}

/// What to do with a request.
pub fn admit(scope: &str, op: &Operation, request: &Request) -> Result<Admission, String> {
    if scope.is_empty() {
        return Err("the scope is empty: give each client (tenant, account) a stable, non-empty scope".into());
    }
    let mut policy = check_operation(op)?;
    if !uses_ledger(policy.class) {
        return Ok(Admission::Pass);
    }
    let (key, under) = match request {
        Request::Http(r) => {
            if matches!(r.method.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS" | "TRACE") {
                return Ok(Admission::Pass);
            }
            (http_key(&r.keys), "/request/body")
        }
        Request::Mcp(c) => (mcp_key(c), "/request/arguments"),
    };
    let key = match key {
        Err(why) => return Ok(Admission::Refuse(invalid(why))),
        Ok(None) if op.required => return Ok(Admission::Refuse(missing())),
        Ok(None) => return Ok(Admission::Pass),
        Ok(Some(k)) => k,
    };
    let mut args = String::from("{\"idempotencyKey\":");
    write_string(&key, &mut args);
    put(&mut args, ",\"request\":{");
    match request {
        Request::Http(r) => http_args(r, &mut args),
        Request::Mcp(c) => {
            put(&mut args, "\"arguments\":");
            let text = c.arguments_json.trim_ascii();
            body_value(if text.is_empty() { b"{}" } else { text.as_bytes() }, true, &mut args);
        }
    }
    put(&mut args, "}}");
    let ignore = policy.key.take().map(|s| s.ignore).unwrap_or_default();
    let spec = provider_spec(&ignore, under);
    let intent = Intent { scope: scope.into(), run_id: String::new(), step_id: String::new(), tool: op.tool.clone(), args_json: args };
    match derive(&intent, &spec) {
        Ok(d) => {
            policy.key = Some(spec);
            Ok(Admission::Keyed(KeyedCall { client_key: key, key: d.key, intent, policy }))
        }
        Err(e) => Ok(Admission::Refuse(refusal(
            400,
            "request-unkeyable",
            "The request cannot be keyed",
            msg!["The request cannot be keyed: ", e.message, ". Nothing was done."],
            None,
            None,
            None,
        ))),
    }
}

fn http_args(r: &HttpRequest, out: &mut String) {
    put(out, "\"body\":");
    body_value(&r.body, is_json(&r.content_type), out);
    put(out, ",\"method\":");
    write_string(&r.method.to_ascii_uppercase(), out);
    put(out, ",\"path\":");
    write_string(&r.path, out);
    put(out, ",\"query\":");
    write_string(&r.query, out);
}

/// What a handler's response means for the ledger.
pub fn record_http(r: &HttpResponse) -> Recording {
    let status = r.status;
    if matches!(status, 408 | 409 | 425 | 429) {
        return Recording::Failed(ToolFailure {
            definite: true,
            reason: msg!["the handler answered ", status, ": nothing was done, and the request may be sent again"],
        });
    }
    if !(200..500).contains(&status) {
        return Recording::Failed(ToolFailure {
            definite: false,
            reason: msg!["the handler answered ", status, ": the request may or may not have taken effect"],
        });
    }
    if r.body.len() > MAX_RECORDED_BODY {
        return Recording::Unrecordable(msg!["the response body is ", r.body.len(), " bytes, over the 1 MiB a replay keeps"]);
    }
    let mut out = String::from("{");
    match core::str::from_utf8(&r.body) {
        Ok(text) => {
            put(&mut out, "\"body\":");
            write_string(text, &mut out);
        }
        Err(_) => {
            put(&mut out, "\"body64\":\"");
            crate::base64::encode(&r.body, &mut out);
            put(&mut out, "\"");
        }
    }
    put(&mut out, ",\"headers\":[");
    let mut first = true;
    for (name, value) in &r.headers {
        let name = name.to_ascii_lowercase();
        if !STORED_HEADERS.contains(&name.as_str()) {
            continue;
        }
        if !first {
            put(&mut out, ",");
        }
        first = false;
        put(&mut out, "[");
        write_string(&name, &mut out);
        put(&mut out, ",");
        write_string(value, &mut out);
        put(&mut out, "]");
    }
    put(&mut out, "],\"status\":");
    push_u64(u64::from(status), &mut out);
    put(&mut out, ",\"v\":1}");
    Recording::Returned(out)
}

/// What an MCP tool's result means for the ledger.
pub fn record_mcp(result_json: &str) -> Recording {
    if result_json.len() > MAX_RECORDED_BODY {
        return Recording::Unrecordable(msg!["the tool's result is ", result_json.len(), " bytes, over the 1 MiB a replay keeps"]);
    }
    if let Ok(Value::Object(members)) = json::parse(result_json) {
        if members.iter().any(|(n, v)| n == "isError" && *v == Value::Bool(true)) {
            return Recording::Failed(ToolFailure {
                definite: true,
                reason: "the tool answered isError: it reported that nothing was done, and the call may be sent again".into(),
            });
        }
    }
    Recording::Returned(result_json.into())
}

/// The recorded response envelope, when `recorded` is one.
fn envelope(recorded: &str) -> Option<HttpResponse> {
    let Ok(Value::Object(members)) = json::parse(recorded) else { return None };
    let get = |name: &str| members.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    if get("v") != Some(&Value::Number(1.0)) {
        return None;
    }
    let status = match get("status") {
        Some(Value::Number(n)) if (100.0..=599.0).contains(n) && f64::from(*n as u16) == *n => *n as u16,
        _ => return None,
    };
    let body = match (get("body"), get("body64")) {
        (Some(Value::String(s)), None) => s.as_bytes().to_vec(),
        (None, Some(Value::String(s))) => crate::base64::decode(s)?,
        _ => return None,
    };
    let mut headers = Vec::new();
    match get("headers") {
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::Array(pair) => match pair.as_slice() {
                        [Value::String(n), Value::String(v)] => headers.push((n.to_string(), v.to_string())),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
        }
        _ => return None,
    }
    Some(HttpResponse { status, headers, body })
}

/// The response to replay from a recorded result.
pub fn replay_http(recorded: &str) -> HttpResponse {
    let mut r = envelope(recorded).unwrap_or_else(|| HttpResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: recorded.as_bytes().to_vec(),
    });
    r.headers.push(("idempotent-replayed".into(), "true".into()));
    r
}

/// The part of the request a conflict's pointer names, and the pointer within it.
fn locate(pointer: &str) -> (Option<&'static str>, String) {
    for part in ["method", "path", "query", "body", "arguments"] {
        let prefix = msg!["/request/", part];
        if let Some(rest) = pointer.strip_prefix(prefix.as_str()) {
            if rest.is_empty() || rest.starts_with('/') {
                let inner = if rest.starts_with("/oncely~1bytes") { "" } else { rest };
                return (Some(part), inner.to_string());
            }
        }
    }
    (None, String::new())
}

fn where_text(part: Option<&str>, pointer: &str) -> String {
    match (part, pointer) {
        (Some(p @ ("body" | "arguments")), "") => msg!["the ", p],
        (Some("body"), at) => msg!["the body's ", Q(at)],
        (Some(_), at) if !at.is_empty() => msg!["the arguments' ", Q(at)],
        (Some(p), _) => msg!["the ", p],
        (None, _) => "the request".into(),
    }
}

/// What to answer after a run raised `error`.
pub fn refuse(error: &EffectError, handler_ran: bool) -> Answer {
    if handler_ran {
        return Answer::Handler;
    }
    Answer::Refuse(match error {
        EffectError::Conflict(c) => {
            let (part, pointer) = locate(&c.pointer);
            refusal(
                422,
                "idempotency-key-reused",
                "Idempotency-Key is already used",
                msg![
                    "This idempotency key was already used for a different request: they first differ at ",
                    where_text(part, &pointer),
                    ". Nothing was done now; the earlier request stands. Send a new key for a new request."
                ],
                Some(pointer),
                part,
                None,
            )
        }
        EffectError::InProgress(b) => {
            let secs = b.retry_after_ms.div_ceil(1000).max(1);
            refusal(
                409,
                "request-in-progress",
                "A request is outstanding for this Idempotency-Key",
                msg![
                    "A request with this idempotency key is still being processed; it was not started a second time. Send it again in ",
                    secs,
                    " s to get its response."
                ],
                None,
                None,
                Some(secs),
            )
        }
        EffectError::InDoubt(k) => {
            let secs = k.retry_after_ms.map(|ms| ms.div_ceil(1000).max(1));
            refusal(
                409,
                "outcome-in-doubt",
                "The outcome of the request with this Idempotency-Key is unknown",
                msg![
                    "The earlier request with this idempotency key ended without a known outcome",
                    if k.reason.is_empty() { String::new() } else { msg![" (", k.reason, ")"] },
                    ": it may have taken effect. It will not be run again; it is being reconciled, and a person settles it if that cannot tell. ",
                    match secs {
                        Some(n) => msg!["Send the same request again in ", n, " s for its outcome"],
                        None => msg!["Send the same request later to get its outcome"],
                    },
                    "; do not send it with a new key."
                ],
                None,
                None,
                secs,
            )
        }
        EffectError::Escalated(k) => refusal(
            409,
            "outcome-escalated",
            "A person is settling the request with this Idempotency-Key",
            msg![
                "The outcome of the earlier request with this idempotency key is unknown, and a person has been asked to settle it (",
                k.reason,
                "). It will not be run again until then; the same request returns what they decide."
            ],
            None,
            None,
            None,
        ),
        EffectError::AwaitingApproval(_) => refusal(
            409,
            "awaiting-approval",
            "A person must approve the request with this Idempotency-Key first",
            "This request needs a person's approval before it is performed, and has not been performed. They have been asked, once; \
             the same request with the same key is performed once they approve (or is told that they denied it)."
                .into(),
            None,
            None,
            None,
        ),
        EffectError::Denied(d) => refusal(
            403,
            "request-denied",
            "A person denied the request with this Idempotency-Key",
            msg![
                "A person denied this request",
                if d.reason.is_empty() { String::new() } else { msg![" (", d.reason, ")"] },
                ". It was not performed and will not be."
            ],
            None,
            None,
            None,
        ),
        EffectError::ResultNotRecorded(k) => refusal(
            500,
            "result-not-recorded",
            "The request took effect, but its response was not recorded",
            msg![
                "The request with this idempotency key took effect, but its response could not be recorded (",
                k.reason,
                "). It will not be run again."
            ],
            None,
            None,
            None,
        ),
        EffectError::ToolFailed(reason) => refusal(
            503,
            "not-performed",
            "The request was not performed",
            msg!["The request was not performed: ", reason, ". It may be sent again with the same key."],
            None,
            None,
            Some(1),
        ),
        EffectError::Storage(why) => refusal(
            503,
            "ledger-unavailable",
            "The idempotency ledger is unavailable",
            msg!["The idempotency ledger could not be reached (", why, "). Nothing was done; send the same request again."],
            None,
            None,
            Some(1),
        ),
        EffectError::Contention(n) => refusal(
            503,
            "ledger-unavailable",
            "The idempotency ledger is busy",
            msg![n, " concurrent requests raced for this idempotency key; this one was not run. Send the same request again."],
            None,
            None,
            Some(1),
        ),
        EffectError::Ledger(e) => refusal(
            500,
            "ledger-refused",
            "The idempotency ledger refused the request",
            msg!["The idempotency ledger refused the request: ", e.message, ". Nothing was done."],
            None,
            None,
            None,
        ),
    })
}

impl Guest for crate::Core {
    fn admit(scope: String, operation: Operation, request: Request) -> Result<Admission, String> {
        admit(&scope, &operation, &request)
    }

    fn oversized(limit_bytes: u64) -> Refusal {
        oversized(limit_bytes)
    }

    fn mcp_refusal(refusal: Refusal, client_key: Option<String>) -> String {
        mcp_refusal(&refusal, client_key.as_deref())
    }

    fn check_operation(operation: Operation) -> Result<ToolPolicy, String> {
        check_operation(&operation)
    }

    fn record_http(response: HttpResponse) -> Recording {
        record_http(&response)
    }

    fn record_mcp(result_json: String) -> Recording {
        record_mcp(&result_json)
    }

    fn replay_http(recorded: String) -> HttpResponse {
        replay_http(&recorded)
    }

    fn refuse(error: EffectError, handler_ran: bool) -> Answer {
        refuse(&error, handler_ran)
    }
}
