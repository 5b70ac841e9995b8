//! What the gateway reads from an agent before the SDK does: every message as JSON first, so
//! that a malformed one gets a JSON-RPC error — with its own id whenever that can be read, JSON
//! that serde_json cannot represent included ([`salvage`]) — and never ends the session, and a
//! client's `idempotencyKey` in a `tools/call`'s `params` (the SEP-3182 form) reaches the gateway
//! (the SDK's typed parameters have no such field): it is copied into `params._meta`, where the
//! identity rules read it. Over Streamable HTTP, the SDK's own transport errors are made
//! JSON-RPC errors too. docs/mcp.md, "Malformed messages", has the whole table.

use super::salvage::{self, Head, Id};
use super::unmodeled::Unmodeled;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use futures::{Sink, Stream, StreamExt};
use rmcp::model::{ErrorCode, JsonRpcMessage, ServerResult};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use serde::de::IgnoredAny;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, FramedRead};

/// The longest line read from an agent over stdio, and the longest body over HTTP (64 MiB).
pub const MAX_LINE: usize = 64 << 20;

/// Copy a `tools/call`'s `params.idempotencyKey` into `params._meta` (where it is not already).
pub fn normalize(message: &mut Value) {
    match message {
        Value::Array(batch) => batch.iter_mut().for_each(normalize),
        Value::Object(m) if m.get("method").and_then(Value::as_str) == Some("tools/call") => {
            let Some(Value::Object(params)) = m.get_mut("params") else { return };
            let Some(key) = params.get("idempotencyKey").cloned() else { return };
            if let Value::Object(meta) = params.entry("_meta").or_insert_with(|| json!({})) {
                meta.entry("idempotencyKey").or_insert(key);
            }
        }
        _ => {}
    }
}

/// A line of at most [`MAX_LINE`] bytes, or the length of one that was longer (and skipped).
type Line = Result<BytesMut, usize>;

/// Lines as bytes: a line that is too long, or not UTF-8, is an item (answered with an error),
/// never a decoding error, which would end the stream and the session.
#[derive(Default)]
struct Lines {
    /// Bytes of the buffer already searched for a newline.
    searched: usize,
    /// Bytes of a too-long line dropped so far.
    dropped: usize,
}

impl Decoder for Lines {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        match buf[self.searched..].iter().position(|b| *b == b'\n') {
            Some(i) => {
                let mut line = buf.split_to(self.searched + i + 1);
                self.searched = 0;
                if self.dropped > 0 {
                    let len = std::mem::take(&mut self.dropped) + line.len();
                    return Ok(Some(Err(len)));
                }
                line.truncate(line.len() - 1);
                Ok(Some(Ok(line)))
            }
            None if buf.len() > MAX_LINE => {
                self.dropped += buf.len();
                buf.clear();
                self.searched = 0;
                Ok(None)
            }
            None => {
                self.searched = buf.len();
                Ok(None)
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        match self.decode(buf)? {
            Some(line) => Ok(Some(line)),
            None if buf.is_empty() && self.dropped == 0 => Ok(None),
            None => {
                self.searched = 0;
                let rest = buf.split();
                Ok(Some(if self.dropped > 0 { Err(std::mem::take(&mut self.dropped) + rest.len()) } else { Ok(rest) }))
            }
        }
    }
}

/// A JSON-RPC error response (`id` null when the message had none that could be read).
fn error_reply(id: Value, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

const PARSE_ERROR: i64 = ErrorCode::PARSE_ERROR.0 as i64;
const INVALID_REQUEST: i64 = ErrorCode::INVALID_REQUEST.0 as i64;
const INVALID_PARAMS: i64 = ErrorCode::INVALID_PARAMS.0 as i64;
const INTERNAL_ERROR: i64 = ErrorCode::INTERNAL_ERROR.0 as i64;

/// The JSON-RPC error that answers a message the gateway does not pass on to the SDK.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub id: Value,
    pub code: i64,
    pub message: String,
}

impl Refusal {
    fn new(id: Value, code: i64, message: String) -> Refusal {
        Refusal { id, code, message }
    }

