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

#[tokio::test(flavor = "multi_thread")]
async fn requests_are_listed_in_the_order_asked_and_compared_with_the_last_approval() {
    for (name, location, _dir) in common::locations().await {
        let ledger = Ledger::open(&location).await.unwrap().with_owner("w1");
        let paid = Arc::default();
        let mut keys = Vec::new();
        for (i, amount) in [500, 600, 700].into_iter().enumerate() {
            let at = 1_000_000 + i as u64;
            let asking = ledger.clone().with_clock(Arc::new(move || at));
            let args = format!(r#"{{"charge_id":"ch_{i}","amount":{amount}}}"#);
            let Err(Error::AwaitingApproval(r)) = ask(&asking, &args, ALWAYS, &paid).await else { panic!("{name}") };
            keys.push(r.key);
        }
        let count = ledger.needs_person_count(None).await.unwrap();
        assert_eq!((count.awaiting_approval, count.total()), (3, 3), "{name}");
        // Two pages of two, the longest waiting first; and newest first.
        let first = ledger.awaiting_approval(&oncely::store::WaitingPage { limit: 2, ..Default::default() }).await.unwrap();
        let listed: Vec<&str> = first.entries.iter().map(|(e, _)| e.key.as_str()).collect();
        assert_eq!(listed, [keys[0].as_str(), keys[1].as_str()], "{name}");
        assert!(first.entries.iter().all(|(_, why)| *why == oncely::wit::ledger::Attention::Approval), "{name}");
        let page = oncely::store::WaitingPage { limit: 2, after: first.next.clone(), ..Default::default() };
        let second = ledger.awaiting_approval(&page).await.unwrap();
        assert_eq!(second.entries.iter().map(|(e, _)| e.key.as_str()).collect::<Vec<_>>(), [keys[2].as_str()], "{name}");
        assert!(second.next.is_none(), "{name}");
        let newest = ledger.awaiting_approval(&oncely::store::WaitingPage { newest_first: true, ..Default::default() }).await.unwrap();
        assert_eq!(newest.entries[0].0.key, keys[2], "{name}");
        // None approved yet; then the most recent approval of the tool in the scope, not the
        // entry itself.
        assert!(ledger.last_approved("acme", "refund", &keys[2]).await.unwrap().is_none(), "{name}");
        for (at, k) in [(2_000_000, &keys[0]), (2_000_001, &keys[1])] {
            let e = ledger.get("acme", k).await.unwrap().unwrap();
            let deciding = ledger.clone().with_clock(Arc::new(move || at));
            deciding.approve("acme", k, decision("alice", e.version)).await.unwrap();
        }
        let (last, by) = ledger.last_approved("acme", "refund", &keys[2]).await.unwrap().unwrap();
        assert_eq!((last.key.as_str(), by.as_str()), (keys[1].as_str(), "alice"), "{name}");
        assert_eq!(ledger.last_approved("acme", "refund", &keys[1]).await.unwrap().unwrap().0.key, keys[0], "{name}");
        // An approval withdrawn (denied) is not one to compare with.
        let e = ledger.get("acme", &keys[1]).await.unwrap().unwrap();
        ledger.deny("acme", &keys[1], decision("bob", e.version)).await.unwrap();
        assert_eq!(ledger.last_approved("acme", "refund", &keys[2]).await.unwrap().unwrap().0.key, keys[0], "{name}");
        assert!(ledger.last_approved("globex", "refund", &keys[2]).await.unwrap().is_none(), "{name}: another scope");
        assert!(ledger.last_approved("acme", "charge", &keys[2]).await.unwrap().is_none(), "{name}: another tool");
        let stats = ledger.stats().await.unwrap();
        assert_eq!(stats.oldest_awaiting_since, Some(1_000_002), "{name}");
        assert!(stats.by_state.contains(&(EntryState::Approved, 1)), "{name}: {stats:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_caller_that_waits_gets_the_decision_made_meanwhile() {
    for (name, location, _dir) in common::locations().await {
        let agent = Ledger::open(&location).await.unwrap().with_owner("agent");
        let person = Ledger::open(&location).await.unwrap().with_owner("inbox");
        let policy = Runtime::shared().unwrap().parse_policy(ALWAYS).unwrap();
        let paid = Arc::new(AtomicU64::new(0));
        for (charge, approve) in [("ch_yes", true), ("ch_no", false)] {
            let args = format!(r#"{{"charge_id":"{charge}","amount":500}}"#);
            let waiting = {
                let (agent, policy, paid, args) = (agent.clone(), policy.clone(), paid.clone(), args.clone());
                tokio::spawn(async move {
                    let pay = move |_key: String| {
                        paid.fetch_add(1, Ordering::SeqCst);
                        async { Ok::<_, ToolError>(serde_json::json!({"paid": true})) }
                    };
                    agent.effect(&intent(&args), &policy).wait_for_approval(std::time::Duration::from_secs(20)).run(pay).await
                })
            };
            // The person finds the request (one, whatever the waiting caller does) and decides.
            let key = Runtime::shared().unwrap().prepare(&intent(&args), &policy, "x").unwrap().key;
            let asked = loop {
                match person.get("acme", &key).await.unwrap() {
                    Some(e) if e.state == EntryState::AwaitingApproval => break e,
                    _ => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
                }
            };
            let decided = decision("dana", asked.version);
            if approve {
                person.approve("acme", &key, decided).await.unwrap();
                let r = waiting.await.unwrap().unwrap();
                assert!(!r.replayed, "{name}");
            } else {
                person.deny("acme", &key, decided).await.unwrap();
                let e = waiting.await.unwrap().unwrap_err();
                assert!(matches!(&e, Error::Denied(d) if d.by == "dana"), "{name}: {e:?}");
            }
        }
        assert_eq!(paid.load(Ordering::SeqCst), 1, "{name}: the approved one paid once, the denied one never");
        // Nobody decides: the wait ends at its limit with the request.
        let started = std::time::Instant::now();
        let pay = |_key: String| async { Ok::<_, ToolError>(serde_json::json!({"paid": true})) };
        let late = agent
            .effect(&intent(r#"{"charge_id":"ch_later","amount":500}"#), &policy)
            .wait_for_approval(std::time::Duration::from_millis(1_500))
            .run(pay)
            .await;
        assert!(matches!(late, Err(Error::AwaitingApproval(_))), "{name}: {late:?}");
        assert!(started.elapsed() >= std::time::Duration::from_millis(1_500), "{name}: {:?}", started.elapsed());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn asks_approval_says_what_the_next_ask_would_meet() {
    for (name, location, _dir) in common::locations().await {
        let ledger = Ledger::open(&location).await.unwrap().with_owner("w1");
        let policy = Runtime::shared().unwrap().parse_policy(BY_CHARGE).unwrap();
        let (big, small) = (intent(r#"{"charge_id":"ch_a","amount":500}"#), intent(r#"{"charge_id":"ch_b","amount":50}"#));
        assert!(ledger.asks_approval(&big, &policy).await.unwrap(), "{name}");
        assert!(!ledger.asks_approval(&small, &policy).await.unwrap(), "{name}");
        let paid = Arc::default();
        let Err(Error::AwaitingApproval(r)) = ask(&ledger, &big.args_json, BY_CHARGE, &paid).await else { panic!("{name}") };
        assert!(ledger.asks_approval(&big, &policy).await.unwrap(), "{name}: still asked");
        ledger.approve("acme", &r.key, decision("alice", r.version)).await.unwrap();
        assert!(!ledger.asks_approval(&big, &policy).await.unwrap(), "{name}: approved");
    }
}

/// What an agent framework's own approval step does (`Ledger::request_approval`, the core's
/// `ask`): it records the one request and claims nothing, two asks find the same request, a
/// person's approval meanwhile leaves nothing to ask (and the next effect runs under it, once),
/// and a denial is raised. `decision_of` names each of these.
#[tokio::test(flavor = "multi_thread")]
async fn a_frameworks_request_records_the_request_and_claims_nothing() {
    use oncely::wit::ledger::HeldDecision;
    for (name, location, _dir) in common::locations().await {
        let ledger = Ledger::open(&location).await.unwrap().with_owner("w1");
        let rt = Runtime::shared().unwrap();
        let policy = rt.parse_policy(BY_CHARGE).unwrap();
        let paid = Arc::default();
        let args = r#"{"charge_id":"ch_7","amount":500}"#;
        let asked = ledger.request_approval(&intent(args), &policy).await.unwrap().expect("a request");
        let again = ledger.request_approval(&intent(args), &policy).await.unwrap().expect("the same request");
        assert_eq!((&again.key, again.version, asked.version), (&asked.key, 1, 1), "{name}");
        let e = ledger.get("acme", &asked.key).await.unwrap().unwrap();
        assert!(matches!(rt.decision_of(&e).unwrap(), Some(HeldDecision::Asked(r)) if r.key == asked.key), "{name}");
        ledger.approve("acme", &asked.key, decision("alice", asked.version)).await.unwrap();
        assert!(ledger.request_approval(&intent(args), &policy).await.unwrap().is_none(), "{name}: approved, nothing to ask");
        let e = ledger.get("acme", &asked.key).await.unwrap().unwrap();
        assert_eq!((e.state, e.version), (EntryState::Approved, 2), "{name}: nothing claimed");
        assert!(matches!(rt.decision_of(&e).unwrap(), Some(HeldDecision::Approved(a)) if a.by == "alice" && a.unused), "{name}");
        assert!(!ask(&ledger, args, BY_CHARGE, &paid).await.unwrap().replayed, "{name}");
        let e = ledger.get("acme", &asked.key).await.unwrap().unwrap();
        assert!(matches!(rt.decision_of(&e).unwrap(), Some(HeldDecision::Approved(a)) if !a.unused), "{name}: used");
        assert!(ledger.request_approval(&intent(args), &policy).await.unwrap().is_none(), "{name}: it ran");
        // Denied: the request raises the denial, and nothing is paid.
        let other = r#"{"charge_id":"ch_8","amount":500}"#;
        let r = ledger.request_approval(&intent(other), &policy).await.unwrap().unwrap();
        ledger.deny("acme", &r.key, Decision { note: "no".into(), ..decision("bob", r.version) }).await.unwrap();
        let denied = ledger.request_approval(&intent(other), &policy).await;
        assert!(matches!(&denied, Err(Error::Denied(d)) if d.by == "bob"), "{name}: {denied:?}");
        // A small amount: nothing to ask, nothing written.
        let small = r#"{"charge_id":"ch_9","amount":5}"#;
        assert!(ledger.request_approval(&intent(small), &policy).await.unwrap().is_none(), "{name}");
        let key = rt.prepare(&intent(small), &policy, "w1").unwrap().key;
        assert!(ledger.get("acme", &key).await.unwrap().is_none(), "{name}");
        assert_eq!(paid.lock().unwrap().len(), 1, "{name}");
    }
}
