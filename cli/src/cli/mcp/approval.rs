//! Asking the agent's user to approve a call that awaits a person's approval, through MCP
//! elicitation, when the agent's client declares it (form mode): before protocol 2026-07-28 as
//! an `elicitation/create` request to the client, on 2026-07-28 (no requests from server to
//! client) as an `InputRequiredResult` whose answer comes with the client's next call
//! (SEP-2322). What this file holds is the exchange's shape — the form, the message, the request
//! state, how an answer reads — and which keys are being asked about; the gateway records the
//! decision (docs/mcp.md, "Approval").

use oncely::wit::agent::ApprovalForm;
use oncely::wit::ledger::ApprovalRequest;
use rmcp::model::{
    ClientCapabilities, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequiredResult,
    InputResponses, ProtocolVersion,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// The name of the gateway's elicitation in an `InputRequiredResult`'s `inputRequests`, and of
/// its answer in the client's `inputResponses`.
pub const INPUT_KEY: &str = "oncely/approval";

/// How the gateway's request state begins: `oncely/approval:v1:VERSION:KEY`.
const STATE_PREFIX: &str = "oncely/approval:v1:";

/// What the person answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Approve, with the reason given (possibly empty).
    Approve(String),
    /// Deny, with the reason given (possibly empty).
    Deny(String),
    /// No decision: the person cancelled, or the answer cannot be read.
    None,
}

