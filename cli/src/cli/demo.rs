//! `oncely demo`: two refunds on a flaky payment provider, run twice — by a naive retry loop and
//! through oncely — with the same failures: a reply that times out after the refund was made, a
//! model retry, a redelivered queue message, and a worker that crashes mid-call. The provider
//! is simulated in-process; the ledger is real (SQLite); time is simulated so leases expire at
//! once.

use anyhow::{Context, Result};
use clap::Args;
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Outcome, ReconcileVerdict};
use oncely::{Ledger, ToolError};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The provider: makes every refund it is asked for (it does not deduplicate), remembers the
/// idempotency key it was given, and can be told to lose its next reply.
#[derive(Default)]
struct FlakyPay {
    refunds: Mutex<Vec<(String, u64, Option<String>)>>,
    lose_next_reply: Mutex<bool>,
}

impl FlakyPay {
    fn refund(&self, charge: &str, cents: u64, key: Option<&str>) -> Result<Value, ToolError> {
        let mut refunds = self.refunds.lock().unwrap_or_else(|p| p.into_inner());
        refunds.push((charge.to_string(), cents, key.map(str::to_string)));
        let id = format!("re_{}", refunds.len());
        if std::mem::take(&mut *self.lose_next_reply.lock().unwrap_or_else(|p| p.into_inner())) {
            // The refund is made; the answer never arrives.
            return Err(ToolError::ambiguous("timed out after 30 s waiting for FlakyPay"));
        }
        Ok(json!({"refund_id": id, "charge": charge, "cents": cents}))
    }

    /// The lookup a reconciler uses: the refund made with this key, if any.
    fn find_by_key(&self, key: &str) -> Option<Value> {
        let refunds = self.refunds.lock().unwrap_or_else(|p| p.into_inner());
        refunds
            .iter()
            .enumerate()
            .find(|(_, r)| r.2.as_deref() == Some(key))
            .map(|(i, (charge, cents, _))| json!({"refund_id": format!("re_{}", i + 1), "charge": charge, "cents": cents}))
    }

    fn count(&self, charge: &str) -> usize {
        self.refunds.lock().unwrap_or_else(|p| p.into_inner()).iter().filter(|r| r.0 == charge).count()
    }

    fn lose_next_reply(&self) {
        *self.lose_next_reply.lock().unwrap_or_else(|p| p.into_inner()) = true;
    }
}

const POLICY: &str = r#"{
  "class": "irreversible-external",
  "key": {"only": ["/charge_id"], "identity": "scope"},
  "reconcile": {"lookup": "find_refund"},
  "leaseMs": 30000
}"#;

fn intent(charge: &str, step: &str) -> Intent {
    Intent {
        scope: "acme".into(),
        run_id: "run-42".into(),
        step_id: step.into(),
        tool: "refund".into(),
        args_json: json!({"charge_id": charge, "cents": 5000}).to_string(),
    }
}

#[derive(Args)]
pub struct DemoArgs {
    /// The SQLite ledger to use (default: a fresh file in a temporary directory).
    #[arg(long)]
    db: Option<PathBuf>,
}

