//! Which intent a `tools/call` is: scope, run and step, as the core's `agent.identify` decides
//! from the request's `_meta` and the gateway's settings (wit/agent.wit; README, "MCP gateway";
//! docs/mcp.md, "Identity"). The gateway only hands over what it knows — the request's `_meta`
//! (where `wire` also puts a client's `params.idempotencyKey`), `--scope`, `--run` /
//! `$ONCELY_RUN`, the MCP session when the agent's protocol has one — and keys the call with what
//! the core answers; the rule, its fallbacks and its refusals are the core's, the same for every
//! host. Protocol 2026-07-28 has no session (not even a stdio connection is one): the gateway then
//! hands over none, and a call that names no run is keyed by what the core's rule finds or
//! refused with its `no-run` sentence — never by a request id, which a client's re-issued request
//! changes.

use oncely::wit::agent::{CallContext, IdentityError};
use oncely::wit::keys::{Intent, KeySpec};
use oncely::wit::policy::ToolPolicy;
use oncely::{Error, Runtime};
use serde_json::{Map, Value};

/// The SEP-3182 form of a client-chosen key (the gateway passes its own key on under it).
pub const IDEMPOTENCY_KEY: &str = "idempotencyKey";

/// The gateway's defaults for what a request does not say.
#[derive(Debug, Clone)]
pub struct Defaults {
    pub scope: String,
    /// `--run` / `$ONCELY_RUN`, if given.
    pub run: Option<String>,
}

/// Why a call has no intent: the core refused its identity (the agent's to fix), or the core
/// could not be asked.
#[derive(Debug)]
pub enum Refused {
    /// `no-run`, `invalid-meta`: answered as JSON-RPC invalid params, with the core's sentence.
    Identity(IdentityError),
    /// The runtime failed.
    Runtime(Error),
}

/// The intent of a call of `tool` with `args` (JSON text), and the policy to key it with.
/// `session`: the agent's MCP session, when its protocol has sessions (before 2026-07-28).
#[allow(clippy::too_many_arguments)]
pub fn intent(
    rt: &Runtime,
    meta: &Map<String, Value>,
    defaults: &Defaults,
    session: Option<&str>,
    tool: &str,
    args_json: String,
    policy: &ToolPolicy,
    default_spec: &KeySpec,
) -> Result<(Intent, ToolPolicy), Refused> {
    let spec = policy.key.clone().unwrap_or_else(|| default_spec.clone());
    let call = CallContext {
        tool: tool.to_string(),
        key_identity: spec.identity,
        // The core's rule: a tool that passes through (read-only, overwriting write) needs no run.
        effect_class: Some(policy.class),
        scope: None,
        run: None,
        step: None,
        conversation: None,
        meta_json: if meta.is_empty() { String::new() } else { Value::Object(meta.clone()).to_string() },
        params_key: None,
        session: session.map(str::to_string),
        default_scope: Some(defaults.scope.clone()),
        default_run: defaults.run.clone(),
    };
    let id = rt.identify(&call).map_err(Refused::Runtime)?.map_err(Refused::Identity)?;
    let mut policy = policy.clone();
    policy.key = Some(KeySpec { identity: id.key_identity, ..spec });
    let intent = Intent {
        scope: id.scope,
        run_id: id.run.unwrap_or_default(),
        step_id: id.step.unwrap_or_default(),
        tool: tool.to_string(),
        args_json,
    };
    Ok((intent, policy))
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
        key_in(m, args, defaults, Some(session), policy_json).unwrap()
    }

    /// The key of a call in `session` (none: protocol 2026-07-28), or the core's refusal.
    fn key_in(m: Value, args: &str, defaults: &Defaults, session: Option<&str>, policy_json: &str) -> Result<String, IdentityError> {
        let rt = Runtime::shared().unwrap();
        let policy = rt.parse_policy(policy_json).unwrap();
        let spec = rt.default_spec().unwrap();
        match intent(&rt, &meta(m), defaults, session, "charge", args.to_string(), &policy, &spec) {
            Ok((intent, policy)) => Ok(rt.key(&intent, policy.key.as_ref().unwrap()).unwrap()),
            Err(Refused::Identity(e)) => Err(e),
            Err(Refused::Runtime(e)) => panic!("the runtime failed: {e}"),
        }
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

    #[test]
    fn a_meta_member_that_names_nothing_the_core_reads_is_refused_by_the_core() {
        let rt = Runtime::shared().unwrap();
        let policy = rt.parse_policy(IRREVERSIBLE).unwrap();
        let spec = rt.default_spec().unwrap();
        let d = Defaults { scope: "mcp".into(), run: None };
        let refused = intent(&rt, &meta(json!({"oncely/run": true})), &d, Some("s"), "charge", "{}".into(), &policy, &spec);
        let Err(Refused::Identity(e)) = refused else { panic!("expected the core's refusal, got {refused:?}") };
        assert_eq!(e.kind, oncely::wit::agent::IdentityErrorKind::InvalidMeta);
        assert_eq!(e.at.as_deref(), Some("oncely/run"));
    }

    #[test]
    fn without_a_session_a_call_names_its_run_or_is_refused_by_the_core() {
        // Protocol 2026-07-28: no session. Nothing names a run: the core's no-run refusal.
        let none = Defaults { scope: "mcp".into(), run: None };
        let args = r#"{"customer":"c1","amount_cents":1000}"#;
        let e = key_in(json!({"toolCallId":"call_1"}), args, &none, None, IRREVERSIBLE).unwrap_err();
        assert_eq!(e.kind, oncely::wit::agent::IdentityErrorKind::NoRun);
        assert!(e.message.contains("needs a run") && e.message.contains("--run"), "{}", e.message);
        // The run the request names, or the gateway's: keyed as in any session.
        let by_meta = key_in(json!({"oncely/run":"thread-7"}), args, &none, None, IRREVERSIBLE).unwrap();
        assert_eq!(by_meta, key_of(json!({"oncely/run":"thread-7"}), args, &none, "s1", IRREVERSIBLE));
        let gateway = Defaults { scope: "mcp".into(), run: Some("thread-7".into()) };
        assert_eq!(by_meta, key_in(json!({}), args, &gateway, None, IRREVERSIBLE).unwrap());
        // A client's key names the intent by itself; a natural key needs no run.
        assert!(key_in(json!({"idempotencyKey":"7f3c"}), args, &none, None, IRREVERSIBLE).is_ok());
        let natural = r#"{"class":"irreversible-external","key":{"only":["/customer"],"identity":"scope"},"reconcile":"manual"}"#;
        assert!(key_in(json!({}), args, &none, None, natural).is_ok());
    }
}
