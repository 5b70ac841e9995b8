//! Approval before an irreversible effect (issue 27), through real stores (SQLite, and
//! PostgreSQL when a server is available): an approval holds for exactly the arguments a person
//! saw, one that runs out is asked again, a denial is the answer from then on, and four workers
//! racing on an approved entry pay once.

use oncely_test_support as common;

use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Decision, EntryState};
use oncely::{Error, Ledger, Runtime, ToolError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const ALWAYS: &str = r#"{"class":"irreversible-external","key":{},"reconcile":"provider-idempotent","approval":"always"}"#;
const BY_CHARGE: &str = r#"{"class":"irreversible-external","key":{"only":["/charge_id"]},"reconcile":"provider-idempotent",
    "approval":{"when":{"/amount":{">":100}},"expiresAfterMs":60000}}"#;

fn intent(args: &str) -> Intent {
    Intent { scope: "acme".into(), run_id: "r".into(), step_id: "s".into(), tool: "refund".into(), args_json: args.into() }
}

/// Ask for the refund `args` under `policy`; every call of the tool is counted in `paid`.
async fn ask(
    ledger: &Ledger,
    args: &str,
    policy: &str,
    paid: &Arc<Mutex<Vec<String>>>,
) -> Result<oncely::EffectResult<serde_json::Value>, Error> {
    let policy = Runtime::shared().unwrap().parse_policy(policy).unwrap();
    let paid = paid.clone();
    let args_owned = args.to_string();
    ledger
        .effect(&intent(args), &policy)
        .run(move |_key| {
            paid.lock().unwrap().push(args_owned.clone());
            async { Ok::<_, ToolError>(serde_json::json!({"paid": true})) }
        })
        .await
}

fn decision(by: &str, version: u64) -> Decision {
    Decision { by: by.into(), note: String::new(), seen_version: version }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_for_500_does_not_let_700_through() {
    for (name, location, _dir) in common::locations().await {
        let ledger = Ledger::open(&location).await.unwrap().with_owner("w1");
        let paid = Arc::default();
        let Err(Error::AwaitingApproval(asked)) = ask(&ledger, r#"{"charge_id":"ch_1","amount":500}"#, BY_CHARGE, &paid).await else {
            panic!("{name}: a call over 100 awaits approval")
        };
        assert_eq!(asked.args_canonical, r#"{"amount":500,"charge_id":"ch_1"}"#, "{name}");
        ledger.approve("acme", &asked.key, decision("alice", asked.version)).await.unwrap();
        let other = ask(&ledger, r#"{"charge_id":"ch_1","amount":700}"#, BY_CHARGE, &paid).await;
        assert!(matches!(&other, Err(Error::Conflict(c)) if c.pointer == "/amount"), "{name}: {other:?}");
        assert!(!ask(&ledger, r#"{"charge_id":"ch_1","amount":500}"#, BY_CHARGE, &paid).await.unwrap().replayed, "{name}");
        assert!(ask(&ledger, r#"{"charge_id":"ch_1","amount":500}"#, BY_CHARGE, &paid).await.unwrap().replayed, "{name}");
        // A small amount runs without a person.
        ask(&ledger, r#"{"charge_id":"ch_9","amount":50}"#, BY_CHARGE, &paid).await.unwrap();
        assert_eq!(paid.lock().unwrap().len(), 2, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_that_ran_out_is_asked_again_and_a_denial_stands() {
    for (name, location, _dir) in common::locations().await {
        let now = Arc::new(AtomicU64::new(1_000_000));
        let clock = now.clone();
        let ledger = Ledger::open(&location).await.unwrap().with_owner("w1").with_clock(Arc::new(move || clock.load(Ordering::SeqCst)));
        let paid = Arc::default();
        let args = r#"{"charge_id":"ch_2","amount":500}"#;
        let Err(Error::AwaitingApproval(asked)) = ask(&ledger, args, BY_CHARGE, &paid).await else { panic!("{name}") };
        ledger.approve("acme", &asked.key, decision("alice", asked.version)).await.unwrap();
        now.fetch_add(60_000, Ordering::SeqCst);
        let Err(Error::AwaitingApproval(again)) = ask(&ledger, args, BY_CHARGE, &paid).await else { panic!("{name}: asked again") };
        assert_eq!((&again.key, again.version), (&asked.key, 3), "{name}");
        let stale = ledger.deny("acme", &asked.key, decision("bob", 2)).await;
        assert!(matches!(&stale, Err(Error::Ledger(l)) if l.message.contains("changed since version 2")), "{name}: {stale:?}");
        let id = ledger.deny("acme", &asked.key, Decision { note: "over limit".into(), ..decision("bob", 3) }).await.unwrap();
        for _ in 0..2 {
            let denied = ask(&ledger, args, BY_CHARGE, &paid).await;
            assert!(matches!(&denied, Err(Error::Denied(d)) if d.by == "bob" && d.settlement == id), "{name}: {denied:?}");
        }
        assert!(paid.lock().unwrap().is_empty(), "{name}");
        let states: Vec<EntryState> = ledger.history("acme", &asked.key).await.unwrap().into_iter().map(|r| r.state).collect();
        assert_eq!(
            states,
            [EntryState::AwaitingApproval, EntryState::Approved, EntryState::AwaitingApproval, EntryState::Denied],
            "{name}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn four_workers_racing_on_an_approved_entry_pay_once() {
    for (name, location, _dir) in common::locations().await {
        let setup = Ledger::open(&location).await.unwrap().with_owner("setup");
        let args = r#"{"charge_id":"ch_3","amount":500}"#;
        let Err(Error::AwaitingApproval(asked)) = ask(&setup, args, ALWAYS, &Arc::default()).await else { panic!("{name}") };
        setup.approve("acme", &asked.key, decision("alice", asked.version)).await.unwrap();
        let paid: Arc<Mutex<Vec<String>>> = Arc::default();
        let mut tasks = Vec::new();
        for n in 0..4 {
            let (location, paid) = (location.clone(), paid.clone());
            tasks.push(tokio::spawn(async move {
                let ledger = Ledger::open(&location).await.unwrap().with_owner(format!("w{n}"));
                ask(&ledger, args, ALWAYS, &paid).await
            }));
        }
        let mut fresh = 0;
        for t in tasks {
            let r = t.await.unwrap().unwrap_or_else(|e| panic!("{name}: {e}"));
            fresh += usize::from(!r.replayed);
        }
        assert_eq!((paid.lock().unwrap().len(), fresh), (1, 1), "{name}");
    }
}
