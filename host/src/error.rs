//! The host's error type: the core's typed errors, storage errors, and the few ways the host
//! itself can fail.

use crate::wit::agent::Failure;
use crate::wit::canonical::CanonError;
use crate::wit::effect::{Busy, Doubt, EffectError, Keyed};
use crate::wit::keys::KeyError;
use crate::wit::ledger::{ApprovalRequest, Conflict, Denial, LedgerError};
use crate::wit::policy::PolicyError;

/// Everything the host can report. The refusals of an effect (a conflict, a call in progress, in
/// doubt or escalated, a definite tool failure, a result not recorded, contention) keep the core's
/// record and display the core's sentence for it: what the model reads for the same outcome
/// (`agent.answer`), the same in every host.
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
    /// The key was claimed before with different parameters (the core's record: the key, the
    /// first differing JSON pointer, both fingerprints).
    #[error("{}", said(EffectError::Conflict(.0.clone())))]
    Conflict(Conflict),
    /// Only a human can settle this effect now (`oncely ledger resolve`).
    #[error("{}", said(EffectError::Escalated(.0.clone())))]
    Escalated(Keyed),
    /// The outcome is unknown and no reconciler could settle it yet; do not retry blindly: the
    /// key, why, and when its next reconciliation is due (`retry_after_ms`, when known). Every
    /// caller of an in-doubt entry gets this.
    #[error("{}", said(EffectError::InDoubt(.0.clone())))]
    InDoubt(Doubt),
    /// Another worker holds a live claim and did not finish while we waited: the holder, and
    /// when to look again (`retry_after_ms`, as the core says: as long as the claim has run, never
    /// past its lease's end).
    #[error("{}", said(EffectError::InProgress(.0.clone())))]
    InProgress(Busy),
    /// The tool reported a definite failure (the effect did not happen); it was recorded.
    #[error("{}", said(EffectError::ToolFailed(.0.clone())))]
    ToolFailed(String),
    /// The effect happened, but its result could not be encoded as JSON, so it was recorded
    /// without one; every repeat of the intent gets this error, and the tool is never called
    /// again for it.
    #[error("{}", said(EffectError::ResultNotRecorded(.0.clone())))]
    ResultNotRecorded(Keyed),
    /// The core and this host disagree on the machine protocol: a bug in oncely.
    #[error("protocol error (a bug in oncely): {0}")]
    Protocol(String),
    /// Lost compare-and-swap races too many times in a row.
    #[error("{}", said(EffectError::Contention(*.0)))]
    Contention(u32),
    /// The tool's policy asks a person to approve this call first, and nobody has yet; the tool
    /// was not called. Every ask of the intent gets this one request until a person decides
    /// (`Ledger::approve`, `Ledger::deny`).
    #[error("{}", said(EffectError::AwaitingApproval(.0.clone())))]
    AwaitingApproval(ApprovalRequest),
    /// A person denied the call: it did not happen and will not.
    #[error("{}", said(EffectError::Denied(.0.clone())))]
    Denied(Denial),
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

/// The message of an effect's refusal: the core's sentence for it, what the model reads for the
/// same outcome (`agent.answer`), the same in every host. Without the core (it failed to load),
/// which refusal and key.
fn said(e: EffectError) -> String {
    let reply = crate::Runtime::shared().and_then(|rt| rt.answer(&Failure::Effect(e.clone())));
    if let Ok(Some(r)) = reply {
        return r.text;
    }
    match e {
        EffectError::Conflict(c) => format!("conflict: {} at {:?}", c.key, c.pointer),
        EffectError::InProgress(b) => format!("in-progress: {}", b.key),
        EffectError::InDoubt(k) => format!("in-doubt: {}: {}", k.key, k.reason),
        EffectError::Escalated(k) => format!("escalated: {}: {}", k.key, k.reason),
        EffectError::ResultNotRecorded(k) => format!("result-not-recorded: {}: {}", k.key, k.reason),
        EffectError::ToolFailed(reason) => format!("tool-failed: {reason}"),
        EffectError::Contention(n) => format!("contention: {n} races"),
        EffectError::AwaitingApproval(r) => format!("awaiting-approval: {}", r.key),
        EffectError::Denied(d) => format!("denied: {} by {}: {}", d.key, d.by, d.reason),
        EffectError::Storage(m) => format!("storage: {m}"),
        EffectError::Ledger(l) => l.message,
    }
}

impl Error {
    /// The host's error for the core's `effect-error`: the core's own record, kept as it is (a
    /// storage error as the store gave it, when the host has it).
    pub fn from_effect(e: EffectError, storage: Option<StoreError>) -> Error {
        match e {
            EffectError::Conflict(c) => Error::Conflict(c),
            EffectError::InProgress(b) => Error::InProgress(b),
            EffectError::InDoubt(k) => Error::InDoubt(k),
            EffectError::Escalated(k) => Error::Escalated(k),
            EffectError::ToolFailed(reason) => Error::ToolFailed(reason),
            EffectError::ResultNotRecorded(k) => Error::ResultNotRecorded(k),
            EffectError::Storage(message) => Error::Storage(storage.unwrap_or(StoreError::Other(message))),
            EffectError::Ledger(l) => Error::Ledger(l),
            EffectError::Contention(n) => Error::Contention(n),
            EffectError::AwaitingApproval(r) => Error::AwaitingApproval(r),
            EffectError::Denied(d) => Error::Denied(d),
        }
    }

    /// The core's effect error this error stands for (what the provider side's `refuse` and
    /// `agent.answer` read), or none for the host's own failures.
    pub fn effect_error(&self) -> Option<EffectError> {
        Some(match self {
            Error::Conflict(c) => EffectError::Conflict(c.clone()),
            Error::InProgress(b) => EffectError::InProgress(b.clone()),
            Error::InDoubt(k) => EffectError::InDoubt(k.clone()),
            Error::Escalated(k) => EffectError::Escalated(k.clone()),
            Error::ResultNotRecorded(k) => EffectError::ResultNotRecorded(k.clone()),
            Error::ToolFailed(reason) => EffectError::ToolFailed(reason.clone()),
            Error::Storage(s) => EffectError::Storage(s.to_string()),
            Error::Contention(n) => EffectError::Contention(*n),
            Error::Ledger(l) => EffectError::Ledger(l.clone()),
            Error::AwaitingApproval(r) => EffectError::AwaitingApproval(r.clone()),
            Error::Denied(d) => EffectError::Denied(d.clone()),
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
    /// The Redis client or server failed (feature `redis`).
    #[cfg(feature = "redis")]
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// A claim was written on the Redis primary, but fewer replicas than required acknowledged
    /// it within the timeout (`WAIT`, the store's `wait_replicas` option): it is not reported as
    /// made, so the tool is not called. The claim stays held and is settled like any claim whose
    /// worker stopped.
    #[error("the claim reached {acked} replica(s) of the {wanted} required within {timeout_ms} ms")]
    NotReplicated {
        /// Replicas required.
        wanted: u32,
        /// Replicas that acknowledged.
        acked: u32,
        /// How long the store waited (ms).
        timeout_ms: u64,
    },
    /// A storage failure known only by its message.
    #[error("{0}")]
    Other(String),
    /// The location is not a SQLite path, a postgres:// URL or a redis:// URL, or its options
    /// are not valid.
    #[error("unsupported ledger location {0:?}: use a file path, postgres:// or redis://")]
    Location(String),
}
