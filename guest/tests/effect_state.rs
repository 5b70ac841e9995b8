//! The machine's state crosses the boundary on every step (`wit/effect.wit`): it holds an
//! effect's arguments once, however many of its values (the claim, the row read, the row being
//! written) carry them.

use oncely_core::effect;
use oncely_core::effect_wit::{Action, EffectOptions, Input};
use oncely_core::keys_wit::Intent;
use oncely_core::policy;
use oncely_core::policy_wit::EffectClass;

#[test]
fn a_state_holds_the_arguments_once() {
    let blob = "x".repeat(64 * 1024);
    let intent = Intent {
        scope: "acme".into(),
        run_id: "r1".into(),
        step_id: "s1".into(),
        tool: "refund".into(),
        args_json: format!("{{\"blob\":\"{blob}\"}}"),
    };
    let policy = policy::default_policy(EffectClass::IrreversibleExternal);
    let options = EffectOptions { owner: "w1".into(), max_attempts: 0, wait_ms: None, has_reconciler: false };
    let start = effect::start_effect(&intent, &policy, &options, 1_000).unwrap();
    let write = start.write.as_ref().expect("the claim's insert");
    assert_eq!(write.row.args_canonical.len(), blob.len() + 11, "the row carries the arguments");
    assert!(matches!(start.action, Action::CallTool(_)));
    // The claim, the row and the write all hold the arguments; the state, once.
    assert!(start.state.len() < blob.len() + 1_024, "a start state of {} bytes", start.state.len());
    let next = effect::run(&start.state, Input::ToolReturned("{\"refund_id\":\"re_1\"}".into()), 1_010).unwrap();
    assert!(next.state.is_empty() || next.state.len() < blob.len() + 1_024, "a state of {} bytes", next.state.len());
    assert!(matches!(next.action, Action::Finish(_)), "{:?}", next.action);
}
