//! Webhooks: a signed JSON POST when an entry is escalated, when one has been in doubt past the
//! inbox threshold, when a call awaits approval, and when a person approves or denies one
//! (wherever: the next scan finds the request decided); retried with exponential backoff until
//! the receiver answers 2xx.
//!
//! Each notice has an id derived from the entry and the notice (scope, key, kind, since when in
//! doubt or asked), so a notice sent again — after a restart of `oncely serve`, which forgets
//! what it sent — carries the same id: receivers drop ids they have seen. A decision's notice
//! carries the decision's id.
//!
//! Signature (header `Oncely-Signature: t=<unix seconds>,v1=<hex>`): HMAC-SHA256 with the
//! shared secret over `<t>.<body>`. A receiver recomputes it, compares in constant time, and
//! refuses a `t` too far from its clock (replays).

use super::metrics::Metrics;
use crate::cli::render;
use hmac::{KeyInit, Mac};
use oncely::wit::ledger::{Attention, Entry};
use oncely::Runtime;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where notices go.
#[derive(Debug, Clone)]
pub struct Webhook {
    /// The receiver's URL.
    pub url: String,
    /// The shared secret of the signature.
    pub secret: Vec<u8>,
    /// This server's public address, for links in notices (none: no link).
    pub public_url: Option<String>,
    /// The first retry's delay; each next one doubles, up to `max_delay`.
    pub first_delay: Duration,
    /// The longest delay between attempts.
    pub max_delay: Duration,
    /// Attempts per notice before giving up (the next scan sends it again).
    pub attempts: u32,
    /// Deliveries in flight at once (a burst of escalations does not open a connection each).
    pub in_flight: Arc<tokio::sync::Semaphore>,
}

/// How many notices are delivered at once.
pub const IN_FLIGHT: usize = 16;

/// What has been sent (or is being sent), by notice id.
#[derive(Debug, Default, Clone)]
pub struct Sent(Arc<Mutex<HashSet<String>>>);

/// The notice an entry that needs a person calls for (the core says whether it does, and why:
/// `ledger.needs-person`; the inbox lists exactly these).
fn kind(why: Attention) -> &'static str {
    match why {
        Attention::Escalated => "entry.escalated",
        Attention::InDoubt => "entry.in-doubt",
        Attention::Approval => "entry.awaiting-approval",
    }
}

/// The notice's id: `since` is the core's `ledger.attention-since` of `e` (an entry in doubt or
/// escalated: since it went in doubt; a call awaiting approval: since it was asked, so a request
/// asked again after an approval ran out is a new notice).
fn notice_id(e: &Entry, kind: &str, since: u64) -> String {
    let text = format!("{}\0{}\0{kind}\0{since}", e.scope, e.key);
    let d = Sha256::digest(text.as_bytes());
    format!("ntc-{}", d.iter().take(12).map(|b| format!("{b:02x}")).collect::<String>())
}

/// The signature header's value for `body` at unix time `t`.
pub fn signature(secret: &[u8], t: u64, body: &[u8]) -> String {
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let tag = mac.finalize().into_bytes();
    format!("t={t},v1={}", tag.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

impl Webhook {
    /// Send the notices that the entries needing a person (and why) call for at `now` that were
    /// not sent yet, each in its own task (retries do not hold up the next scan).
    /// Fails only when the core cannot be asked (nothing is sent then).
    pub fn scan(
        &self,
        rt: &Runtime,
        entries: &[(Entry, Attention)],
        now: u64,
        sent: &Sent,
        client: &reqwest::Client,
        metrics: &Arc<Metrics>,
    ) -> Result<(), oncely::Error> {
        let mut due: Vec<(&Entry, &str, String)> = Vec::with_capacity(entries.len());
        for (e, why) in entries {
            due.push((e, kind(*why), notice_id(e, kind(*why), rt.attention_since(e)?)));
        }
        // Forget the notices of entries that no longer need a person (the set stays small).
        sent.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|id| due.iter().any(|(_, _, d)| d == id));
        for (e, kind, id) in due {
            if !sent.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id.clone()) {
                continue;
            }
            let (sent, id_again) = (sent.clone(), id.clone());
            self.send(e, kind, id, now, client, metrics, move || {
                // Given up for now: the next scan that still finds the entry sends it again.
                sent.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id_again);
            });
        }
        Ok(())
    }

    /// Send the notice of a person's decision (`approved`: else denied) on `e` as it stands
    /// now, under the decision's id.
    pub fn decided(&self, e: &Entry, approved: bool, id: String, now: u64, client: &reqwest::Client, metrics: &Arc<Metrics>) {
        let kind = if approved { "entry.approved" } else { "entry.denied" };
        self.send(e, kind, id, now, client, metrics, || {});
    }

    /// Deliver one notice in its own task (retries do not hold up the caller); `given_up` runs
    /// if every attempt failed.
    #[allow(clippy::too_many_arguments)]
    fn send(
        &self,
        e: &Entry,
        kind: &str,
        id: String,
        now: u64,
        client: &reqwest::Client,
        metrics: &Arc<Metrics>,
        given_up: impl FnOnce() + Send + 'static,
    ) {
        let mut entry = render::entry(e);
        if let Some(base) = &self.public_url {
            entry["url"] = format!("{}{}", base.trim_end_matches('/'), super::pages::entry_href(e)).into();
        }
        let body = serde_json::json!({"id": id, "type": kind, "at": render::time(now), "entry": entry}).to_string();
        let (hook, client, metrics) = (self.clone(), client.clone(), metrics.clone());
        tokio::spawn(async move {
            let Ok(_permit) = hook.in_flight.clone().acquire_owned().await else { return };
            if !hook.deliver(&id, body.into_bytes(), &client, &metrics).await {
                given_up();
            }
        });
    }

    /// POST one notice until a 2xx, at most `attempts` times, waiting longer after each failure.
    async fn deliver(&self, id: &str, body: Vec<u8>, client: &reqwest::Client, metrics: &Metrics) -> bool {
        let mut delay = self.first_delay;
        for attempt in 1..=self.attempts {
            let t = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            let sent = client
                .post(&self.url)
                .header("content-type", "application/json")
                .header("oncely-delivery", id)
                .header("oncely-signature", signature(&self.secret, t, &body))
                .timeout(Duration::from_secs(10))
                .body(body.clone())
                .send()
                .await;
            match sent {
                Ok(r) if r.status().is_success() => {
                    metrics.delivery("ok");
                    tracing::info!(target: "oncely::serve", notice = id, attempt, "webhook delivered");
                    return true;
                }
                Ok(r) => {
                    metrics.delivery("failed");
                    tracing::warn!(target: "oncely::serve", notice = id, attempt, status = r.status().as_u16(), "webhook refused; retrying in {delay:?}");
                }
                Err(e) => {
                    metrics.delivery("failed");
                    tracing::warn!(target: "oncely::serve", notice = id, attempt, error = %e, "webhook failed; retrying in {delay:?}");
                }
            }
            if attempt < self.attempts {
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(self.max_delay);
            }
        }
        tracing::error!(target: "oncely::serve", notice = id, attempts = self.attempts, "webhook not delivered; the next scan sends it again");
        false
    }
}