    /// The error response, as JSON text.
    pub fn reply(&self) -> String {
        error_reply(self.id.clone(), self.code, self.message.clone())
    }
}

/// A message read from an agent.
#[derive(Debug)]
pub enum Inbound {
    /// For the SDK: the message, and its JSON as the SDK reads it (normalized; for an agent's
    /// response that cannot be read, the error response made of it).
    Message(Box<RxJsonRpcMessage<RoleServer>>, Value),
    /// A blank line.
    Blank,
    /// A notification that cannot be read. Notifications get no answer: over stdio it is
    /// dropped; over HTTP, which answers every POST, the refusal (with `id` null) is the answer.
    Dropped(Refusal),
}

/// How a message the SDK cannot take is answered, by what can be read of it (`head`): `code`
/// and `why` are the error of a request with a readable id.
fn refuse(head: Head, code: i64, why: String) -> Result<Inbound, Refusal> {
    let label = |code| if code == INVALID_PARAMS { "invalid params" } else { "invalid request" };
    if !head.object {
        return Err(Refusal::new(Value::Null, INVALID_REQUEST, format!("invalid request: {why}")));
    }
    let id = match head.id {
        Id::Invalid(id) if head.method || !head.response => {
            let why = format!("invalid request: the id must be a string or an integer, not {id}");
            return Err(Refusal::new(Value::Null, INVALID_REQUEST, why));
        }
        Id::Valid(id) => Some(id),
        Id::Absent | Id::Invalid(_) => None,
    };
    match id {
        None if head.method => Ok(Inbound::Dropped(Refusal::new(Value::Null, code, format!("{}: {why}", label(code))))),
        Some(id) if head.method => Err(Refusal::new(id, code, format!("{}: {why}", label(code)))),
        // An agent's response the SDK cannot read (to a request the server sent the agent)
        // becomes an error response for its id, so that the request ends instead of waiting.
        Some(id) if head.response => {
            let error = error_reply(id, INTERNAL_ERROR, format!("the agent's response could not be read: {why}"));
            let v: Value = serde_json::from_str(&error).map_err(|e| Refusal::new(Value::Null, INTERNAL_ERROR, e.to_string()))?;
            let m = serde_json::from_value(v.clone()).map_err(|e| Refusal::new(Value::Null, INTERNAL_ERROR, e.to_string()))?;
            Ok(Inbound::Message(Box::new(m), v))
        }
        id => Err(Refusal::new(id.unwrap_or_default(), INVALID_REQUEST, format!("invalid request: {why}"))),
    }
}

/// Read one message from an agent (a line over stdio, a POSTed body over HTTP): the message
/// for the SDK, nothing, or the error to answer with.
///
/// - Not JSON (RFC 8259), or not UTF-8: parse error (-32700), `id` null, as JSON-RPC says.
/// - JSON that serde_json cannot represent (a lone surrogate, a number beyond a double, values
///   nested deeper than [`salvage::MAX_DEPTH`] levels): its id, method and kind are read by a
///   structural reading ([`salvage`]); a request is answered with its id and invalid params
///   (-32602) when the cause is in `params`, invalid request (-32600) otherwise, naming the
///   cause and its place.
/// - A message the SDK cannot read (`params` of the wrong shape): invalid request, with its id.
/// - A request whose id is not a string or a number (`null`, `true`, an object, an array):
///   invalid request with `id` null — it is no notification, which has no `id` member at all.
/// - A batch (an array; MCP 2025-06-18 removed batching): invalid request, `id` null.
pub fn read(line: &[u8]) -> Result<Inbound, Refusal> {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(Inbound::Blank);
    }
    let text = std::str::from_utf8(line).map_err(|e| Refusal::new(Value::Null, PARSE_ERROR, format!("parse error: not UTF-8: {e}")))?;
    let mut v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return unrepresentable(text, &e),
    };
    let head = Head::of_value(&v);
    if head.method && matches!(head.id, Id::Invalid(_)) {
        return refuse(head, INVALID_REQUEST, String::new());
    }
    normalize(&mut v);
    match serde_json::from_value(v.clone()) {
        Ok(m) => Ok(Inbound::Message(Box::new(m), v)),
        Err(e) => refuse(head, INVALID_REQUEST, e.to_string()),
    }
}

