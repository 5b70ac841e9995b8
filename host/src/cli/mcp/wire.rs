//! What the gateway reads from an agent before the SDK does: every message as JSON first, so
//! that a malformed one gets a JSON-RPC error (and never ends the session), and a client's
//! `idempotencyKey` in a `tools/call`'s `params` (the SEP-3182 form) reaches the gateway (the
//! SDK's typed parameters have no such field): it is copied into `params._meta`, where the
//! identity rules read it.

use futures::{Sink, Stream, StreamExt};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};

/// The longest line read from an agent over stdio (64 MiB).
const MAX_LINE: usize = 64 << 20;

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

/// A JSON-RPC error response (`id` null when the message had none that could be read).
fn error_reply(id: Value, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Read one line from an agent: the message, nothing (a notification the SDK cannot read is
/// dropped: notifications get no answer), or the error to answer with.
pub fn read(line: &str) -> Result<Option<RxJsonRpcMessage<RoleServer>>, String> {
    let line = line.trim_start_matches('\u{feff}');
    if line.trim().is_empty() {
        return Ok(None);
    }
    let mut v: Value = serde_json::from_str(line).map_err(|e| error_reply(Value::Null, -32700, format!("parse error: {e}")))?;
    normalize(&mut v);
    match serde_json::from_value(v.clone()) {
        Ok(m) => Ok(Some(m)),
        Err(e) => match v.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => Err(error_reply(id.clone(), -32600, format!("invalid request: {e}"))),
            _ if v.get("method").is_some() => Ok(None),
            _ => Err(error_reply(Value::Null, -32600, format!("invalid request: {e}"))),
        },
    }
}

/// The agent's side over stdio: lines in through [`read`], lines out; one writer task owns
/// stdout, for the SDK's messages and the gateway's error replies alike.
pub fn stdio() -> (
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
    let sink = Box::pin(futures::sink::unfold(tx, |tx, m: TxJsonRpcMessage<RoleServer>| async move {
        let line = serde_json::to_string(&m).map_err(std::io::Error::other)?;
        tx.send(line).await.map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed"))?;
        Ok::<_, std::io::Error>(tx)
    }));
    let lines = FramedRead::new(tokio::io::stdin(), LinesCodec::new_with_max_length(MAX_LINE));
    let stream = Box::pin(
        lines
            // An I/O error on stdin ends the session, as its end does.
            .take_while(|l| std::future::ready(!matches!(l, Err(LinesCodecError::Io(_)))))
            .filter_map(move |l| {
                let replies = replies.clone();
                async move {
                    let reply = match l {
                        Ok(line) => match read(&line) {
                            Ok(m) => return m,
                            Err(reply) => reply,
                        },
                        Err(e) => error_reply(Value::Null, -32700, format!("parse error: {e}")),
                    };
                    let _ = replies.send(reply).await;
                    None
                }
            }),
    );
    (sink, stream)
}

/// The same for Streamable HTTP: an agent's POSTed body normalized before the SDK reads it.
pub async fn normalize_http(req: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_LINE).await {
        Ok(b) => b,
        Err(e) => {
            let reply = error_reply(Value::Null, -32700, format!("the request body could not be read: {e}"));
            return axum::response::Response::builder()
                .status(400)
                .header("content-type", "application/json")
                .body(axum::body::Body::from(reply))
                .unwrap_or_default();
        }
    };
    let body = match serde_json::from_slice::<Value>(&bytes) {
        Ok(mut v) => {
            normalize(&mut v);
            axum::body::Body::from(v.to_string())
        }
        // Not JSON: the SDK answers it.
        Err(_) => axum::body::Body::from(bytes),
    };
    next.run(axum::extract::Request::from_parts(parts, body)).await
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
        assert!(matches!(read(&v.to_string()), Ok(Some(_))));
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        let parse: Value = serde_json::from_str(&read("{not json").unwrap_err()).unwrap();
        assert_eq!((parse["error"]["code"].as_i64(), &parse["id"]), (Some(-32700), &Value::Null));
        let invalid: Value =
            serde_json::from_str(&read(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#).unwrap_err()).unwrap();
        assert_eq!((invalid["error"]["code"].as_i64(), &invalid["id"]), (Some(-32600), &json!(7)));
        assert!(read(r#"[1,2]"#).is_err());
        // A notification gets no answer; a blank line is nothing.
        assert!(matches!(read(r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#), Ok(None)));
        assert!(matches!(read("  "), Ok(None)));
    }
}
