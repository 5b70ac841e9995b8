//! Replays `tests/vectors/provider.json` against the native build of the core (the cases are
//! in common/provider_cases.rs, shared with the replay through the component).
//! `ONCELY_BLESS=1` writes each case's `expect` from the core (then review the diff).

use oncely_core::effect_wit::{Busy, Doubt, EffectError, Keyed};
use oncely_core::ledger_wit::{Conflict, LedgerError, LedgerErrorKind};
use oncely_core::provider::{admit, mcp_refusal, oversized, record_http, record_mcp, refuse, replay_http};
use oncely_core::provider_wit::{Admission, Answer, HttpRequest, HttpResponse, McpCall, Operation, Recording, Refusal, Request};
use serde_json::{json, Map, Value};

include!("common/provider_cases.rs");

#[test]
fn provider_vectors() {
    replay_provider_vectors(std::env::var_os("ONCELY_BLESS").is_some());
}

/// A refusal as an MCP tool's answer: canonical JSON, the detail as its text, the kind, pointer,
/// retry and client key in `_meta` (only those set).
#[test]
fn an_mcp_refusal_is_one_canonical_call_tool_result() {
    let r = oversized(1024);
    let text = mcp_refusal(&r, None);
    assert_eq!(oncely_core::canonical::canonicalize(&text).unwrap(), text, "canonical: members sorted");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["isError"], true);
    assert_eq!(v["content"], json!([{"type": "text", "text": format!("oncely: {}", r.detail)}]));
    assert_eq!(v["_meta"], json!({"oncely/refusal": "request-too-large"}));
    let reused = Refusal { pointer: Some("/amount".into()), retry_after_s: Some(3), ..r };
    let text = mcp_refusal(&reused, Some("k-1"));
    assert_eq!(oncely_core::canonical::canonicalize(&text).unwrap(), text);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["_meta"],
        json!({"oncely/key": "k-1", "oncely/pointer": "/amount", "oncely/refusal": "request-too-large", "oncely/retryAfterS": 3})
    );
}
