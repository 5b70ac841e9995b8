//! `tests/vectors/provider.json` replayed through the component in wasmtime (the cases are the
//! native replay's, guest/tests/common/provider_cases.rs): the host sees what the core's tests see.

use oncely::wit::effect::{Busy, Doubt, EffectError, Keyed};
use oncely::wit::ledger::{Conflict, LedgerError, LedgerErrorKind};
use oncely::wit::provider::{Admission, Answer, HttpRequest, HttpResponse, McpCall, Operation, Recording, Refusal, Request};
use oncely::Runtime;
use serde_json::{json, Map, Value};

fn rt() -> Runtime {
    Runtime::shared().unwrap()
}

fn admit(scope: &str, op: &Operation, req: &Request) -> Result<Admission, String> {
    rt().admit(scope, op, req).unwrap()
}

fn record_http(r: &HttpResponse) -> Recording {
    rt().record_http(r).unwrap()
}

fn oversized(limit: u64) -> Refusal {
    rt().oversized(limit).unwrap()
}

fn record_mcp(result: &str) -> Recording {
    rt().record_mcp(result).unwrap()
}

fn replay_http(recorded: &str) -> HttpResponse {
    rt().replay_http(recorded).unwrap()
}

fn refuse(e: &EffectError, handler_ran: bool) -> Answer {
    rt().refuse(e, handler_ran).unwrap()
}

include!("../../guest/tests/common/provider_cases.rs");

#[test]
fn provider_vectors_through_the_component() {
    replay_provider_vectors(false);
}
