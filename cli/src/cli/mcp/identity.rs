//! Which intent a `tools/call` is: scope, run and step, from the request's `_meta` and the
//! gateway's settings (README, "MCP gateway"; docs/mcp.md, "Identity").
//!
//! - scope: `_meta["oncely/scope"]`, else `--scope`;
//! - run: `_meta["oncely/run"]`, else `--run` / `$ONCELY_RUN`, else, for a call whose step is a
//!   client's `idempotencyKey`, the fixed run [`CLIENT_KEY_RUN`] (the client's key names the
//!   intent by itself, across sessions: a client that reconnects sends it again), else the MCP
//!   session;
//! - step: `_meta["oncely/step"]`, else a client's `idempotencyKey` (SEP-3182, in `_meta` or, read
//!   there by `wire`, in the params); never the tool-call id a model gives (a model re-asking
//!   gets a new one).
//!
//! With no step, a tool whose key identity is `step` is keyed by `run` instead: the same tool with
//! the same arguments in the same run is one effect — the model re-asking, the client retrying
//! and the resumed run all land on it. A natural key (`identity: scope`) is kept as declared.

use oncely::wit::keys::{Intent, KeyIdentity, KeySpec};
use oncely::wit::policy::ToolPolicy;
use serde_json::{Map, Value};

/// The `_meta` members the gateway reads.
pub const SCOPE: &str = "oncely/scope";
pub const RUN: &str = "oncely/run";
pub const STEP: &str = "oncely/step";
/// The SEP-3182 form of a client-chosen key, used as the step.
pub const IDEMPOTENCY_KEY: &str = "idempotencyKey";
/// The run of calls keyed by a client's `idempotencyKey` when none is named.
pub const CLIENT_KEY_RUN: &str = "idempotency-key";

/// The gateway's defaults for what a request does not say.
#[derive(Debug, Clone)]
pub struct Defaults {
    pub scope: String,
    /// `--run` / `$ONCELY_RUN`, if given.
    pub run: Option<String>,
}