pub async fn run(a: DemoArgs) -> Result<ExitCode> {
    // A fresh ledger each run (kept afterwards, so it can be inspected).
    let db = match a.db {
        Some(p) => p,
        None => {
            let dir = std::env::temp_dir().join(format!("oncely-demo-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            dir.join("ledger.db")
        }
    };
    let clock = Arc::new(AtomicU64::new(1_767_225_600_000));
    let c = clock.clone();
    let ledger = Ledger::open(db.to_str().context("the ledger path is not UTF-8")?)
        .await
        .with_context(|| format!("opening {}", db.display()))?
        .with_owner("worker-1")
        .with_clock(Arc::new(move || c.load(Ordering::SeqCst)));
    let policy = ledger.runtime().parse_policy(POLICY)?;

    // --- the naive loop: retries on error, no key, no ledger --------------------------------
    let naive = FlakyPay::default();
    let mut naive_log = Vec::new();
    naive.lose_next_reply();
    naive_log.push(match naive.refund("ch_A", 5000, None) {
        Ok(_) => "refunded".to_string(),
        Err(_) => "refunded; reply lost, sees an error".to_string(),
    });
    naive.refund("ch_A", 5000, None).ok();
    naive_log.push("retries: refunded again".to_string());
    naive.refund("ch_A", 5000, None).ok();
    naive_log.push("runs it again: refunded again".to_string());
    naive.refund("ch_B", 5000, None).ok();
    naive_log.push("refunded, then the worker dies".to_string());
    naive.refund("ch_B", 5000, None).ok();
    naive_log.push("resumes: refunded again".to_string());

    // --- oncely ---------------------------------------------------------------------------------
    let pay = Arc::new(FlakyPay::default());
    let p = pay.clone();
    ledger.reconciler("refund", move |req| {
        let found = p.find_by_key(&req.key);
        async move {
            match found {
                Some(v) => ReconcileVerdict::Happened(v.to_string()),
                None => ReconcileVerdict::NotHappened,
            }
        }
    });
    let call = |charge: &'static str| {
        let pay = pay.clone();
        move |key: String| {
            let pay = pay.clone();
            async move { pay.refund(charge, 5000, Some(&key)) }
        }
    };
    let mut oncely_log = Vec::new();

    // 1. the reply times out after the refund was made.
    pay.lose_next_reply();
    let a = intent("ch_A", "refund-A");
    let r = ledger.effect(&a, &policy).run(call("ch_A")).await?;
    oncely_log.push(format!("refunded; reply lost → in doubt → reconciled: happened ({})", r.value["refund_id"].as_str().unwrap_or("?")));
    // 2. the model retries the step.
    let r = ledger.effect(&a, &policy).run(call("ch_A")).await?;
    oncely_log.push(format!("{} — tool not called", if r.replayed { "replayed" } else { "EXECUTED AGAIN" }));
    // 3. the queue redelivers the message to another worker (and a new step id: the key is natural).
    let other = ledger.clone().with_owner("worker-2");
    let r = other.effect(&intent("ch_A", "refund-A-redelivered"), &policy).run(call("ch_A")).await?;
    oncely_log.push(format!("{} — tool not called", if r.replayed { "replayed" } else { "EXECUTED AGAIN" }));
    // 4. a worker claims, calls the provider, and dies before recording the result.
    let b = intent("ch_B", "refund-B");
    let (claim, outcome) = ledger.begin(&b, &policy).await?;
    if let Outcome::Execute(_) = outcome {
        pay.refund("ch_B", 5000, Some(&claim.key)).ok();
    }
    oncely_log.push("refunded, then the worker dies: claim left pending".to_string());
    // 5. the lease runs out; the sweeper reconciles; the resumed run replays.
    clock.fetch_add(policy.lease_ms + 1, Ordering::SeqCst);
    let sweep = ledger.sweep(None).await?;
    let r = ledger.clone().with_owner("worker-3").effect(&b, &policy).run(call("ch_B")).await?;
    oncely_log.push(format!(
        "sweep: lease expired → reconciled: {} ; resume {}",
        if sweep.happened == 1 { "happened" } else { "?" },
        if r.replayed { "replayed" } else { "EXECUTED AGAIN" }
    ));

    // --- print -----------------------------------------------------------------------------------
    let events = [
        "1. refund ch_A; the reply times out",
        "2. the model retries the step",
        "3. the queue redelivers the message",
        "4. refund ch_B; the worker crashes mid-call",
        "5. the run resumes from its checkpoint",
    ];
    println!("oncely demo: $50.00 refunds on FlakyPay, a provider that makes every refund it is asked for");
    println!("ledger: {} (SQLite)\n", db.display());
    for (i, e) in events.iter().enumerate() {
        println!("{e}");
        println!("   naive retry loop : {}", naive_log[i]);
        println!("   oncely             : {}", oncely_log[i]);
    }
    let (na, nb, ia, ib) = (naive.count("ch_A"), naive.count("ch_B"), pay.count("ch_A"), pay.count("ch_B"));
    println!();
    println!(
        "refunds paid   naive: ch_A {na}×, ch_B {nb}× = ${:.2}   oncely: ch_A {ia}×, ch_B {ib}× = ${:.2}",
        (na + nb) as f64 * 50.0,
        (ia + ib) as f64 * 50.0
    );
    let ok = ia == 1 && ib == 1;
    println!("{}", if ok { "oncely: each refund paid exactly once." } else { "oncely: A REFUND WAS PAID TWICE (bug)" });
    println!("\nsee the ledger: oncely ledger list --db {} --scope acme", db.display());
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
