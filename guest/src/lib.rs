//! The idem core: every rule of exactly-once tool effects, as pure functions.
//!
//! This crate is compiled twice: natively (unit tests, benchmarks) and for
//! `wasm32-unknown-unknown`, where `host/build.rs` wraps it into the one WebAssembly component
//! that the Rust host, the Python package and the JavaScript package all load. Its contract is
//! the WIT package in `wit/`; the Rust types below are generated from it by `wit-bindgen`, so
//! there is no second definition to keep in sync.
//!
//! What lives here: RFC 8785 canonical JSON ([`json`], [`number`]), JSON pointers ([`pointer`]),
//! key scheme v1 ([`keys`]), tool policy and the manifest check ([`policy`]), and the ledger's
//! state-transition rules ([`ledger`]).
//!
//! What does not: any clock, randomness, storage or I/O. Time comes in as `now`; writes go out
//! as values for the host to apply.

#![allow(unsafe_code)] // only inside the code that wit-bindgen generates

pub mod canonical;
pub mod json;
pub mod keys;
pub mod ledger;
pub mod number;
pub mod pointer;
pub mod policy;

#[allow(missing_docs, clippy::all)]
mod bindings {
    wit_bindgen::generate!({
        world: "core",
        path: "../wit",
    });
}

pub use bindings::exports::idem::core::{
    canonical as canonical_wit, keys as keys_wit, ledger as ledger_wit, policy as policy_wit,
};

/// The component's implementation of every exported interface.
pub struct Core;

#[cfg(target_arch = "wasm32")]
mod export {
    use super::bindings;
    bindings::export!(super::Core with_types_in bindings);
}
