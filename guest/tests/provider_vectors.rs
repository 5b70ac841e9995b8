//! Replays `tests/vectors/provider.json` against the native build of the core (the cases are
//! in common/provider_cases.rs, shared with the replay through the component).
//! `ONCELY_BLESS=1` writes each case's `expect` from the core (then review the diff).

use oncely_core::effect_wit::{Busy, EffectError, Keyed};
use oncely_core::ledger_wit::{Conflict, EntryState, LedgerError, LedgerErrorKind};
use oncely_core::provider::{admit, oversized, record_http, record_mcp, refuse, replay_http};
use oncely_core::provider_wit::{Admission, Answer, HttpRequest, HttpResponse, McpCall, Operation, Recording, Refusal, Request};
use serde_json::{json, Map, Value};

include!("common/provider_cases.rs");

#[test]
fn provider_vectors() {
    replay_provider_vectors(std::env::var_os("ONCELY_BLESS").is_some());
}