/// A message serde_json refused (`e`): a parse error when it is not JSON; otherwise, JSON it
/// cannot represent, answered by what can be read of it.
fn unrepresentable(text: &str, e: &serde_json::Error) -> Result<Inbound, Refusal> {
    // serde_json's ignore path checks the grammar alone, without recursion.
    if let Err(grammar) = serde_json::from_str::<IgnoredAny>(text) {
        return Err(Refusal::new(Value::Null, PARSE_ERROR, format!("parse error: {grammar}")));
    }
    let trouble = salvage::locate(text, e);
    let code = if trouble.in_params { INVALID_PARAMS } else { INVALID_REQUEST };
    refuse(Head::of_text(text), code, trouble.to_string())
}

/// The agent's side over stdio: lines in through [`read`], lines out; one writer task owns
/// stdout, for the SDK's messages and the gateway's error replies alike. A `tools/list` answer
/// gets back what the server listed of its tools and the SDK dropped ([`Unmodeled`]).
pub fn stdio(
    unmodeled: Unmodeled,
) -> (
    impl Sink<TxJsonRpcMessage<RoleServer>, Error = std::io::Error> + Send + Unpin + 'static,
    impl Stream<Item = RxJsonRpcMessage<RoleServer>> + Send + Unpin + 'static,
) {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(64);
    tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = rx.recv().await {
            if out.write_all(line.as_bytes()).await.is_err() || out.write_all(b"\n").await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let replies = tx.clone();
    let sink = Box::pin(futures::sink::unfold(tx, move |tx, m: TxJsonRpcMessage<RoleServer>| {
        let unmodeled = unmodeled.clone();
        async move {
            let mut line = serde_json::to_string(&m).map_err(std::io::Error::other)?;
            if matches!(&m, JsonRpcMessage::Response(r) if matches!(r.result, ServerResult::ListToolsResult(_))) {
                if let Some(restored) = unmodeled.restore_message(&line) {
                    line = restored;
                }
            }
            tx.send(line).await.map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed"))?;
            Ok::<_, std::io::Error>(tx)
        }
    }));
    let lines = FramedRead::new(tokio::io::stdin(), Lines::default());
    let stream = Box::pin(
        lines
            // An I/O error on stdin ends the session, as its end does.
            .take_while(|l| std::future::ready(l.is_ok()))
            .filter_map(move |l| {
                let replies = replies.clone();
                async move {
                    let reply = match l {
                        Ok(Ok(line)) => match read(&line) {
                            Ok(Inbound::Message(m, _)) => return Some(*m),
                            Ok(Inbound::Blank) => return None,
                            Ok(Inbound::Dropped(r)) => {
                                eprintln!("oncely mcp: a notification that cannot be read was dropped: {}", r.message);
                                return None;
                            }
                            Err(r) => r.reply(),
                        },
                        Ok(Err(len)) => {
                            error_reply(Value::Null, PARSE_ERROR, format!("a message of {len} bytes is longer than {MAX_LINE}"))
                        }
                        Err(_) => return None,
                    };
                    let _ = replies.send(reply).await;
                    None
                }
            }),
    );
    (sink, stream)
}

/// The same for Streamable HTTP, around the SDK's service: each POSTed body is read by [`read`]
/// (and normalized) before the SDK reads it, and one the gateway refuses is answered with its
/// JSON-RPC error (HTTP 400; 413 past [`MAX_LINE`]). The SDK's own transport errors, which it
/// answers in plain text (406 without the right `Accept`, 415 without JSON's `Content-Type`,
/// 404 for an unknown session, 400 without one, …), become JSON-RPC errors with the same
/// status: invalid request (-32600), or internal error (-32603) for a 5xx; each with the id of
/// the POSTed request when it has one. The answer to a `tools/list` gets back what the server
/// listed of its tools and the SDK dropped ([`Unmodeled`]).
pub async fn normalize_http(
    axum::extract::State(unmodeled): axum::extract::State<Unmodeled>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_LINE).await {
        Ok(b) => b,
        Err(e) => {
            let declared = parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
            let (status, why) = match declared {
                Some(n) if n > MAX_LINE as u64 => {
                    (StatusCode::PAYLOAD_TOO_LARGE, format!("a message of {n} bytes is longer than {MAX_LINE}"))
                }
                _ => (StatusCode::BAD_REQUEST, format!("the request body could not be read: {e}")),
            };
            return json_response(status, error_reply(Value::Null, PARSE_ERROR, why));
        }
    };
    let mut id = Value::Null;
    let mut lists_tools = false;
    let body = if parts.method == axum::http::Method::POST {
        match read(&bytes) {
            Ok(Inbound::Message(_, v)) => {
                if let Head { method: true, id: Id::Valid(request), .. } = Head::of_value(&v) {
                    id = request;
                    lists_tools = v.get("method").and_then(Value::as_str) == Some("tools/list");
                }
                axum::body::Body::from(v.to_string())
            }
            Ok(Inbound::Blank) => {
                let refusal = Refusal::new(Value::Null, PARSE_ERROR, "parse error: the body is empty".into());
                return json_response(StatusCode::BAD_REQUEST, refusal.reply());
            }
            Ok(Inbound::Dropped(refusal)) | Err(refusal) => return json_response(StatusCode::BAD_REQUEST, refusal.reply()),
        }
    } else {
        axum::body::Body::from(bytes)
    };
    let response = next.run(axum::extract::Request::from_parts(parts, body)).await;
    let response = as_json_rpc(response, id).await;
    if lists_tools && response.status().is_success() {
        return restore_tools(response, unmodeled).await;
    }
    response
}

