//! JSON and text renderings of the core's records, for `--json` output and for humans.

use super::untrusted::line;
use oncely::store::{state_name, HistoryRecord};
use oncely::wit::keys::{DerivedKey, DifferenceEffect, Explanation, IntentPart, Verdict};
use oncely::wit::ledger::Entry;
use oncely::wit::policy::{ClassSource, EffectClass, ManifestReport, ReconcilePath, Severity};
use serde_json::{json, Value};

pub fn class(c: EffectClass) -> &'static str {
    match c {
        EffectClass::ReadOnly => "read-only",
        EffectClass::OverwritingWrite => "overwriting-write",
        EffectClass::AccumulatingWrite => "accumulating-write",
        EffectClass::IrreversibleExternal => "irreversible-external",
    }
}

pub fn reconcile(r: &ReconcilePath) -> Value {
    match r {
        ReconcilePath::None => json!("none"),
        ReconcilePath::ProviderIdempotent => json!("provider-idempotent"),
        ReconcilePath::Manual => json!("manual"),
        ReconcilePath::Lookup(t) => json!({ "lookup": t }),
    }
}

pub fn derived(d: &DerivedKey) -> Value {
    json!({"key": d.key, "preimage": d.preimage, "fingerprint": d.fingerprint, "args_canonical": d.args_canonical})
}

pub fn explanation(e: &Explanation) -> Value {
    json!({
        "verdict": verdict(e.verdict),
        "key_a": e.key_a.key,
        "key_b": e.key_b.key,
        "differences": e.differences.iter().map(|d| json!({
            "part": part(d.part), "pointer": d.pointer, "a": d.a, "b": d.b, "effect": effect(d.effect),
        })).collect::<Vec<_>>(),
    })
}

pub fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::SameIntent => "same-intent",
        Verdict::Conflict => "conflict",
        Verdict::DifferentKeys => "different-keys",
    }
}

pub fn part(p: IntentPart) -> &'static str {
    match p {
        IntentPart::Scope => "scope",
        IntentPart::Tool => "tool",
        IntentPart::RunId => "run-id",
        IntentPart::StepId => "step-id",
        IntentPart::Args => "args",
    }
}

pub fn effect(e: DifferenceEffect) -> &'static str {
    match e {
        DifferenceEffect::Key => "changes the key",
        DifferenceEffect::Fingerprint => "same key, different parameters: a conflict",
        DifferenceEffect::None => "ignored",
    }
}

pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

pub fn report(r: &ManifestReport) -> Value {
    json!({
        "passed": r.passed,
        "tools": r.tools.iter().map(|t| json!({
            "name": t.name,
            "class": class(t.policy.class),
            "class_source": match t.class_source { ClassSource::Policy => "policy", ClassSource::Annotations => "annotations", ClassSource::Defaults => "defaults" },
            "key_declared": t.policy.key.is_some(),
            "reconcile": reconcile(&t.policy.reconcile),
        })).collect::<Vec<_>>(),
        "findings": r.findings.iter().map(|f| json!({
            "severity": severity(f.severity), "tool": f.tool, "code": f.code, "message": f.message,
        })).collect::<Vec<_>>(),
    })
}

/// An entry as JSON: its arguments and result as JSON values, its times in ms since the Unix
/// epoch and, for people, as RFC 3339 (`created`, `updated`, `in_doubt`).
pub fn entry(e: &Entry) -> Value {
    json!({
        "scope": e.scope, "key": e.key, "tool": e.tool, "run": e.run_id, "step": e.step_id, "state": state_name(e.state),
        "version": e.version, "attempt": e.attempt, "owner": e.owner,
        "fingerprint": e.fingerprint, "args": value(&e.args_canonical),
        "created_at": e.created_at, "updated_at": e.updated_at, "lease_until": e.lease_until,
        "in_doubt_since": e.in_doubt_since, "next_reconcile_at": e.next_reconcile_at,
        "created": time(e.created_at), "updated": time(e.updated_at), "in_doubt": e.in_doubt_since.map(time),
        "reconcile_attempts": e.reconcile_attempts, "result": e.result_json.as_deref().map(value), "reason": e.reason,
        "resolved_by": e.resolved_by, "settlement": e.settlement, "reconcile": reconcile(&e.reconcile),
    })
}

/// An entry's history as JSON, oldest first.
pub fn history(h: &[HistoryRecord]) -> Value {
    h.iter()
        .map(|r| {
            json!({
                "version": r.version, "at": r.at, "time": time(r.at), "state": state_name(r.state),
                "attempt": r.attempt, "owner": r.owner, "reconcile_attempts": r.reconcile_attempts,
                "reason": r.reason, "resolved_by": r.resolved_by, "settlement": r.settlement,
            })
        })
        .collect()
}

/// Stored JSON text as a value (the ledger stores canonical JSON; anything else stays a string).
fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// A time in ms since the Unix epoch, as RFC 3339 in UTC to the second.
pub fn time(ms: u64) -> String {
    // RFC 3339 ends with the year 9999 (253402300799 s); past it, the number as it is.
    if ms > 253_402_300_799_000 {
        return format!("{ms} ms");
    }
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms)).to_string()
}

/// One line per entry for `oncely ledger list`: when it was last written, its state, where it
/// is, what it is, and why it is so (what agents and tools wrote shown safely: `untrusted`).
pub fn entry_line(e: &Entry) -> String {
    let shown = |s: &str| line(s).into_owned();
    format!(
        "{}  {:<9}  {}  {}  {}  attempt {}  {}{}",
        time(e.updated_at),
        state_name(e.state),
        shown(&e.scope),
        shown(&e.tool),
        shown(&e.key),
        e.attempt,
        shown(&e.owner),
        e.reason.as_deref().map(|r| format!("  — {}", line(r))).unwrap_or_default()
    )
}
