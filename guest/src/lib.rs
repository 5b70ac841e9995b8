//! The oncely core, crate `oncely-core`: every rule of exactly-once tool effects, as pure
//! functions.
//!
//! This crate is compiled twice: natively (unit tests, benchmarks) and for
//! `wasm32-unknown-unknown`, where `host/build.rs` wraps it into the one WebAssembly component
//! that the Rust host, the Python package and the JavaScript package all load. Its contract is
//! the WIT package in `wit/`; the Rust types below are generated from it by `wit-bindgen`, so
//! there is no second definition to keep in sync.
//!
//! What lives here: RFC 8785 canonical JSON ([`json`], [`number`], [`escape`], and the
//! `canonical` interface in [`canonical`]), JSON pointers ([`pointer`]), key scheme v1
//! ([`keys`]), tool policy and the manifest check ([`policy`]), the ledger's state-transition
//! rules ([`ledger`]), the machines that run an effect and every other ledger job one host action
//! at a time ([`effect`]), the provider side ([`provider`], with [`base64`] for bodies that are
//! not UTF-8), an agent call's identity and the model's answers ([`agent`]), and the messages of
//! every error ([`text`]). Each of the seven interfaces of `wit/world.wit` (`canonical`, `keys`,
//! `policy`, `ledger`, `effect`, `provider`, `agent`) is implemented in the module of its name.
//!
//! What does not: any clock, randomness, storage or I/O. Time comes in as `now`; writes go out
//! as values for the host to apply.
//!
//! Module layering: a module imports only modules of the layers before its own, never one of
//! its layer or a later one, so there is no import circle (the WIT types of `bindings` and the
//! `prelude` are open to all):
//!
//! 1. [`escape`] (JSON string escaping, hex digits) and [`base64`]: leaves, no crate module;
//! 2. [`text`] (messages, the `msg!` macro): `escape`;
//! 3. [`number`] (ECMAScript number text): `text`;
//! 4. [`json`] (parser, tree, serializer): `escape`, `text`, `number`;
//! 5. [`pointer`], [`canonical`]: `json`, `text`;
//! 6. [`keys`], [`approval`] (when a call needs a person's approval): `json`, `pointer`,
//!    `canonical`, `text`; neither imports the other;
//! 7. [`policy`]: the above;
//! 8. [`ledger`]: the above;
//! 9. [`effect`], [`provider`]: the above (and `base64`); neither imports the other;
//! 10. [`agent`]: the above.

#![cfg_attr(all(target_arch = "wasm32", not(test)), no_std)]
#![allow(unsafe_code)] // only inside the code that wit-bindgen generates and the wasm runtime glue

// no_std + alloc keeps std's panic and formatting machinery out of the component (size).
extern crate alloc;

/// `msg!["attempt ", n, " by ", Q(owner)]`: the pieces' text, in order, as a `String`; each
/// piece implements [`text::Piece`]. Used instead of `format!` (see [`text`]).
macro_rules! msg {
    ($($piece:expr),* $(,)?) => {{
        let mut out = alloc::string::String::new();
        $( $crate::text::Piece::push_to(&$piece, &mut out); )*
        out
    }};
}

mod prelude {
    pub use alloc::borrow::Cow;
    pub use alloc::boxed::Box;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}

pub mod agent;
pub mod approval;
pub mod base64;
pub mod canonical;
pub mod effect;
pub mod escape;
pub mod json;
pub mod keys;
pub mod ledger;
pub mod number;
pub mod pointer;
pub mod policy;
pub mod provider;
pub mod text;

#[allow(missing_docs, clippy::all)]
mod bindings {
    wit_bindgen::generate!({
        world: "core",
        path: "wit",
        additional_derives: [PartialEq],
        // `effect.run`'s values cross as bytes: their types are used by no function.
        generate_unused_types: true,
    });
}

pub use bindings::exports::oncely::core::{
    agent as agent_wit, canonical as canonical_wit, effect as effect_wit, keys as keys_wit, ledger as ledger_wit, policy as policy_wit,
    provider as provider_wit,
};

/// The component's implementation of every exported interface.
pub struct Core;

#[cfg(all(target_arch = "wasm32", not(test)))]
mod wasm_runtime {
    /// Talc: smaller and faster than dlmalloc (std's default here) on single-threaded wasm.
    #[global_allocator]
    static ALLOC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

    /// A panic is a bug in the core; it traps and the host reports the trap for that call.
    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
        core::arch::wasm32::unreachable()
    }
}

#[cfg(target_arch = "wasm32")]
mod export {
    use super::{bindings, Core};
    bindings::export!(Core with_types_in bindings);
}
