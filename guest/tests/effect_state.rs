//! The machine's state crosses the boundary on every step (`wit/effect.wit`): it holds an
//! effect's arguments once, however many of its values (the claim, the row read, the row being
//! written) carry them. And `effect.run`'s own bytes (a `run-call` in, a `run-answer` out): any
//! bytes get an answer, never a panic (a trap in the component).

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
    let options = EffectOptions { owner: "w1".into(), max_attempts: 0, wait_ms: None, has_reconciler: false, approval_wait_ms: None };
    // The first step reads, with the replay rule; the claim's insert follows an absent row.
    let start = effect::start_effect(&intent, &policy, &options, 1_000).unwrap();
    assert!(start.read.is_some() && start.replay.is_some() && start.write.is_none(), "{start:?}");
    assert!(start.state.len() < blob.len() + 1_024, "a start state of {} bytes", start.state.len());
    let claim = effect::run(&start.state, Input::Row(None), 1_000).unwrap();
    let write = claim.write.as_ref().expect("the claim's insert");
    assert_eq!(write.row.args_canonical.len(), blob.len() + 11, "the row carries the arguments");
    assert!(matches!(claim.action, Action::CallTool(_)));
    // The claim, the row and the write all hold the arguments; the state, once.
    assert!(claim.state.len() < blob.len() + 1_024, "a claim state of {} bytes", claim.state.len());
    let next = effect::run(&claim.state, Input::ToolReturned("{\"refund_id\":\"re_1\"}".into()), 1_010).unwrap();
    assert!(next.state.is_empty() || next.state.len() < blob.len() + 1_024, "a state of {} bytes", next.state.len());
    assert!(matches!(next.action, Action::Finish(_)), "{:?}", next.action);
}

proptest::proptest! {
    /// `effect.run` reads whatever bytes a host sends without panicking (a panic is a trap in
    /// the component): a run-call gets its step, anything else a step that refuses it.
    #[test]
    fn any_bytes_get_an_answer(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
        let answer = effect::run_bytes(&bytes);
        proptest::prop_assert!(matches!(answer.first(), Some(0 | 1)));
    }

    /// A call that starts with a valid prefix (an empty state, a `start(wait)` input) and then
    /// goes wrong anywhere is refused too.
    #[test]
    fn a_run_call_cut_anywhere_gets_an_answer(cut in 0usize..40, junk in proptest::num::u8::ANY) {
        // state: empty; input: start (0) wait (3) {scope "acme", key "k1", every none, timeout
        // none}; now: 1000.
        let mut call = vec![0, 0, 3, 4, b'a', b'c', b'm', b'e', 2, b'k', b'1', 0, 0, 0xE8, 0x07];
        call.truncate(cut.min(call.len()));
        call.push(junk);
        let answer = effect::run_bytes(&call);
        proptest::prop_assert!(matches!(answer.first(), Some(0 | 1)));
    }
}

#[test]
fn a_well_formed_run_call_is_read() {
    // state: empty; input: start (0) wait (3) {scope "acme", key "k1", every none, timeout
    // none}; now: 1000 (LEB128 0xE8 0x07). The answer: a step (0) whose state is not empty and
    // that reads (acme, k1).
    let call = [0, 0, 3, 4, b'a', b'c', b'm', b'e', 2, b'k', b'1', 0, 0, 0xE8, 0x07];
    let answer = effect::run_bytes(&call);
    assert_eq!(answer[0], 0, "a step");
    let state_len = usize::from(answer[1]);
    assert!(state_len > 0);
    let after_state = 2 + state_len;
    assert_eq!(&answer[after_state..after_state + 9], &[1, 4, b'a', b'c', b'm', b'e', 2, b'k', b'1'], "read (acme, k1)");
}