/// A request member that names an identity: a non-empty string, or a number (written as JSON).
fn named(meta: &Map<String, Value>, member: &str) -> Option<String> {
    match meta.get(member)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The intent of a call of `tool` with `args` (JSON text), and the policy to key it with.
pub fn intent(
    meta: &Map<String, Value>,
    defaults: &Defaults,
    session: &str,
    tool: &str,
    args_json: String,
    policy: &ToolPolicy,
    default_spec: &KeySpec,
) -> (Intent, ToolPolicy) {
    let scope = named(meta, SCOPE).unwrap_or_else(|| defaults.scope.clone());
    let named_step = named(meta, STEP);
    let by_client_key = named_step.is_none() && named(meta, IDEMPOTENCY_KEY).is_some();
    let step = named_step.or_else(|| named(meta, IDEMPOTENCY_KEY));
    let run = named(meta, RUN).or_else(|| defaults.run.clone()).unwrap_or_else(|| match by_client_key {
        true => CLIENT_KEY_RUN.to_string(),
        false => session.to_string(),
    });
    let mut policy = policy.clone();
    if step.is_none() {
        let mut spec = policy.key.clone().unwrap_or_else(|| default_spec.clone());
        if spec.identity == KeyIdentity::Step {
            spec.identity = KeyIdentity::Run;
        }
        policy.key = Some(spec);
    }
    let intent = Intent { scope, run_id: run, step_id: step.unwrap_or_default(), tool: tool.to_string(), args_json };
    (intent, policy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oncely::Runtime;
    use serde_json::json;

    fn meta(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn key_of(m: Value, args: &str, defaults: &Defaults, session: &str, policy_json: &str) -> String {
        let rt = Runtime::shared().unwrap();
        let policy = rt.parse_policy(policy_json).unwrap();
        let spec = rt.default_spec().unwrap();
        let (intent, policy) = intent(&meta(m), defaults, session, "charge", args.to_string(), &policy, &spec);
        rt.key(&intent, policy.key.as_ref().unwrap()).unwrap()
    }

    const IRREVERSIBLE: &str = r#"{"class":"irreversible-external","key":{},"reconcile":"manual"}"#;

    #[test]
    fn without_a_step_the_same_arguments_in_a_run_are_one_effect() {
        let d = Defaults { scope: "mcp".into(), run: None };
        let a = key_of(json!({}), r#"{"customer":"c1","amount_cents":1000}"#, &d, "session-1", IRREVERSIBLE);
        // A model re-asking: another order, another spelling of the number, a new tool-call id.
        let b = key_of(json!({"toolCallId":"call_2"}), r#"{"amount_cents":1e3,"customer":"c1"}"#, &d, "session-1", IRREVERSIBLE);
        assert_eq!(a, b);
        // Another session (no run given) is another run.
        assert_ne!(a, key_of(json!({}), r#"{"customer":"c1","amount_cents":1000}"#, &d, "session-2", IRREVERSIBLE));
    }

    #[test]
    fn a_run_from_the_request_or_the_gateway_outlives_the_session() {
        let d = Defaults { scope: "mcp".into(), run: Some("nightly".into()) };
        let args = r#"{"customer":"c1","amount_cents":1000}"#;
        assert_eq!(key_of(json!({}), args, &d, "s1", IRREVERSIBLE), key_of(json!({}), args, &d, "s2", IRREVERSIBLE));
        let r1 = key_of(json!({"oncely/run":"r1"}), args, &d, "s1", IRREVERSIBLE);
        assert_eq!(r1, key_of(json!({"oncely/run":"r1"}), args, &d, "s2", IRREVERSIBLE));
        assert_ne!(r1, key_of(json!({}), args, &d, "s1", IRREVERSIBLE));
    }

    #[test]
    fn a_step_or_an_idempotency_key_makes_two_steps_two_effects() {
        let d = Defaults { scope: "mcp".into(), run: Some("r".into()) };
        let args = r#"{"customer":"c1","amount_cents":1000}"#;
        let s1 = key_of(json!({"oncely/step":"refund-1"}), args, &d, "s", IRREVERSIBLE);
        let s2 = key_of(json!({"oncely/step":"refund-2"}), args, &d, "s", IRREVERSIBLE);
        assert_ne!(s1, s2);
        assert_eq!(s1, key_of(json!({"idempotencyKey":"refund-1"}), args, &d, "s", IRREVERSIBLE));
        assert_eq!(s1, key_of(json!({"oncely/step":"refund-1","idempotencyKey":"other"}), args, &d, "s", IRREVERSIBLE));
    }

    #[test]
    fn a_client_key_without_a_run_names_the_intent_across_sessions() {
        let d = Defaults { scope: "mcp".into(), run: None };
        let args = r#"{"customer":"c1","amount_cents":1000}"#;
        let k = key_of(json!({"idempotencyKey":"7f3c"}), args, &d, "session-1", IRREVERSIBLE);
        assert_eq!(k, key_of(json!({"idempotencyKey":"7f3c"}), args, &d, "session-2", IRREVERSIBLE));
        // A step the gateway's vocabulary names is not unique by itself: it stays in its session.
        let s = key_of(json!({"oncely/step":"refund-1"}), args, &d, "session-1", IRREVERSIBLE);
        assert_ne!(s, key_of(json!({"oncely/step":"refund-1"}), args, &d, "session-2", IRREVERSIBLE));
    }

    #[test]
    fn a_natural_key_is_kept_across_runs() {
        let natural = r#"{"class":"irreversible-external","key":{"only":["/charge"],"identity":"scope"},"reconcile":"manual"}"#;
        let a = key_of(
            json!({"oncely/run":"a"}),
            r#"{"charge":"ch_1","amount":5}"#,
            &Defaults { scope: "mcp".into(), run: None },
            "s",
            natural,
        );
        let b = key_of(
            json!({"oncely/run":"b"}),
            r#"{"charge":"ch_1","amount":7}"#,
            &Defaults { scope: "mcp".into(), run: None },
            "t",
            natural,
        );
        assert_eq!(a, b);
    }

    #[test]
    fn the_scope_comes_from_the_request_else_the_gateway() {
        let d = Defaults { scope: "acme".into(), run: Some("r".into()) };
        let args = r#"{"x":1}"#;
        assert_ne!(key_of(json!({}), args, &d, "s", IRREVERSIBLE), key_of(json!({"oncely/scope":"other"}), args, &d, "s", IRREVERSIBLE));
        let d2 = Defaults { scope: "other".into(), run: Some("r".into()) };
        assert_eq!(key_of(json!({}), args, &d2, "s", IRREVERSIBLE), key_of(json!({"oncely/scope":"other"}), args, &d, "s", IRREVERSIBLE));
    }
}
