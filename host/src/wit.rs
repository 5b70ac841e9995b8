//! Rust types and bindings generated from `wit/` by wasmtime's `bindgen!`: the host's view of
//! the contract. Re-exported per interface so callers write `oncely::wit::ledger::Entry`.

#![allow(missing_docs)]

wasmtime::component::bindgen!({
    world: "core",
    path: "wit",
    // serde: `effect.run`'s call and answer cross as bytes in postcard's wire format
    // (wit/effect.wit, `run`), which these derives read and write field by field in WIT order.
    additional_derives: [PartialEq, serde::Serialize, serde::Deserialize],
});

pub use exports::oncely::core::{agent, canonical, effect, keys, ledger, policy, provider};
