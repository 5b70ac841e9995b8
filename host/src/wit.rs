//! Rust types and bindings generated from `wit/` by wasmtime's `bindgen!`: the host's view of
//! the contract. Re-exported per interface so callers write `oncely::wit::ledger::Entry`.

#![allow(missing_docs)]

wasmtime::component::bindgen!({
    world: "core",
    path: "wit",
    additional_derives: [PartialEq],
});

pub use exports::oncely::core::{agent, canonical, effect, keys, ledger, policy, provider};
