//! What the model reads when a keyed call does not simply return: `isError` results in plain
//! text it can act on. An unknown outcome is never answered with "try again".

use oncely::Error;
use rmcp::model::{CallToolResult, ContentBlock, ErrorData, MetaObject};
use rmcp::service::ServiceError;
use serde_json::Value;

/// The `_meta` members the gateway adds to a keyed call's result.
pub const KEY_META: &str = "oncely/key";
pub const REPLAYED_META: &str = "oncely/replayed";
pub const RECONCILED_META: &str = "oncely/reconciled";

/// The marks of a keyed call's result: its key, and whether it was replayed or reconciled.
pub fn marks(key: &str, replayed: bool, reconciled: bool) -> MetaObject {
    let mut m = MetaObject::default();
    m.insert(KEY_META.into(), Value::from(key));
    if replayed {
        m.insert(REPLAYED_META.into(), Value::Bool(true));
    }
    if reconciled {
        m.insert(RECONCILED_META.into(), Value::Bool(true));
    }
    m
}

/// A failed exchange with the server or an agent, as the JSON-RPC error to answer with.
pub fn service_error(e: ServiceError) -> ErrorData {
    match e {
        ServiceError::McpError(e) => e,
        other => ErrorData::internal_error(format!("oncely mcp: {other}"), None),
    }
}

/// An `isError` result with one text, marked with the key.
pub fn refusal(text: String, key: Option<&str>) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    if let Some(key) = key {
        r.meta = Some(marks(key, false, false));
    }
    r
}

/// The answer to a keyed call that ended with `e`: an `isError` result, or a JSON-RPC error for
/// what is not about the call (the ledger cannot be reached, a bug).
pub fn of(e: &Error) -> Result<CallToolResult, ErrorData> {
    let (text, key) = match e {
        Error::Conflict { key, pointer } => (
            format!(
                "oncely: refused: an effect with this key already ran with different arguments (they first differ at {pointer:?}). \
                 Nothing was run now; the earlier effect stands. For a second, different effect, send a new step \
                 (_meta \"oncely/step\")."
            ),
            Some(key),
        ),
        Error::InProgress { key, owner, .. } => (
            format!(
                "oncely: this exact call is already running (held by {owner}); it was not started a second time. \
                 An identical call returns its result once it has finished."
            ),
            Some(key),
        ),
        Error::InDoubt { key, reason } => (
            format!(
                "oncely: the outcome of this call is unknown: it may have happened ({reason}). It will not be run again; \
                 the gateway is reconciling it with the server, and it is escalated to a human if that cannot tell. \
                 Do not repeat it with other arguments; an identical call returns the outcome once it is known."
            ),
            Some(key),
        ),
        Error::Escalated { key, reason } => (
            format!(
                "oncely: the outcome of this call is unknown and a human has been asked to settle it ({reason}). \
                 It will not be run again until then; an identical call returns what they decide."
            ),
            Some(key),
        ),
        Error::ResultNotRecorded { key, reason } => {
            (format!("oncely: the call happened, but its result could not be recorded ({reason}); it will not be run again."), Some(key))
        }
        Error::ToolFailed(reason) => (format!("oncely: the tool failed, and did not happen: {reason}"), None),
        Error::Contention(n) => {
            (format!("oncely: {n} workers raced for this call; it was not run. An identical call may be sent again."), None)
        }
        // Arguments that cannot be keyed (a number a double cannot hold, a lone surrogate, too
        // deep): the agent's to fix; nothing was called.
        Error::Key(_) | Error::Canon(_) => {
            return Err(ErrorData::invalid_params(format!("oncely: the arguments cannot be keyed: {e}"), None))
        }
        other => return Err(ErrorData::internal_error(format!("oncely: {other}"), None)),
    };
    Ok(refusal(text, key.map(String::as_str)))
}
