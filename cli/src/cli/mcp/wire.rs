//! What the gateway reads from an agent before the SDK does: every message as JSON first, so
//! that a malformed one gets a JSON-RPC error (and never ends the session), and a client's
//! `idempotencyKey` in a `tools/call`'s `params` (the SEP-3182 form) reaches the gateway (the
//! SDK's typed parameters have no such field): it is copied into `params._meta`, where the
//! identity rules read it.

use futures::{Sink, Stream, StreamExt};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, FramedRead};

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

/// Read one line from an agent: the message, nothing (a notification the SDK cannot read is
/// dropped: notifications get no answer), or the error to answer with. A response the SDK cannot
/// read (to a request the server sent the agent) becomes an error response for its id, so that
/// the request ends instead of waiting forever.
pub fn read(line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleServer>>, String> {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let mut v: Value = serde_json::from_slice(line).map_err(|e| error_reply(Value::Null, -32700, format!("parse error: {e}")))?;
    normalize(&mut v);
    match serde_json::from_value(v.clone()) {
        Ok(m) => Ok(Some(m)),
        Err(e) => {
            let id = v.get("id").filter(|id| id.is_string() || id.is_number()).cloned();
            let is_response = v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
            match (id, is_response) {
                (Some(id), true) => {
                    let error = error_reply(id, -32603, format!("the agent's response could not be read: {e}"));
                    serde_json::from_str(&error).map(Some).map_err(|e| error_reply(Value::Null, -32603, e.to_string()))
                }
                (Some(id), false) => Err(error_reply(id, -32600, format!("invalid request: {e}"))),
                (None, _) if v.get("method").is_some() => Ok(None),
                (None, _) => Err(error_reply(Value::Null, -32600, format!("invalid request: {e}"))),
            }
        }
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
                            Ok(m) => return m,
                            Err(reply) => reply,
                        },
                        Ok(Err(len)) => error_reply(Value::Null, -32700, format!("a message of {len} bytes is longer than {MAX_LINE}")),
                        Err(_) => return None,
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
        assert!(matches!(read(v.to_string().as_bytes()), Ok(Some(_))));
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        let parse: Value = serde_json::from_str(&read(b"{not json").unwrap_err()).unwrap();
        assert_eq!((parse["error"]["code"].as_i64(), &parse["id"]), (Some(-32700), &Value::Null));
        assert!(read(b"\"\xff\xfe\"").is_err(), "not UTF-8");
        let invalid: Value =
            serde_json::from_str(&read(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#).unwrap_err()).unwrap();
        assert_eq!((invalid["error"]["code"].as_i64(), &invalid["id"]), (Some(-32600), &json!(7)));
        assert!(read(br#"[1,2]"#).is_err());
        // A notification gets no answer; a blank line is nothing.
        assert!(matches!(read(br#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#), Ok(None)));
        assert!(matches!(read(b"  "), Ok(None)));
        // An agent's unreadable response to the server's request ends that request with an error.
        assert!(matches!(read(br#"{"jsonrpc":"2.0","id":3,"result":5}"#), Ok(Some(_))));
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