/// Whether the client takes form elicitation: it declares `elicitation` with `form`, or with
/// neither mode (the form of protocol 2025-06-18, which had only forms).
pub fn takes_form(caps: Option<&ClientCapabilities>) -> bool {
    caps.and_then(|c| c.elicitation.as_ref()).is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// Whether `version` forbids requests from server to client (2026-07-28 and later): the
/// elicitation then goes in an `InputRequiredResult`.
pub fn no_server_requests(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The form: the core's (`agent.approval-prompt`: the message, the tool and its exact canonical
/// arguments; the `{approve, reason}` schema), as an elicitation.
pub fn params(form: &ApprovalForm) -> ElicitRequestParams {
    let schema: Value = serde_json::from_str(&form.schema_json).expect("the core's approval schema is JSON");
    let form = json!({"mode": "form", "message": form.message, "requestedSchema": schema});
    serde_json::from_value(form).expect("the approval form is a valid elicitation")
}

/// The `elicitation/create` request (before 2026-07-28).
pub fn request(form: &ApprovalForm) -> ElicitRequest {
    ElicitRequest::new(params(form))
}

/// The request state naming the entry's key and the version the person decides on.
pub fn state(req: &ApprovalRequest) -> String {
    format!("{STATE_PREFIX}{}:{}", req.version, req.key)
}

/// The key and version a request state names, if it is the gateway's.
pub fn read_state(state: &str) -> Option<(String, u64)> {
    let (version, key) = state.strip_prefix(STATE_PREFIX)?.split_once(':')?;
    Some((key.to_string(), version.parse().ok()?))
}

/// The `InputRequiredResult` that asks the client (2026-07-28).
pub fn input_required(req: &ApprovalRequest, form: &ApprovalForm) -> InputRequiredResult {
    let requests = [(INPUT_KEY.to_string(), InputRequest::Elicitation(request(form)))].into_iter().collect();
    InputRequiredResult::new(Some(requests), Some(state(req)))
}

/// How an elicitation's result reads: accepted with `approve: true` approves, accepted with
/// `approve: false` or declined denies, anything else is no decision.
pub fn read(result: &ElicitResult) -> Answer {
    let content = result.content.as_ref();
    let reason = content.and_then(|c| c.get("reason")).and_then(Value::as_str).unwrap_or_default().trim().to_string();
    match result.action {
        ElicitationAction::Accept => match content.and_then(|c| c.get("approve")) {
            Some(Value::Bool(true)) => Answer::Approve(reason),
            Some(Value::Bool(false)) => Answer::Deny(reason),
            _ => Answer::None,
        },
        ElicitationAction::Decline => Answer::Deny(reason),
        _ => Answer::None,
    }
}

/// The answer in a client's `inputResponses` (an elicitation result as JSON).
pub fn read_response(responses: Option<&InputResponses>) -> Answer {
    match responses.and_then(|r| r.get(INPUT_KEY)).map(|v| serde_json::from_value::<ElicitResult>(v.clone())) {
        Some(Ok(result)) => read(&result),
        _ => Answer::None,
    }
}

/// The keys being asked about: at most one elicitation in flight per key in this gateway.
#[derive(Default)]
pub struct Asking {
    until: Mutex<HashMap<String, Instant>>,
}

impl Asking {
    /// Mark `key` as being asked about until `until`; false when it already is.
    pub fn begin(&self, key: &str, until: Instant) -> bool {
        let mut g = self.until.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        g.retain(|_, t| *t > now);
        if g.contains_key(key) {
            return false;
        }
        g.insert(key.to_string(), until);
        true
    }

    /// `key` is no longer being asked about.
    pub fn end(&self, key: &str) {
        self.until.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn waiting() -> ApprovalRequest {
        ApprovalRequest {
            scope: "mcp".into(),
            key: "oncely1:abc:def".into(),
            tool: "charge".into(),
            args_canonical: r#"{"amount_cents":1000,"customer":"cus_1"}"#.into(),
            version: 3,
            since: 0,
        }
    }

    fn result(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        let mut r = ElicitResult::new(action);
        r.content = content;
        r
    }

    #[test]
    fn an_answer_reads_as_a_decision() {
        let accept = |c| read(&result(ElicitationAction::Accept, Some(c)));
        assert_eq!(accept(json!({"approve": true})), Answer::Approve(String::new()));
        assert_eq!(accept(json!({"approve": true, "reason": " ok "})), Answer::Approve("ok".into()));
        assert_eq!(accept(json!({"approve": false, "reason": "on hold"})), Answer::Deny("on hold".into()));
        // An accepted form without a boolean `approve` decides nothing.
        assert_eq!(accept(json!({"approve": "yes"})), Answer::None);
        assert_eq!(accept(json!({})), Answer::None);
        assert_eq!(read(&result(ElicitationAction::Accept, None)), Answer::None);
        assert_eq!(read(&result(ElicitationAction::Decline, None)), Answer::Deny(String::new()));
        assert_eq!(read(&result(ElicitationAction::Decline, Some(json!({"reason": "no"})))), Answer::Deny("no".into()));
        assert_eq!(read(&result(ElicitationAction::Cancel, Some(json!({"approve": true})))), Answer::None);
    }

    #[test]
    fn an_input_response_reads_as_a_decision() {
        let responses = |v: Value| [(INPUT_KEY.to_string(), v)].into_iter().collect::<InputResponses>();
        let approved = responses(json!({"action": "accept", "content": {"approve": true, "reason": "fine"}}));
        assert_eq!(read_response(Some(&approved)), Answer::Approve("fine".into()));
        assert_eq!(read_response(Some(&responses(json!({"action": "decline"})))), Answer::Deny(String::new()));
        assert_eq!(read_response(Some(&responses(json!({"action": "cancel"})))), Answer::None);
        assert_eq!(read_response(Some(&responses(json!("garbage")))), Answer::None);
        let other = [("other".to_string(), json!({"action": "accept", "content": {"approve": true}}))].into_iter().collect();
        assert_eq!(read_response(Some(&other)), Answer::None);
        assert_eq!(read_response(None), Answer::None);
    }

    #[test]
    fn the_request_state_names_key_and_version() {
        let req = waiting();
        assert_eq!(read_state(&state(&req)), Some((req.key.clone(), 3)));
        assert_eq!(read_state("someone else's state"), None);
        assert_eq!(read_state("oncely/approval:v1:x:oncely1:abc"), None);
    }

    #[test]
    fn the_form_shows_the_tool_and_its_exact_arguments() {
        let req = waiting();
        let form = oncely::Runtime::shared().unwrap().approval_prompt(&req, Some("claude-code")).unwrap();
        assert_eq!((form.recorded_as.as_str(), form.decline_note.as_str()), ("mcp:claude-code", "declined by claude-code"));
        let v = serde_json::to_value(input_required(&req, &form)).unwrap();
        assert_eq!(v["resultType"], "input_required");
        assert_eq!(v["requestState"], state(&req));
        let asked = &v["inputRequests"][INPUT_KEY];
        assert_eq!(asked["method"], "elicitation/create");
        let message = asked["params"]["message"].as_str().unwrap();
        assert!(message.contains("\"charge\"") && message.contains(&req.args_canonical), "{message}");
        let schema = &asked["params"]["requestedSchema"];
        assert_eq!(schema["required"], json!(["approve"]));
        assert_eq!(schema["properties"]["approve"]["type"], "boolean");
        assert_eq!(schema["properties"]["reason"]["type"], "string");
    }

    #[test]
    fn form_elicitation_is_what_the_client_declares() {
        let caps = |v: Value| serde_json::from_value::<ClientCapabilities>(v).unwrap();
        assert!(takes_form(Some(&caps(json!({"elicitation": {}})))));
        assert!(takes_form(Some(&caps(json!({"elicitation": {"form": {}}})))));
        assert!(takes_form(Some(&caps(json!({"elicitation": {"form": {}, "url": {}}})))));
        assert!(!takes_form(Some(&caps(json!({"elicitation": {"url": {}}})))));
        assert!(!takes_form(Some(&caps(json!({"sampling": {}})))));
        assert!(!takes_form(None));
        assert!(no_server_requests(Some(&ProtocolVersion::V_2026_07_28)));
        assert!(!no_server_requests(Some(&ProtocolVersion::V_2025_11_25)));
        assert!(!no_server_requests(None));
    }

    #[test]
    fn one_elicitation_per_key_at_a_time() {
        let asking = Asking::default();
        let later = Instant::now() + Duration::from_secs(60);
        assert!(asking.begin("k", later));
        assert!(!asking.begin("k", later));
        assert!(asking.begin("other", later));
        asking.end("k");
        assert!(asking.begin("k", later));
        // One whose time has passed is not in flight.
        assert!(asking.begin("past", Instant::now()));
        assert!(asking.begin("past", later));
    }
}
