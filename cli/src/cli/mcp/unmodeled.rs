//! What a server says of its tools that rmcp does not model, carried around the SDK so that the
//! agent gets it unchanged: a tool's `execution` (how it takes tasks), and any other member of a
//! `Tool` the SDK's record has no field for. The gateway notes these members in the server's
//! `tools/list` answers as they come off the wire ([`Unmodeled::note`]: over stdio, where the
//! gateway reads the server's stdout itself, [`ChildTransport`]) and puts them back into the
//! `tools/list` answers the agent gets ([`Unmodeled::restore`], by the tool's name: over stdio in
//! `wire::stdio`, over HTTP in `wire::normalize_http`).

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The members of a `Tool` that rmcp 3.11 models (`rmcp::model::Tool`); any other is noted.
const MODELED: [&str; 8] = ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta"];

/// The longest line of the server's that is read for its tools (rmcp's own limit over stdio);
/// a longer one is passed on unread.
const MAX_NOTED_LINE: usize = 16 << 20;

/// Tool name → the members of its `Tool` the SDK drops, as the server last listed them.
#[derive(Clone, Default)]
pub struct Unmodeled(Arc<Mutex<HashMap<String, Map<String, Value>>>>);

impl Unmodeled {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Map<String, Value>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A message from the server (one JSON-RPC message's text): when it is a result listing
    /// tools, note what each listed tool has beyond what the SDK models (a tool listed without
    /// any is forgotten).
    pub fn note(&self, message: &[u8]) {
        // Most messages are not tool lists: not parsed.
        if !message.windows(7).any(|w| w == b"\"tools\"") {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(message) else { return };
        let Some(tools) = v.get("result").and_then(|r| r.get("tools")).and_then(Value::as_array) else { return };
        let mut g = self.lock();
        for tool in tools {
            let (Some(name), Some(members)) = (tool.get("name").and_then(Value::as_str), tool.as_object()) else { continue };
            if tool.get("inputSchema").is_none() {
                continue;
            }
            let extra: Map<String, Value> =
                members.iter().filter(|(k, _)| !MODELED.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
            if extra.is_empty() {
                g.remove(name);
            } else {
                g.insert(name.to_string(), extra);
            }
        }
    }

    /// Put back into a `tools/list` result (its JSON) what the server listed for each tool and
    /// the SDK dropped. Members the result has are kept as they are.
    pub fn restore(&self, result: &mut Value) {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return };
        let g = self.lock();
        if g.is_empty() {
            return;
        }
        for tool in tools {
            let Some(t) = tool.as_object_mut() else { continue };
            let Some(extra) = t.get("name").and_then(Value::as_str).and_then(|n| g.get(n)) else { continue };
            for (k, v) in extra {
                t.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }

    /// [`Unmodeled::restore`] on a JSON-RPC message's text, when it is a response listing tools;
    /// `None` when there is nothing to change.
    pub fn restore_message(&self, text: &str) -> Option<String> {
        if self.lock().is_empty() || !text.contains("\"tools\"") {
            return None;
        }
        let mut v: Value = serde_json::from_str(text).ok()?;
        let before = v.clone();
        self.restore(v.get_mut("result")?);
        (v != before).then(|| v.to_string())
    }
}

/// Copy `from` to `to` line by line, showing each line of at most [`MAX_NOTED_LINE`] bytes to
/// `see` first; longer lines pass on unread. Ends at `from`'s end or when `to` is closed.
async fn pump(from: impl AsyncRead + Unpin, mut to: impl AsyncWrite + Unpin, see: impl Fn(&[u8])) {
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    // A line longer than MAX_NOTED_LINE is being passed on as it comes.
    let mut streaming = false;
    loop {
        let (used, end) = {
            let available = match from.fill_buf().await {
                Ok([]) | Err(_) => break,
                Ok(b) => b,
            };
            match available.iter().position(|b| *b == b'\n') {
                Some(i) => {
                    line.extend_from_slice(&available[..=i]);
                    (i + 1, true)
                }
                None => {
                    line.extend_from_slice(available);
                    (available.len(), false)
                }
            }
        };
        from.consume(used);
        if end && !streaming && line.len() <= MAX_NOTED_LINE {
            see(&line);
        }
        if end || streaming || line.len() > MAX_NOTED_LINE {
            streaming = !end;
            if to.write_all(&line).await.is_err() || to.flush().await.is_err() {
                break;
            }
            line.clear();
        }
    }
    if !line.is_empty() {
        let _ = to.write_all(&line).await;
    }
    let _ = to.shutdown().await;
}

/// The server as a child process over its stdin and stdout, its stdout read by the gateway
/// first ([`Unmodeled::note`]) and then by the SDK. Its stderr is the gateway's. Closed as
/// rmcp closes its own child transport: stdin closed, a wait, then the process killed.
pub struct ChildTransport {
    child: Option<tokio::process::Child>,
    inner: AsyncRwTransport<RoleClient, tokio::io::DuplexStream, tokio::process::ChildStdin>,
}

/// How long a server may take to exit once its stdin is closed.
const EXIT_WAIT: Duration = Duration::from_secs(3);

impl ChildTransport {
    pub fn spawn(mut cmd: tokio::process::Command, unmodeled: Unmodeled) -> std::io::Result<ChildTransport> {
        cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => return Err(std::io::Error::other("the server's stdin or stdout is not a pipe")),
        };
        let (theirs, ours) = tokio::io::duplex(1 << 20);
        tokio::spawn(pump(stdout, theirs, move |line| unmodeled.note(line)));
        Ok(ChildTransport { child: Some(child), inner: AsyncRwTransport::new(ours, stdin) })
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl std::future::Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let closed = self.inner.close().await;
        if let Some(mut child) = self.child.take() {
            if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
        closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tools_execution_is_noted_and_restored_by_name() {
        let u = Unmodeled::default();
        let listed = json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [
            {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}, "x-other": 1},
            {"name": "echo", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
        ]}});
        u.note(listed.to_string().as_bytes());
        let mut agents = json!({"tools": [
            {"name": "echo", "inputSchema": {"type": "object"}},
            {"name": "research", "inputSchema": {"type": "object"}, "_meta": {"oncely/class": "accumulating-write"}},
        ]});
        u.restore(&mut agents);
        assert_eq!(agents["tools"][0], json!({"name": "echo", "inputSchema": {"type": "object"}}));
        assert_eq!(agents["tools"][1]["execution"], json!({"taskSupport": "required"}));
        assert_eq!(agents["tools"][1]["x-other"], json!(1));
        assert_eq!(agents["tools"][1]["_meta"]["oncely/class"], "accumulating-write");
        // Listed again without it: forgotten.
        u.note(json!({"jsonrpc": "2.0", "id": 4, "result": {"tools": [{"name": "research", "inputSchema": {}}]}}).to_string().as_bytes());
        assert!(u.restore_message(&json!({"jsonrpc": "2.0", "id": 5, "result": {"tools": [{"name": "research"}]}}).to_string()).is_none());
    }

    #[tokio::test]
    async fn the_pump_passes_every_byte_and_shows_whole_lines() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let long = "y".repeat(MAX_NOTED_LINE + 10);
        let input = format!("{{\"a\":1}}\n{long}\n{{\"b\":2}}\ntail");
        let (mut w, r) = tokio::io::duplex(64);
        let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
        let feed = input.clone();
        tokio::spawn(async move {
            w.write_all(feed.as_bytes()).await.unwrap();
        });
        let pumped = tokio::spawn(pump(r, out_w, move |l| s.lock().unwrap().push(String::from_utf8_lossy(l).into_owned())));
        let mut got = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut out_r, &mut got).await.unwrap();
        pumped.await.unwrap();
        assert_eq!(got, input.as_bytes());
        assert_eq!(*seen.lock().unwrap(), vec!["{\"a\":1}\n".to_string(), "{\"b\":2}\n".to_string()]);
    }
}
