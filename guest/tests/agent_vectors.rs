//! Replays `tests/vectors/adapters.json` against the native build of the core (the cases are in
//! common/agent_cases.rs, shared with the replay through the component).
//! `ONCELY_BLESS=1` writes each case's `expect` from the core (then review the diff).

use oncely_core::agent::answer;
use oncely_core::agent_wit::{CallContext, Failure, IdentityErrorKind, Origin, ReplyCode};
use oncely_core::canonical_wit::{CanonError, CanonErrorKind};
use oncely_core::effect_wit::{Busy, Doubt, EffectError, Keyed};
use oncely_core::keys_wit::{Intent, KeyError, KeyErrorKind, KeyIdentity, KeySpec};
use oncely_core::ledger_wit::{Conflict, LedgerError, LedgerErrorKind};
use oncely_core::policy_wit::EffectClass;
use serde_json::{json, Value};

fn identify(call: &CallContext) -> Result<oncely_core::agent_wit::Identity, oncely_core::agent_wit::IdentityError> {
    oncely_core::agent::identify(call.clone())
}

fn derive_key(intent: &Intent, spec: &KeySpec) -> Result<String, KeyError> {
    oncely_core::keys::key(intent, spec)
}

include!("common/agent_cases.rs");

#[test]
fn agent_vectors() {
    replay_agent_vectors(std::env::var_os("ONCELY_BLESS").is_some());
}

/// Every combination of the sources a host may give (present or not, for each identity and
/// class): the call is refused `no-run` exactly when nothing names a run and the key needs one
/// (a keyed class, or none known), and otherwise its intent is derivable under the returned
/// spec, with a non-empty scope.
#[test]
fn every_identity_is_derivable_or_refused_for_want_of_a_run() {
    let named = |bits: u32, i: u32, v: &str| (bits >> i & 1 == 1).then(|| v.to_string());
    let classes = [
        None,
        Some(EffectClass::ReadOnly),
        Some(EffectClass::OverwritingWrite),
        Some(EffectClass::AccumulatingWrite),
        Some(EffectClass::IrreversibleExternal),
    ];
    for (identity, class) in [KeyIdentity::Step, KeyIdentity::Run, KeyIdentity::Scope].into_iter().flat_map(|i| classes.map(|c| (i, c))) {
        let keyed = !matches!(class, Some(EffectClass::ReadOnly | EffectClass::OverwritingWrite));
        for bits in 0..1u32 << 10 {
            let mut meta = serde_json::Map::new();
            for (i, name) in [(5, "oncely/scope"), (6, "oncely/run"), (7, "oncely/step"), (8, "idempotencyKey")] {
                if bits >> i & 1 == 1 {
                    meta.insert(name.into(), json!(format!("m{i}")));
                }
            }
            let call = CallContext {
                tool: "t".into(),
                key_identity: identity,
                effect_class: class,
                scope: named(bits, 0, "s"),
                run: named(bits, 1, "r"),
                step: named(bits, 2, "p"),
                conversation: named(bits, 3, "c"),
                session: named(bits, 4, "x"),
                meta_json: Value::Object(meta).to_string(),
                params_key: named(bits, 9, "k"),
                default_scope: None,
                default_run: None,
            };
            // A client's key names the fixed run only when it is the step.
            let client_key_step = bits & (1 << 8 | 1 << 9) != 0 && bits & (1 << 2 | 1 << 7) == 0;
            let names_run = bits & (1 << 1 | 1 << 3 | 1 << 4 | 1 << 6) != 0 || client_key_step;
            match identify(&call) {
                Err(e) => {
                    assert_eq!(e.kind, IdentityErrorKind::NoRun, "{bits:b}");
                    assert!(!names_run && identity != KeyIdentity::Scope && keyed, "{bits:b}");
                }
                Ok(i) => {
                    if !names_run && !keyed {
                        // Not keyed, and nothing names a run: keyed by its scope.
                        assert_eq!((i.run.as_deref(), i.key_identity), (None, KeyIdentity::Scope), "{bits:b}");
                    }
                    assert!(!i.scope.is_empty());
                    assert_eq!(i.step.is_some(), bits & (1 << 2 | 1 << 7 | 1 << 8 | 1 << 9) != 0, "{bits:b}");
                    let intent = Intent {
                        scope: i.scope,
                        run_id: i.run.unwrap_or_default(),
                        step_id: i.step.unwrap_or_default(),
                        tool: "t".into(),
                        args_json: "{}".into(),
                    };
                    derive_key(&intent, &KeySpec { only: None, ignore: vec![], identity: i.key_identity })
                        .unwrap_or_else(|e| panic!("{bits:b}: {e:?}"));
                }
            }
        }
    }
}
