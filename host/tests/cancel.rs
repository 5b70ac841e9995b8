//! `tests/vectors/adapters.json`'s `cancel` cases: a caller that stops waiting (wit/effect.wit,
//! "A caller that stops waiting"), the Rust way. A dropped future is gone, so a caller that may
//! stop waiting spawns the effect as a task of its own (as the gateway and the provider layer
//! do) and stops awaiting it: before the claim, the caller drops the effect's future unpolled;
//! during the call, it stops awaiting the task (a timeout around the join). Then the same
//! intent is asked again. Python (asyncio) and JavaScript (an AbortSignal) replay the same cases.

use oncely_test_support as common;

use oncely::store::state_name;
use oncely::wit::keys::Intent;
use oncely::wit::ledger::EntryState;
use oncely::{Error, Ledger, ToolError};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// The tool of a case: the first call behaves as `first` says; call n returns `{"sent": n}`.
#[derive(Default)]
struct Tool {
    keys: Mutex<Vec<String>>,
    started: Notify,
    release: Notify,
}

impl Tool {
    async fn call(&self, case: &Value, key: String) -> Result<Value, ToolError> {
        let n = {
            let mut keys = self.keys.lock().unwrap();
            keys.push(key);
            keys.len()
        };
        self.started.notify_one();
        if n == 1 && case["leaves"] == "during-call" {
            self.release.notified().await;
        }
        let reason = || case["reason"].as_str().unwrap().to_string();
        match (n, case["first"].as_str().unwrap()) {
            (1, "fails-definitely") => Err(ToolError::definite(reason())),
            (1, "fails-ambiguously") => Err(ToolError::ambiguous(reason())),
            (1, "outlives-its-deadline") => std::future::pending().await, // abandoned at maxCallMs
            _ => Ok(json!({ "sent": n })),
        }
    }
}

fn intent(case: &Value) -> Intent {
    let i = &case["intent"];
    let s = |f: &str| i[f].as_str().unwrap().to_string();
    Intent { scope: s("scope"), run_id: s("run"), step_id: s("step"), tool: s("tool"), args_json: i["args"].to_string() }
}

/// The effect-error case of an error, and the model's reply code for it (`agent.answer`).
fn refused(l: &Ledger, e: &Error) -> Value {
    let case = match e {
        Error::Escalated(_) => "escalated",
        Error::InDoubt(_) => "in-doubt",
        Error::Conflict(_) => "conflict",
        Error::InProgress(_) => "in-progress",
        Error::ToolFailed(_) => "tool-failed",
        other => panic!("not an effect's refusal: {other}"),
    };
    let reply = l.runtime().answer_error(e).unwrap().expect("the model is answered");
    assert_eq!(e.to_string(), reply.text, "the error displays the core's sentence");
    let code = format!("{:?}", reply.code); // `ReplyCode::InDoubt`
    json!({ "error": case, "code": kebab(code.rsplit("::").next().unwrap()) })
}

/// A WIT enum case's name from its Rust name (`InDoubt` → `in-doubt`).
fn kebab(rust: &str) -> String {
    let mut out = String::new();
    for (i, c) in rust.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

async fn replay(case: &Value, location: &str) {
    let name = case["name"].as_str().unwrap();
    let want = &case["expect"];
    let key = want["key"].as_str().unwrap();
    let l = Arc::new(Ledger::open(location).await.unwrap().with_owner("w1"));
    let policy = l.runtime().parse_policy(&case["policy"].to_string()).unwrap();
    let (intent, tool) = (intent(case), Arc::new(Tool::default()));
    let effect = {
        let (l, policy, intent, tool, case) = (l.clone(), policy.clone(), intent.clone(), tool.clone(), case.clone());
        async move { l.effect(&intent, &policy).run(|key| tool.call(&case, key)).await }
    };
    if case["leaves"] == "before-claim" {
        drop(effect); // never polled: nothing written, nothing called
    } else {
        let task = tokio::spawn(effect);
        tool.started.notified().await;
        // The caller stops waiting; the task runs on.
        assert!(tokio::time::timeout(Duration::from_millis(10), task).await.is_err(), "{name}");
    }
    let in_flight = case["reask"] == "in-flight";
    if in_flight {
        let tool = tool.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            tool.release.notify_one();
        });
    } else {
        tool.release.notify_one();
        let mut entry = l.get("ops", key).await.unwrap();
        for _ in 0..500 {
            // The spawned call runs on to its record (5 s at most).
            if entry.as_ref().is_none_or(|e| e.state != EntryState::Pending) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            entry = l.get("ops", key).await.unwrap();
        }
        assert_eq!(json!(entry.map(|e| state_name(e.state))), want["recorded"], "{name}");
    }
    let got = match l.effect(&intent, &policy).run(|key| tool.call(case, key)).await {
        Ok(r) => {
            assert_eq!(r.key, key, "{name}");
            json!({ "replayed": r.replayed, "value": r.value })
        }
        Err(e) => refused(&l, &e),
    };
    assert_eq!(got, want["reask"], "{name}");
    let keys = tool.keys.lock().unwrap().clone();
    assert_eq!(keys.len() as u64, want["calls"].as_u64().unwrap(), "{name}");
    assert!(keys.iter().all(|k| k == key), "{name}");
    let end = l.get("ops", key).await.unwrap().unwrap();
    assert_eq!(state_name(end.state), want["state"], "{name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_caller_leaves_its_claimed_call_running_to_its_record() {
    let doc = common::vectors("adapters.json");
    let cases = doc["cancel"].as_array().unwrap();
    assert!(cases.iter().any(|c| c["leaves"] == "before-claim") && cases.iter().any(|c| c["leaves"] == "during-call"));
    for case in cases {
        let (_dir, path) = common::sqlite_path();
        replay(case, &path).await;
    }
}
