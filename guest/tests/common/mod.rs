//! Shared by the vector tests: the ledger events a vector step describes (the format of
//! `tests/vectors/ledger.json`, also used by the scripted events of `effects.json`).

#![allow(dead_code)]

use oncely_core::keys_wit::Intent;
use oncely_core::ledger;
use oncely_core::ledger_wit::{
    ClaimToken, Completion, Decision, Event, Failure, HeldDecision, ReconcileVerdict, Reconciliation, Resolution, Settlement,
};
use serde_json::Value;

pub fn s(v: &Value) -> String {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}")).to_string()
}

pub fn token(v: &Value) -> ClaimToken {
    ClaimToken { attempt: v["attempt"].as_u64().unwrap() as u32, owner: s(&v["owner"]) }
}

/// What `ledger.decision-of` says, as the vectors write it (a step's `expect.decision`).
pub fn decision_json(d: Option<HeldDecision>) -> Value {
    match d {
        None => Value::Null,
        Some(HeldDecision::Asked(_)) => "asked".into(),
        Some(HeldDecision::Approved(a)) => serde_json::json!({"approved": {"by": a.by, "unused": a.unused}}),
        Some(HeldDecision::Denied(d)) => serde_json::json!({"denied": {"by": d.by, "reason": d.reason}}),
    }
}

/// Build the event a step describes.
pub fn event(step: &Value, base: &Intent, pol: &oncely_core::policy_wit::ToolPolicy) -> Event {
    let ev = &step["event"];
    if let Some(name) = ev.as_str() {
        return match name {
            "sweep" => Event::Sweep,
            "purge" => Event::Purge,
            other => panic!("unknown event {other}"),
        };
    }
    let (name, body) = ev.as_object().unwrap().iter().next().unwrap();
    match name.as_str() {
        "begin" | "ask" => {
            let mut i = base.clone();
            if let Some(a) = body.get("args") {
                i.args_json = s(a);
            }
            let c = ledger::prepare(&i, pol, &s(&body["owner"])).unwrap();
            if name == "ask" {
                Event::Ask(c)
            } else {
                Event::Begin(c)
            }
        }
        "heartbeat" => Event::Heartbeat(token(body)),
        "complete" => Event::Complete(Completion { token: token(body), result_json: s(&body["result"]) }),
        "fail_definite" => Event::FailDefinite(Failure { token: token(body), reason: s(&body["reason"]) }),
        "fail_ambiguous" => Event::FailAmbiguous(Failure { token: token(body), reason: s(&body["reason"]) }),
        "complete_unrecordable" => Event::CompleteUnrecordable(Failure { token: token(body), reason: s(&body["reason"]) }),
        "reconciled" => Event::Reconciled(Reconciliation {
            attempt: body["attempt"].as_u64().unwrap() as u32,
            verdict: if let Some(r) = body.get("happened") {
                ReconcileVerdict::Happened(s(r))
            } else if body.get("not_happened").is_some() {
                ReconcileVerdict::NotHappened
            } else {
                ReconcileVerdict::Unknown(s(&body["unknown"]))
            },
        }),
        "resolve" => Event::Resolve(Resolution {
            settlement: match body.get("happened") {
                Some(r) => Settlement::Happened(s(r)),
                None => Settlement::NotHappened,
            },
            by: s(&body["by"]),
            note: s(&body["note"]),
            seen_version: body["version"].as_u64().expect("a resolve step names the version it saw"),
        }),
        "approve" | "deny" => {
            let d = Decision {
                by: s(&body["by"]),
                note: s(&body["note"]),
                seen_version: body["version"].as_u64().expect("an approve or deny step names the version it saw"),
            };
            if name == "approve" {
                Event::Approve(d)
            } else {
                Event::Deny(d)
            }
        }
        other => panic!("unknown event {other}"),
    }
}
