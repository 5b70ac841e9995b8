//! Reconciliation through the server itself: a policy's `{"lookup": TOOL}` names a read-only
//! tool of the same server, and the gateway asks it whether an effect happened
//! (docs/key-scheme.md §6, "A lookup through an MCP gateway").
//!
//! - Arguments, from the lookup tool's own `inputSchema`: each property named like a member of
//!   the original call's arguments gets that member's value; a property named `idempotencyKey`
//!   gets the key (what the gateway sent in `_meta`, so a server that stores it can find it).
//! - Result: `isError` → unknown; else `found` (in `structuredContent`, or in the first text
//!   content read as a JSON object) true → happened, with the lookup's result recorded and
//!   replayed; false → did not happen; anything else → unknown.

use oncely::wit::ledger::ReconcileVerdict;
use serde_json::{Map, Value};

/// The property of a lookup tool that gets the key.
pub const KEY_PROPERTY: &str = "idempotencyKey";

/// The arguments of a lookup call.
pub fn arguments(lookup_schema: &Map<String, Value>, original_args: &Value, key: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(Value::Object(props)) = lookup_schema.get("properties") else { return out };
    for name in props.keys() {
        if name == KEY_PROPERTY {
            out.insert(name.clone(), Value::String(key.to_string()));
        } else if let Some(v) = original_args.get(name) {
            out.insert(name.clone(), v.clone());
        }
    }
    out
}

/// What a lookup's `CallToolResult` (as JSON) says about the effect.
pub fn verdict(tool: &str, result: &Value) -> ReconcileVerdict {
    if result.get("isError") == Some(&Value::Bool(true)) {
        return ReconcileVerdict::Unknown(format!(
            "the lookup {tool:?} answered with an error: {}",
            first_text(result).unwrap_or_default()
        ));
    }
    let from_text = first_text(result).and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let found = result.get("structuredContent").and_then(|s| s.get("found")).or_else(|| from_text.as_ref().and_then(|v| v.get("found")));
    match found {
        Some(Value::Bool(true)) => ReconcileVerdict::Happened(result.to_string()),
        Some(Value::Bool(false)) => ReconcileVerdict::NotHappened,
        Some(other) => ReconcileVerdict::Unknown(format!("the lookup {tool:?} answered found = {other}, not true or false")),
        None => ReconcileVerdict::Unknown(format!("the lookup {tool:?} answered without a `found` member")),
    }
}

fn first_text(result: &Value) -> Option<String> {
    result
        .get("content")?
        .as_array()?
        .iter()
        .find(|c| c.get("type") == Some(&Value::from("text")))?
        .get("text")?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_come_from_the_lookup_schema() {
        let schema = json!({"type":"object","properties":{"customer":{},"amount_cents":{},"idempotencyKey":{},"since":{}}});
        let args = arguments(schema.as_object().unwrap(), &json!({"customer":"c1","amount_cents":1000,"memo":"x"}), "oncely1:k");
        assert_eq!(Value::Object(args), json!({"customer":"c1","amount_cents":1000,"idempotencyKey":"oncely1:k"}));
        assert!(arguments(json!({"type":"object"}).as_object().unwrap(), &json!({"a":1}), "k").is_empty());
    }

    #[test]
    fn results_are_read_as_found_not_found_or_unknown() {
        let found = json!({"content":[],"structuredContent":{"found":true,"charge":{"id":"ch_1"}}});
        assert_eq!(verdict("find", &found), ReconcileVerdict::Happened(found.to_string()));
        assert_eq!(verdict("find", &json!({"content":[{"type":"text","text":"{\"found\":false}"}]})), ReconcileVerdict::NotHappened);
        for unknown in [
            json!({"content":[{"type":"text","text":"{\"found\":false}"}],"isError":true}),
            json!({"content":[{"type":"text","text":"no idea"}]}),
            json!({"structuredContent":{"found":"maybe"}}),
        ] {
            assert!(matches!(verdict("find", &unknown), ReconcileVerdict::Unknown(_)), "{unknown}");
        }
    }
}
