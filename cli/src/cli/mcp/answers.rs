//! What the model reads when a keyed call does not simply return: the core's reply
//! (`agent.answer`, the same sentences every host delivers) as an `isError` result. An unknown
//! outcome is never answered with "try again".

use oncely::wit::agent::ReplyCode;
use oncely::{Error, Runtime};
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

/// The answer to a keyed call that ended with `e`: the core's reply (`agent.answer`) as an
/// `isError` result, arguments that cannot be keyed as JSON-RPC invalid params (the agent's to
/// fix; nothing was called), and what is not the model's business (the ledger cannot be reached,
/// a bug) as a JSON-RPC internal error.
pub fn of(rt: &Runtime, e: &Error) -> Result<CallToolResult, ErrorData> {
    match rt.answer_error(e) {
        Ok(Some(reply)) if reply.code == ReplyCode::InvalidArguments => Err(ErrorData::invalid_params(reply.text, None)),
        Ok(Some(reply)) => Ok(refusal(reply.text, reply.key.as_deref())),
        Ok(None) => Err(ErrorData::internal_error(format!("oncely: {e}"), None)),
        Err(rt_error) => Err(ErrorData::internal_error(format!("oncely: {e} (and the core could not word it: {rt_error})"), None)),
    }
}
