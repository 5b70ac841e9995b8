//! The properties the fuzz targets check, one function per target, each taking the fuzzer's
//! bytes. `fuzz_targets/*.rs` hand them to libFuzzer; `tests/replay.rs` replays the committed
//! seeds and regressions through them as ordinary tests. A property that does not hold panics.

mod canon;
mod effect;
mod gen;
mod keys;
mod ledger;
mod policy;
mod provider;

pub use canon::{canonicalize, reference as reference_canonical};
pub use effect::effect_machine;
pub use keys::derive_key;
pub use ledger::ledger;
pub use policy::policy;
pub use provider::provider;

/// A target: the fuzzer's bytes in, a panic when a property does not hold.
pub type Target = fn(&[u8]);

/// The targets, by name, as `scripts/fuzz` and the replay test know them.
pub const TARGETS: &[(&str, Target)] = &[
    ("canonicalize", canonicalize),
    ("derive_key", derive_key),
    ("policy", policy),
    ("ledger", ledger),
    ("effect_machine", effect_machine),
    ("provider", provider),
];
