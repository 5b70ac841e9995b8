//! The oncely host library, crate `oncely`: runs the core component (built from `guest/` by
//! `build.rs`) with wasmtime and wires it to storage. It decides nothing itself: every rule —
//! canonical JSON, keys, policy, ledger transitions, the provider side's and an agent call's
//! rules — is asked of the component; this crate reads and writes rows, keeps the clock, calls
//! tools and reconcilers, and retries lost races.
//!
//! - [`Runtime`]: the component in wasmtime (one engine per process, cached compilation,
//!   pooled instances with memory limits), a method per export of the core.
//! - [`wit`]: the Rust types generated from `wit/`, one module per interface.
//! - [`store`]: the storage trait and its SQLite (default) and PostgreSQL backends.
//! - [`Ledger`]: the interpreter of the core's machines — `ledger.effect(intent,
//!   policy).run(|key| async { … })` — plus the explicit calls (begin, complete, fail,
//!   heartbeat), reconcilers, sweep and the background sweeper, list, history, resolve and purge.
//! - [`events`]: what the ledger decided (claimed, executed, replayed, conflict, in doubt,
//!   reconciled, escalated, resolved), to a hook and to `tracing`.
//! - [`error`]: [`Error`], the core's typed errors, storage errors ([`StoreError`]) and the
//!   host's own failures.
//! - `provider` (feature `provider`, off by default): `IdempotencyLayer`, the provider side for
//!   axum and any `tower` stack.
//!
//! Not here: an HTTP server, a scheduler, or any rule of the core. With its default features
//! (none) the crate pulls no HTTP server, no command-line parser and no MCP SDK
//! (`scripts/check-deps` checks it). The `oncely` command — the gateway, the inbox, the demo —
//! is the crate `oncely-cli` (`cli/`; `cargo install --locked --path cli`); the migrations the
//! stores apply are the repository's `migrations/`, embedded here and shared with the Python and
//! JavaScript packages.

pub mod error;
pub mod events;
pub mod ledger;
#[cfg(feature = "provider")]
pub mod provider;
pub mod runtime;
pub mod store;
pub mod wit;

pub use error::{Error, StoreError};
pub use events::{EventKind, LedgerEvent};
pub use ledger::{Call, Effect, EffectResult, Ledger, Reconciler, SweepReport, Sweeper, ToolError, Waiting, WaitingCount};
pub use runtime::Runtime;
