//! `/metrics`: the ledger in Prometheus' text format.
//!
//! Gauges read from the ledger at each scrape (every scope): entries by state, the entries that
//! need a person, the age of the oldest unknown outcome and of the oldest unanswered request
//! for approval. Counters of this process's decisions
//! (its sweeps and the settlements made here) by kind, of webhook deliveries, and of token
//! checks (sign-ins and bearer tokens: ok, wrong, throttled). Agents count
//! their own decisions through their library's events (docs/operations.md).

use oncely::events::{EventKind, LedgerEvent};
use oncely::store::{state_name, Stats};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;

/// The metrics of one `oncely serve`.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    entries: Family<Labels, Gauge>,
    needs_person: Gauge,
    oldest_in_doubt: Gauge<f64, std::sync::atomic::AtomicU64>,
    oldest_awaiting_approval: Gauge<f64, std::sync::atomic::AtomicU64>,
    outcomes: Family<Labels, Counter>,
    deliveries: Family<Labels, Counter>,
    token_checks: Family<Labels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("oncely");
        let m = Metrics {
            registry: Registry::default(),
            entries: Family::default(),
            needs_person: Gauge::default(),
            oldest_in_doubt: Gauge::default(),
            oldest_awaiting_approval: Gauge::default(),
            outcomes: Family::default(),
            deliveries: Family::default(),
            token_checks: Family::default(),
        };
        registry.register("entries", "Ledger entries by state, every scope", m.entries.clone());
        registry.register(
            "needs_person",
            "Entries escalated, in doubt past the inbox threshold, or awaiting approval",
            m.needs_person.clone(),
        );
        registry.register(
            "oldest_in_doubt_seconds",
            "How long the oldest in-doubt entry (not yet escalated) has been unknown; 0 when none",
            m.oldest_in_doubt.clone(),
        );
        registry.register(
            "oldest_awaiting_approval_seconds",
            "How long the call awaiting approval the longest has waited for a person; 0 when none",
            m.oldest_awaiting_approval.clone(),
        );
        registry.register("outcomes", "Decisions of this process's ledger, by kind", m.outcomes.clone());
        registry.register("webhook_deliveries", "Webhook delivery attempts, by result", m.deliveries.clone());
        registry.register(
            "token_checks",
            "Tokens checked (via sign-in or bearer), by result: ok, wrong, or throttled (refused unchecked: too many attempts)",
            m.token_checks.clone(),
        );
        for via in ["sign-in", "bearer"] {
            for result in ["ok", "wrong", "throttled"] {
                let _ = m.token_checks.get_or_create(&vec![("via".into(), via.into()), ("result".into(), result.into())]);
            }
        }
        for kind in EventKind::ALL {
            let _ = m.outcomes.get_or_create(&vec![("kind".into(), kind.name().into())]);
        }
        Metrics { registry, ..m }
    }
}

impl Metrics {
    /// Count one decision.
    pub fn observe(&self, e: &LedgerEvent) {
        self.outcomes.get_or_create(&vec![("kind".into(), e.kind.name().into())]).inc();
    }

    /// Count one webhook delivery attempt (`ok`, `failed`).
    pub fn delivery(&self, result: &str) {
        self.deliveries.get_or_create(&vec![("result".into(), result.into())]).inc();
    }

    /// Count one token check (`via`: sign-in, bearer; `result`: ok, wrong, throttled).
    pub fn token_check(&self, via: &str, result: &str) {
        self.token_checks.get_or_create(&vec![("via".into(), via.into()), ("result".into(), result.into())]).inc();
    }

    /// The text exposition, with the gauges set from `stats` and `needs_person` at `now` (ms).
    pub fn render(&self, stats: &Stats, needs_person: u64, now: u64) -> String {
        for (state, n) in &stats.by_state {
            self.entries.get_or_create(&vec![("state".into(), state_name(*state).into())]).set(*n as i64);
        }
        self.needs_person.set(i64::try_from(needs_person).unwrap_or(i64::MAX));
        let age = stats.oldest_in_doubt_since.map_or(0.0, |t| now.saturating_sub(t) as f64 / 1000.0);
        self.oldest_in_doubt.set(age);
        let asked = stats.oldest_awaiting_since.map_or(0.0, |t| now.saturating_sub(t) as f64 / 1000.0);
        self.oldest_awaiting_approval.set(asked);
        let mut out = String::new();
        encode(&mut out, &self.registry).expect("writing to a String");
        out
    }
}