/// A `tools/list` answer (JSON, or an SSE stream of JSON-RPC messages) with what the server
/// listed of its tools and the SDK dropped put back.
async fn restore_tools(response: axum::response::Response, unmodeled: Unmodeled) -> axum::response::Response {
    let kind = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_ascii_lowercase();
    let (mut parts, body) = response.into_parts();
    parts.headers.remove(CONTENT_LENGTH);
    let body = if kind.starts_with("application/json") {
        match axum::body::to_bytes(body, MAX_LINE).await {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b);
                axum::body::Body::from(unmodeled.restore_message(&text).unwrap_or_else(|| text.into_owned()))
            }
            Err(e) => axum::body::Body::from(error_reply(Value::Null, INTERNAL_ERROR, format!("the answer could not be read: {e}"))),
        }
    } else if kind.starts_with("text/event-stream") {
        restore_sse(body, unmodeled)
    } else {
        body
    };
    axum::response::Response::from_parts(parts, body)
}

/// An SSE stream, each `data:` line that is a `tools/list` answer restored, as it comes.
fn restore_sse(body: axum::body::Body, unmodeled: Unmodeled) -> axum::body::Body {
    let frames = body.into_data_stream();
    let lines = futures::stream::unfold((frames, Vec::<u8>::new(), false), move |(mut frames, mut pending, done)| {
        let unmodeled = unmodeled.clone();
        async move {
            if done {
                return None;
            }
            match frames.next().await {
                Some(Ok(chunk)) => {
                    pending.extend_from_slice(&chunk);
                    let whole = pending.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
                    let ready: Vec<u8> = pending.drain(..whole).collect();
                    Some((Ok::<_, axum::Error>(restore_sse_lines(&ready, &unmodeled)), (frames, pending, false)))
                }
                Some(Err(e)) => Some((Err(e), (frames, pending, true))),
                None if pending.is_empty() => None,
                None => {
                    let rest = std::mem::take(&mut pending);
                    Some((Ok(restore_sse_lines(&rest, &unmodeled)), (frames, pending, true)))
                }
            }
        }
    });
    axum::body::Body::from_stream(lines)
}

fn restore_sse_lines(text: &[u8], unmodeled: &Unmodeled) -> axum::body::Bytes {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|b| *b == b'\n') {
        let restored = line.strip_prefix(b"data:").and_then(|data| std::str::from_utf8(data).ok()).and_then(|data| {
            let json = data.trim();
            let ending = &data[data.trim_end().len()..];
            unmodeled.restore_message(json).map(|r| format!("data: {r}{ending}"))
        });
        match restored {
            Some(r) => out.extend_from_slice(r.as_bytes()),
            None => out.extend_from_slice(line),
        }
    }
    out.into()
}

