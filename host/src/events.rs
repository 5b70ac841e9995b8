//! What the ledger decided, as events: to a hook ([`Ledger::on_event`](crate::Ledger::on_event))
//! and to `tracing` (target `oncely`, one INFO event per decision; WARN for conflicts, doubt,
//! escalations and calls awaiting a person's approval), so an application's subscriber, log pipeline or OpenTelemetry layer sees them.
//!
//! Which decision is which event, and its detail, is the core's (`wit/effect.wit`: every step
//! carries its `events`, true once its read and write went through); this host only delivers
//! them. So every oncely library (Python: `logging` and OpenTelemetry; JavaScript:
//! OpenTelemetry) emits the same eight kinds, with the same names, details and order
//! (`tests/vectors/effects.json` pins them).

use crate::wit::effect::{Notice, NoticeKind};
use serde::Serialize;

/// The kind of a ledger decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A key was claimed for an attempt: the tool is called next (`detail`: `attempt N by OWNER`).
    Claimed,
    /// The tool ran and its result was recorded (`detail`: `attempt N`).
    Executed,
    /// A repeat got the recorded result; the tool was not called.
    Replayed,
    /// The key was used before with different arguments: refused (`detail`: where they differ).
    Conflict,
    /// The outcome became unknown (`detail`: the ambiguous failure's reason, or the lease that
    /// ran out).
    InDoubt,
    /// A reconciliation was recorded (`detail`: what it settled: happened, not-happened or
    /// unknown; a "did not happen" that is not believed yet is unknown).
    Reconciled,
    /// Only a human can settle the entry now (`detail`: the entry's reason).
    Escalated,
    /// A human settled it (`detail`: the settlement id, who, and the verdict).
    Resolved,
    /// A call now waits for a person's approval (`detail`: the canonical arguments to approve).
    AwaitingApproval,
    /// A person approved the call (`detail`: the decision's id and who).
    Approved,
    /// A person denied the call (`detail`: the decision's id, who, and their note).
    Denied,
}

impl EventKind {
    /// Every kind, in the order above.
    pub const ALL: [EventKind; 11] = [
        EventKind::Claimed,
        EventKind::Executed,
        EventKind::Replayed,
        EventKind::Conflict,
        EventKind::InDoubt,
        EventKind::Reconciled,
        EventKind::Escalated,
        EventKind::Resolved,
        EventKind::AwaitingApproval,
        EventKind::Approved,
        EventKind::Denied,
    ];

    /// The kind's name (`in-doubt`, …), the same in every library.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Claimed => "claimed",
            EventKind::Executed => "executed",
            EventKind::Replayed => "replayed",
            EventKind::Conflict => "conflict",
            EventKind::InDoubt => "in-doubt",
            EventKind::Reconciled => "reconciled",
            EventKind::Escalated => "escalated",
            EventKind::Resolved => "resolved",
            EventKind::AwaitingApproval => "awaiting-approval",
            EventKind::Approved => "approved",
            EventKind::Denied => "denied",
        }
    }
}

/// One decision of the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerEvent {
    /// What was decided.
    pub kind: EventKind,
    /// The tenant.
    pub scope: String,
    /// The idempotency key.
    pub key: String,
    /// The entry's tool.
    pub tool: String,
    /// More, for people: a reason, a verdict, a settlement id.
    pub detail: String,
}

impl From<NoticeKind> for EventKind {
    fn from(k: NoticeKind) -> Self {
        match k {
            NoticeKind::Claimed => EventKind::Claimed,
            NoticeKind::Executed => EventKind::Executed,
            NoticeKind::Replayed => EventKind::Replayed,
            NoticeKind::Conflict => EventKind::Conflict,
            NoticeKind::InDoubt => EventKind::InDoubt,
            NoticeKind::Reconciled => EventKind::Reconciled,
            NoticeKind::Escalated => EventKind::Escalated,
            NoticeKind::Resolved => EventKind::Resolved,
            NoticeKind::AwaitingApproval => EventKind::AwaitingApproval,
            NoticeKind::Approved => EventKind::Approved,
            NoticeKind::Denied => EventKind::Denied,
        }
    }
}

/// The core's event (`wit/effect.wit`, `notice`), as delivered.
impl From<Notice> for LedgerEvent {
    fn from(n: Notice) -> Self {
        LedgerEvent { kind: n.kind.into(), scope: n.scope, key: n.key, tool: n.tool, detail: n.detail }
    }
}

/// A hook that receives every event of a ledger (and of its clones). It runs inline, on the
/// task that decided: keep it quick, and never block. A hook that panics is logged and the
/// decision goes on (an effect is never broken by its observer).
pub type EventHook = std::sync::Arc<dyn Fn(&LedgerEvent) + Send + Sync>;

/// Send `e` to `tracing` and to every hook.
pub(crate) fn emit(hooks: &[EventHook], e: &LedgerEvent) {
    let (kind, scope, key, tool, detail) = (e.kind.name(), e.scope.as_str(), e.key.as_str(), e.tool.as_str(), e.detail.as_str());
    match e.kind {
        EventKind::Conflict | EventKind::InDoubt | EventKind::Escalated | EventKind::AwaitingApproval => {
            tracing::warn!(target: "oncely", event = kind, scope, key, tool, detail, "oncely {kind}")
        }
        _ => tracing::info!(target: "oncely", event = kind, scope, key, tool, detail, "oncely {kind}"),
    }
    for hook in hooks {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(e))).is_err() {
            tracing::error!(target: "oncely", event = kind, scope, key, "an event hook panicked; the ledger goes on");
        }
    }
}
