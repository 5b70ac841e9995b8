//! The host's error type: the core's typed errors, storage errors, and the few ways the host
//! itself can fail.

use crate::wit::canonical::CanonError;
use crate::wit::effect::{Busy, EffectError, Keyed};
use crate::wit::keys::KeyError;
use crate::wit::ledger::{Conflict, EntryState, LedgerError};
use crate::wit::policy::PolicyError;

/// Everything the host can report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The JSON was refused by canonicalization (kind, byte offset, line, column).
    #[error("{}", .0.message)]
    Canon(CanonError),
    /// The key could not be derived.
    #[error("{}", .0.message)]
    Key(KeyError),
    /// A policy or manifest could not be read.
    #[error("policy error at {:?}: {}", .0.at, .0.message)]
    Policy(PolicyError),
    /// The ledger refused the event (stale token, wrong state, …).
    #[error("{}", .0.message)]
    Ledger(LedgerError),
    /// Storage failed (connection dropped, disk full, …). Nothing was recorded by this call.
    #[error("storage: {0}")]
    Storage(#[from] StoreError),
    /// The key was claimed before with different parameters.
    #[error("conflict on {key}: the key was first used with different parameters (first difference at {pointer:?})")]
    Conflict {
        /// The key.
        key: String,
        /// The first differing JSON pointer.
        pointer: String,
    },
    /// Only a human can settle this effect now (`oncely ledger resolve`).
    #[error("escalated: {reason} (key {key}); settle it with `oncely ledger resolve`")]
    Escalated {
        /// The key.
        key: String,
        /// Why.
        reason: String,
    },
    /// The outcome is unknown and no reconciler could settle it yet; do not retry blindly.
    #[error("in doubt: the outcome of {key} is unknown ({reason}); it will be reconciled or escalated, never re-executed blindly")]
    InDoubt {
        /// The key.
        key: String,
        /// Why.
        reason: String,
    },
    /// Another worker holds the claim and did not finish while we waited.
    #[error("in progress: {owner} holds {key} (entry {state:?})")]
    InProgress {
        /// The key.
        key: String,
        /// The holder.
        owner: String,
        /// Pending or in-doubt.
        state: EntryState,
        /// When to look again: when the claim's lease ends, or its next reconciliation is due.
        retry_after: std::time::Duration,
    },
    /// The tool reported a definite failure (the effect did not happen); it was recorded.
    #[error("the tool failed: {0}")]
    ToolFailed(String),
    /// The effect happened, but its result could not be encoded as JSON, so it was recorded
    /// without one; every repeat of the intent gets this error, and the tool is never called
    /// again for it.
    #[error("the effect of {key} happened, but its result was not recorded: {reason}")]
    ResultNotRecorded {
        /// The key.
        key: String,
        /// Why.
        reason: String,
    },
    /// The core and this host disagree on the machine protocol: a bug in oncely.
    #[error("protocol error (a bug in oncely): {0}")]
    Protocol(String),
    /// Lost compare-and-swap races too many times in a row.
    #[error("gave up after {0} lost races on the same key")]
    Contention(u32),
    /// A result could not be (de)serialized as JSON.
    #[error("result JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The core component trapped: a bug in the core. This call failed; the instance was dropped.
    #[error("the core component trapped (a bug in oncely): {0:#}")]
    Trap(wasmtime::Error),
    /// The component could not be compiled or instantiated.
    #[error("loading the core component: {0:#}")]
    Load(wasmtime::Error),
}

impl Error {
    /// The core's effect error this error stands for (what the provider side's `refuse` and
    /// `agent.answer` read), or none for the host's own failures.
    pub fn effect_error(&self) -> Option<EffectError> {
        let keyed = |key: &str, reason: &str| Keyed { key: key.into(), reason: reason.into() };
        Some(match self {
            Error::Conflict { key, pointer } => EffectError::Conflict(Conflict {
                key: key.clone(),
                pointer: pointer.clone(),
                stored_fingerprint: String::new(),
                given_fingerprint: String::new(),
            }),
            Error::InProgress { key, owner, state, retry_after } => EffectError::InProgress(Busy {
                key: key.clone(),
                owner: owner.clone(),
                state: *state,
                retry_after_ms: retry_after.as_millis() as u64,
            }),
            Error::InDoubt { key, reason } => EffectError::InDoubt(keyed(key, reason)),
            Error::Escalated { key, reason } => EffectError::Escalated(keyed(key, reason)),
            Error::ResultNotRecorded { key, reason } => EffectError::ResultNotRecorded(keyed(key, reason)),
            Error::ToolFailed(reason) => EffectError::ToolFailed(reason.clone()),
            Error::Storage(s) => EffectError::Storage(s.to_string()),
            Error::Contention(n) => EffectError::Contention(*n),
            Error::Ledger(l) => EffectError::Ledger(l.clone()),
            _ => return None,
        })
    }
}

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database driver failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// Migrations failed.
    #[error("migrating the ledger schema: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored row does not hold a valid entry.
    #[error("corrupt ledger row ({0})")]
    Corrupt(String),
    /// No database connection could be had within the acquire timeout (the server is down,
    /// restarting or unreachable, or every pooled connection stayed busy); `cause` says which,
    /// from one connection attempt made to find out. Nothing was read or written.
    #[error("no database connection (waited {} ms): {cause}", .waited.as_millis())]
    Unavailable {
        /// How long the call waited for a connection.
        waited: std::time::Duration,
        /// Why no connection could be made, as connecting once more reported it.
        cause: String,
    },
    /// A storage failure known only by its message.
    #[error("{0}")]
    Other(String),
    /// The location is not a SQLite path or a postgres:// URL.
    #[error("unsupported ledger location {0:?}: use a file path or postgres://")]
    Location(String),
}