/// An HTTP response with a JSON body.
fn json_response(status: StatusCode, body: String) -> axum::response::Response {
    let mut response = axum::response::Response::new(axum::body::Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// An error the SDK answered in plain text, as a JSON-RPC error (`id`: the request's, or null)
/// with the same status and headers; any other response as it is.
async fn as_json_rpc(response: axum::response::Response, id: Value) -> axum::response::Response {
    let status = response.status();
    let json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("application/json"));
    if json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 << 10).await.map(|b| String::from_utf8_lossy(&b).trim().to_owned()).unwrap_or_default();
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("HTTP error").to_owned() } else { text };
    let code = if status.is_server_error() { INTERNAL_ERROR } else { INVALID_REQUEST };
    parts.headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(CONTENT_LENGTH);
    axum::response::Response::from_parts(parts, axum::body::Body::from(error_reply(id, code, message)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_params_idempotency_key_is_read_into_meta() {
        let mut v = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"charge","arguments":{},"idempotencyKey":"k1"}});
        normalize(&mut v);
        assert_eq!(v["params"]["_meta"]["idempotencyKey"], "k1");
        // One in _meta wins.
        let mut v = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"c","idempotencyKey":"k1","_meta":{"idempotencyKey":"k0"}}});
        normalize(&mut v);
        assert_eq!(v["params"]["_meta"]["idempotencyKey"], "k0");
        assert!(matches!(read(v.to_string().as_bytes()), Ok(Inbound::Message(..))));
    }

    /// The refusal `read` answers `line` with.
    fn refused(line: &str) -> Refusal {
        match read(line.as_bytes()) {
            Err(r) => r,
            Ok(other) => panic!("{line} was not refused: {other:?}"),
        }
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        let parse = refused("{not json");
        assert_eq!((parse.code, &parse.id), (-32700, &Value::Null));
        let reply: Value = serde_json::from_str(&parse.reply()).unwrap();
        assert_eq!(reply, json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": parse.message}}));
        assert_eq!(read(b"\"\xff\xfe\"").unwrap_err().code, -32700, "not UTF-8");
        // Not grammatical: a parse error with id null, though an id could be guessed.
        let trailing = refused(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list",}"#);
        assert_eq!((trailing.code, &trailing.id), (-32700, &Value::Null));
        let invalid = refused(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#);
        assert_eq!((invalid.code, &invalid.id), (-32600, &json!(7)));
        // A batch (MCP 2025-06-18 has none).
        assert_eq!((refused("[1,2]").code, refused("[1,2]").id), (-32600, Value::Null));
        let batch = refused(r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":1e400}}]"#);
        assert_eq!((batch.code, &batch.id), (-32600, &Value::Null));
        // A notification gets no answer (over HTTP: the refusal, id null); a blank line is nothing.
        let dropped = read(br#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#);
        assert!(matches!(&dropped, Ok(Inbound::Dropped(Refusal { id: Value::Null, code: -32600, .. }))), "{dropped:?}");
        assert!(matches!(read(b"  "), Ok(Inbound::Blank)));
        assert!(matches!(read(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), Ok(Inbound::Message(..))));
        // An agent's unreadable response to the server's request ends that request with an error.
        assert!(matches!(read(br#"{"jsonrpc":"2.0","id":3,"result":5}"#), Ok(Inbound::Message(..))));
    }

    #[test]
    fn unrepresentable_arguments_are_invalid_params_with_the_request_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"d-1","method":"tools/call","params":{{"name":"charge","arguments":{{"a":{}1{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"charge","arguments":{"note":"x\ud800"}}}"#.to_owned(),
                json!(7),
                r"a lone surrogate \ud800 (half of a UTF-16 pair, not text) at /params/arguments/note",
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"charge","arguments":{"amount_cents":1e400}}}"#
                    .to_owned(),
                json!(8),
                "a number out of range, 1e400 (beyond a double) at /params/arguments/amount_cents",
            ),
            (
                deep,
                json!("d-1"),
                "values nested deeper than 127 levels (the most a message may have) at /params/arguments/a/0/0/0/0/0/0/0/0/0/…",
            ),
            // Another method's params too; an id as written.
            (
                r#"{"jsonrpc":"2.0","id":1.0,"method":"prompts/get","params":{"name":"p","arguments":{"q":"\udc00"}}}"#.to_owned(),
                json!(1.0),
                r"a lone surrogate \udc00 (half of a UTF-16 pair, not text) at /params/arguments/q",
            ),
        ];
        for (line, id, cause) in cases {
            let r = refused(&line);
            assert_eq!((r.code, &r.id), (-32602, &id), "{r:?}");
            assert_eq!(r.message, format!("invalid params: {cause}"));
        }
        // Outside params: invalid request, with the id.
        let r = refused(r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","extra":[1e999]}"#);
        assert_eq!((r.code, &r.id), (-32600, &json!("x")));
        assert_eq!(r.message, "invalid request: a number out of range, 1e999 (beyond a double) at /extra/0");
        // A notification that cannot be represented is dropped; a response ends its request.
        let n = read(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1e400}}"#);
        assert!(matches!(&n, Ok(Inbound::Dropped(Refusal { id: Value::Null, code: -32602, .. }))), "{n:?}");
        match read(br#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"\ud800"}]}}"#) {
            Ok(Inbound::Message(_, v)) => {
                assert_eq!((&v["id"], &v["error"]["code"]), (&json!(4), &json!(-32603)), "{v}");
                let said = r"the agent's response could not be read: a lone surrogate \ud800 (half of a UTF-16 pair, not text) at /result/content/0/text";
                assert_eq!(v["error"]["message"], said, "{v}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn requests_with_invalid_ids_are_invalid_requests_with_id_null() {
        for id in ["null", "true", r#"{"n":1}"#, "[1]", "1e400"] {
            for params in [r#"{}"#, r#"{"x":"\ud800"}"#] {
                let r = refused(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{params}}}"#));
                assert_eq!((r.code, &r.id), (-32600, &Value::Null), "id {id}: {r:?}");
                assert!(r.message.starts_with("invalid request: the id must be a string or an integer, not "), "{}", r.message);
            }
        }
        // Without an `id` member it is a notification; with a valid one, a request.
        assert!(matches!(read(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Ok(Inbound::Message(..))));
        assert!(matches!(read(br#"{"jsonrpc":"2.0","id":"","method":"ping"}"#), Ok(Inbound::Message(..))));
    }

    #[tokio::test]
    async fn the_sdks_plain_text_errors_become_json_rpc_errors() {
        let plain = axum::response::Response::builder()
            .status(415)
            .header(CONTENT_LENGTH, "62")
            .body(axum::body::Body::from("Unsupported Media Type: Content-Type must be application/json"))
            .unwrap();
        let answered = as_json_rpc(plain, json!(5)).await;
        assert_eq!(answered.status(), 415);
        assert_eq!(answered.headers()[CONTENT_TYPE], "application/json");
        assert!(answered.headers().get(CONTENT_LENGTH).is_none());
        let body = axum::body::to_bytes(answered.into_body(), 1 << 20).await.unwrap();
        let body: Value = serde_json::from_slice(&body).unwrap();
        let message = "Unsupported Media Type: Content-Type must be application/json";
        assert_eq!(body, json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32600, "message": message}}));
        let internal = axum::response::Response::builder().status(500).body(axum::body::Body::empty()).unwrap();
        let body = axum::body::to_bytes(as_json_rpc(internal, Value::Null).await.into_body(), 1 << 20).await.unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&body).unwrap()["error"], json!({"code": -32603, "message": "Internal Server Error"}));
        // JSON errors and successes pass as they are.
        let ok = axum::response::Response::builder().status(202).body(axum::body::Body::empty()).unwrap();
        assert_eq!(as_json_rpc(ok, json!(1)).await.status(), 202);
    }

    #[test]
    fn long_lines_are_skipped_and_reported_and_the_next_line_is_read() {
        let mut d = Lines::default();
        let mut buf = BytesMut::from(&b"{\"a\":1}\n"[..]);
        assert_eq!(d.decode(&mut buf).unwrap(), Some(Ok(BytesMut::from(&b"{\"a\":1}"[..]))));
        let mut buf = BytesMut::from(vec![b'x'; MAX_LINE + 1].as_slice());
        assert_eq!(d.decode(&mut buf).unwrap(), None);
        buf.extend_from_slice(b"yy\n{}\n");
        assert_eq!(d.decode(&mut buf).unwrap(), Some(Err(MAX_LINE + 4)));
        assert_eq!(d.decode(&mut buf).unwrap(), Some(Ok(BytesMut::from(&b"{}"[..]))));
        let mut buf = BytesMut::from(&b"{\"tail\":1}"[..]);
        assert_eq!(d.decode_eof(&mut buf).unwrap(), Some(Ok(BytesMut::from(&b"{\"tail\":1}"[..]))));
    }
}
