//! The provider side for axum (`oncely::provider::IdempotencyLayer`), as a real server process
//! (`oncely-test-provider`, a refunds API) driven by a real HTTP client (reqwest), on SQLite and
//! PostgreSQL: a retry after a client timeout, reordered JSON, a race of two, the same key with
//! another body, a handler that panics, answers 5xx or 429, a server killed mid-request, keys
//! per account, an optional key, and waiting instead of 409.

use oncely_test_support as common;

use common::Server;
use reqwest::header::HeaderMap;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The test provider; `limits`: `--wait-ms` and `--body-limit` when given (else the core's).
fn start(db: &str, effects: &Path, limits: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oncely-test-provider"))
        .args(["--db", db, "--effects", effects.to_str().unwrap()])
        .args(limits)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().expect("the provider exited before listening").unwrap();
    let port = line.strip_prefix("listening ").expect("listening <port>").to_string();
    std::thread::spawn(move || lines.for_each(drop));
    Server { child, base: format!("http://127.0.0.1:{port}") }
}

struct Answer {
    status: u16,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    fn problem(&self) -> Value {
        assert_eq!(self.header("content-type"), Some("application/problem+json"), "{}: {}", self.status, self.body);
        serde_json::from_str(&self.body).unwrap()
    }
    fn replayed(&self) -> bool {
        self.header("idempotent-replayed") == Some("true")
    }
}

async fn send(client: &reqwest::Client, url: &str, account: &str, key: Option<&str>, body: &str) -> reqwest::Result<Answer> {
    let mut req = client.post(url).header("content-type", "application/json").header("x-account", account).body(body.to_string());
    if let Some(k) = key {
        req = req.header("idempotency-key", k);
    }
    let r = req.send().await?;
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    Ok(Answer { status, headers, body: r.text().await? })
}

fn lines(effects: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_to_string(effects).unwrap_or_default().lines().filter(|l| l.starts_with(prefix)).map(String::from).collect()
}

async fn until_line(effects: &Path, prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while lines(effects, prefix).is_empty() {
        assert!(Instant::now() < deadline, "no {prefix:?} in the effects file");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The body the handler answered with, from its `done` line.
fn done_body(effects: &Path, charge: &str) -> String {
    let done = lines(effects, &format!("done {charge} "));
    assert_eq!(done.len(), 1, "{done:?}");
    done[0][format!("done {charge} ").len()..].to_string()
}

/// Send until the answer is no longer 409 `request-in-progress` (each 409 must carry Retry-After).
async fn until_settled(client: &reqwest::Client, url: &str, key: &str, body: &str) -> Answer {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let a = send(client, url, "a", Some(key), body).await.unwrap();
        if a.status != 409 || !a.problem()["type"].as_str().unwrap().ends_with("#request-in-progress") {
            return a;
        }
        assert!(a.header("retry-after").is_some_and(|s| s.parse::<u64>().unwrap() >= 1), "409 without Retry-After");
        assert!(Instant::now() < deadline, "still in progress");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn databases() -> Vec<(String, Option<tempfile::TempDir>)> {
    let (dir, sqlite) = common::sqlite_path();
    let mut out = vec![(sqlite, Some(dir))];
    out.extend(common::postgres_db().await.map(|url| (url, None)));
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn keyed_requests_run_once_and_repeats_replay() {
    for (db, _dir) in databases().await {
        scenarios(&db).await;
    }
}

async fn scenarios(db: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let effects = tmp.path().join("effects");
    // The core's default wait (0: a duplicate in flight is answered 409 at once); 64 KiB bodies.
    let server = start(db, &effects, &["--body-limit", "65536"]);
    let client = reqwest::Client::new();
    let url = |charge: &str| format!("{}/refunds/{charge}", server.base);

    // No key on a route that requires one: 400, nothing done.
    let a = send(&client, &url("ch_0"), "a", None, r#"{"amount":1}"#).await.unwrap();
    assert_eq!(a.status, 400);
    assert!(a.problem()["type"].as_str().unwrap().ends_with("#idempotency-key-missing"));
    // Two keys: 400.
    let a = client.post(url("ch_0")).header("idempotency-key", "a").header("idempotency-key", "b").body("{}").send().await.unwrap();
    assert_eq!(a.status(), 400);
    // A body over the layer's limit (64 KiB here): 413, nothing done.
    let big = format!(r#"{{"amount":1,"pad":"{}"}}"#, "x".repeat(100 * 1024));
    let a = send(&client, &url("ch_0"), "a", Some("k-big"), &big).await.unwrap();
    assert_eq!(a.status, 413);
    assert!(a.problem()["type"].as_str().unwrap().ends_with("#request-too-large"));
    // Two keys joined into one field by a proxy or client library: 400.
    let a = send(&client, &url("ch_0"), "a", Some("k-a, k-b"), r#"{"amount":1}"#).await.unwrap();
    assert_eq!((a.status, a.problem()["type"].as_str().unwrap().rsplit('#').next()), (400, Some("idempotency-key-invalid")));
    // GET is never keyed.
    let a = client.get(url("ch_0")).header("idempotency-key", "k-get").send().await.unwrap();
    assert_eq!((a.status().as_u16(), a.text().await.unwrap()), (200, "refunds".to_string()));
    assert!(lines(&effects, "start").is_empty(), "nothing ran");

    // The first request runs; repeats — reordered members, spaces, the key as an sf-string —
    // replay its response byte for byte, flagged, with the stored header fields only.
    let first = send(&client, &url("ch_1"), "a", Some("k-1"), r#"{"amount":500,"reason":"duplicate"}"#).await.unwrap();
    assert_eq!(first.status, 201, "{}", first.body);
    assert!(!first.replayed());
    assert_eq!(first.header("set-cookie"), Some("session=abc"));
    assert_eq!(first.body, done_body(&effects, "ch_1"));
    for (key, body) in [("k-1", r#"{ "reason" : "duplicate", "amount" : 5e2 }"#), ("\"k-1\"", r#"{"amount":500,"reason":"duplicate"}"#)] {
        let again = send(&client, &url("ch_1"), "a", Some(key), body).await.unwrap();
        assert_eq!((again.status, &again.body), (201, &first.body));
        assert!(again.replayed());
        assert_eq!(again.header("location"), Some("/refunds/re_1"));
        assert_eq!(again.header("content-type"), Some("application/json"));
        assert_eq!(again.header("set-cookie"), None, "Set-Cookie is never replayed");
    }
    // The same key with another amount: 422, naming the member.
    let other = send(&client, &url("ch_1"), "a", Some("k-1"), r#"{"amount":700,"reason":"duplicate"}"#).await.unwrap();
    assert_eq!(other.status, 422);
    let p = other.problem();
    assert_eq!((p["pointer"].as_str(), p["part"].as_str(), p["status"].as_u64()), (Some("/amount"), Some("body"), Some(422)));
    // ... or another path (the same operation, another charge).
    let other = send(&client, &url("ch_9"), "a", Some("k-1"), r#"{"amount":500,"reason":"duplicate"}"#).await.unwrap();
    assert_eq!((other.status, other.problem()["part"].as_str()), (422, Some("path")));
    // Another account's key is its own: it runs.
    let theirs = send(&client, &url("ch_1"), "b", Some("k-1"), r#"{"amount":500,"reason":"duplicate"}"#).await.unwrap();
    assert_eq!(theirs.status, 201);
    assert!(!theirs.replayed() && theirs.body != first.body);
    assert_eq!(lines(&effects, "start ch_1").len(), 2, "once per account");

    // A client that times out and retries: the handler finishes anyway (the client hanging up
    // does not cancel it), the retry meanwhile gets 409 + Retry-After, then the replay.
    let slow = r#"{"amount":1,"hold":true}"#;
    let quick = reqwest::Client::builder().timeout(Duration::from_millis(300)).build().unwrap();
    let e = send(&quick, &url("ch_2"), "a", Some("k-2"), slow).await.err().expect("the client times out");
    assert!(e.is_timeout(), "{e}");
    until_line(&effects, "start ch_2").await; // held until released: still running
    let retry = send(&client, &url("ch_2"), "a", Some("k-2"), slow).await.unwrap();
    assert_eq!(retry.status, 409, "{}", retry.body);
    assert!(retry.problem()["type"].as_str().unwrap().ends_with("#request-in-progress"));
    assert!(retry.header("retry-after").is_some());
    std::fs::write(effects.with_extension("release-ch_2"), b"").unwrap();
    let replay = until_settled(&client, &url("ch_2"), "k-2", slow).await;
    assert_eq!(replay.status, 201);
    assert!(replay.replayed());
    assert_eq!(replay.body, done_body(&effects, "ch_2"), "the response the timed-out client never saw");
    assert_eq!(lines(&effects, "start ch_2").len(), 1);

    // Two at once: one runs, the other gets 409 + Retry-After; then the replay.
    let held = r#"{"amount":2,"hold":true}"#;
    let racer = {
        let (client, url) = (client.clone(), url("ch_3"));
        tokio::spawn(async move { send(&client, &url, "a", Some("k-3"), held).await.unwrap() })
    };
    until_line(&effects, "start ch_3").await;
    let second = send(&client, &url("ch_3"), "a", Some("k-3"), held).await.unwrap();
    assert_eq!(second.status, 409);
    assert!(second.header("retry-after").is_some());
    std::fs::write(effects.with_extension("release-ch_3"), b"").unwrap();
    let won = racer.await.unwrap();
    assert_eq!(won.status, 201);
    let third = send(&client, &url("ch_3"), "a", Some("k-3"), held).await.unwrap();
    assert_eq!((third.status, &third.body, third.replayed()), (201, &won.body, true));
    assert_eq!(lines(&effects, "start ch_3").len(), 1);

    // A handler that panics or answers 5xx: the first caller gets its failure; the outcome is
    // unknown and the route reconciles `manual`ly, so the entry goes to a person at once: every
    // retry gets 409 outcome-escalated; the handler never runs again.
    for (charge, key, fail, first_status) in [("ch_4", "k-4", "panic", 500), ("ch_5", "k-5", "500", 500)] {
        let body = json!({"amount": 3, "fail": fail}).to_string();
        let a = send(&client, &url(charge), "a", Some(key), &body).await.unwrap();
        assert_eq!(a.status, first_status, "{}", a.body);
        if fail == "500" {
            assert_eq!(a.body, "the refund failed halfway", "the handler's own answer");
        }
        for _ in 0..2 {
            let again = send(&client, &url(charge), "a", Some(key), &body).await.unwrap();
            assert_eq!(again.status, 409);
            assert!(again.problem()["type"].as_str().unwrap().ends_with("#outcome-escalated"), "{}", again.body);
        }
        assert_eq!(lines(&effects, &format!("start {charge}")).len(), 1);
    }
    // 429 says nothing was done: the retry runs again.
    let body = r#"{"amount":4,"fail":"429"}"#;
    for _ in 0..2 {
        assert_eq!(send(&client, &url("ch_6"), "a", Some("k-6"), body).await.unwrap().status, 429);
    }
    assert_eq!(lines(&effects, "start ch_6").len(), 2);

    // A 5xx whose effect did happen: the operation's lookup reconciler finds it, and the
    // caller — and every retry — gets its result; the handler runs once.
    let charges = format!("{}/charges/c_1", server.base);
    let found = send(&client, &charges, "a", Some("c-1"), "{}").await.unwrap();
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(found.replayed(), "the answer comes from the ledger (the reconciler's verdict)");
    let v: Value = serde_json::from_str(&found.body).unwrap();
    assert_eq!(v["found"], true);
    assert!(v["key"].as_str().unwrap().starts_with("oncely1:"));
    let again = send(&client, &charges, "a", Some("c-1"), "{}").await.unwrap();
    assert_eq!((again.status, &again.body, again.replayed()), (200, &found.body, true));
    assert_eq!(lines(&effects, "charge ").len(), 1);

    // An optional key: without one every request runs; with one, a member the policy ignores
    // does not count.
    let payouts = format!("{}/payouts", server.base);
    for _ in 0..2 {
        assert_eq!(send(&client, &payouts, "a", None, r#"{"to":"x"}"#).await.unwrap().status, 200);
    }
    let p1 = send(&client, &payouts, "a", Some("p-1"), r#"{"to":"y","requested_at":"07:00"}"#).await.unwrap();
    let p2 = send(&client, &payouts, "a", Some("p-1"), r#"{"to":"y","requested_at":"07:01"}"#).await.unwrap();
    assert_eq!((p2.status, &p2.body, p2.replayed()), (200, &p1.body, true));
    assert_eq!(lines(&effects, "payout").len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_request_leaves_the_key_in_doubt() {
    for (db, _dir) in databases().await {
        let tmp = tempfile::tempdir().unwrap();
        let effects = tmp.path().join("effects");
        let server = start(&db, &effects, &[]);
        let client = reqwest::Client::new();
        let url = format!("{}/refunds/ch_k", server.base);
        let body = r#"{"amount":9,"hold":true}"#;
        let pending = {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move { send(&client, &url, "a", Some("k-kill"), body).await })
        };
        until_line(&effects, "start ch_k").await;
        drop(server); // SIGKILL, mid-handler
        assert!(pending.await.unwrap().is_err(), "the connection died with the server");
        std::fs::write(effects.with_extension("release-ch_k"), b"").unwrap();
        let server = start(&db, &effects, &[]);
        let url = format!("{}/refunds/ch_k", server.base);
        // While the dead claim's lease (1.5 s) runs, 409 in progress; then unknown, for good
        // (in doubt, and with `manual` reconciliation escalated to a person).
        let a = until_settled(&client, &url, "k-kill", body).await;
        assert_eq!(a.status, 409, "{}", a.body);
        let kind = a.problem()["type"].as_str().unwrap().rsplit('#').next().unwrap().to_string();
        assert!(kind == "outcome-in-doubt" || kind == "outcome-escalated", "{}", a.body);
        let again = send(&client, &url, "a", Some("k-kill"), body).await.unwrap();
        assert_eq!(again.status, 409, "{}", again.body);
        assert_eq!(lines(&effects, "start ch_k").len(), 1, "never run again blindly");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_concurrent_duplicate_can_wait_and_replay() {
    let (_dir, db) = common::sqlite_path();
    let tmp = tempfile::tempdir().unwrap();
    let effects: PathBuf = tmp.path().join("effects");
    let server = start(&db, &effects, &["--wait-ms", "30000"]);
    let client = reqwest::Client::new();
    let url = format!("{}/refunds/ch_w", server.base);
    let body = r#"{"amount":5,"hold":true}"#;
    let first = {
        let (client, url) = (client.clone(), url.clone());
        tokio::spawn(async move { send(&client, &url, "a", Some("k-w"), body).await.unwrap() })
    };
    until_line(&effects, "start ch_w").await;
    let second = {
        let (client, url) = (client.clone(), url.clone());
        tokio::spawn(async move { send(&client, &url, "a", Some("k-w"), body).await.unwrap() })
    };
    // Both reached the server; the second is waiting inside the layer, not answered.
    let deadline = Instant::now() + Duration::from_secs(30);
    while lines(&effects, "arrive /refunds/ch_w").len() < 2 {
        assert!(Instant::now() < deadline, "the duplicate never arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!second.is_finished(), "the duplicate waits");
    std::fs::write(effects.with_extension("release-ch_w"), b"").unwrap();
    let (first, second) = (first.await.unwrap(), second.await.unwrap());
    assert_eq!((first.status, second.status), (201, 201));
    assert_eq!(second.body, first.body);
    assert!(second.replayed() && !first.replayed());
    assert_eq!(lines(&effects, "start ch_w").len(), 1);
}

/// A layer given no body limit takes the core's (`core-defaults.provider-max-body`, 1 MiB): a
/// body of 1 MiB is read and run, one byte more is 413 and nothing is done.
#[tokio::test(flavor = "multi_thread")]
async fn a_layer_given_no_body_limit_takes_the_cores() {
    let (_dir, db) = common::sqlite_path();
    let tmp = tempfile::tempdir().unwrap();
    let effects: PathBuf = tmp.path().join("effects");
    let server = start(&db, &effects, &[]);
    let client = reqwest::Client::new();
    let max = usize::try_from(oncely::Runtime::shared().unwrap().defaults().unwrap().provider_max_body).unwrap();
    assert_eq!(max, 1 << 20);
    let body = |len: usize| {
        let head = r#"{"amount":1,"pad":""#;
        format!("{head}{}\"}}", "x".repeat(len - head.len() - 2))
    };
    let at = send(&client, &format!("{}/refunds/ch_b1", server.base), "a", Some("k-max"), &body(max)).await.unwrap();
    assert_eq!(at.status, 201, "{}", at.body);
    let over = send(&client, &format!("{}/refunds/ch_b2", server.base), "a", Some("k-over"), &body(max + 1)).await.unwrap();
    assert_eq!(over.status, 413, "{}", over.body);
    assert!(over.problem()["type"].as_str().unwrap().ends_with("#request-too-large"));
    assert_eq!((lines(&effects, "start ch_b1").len(), lines(&effects, "start ch_b2").len()), (1, 0));
}
