//! `oncely serve` over HTTP, as the real binary on a real ledger: credentials required, an
//! escalated entry made by a real effect in the inbox, the cross-site checks, the version
//! interlock, a settlement the agent's next call replays, metrics parsed, and a signed webhook
//! retried after its receiver failed once. (tests/serve/ drives the same pages in a browser.)

#![cfg(feature = "serve")]

use oncely_test_support as common;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use common::Server;
use hmac::{KeyInit, Mac};
use oncely::wit::keys::Intent;
use oncely::wit::ledger::{Decision, EntryState};
use oncely::{Error, Ledger, ToolError};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "a-long-test-token-0123456789";
const SECRET: &str = "webhook-secret-0123456789";

fn serve(db: &str, extra: &[&str], env: &[(&str, &str)], in_doubt_after: &str) -> Server {
    serve_logged(db, extra, env, in_doubt_after).0
}

/// `serve`, and what the server writes to stderr after it listens (warnings and errors), for a
/// failing assertion to show.
fn serve_logged(db: &str, extra: &[&str], env: &[(&str, &str)], in_doubt_after: &str) -> (Server, Arc<Mutex<Vec<String>>>) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oncely"));
    c.args(["serve", "--db", db, "--listen", "127.0.0.1:0", "--sweep-every", "100ms", "--in-doubt-after", in_doubt_after]).args(extra);
    c.env_remove("ONCELY_SERVE_TOKEN").env_remove("ONCELY_DB").env("ONCELY_LOG", "warn");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let base = loop {
        let line = lines.next().expect("oncely serve exited before listening").unwrap();
        if let Some(rest) = line.strip_prefix("oncely serve: listening on ") {
            break rest.trim_end_matches('/').to_string();
        }
    };
    // Keep reading its stderr, so it never blocks on a full pipe.
    let log = Arc::new(Mutex::new(Vec::new()));
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines {
            kept.lock().unwrap().push(line.unwrap_or_else(|e| format!("(unreadable: {e})")));
        }
    });
    (Server { child, base }, log)
}

fn intent(tool: &str) -> Intent {
    Intent {
        scope: "acme".into(),
        run_id: "run-1".into(),
        step_id: "s".into(),
        tool: tool.into(),
        args_json: r#"{"charge":"ch_1","amount":500}"#.into(),
    }
}

const MANUAL: &str = r#"{"class":"irreversible-external","key":{},"reconcile":"manual","escalateAfterMs":0}"#;
const LOOKUP: &str =
    r#"{"class":"irreversible-external","key":{},"reconcile":{"lookup":"find_charge"},"escalateAfterMs":86400000,"maxCallMs":1000}"#;

/// The received webhook requests: (status answered, headers, body).
type Received = Arc<Mutex<Vec<(u16, HeaderMap, String)>>>;

async fn receiver() -> (String, Received) {
    let got: Received = Arc::default();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(|State(got): State<Received>, headers: HeaderMap, body: String| async move {
                let mut got = got.lock().unwrap();
                // The first delivery fails: the server must try again.
                let status = if got.is_empty() { 500 } else { 200 };
                got.push((status, headers, body));
                StatusCode::from_u16(status).unwrap()
            }),
        )
        .with_state(got.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, got)
}

fn hidden(page: &str, name: &str) -> String {
    let at = page.find(&format!("name=\"{name}\" value=\"")).unwrap_or_else(|| panic!("no {name} in the page"));
    let rest = &page[at + name.len() + 15..];
    rest[..rest.find('"').unwrap()].to_string()
}

#[test]
fn serve_needs_credentials_and_never_has_a_default() {
    let (_dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_oncely")).args(["serve", "--db", &db]).env_remove("ONCELY_SERVE_TOKEN").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs credentials"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(env!("CARGO_BIN_EXE_oncely")).args(["serve", "--db", &db]).env("ONCELY_SERVE_TOKEN", "short").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least 16"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(env!("CARGO_BIN_EXE_oncely")).args(["serve", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("[default: 127.0.0.1:8471]"));
    let o = Command::new(env!("CARGO_BIN_EXE_oncely"))
        .args(["serve", "--db", &db, "--sweep-every", "0s"])
        .env("ONCELY_SERVE_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "a zero interval is refused");
    // A webhook needs a secret; from the environment is enough.
    let webhook = ["--webhook", "http://127.0.0.1:9/hook"];
    let o = Command::new(env!("CARGO_BIN_EXE_oncely"))
        .args(["serve", "--db", &db])
        .args(webhook)
        .env("ONCELY_SERVE_TOKEN", TOKEN)
        .env_remove("ONCELY_WEBHOOK_SECRET")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a secret"), "{}", String::from_utf8_lossy(&o.stderr));
    drop(serve(&db, &webhook, &[("ONCELY_SERVE_TOKEN", TOKEN), ("ONCELY_WEBHOOK_SECRET", SECRET)], "1h"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_settles_an_escalated_effect_in_the_inbox_and_the_agent_replays_it() {
    let (_dir, sqlite) = common::sqlite_path();
    let mut ledgers = vec![sqlite];
    ledgers.extend(common::postgres_db().await);
    for db in ledgers {
        settle_in_the_inbox(&db).await;
    }
}

async fn settle_in_the_inbox(db: &str) {
    // The agent: a refund whose call times out, with no way to reconcile: escalated at once.
    let agent = Ledger::open(db).await.unwrap().with_owner("agent-1");
    let policy = agent.runtime().parse_policy(MANUAL).unwrap();
    let timeout = |_key: String| async { Err::<serde_json::Value, _>(ToolError::ambiguous("the provider timed out")) };
    let e = agent.effect(&intent("refund"), &policy).run(timeout).await.unwrap_err();
    assert!(matches!(e, Error::Escalated { .. }), "{e}");
    let done = |_key: String| async { Ok::<_, ToolError>(serde_json::json!({"sent": true})) };
    agent.effect(&intent("send_receipt"), &policy).run(done).await.unwrap();
    // And a charge whose outcome has been unknown for an hour (its lookup could not tell; the
    // deadline to escalate is a day): past the inbox's threshold of ten minutes.
    let an_hour_ago = agent.now() - 3_600_000;
    let earlier = agent.clone().with_clock(Arc::new(move || an_hour_ago));
    let lookup = agent.runtime().parse_policy(LOOKUP).unwrap();
    let e = earlier.effect(&intent("charge"), &lookup).run(timeout).await.unwrap_err();
    assert!(matches!(e, Error::InDoubt { .. }), "{e}");

    let (hook, received) = receiver().await;
    let secret_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret_file.path(), SECRET).unwrap();
    let (server, log) = serve_logged(
        db,
        &[
            "--webhook",
            &hook,
            "--webhook-secret-file",
            secret_file.path().to_str().unwrap(),
            "--webhook-retry",
            "50ms",
            "--public-url",
            "https://ops.example",
        ],
        &[("ONCELY_SERVE_TOKEN", TOKEN)],
        "10m",
    );
    let base = &server.base;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();

    // Nobody gets in without the token; the sign-in page brings you back where you were going.
    let r = http.get(format!("{base}/")).send().await.unwrap();
    assert_eq!((r.status().as_u16(), r.headers()["location"].to_str().unwrap()), (303, "/login?next=%2F"));
    let r = http.get(format!("{base}/entry?scope=acme&key=x")).send().await.unwrap();
    assert_eq!((r.status().as_u16(), r.headers()["location"].to_str().unwrap()), (303, "/login?next=%2Fentry%3Fscope%3Dacme%26key%3Dx"));
    assert_eq!(http.get(format!("{base}/metrics")).send().await.unwrap().status().as_u16(), 401);
    let r = http.get(format!("{base}/metrics")).bearer_auth("not-the-token-at-all").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = http.post(format!("{base}/login")).form(&[("token", "wrong-token-wrong-token"), ("name", "eve")]).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = http.post(format!("{base}/settle")).form(&[("scope", "acme")]).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401, "a settlement without a session");

    // A person signs in (the shared token, and their name).
    let r = http
        .post(format!("{base}/login"))
        .form(&[("token", TOKEN), ("name", "Dana (ops)"), ("next", "//evil.example/")])
        .send()
        .await
        .unwrap();
    assert_eq!((r.status().as_u16(), r.headers()["location"].to_str().unwrap()), (303, "/"), "never to another host");
    let r = http
        .post(format!("{base}/login"))
        .form(&[("token", TOKEN), ("name", "Dana (ops)"), ("next", "/?order=newest")])
        .send()
        .await
        .unwrap();
    assert_eq!((r.status().as_u16(), r.headers()["location"].to_str().unwrap()), (303, "/?order=newest"));
    let set_cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Lax") && set_cookie.contains("Secure"), "{set_cookie}");
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    let get = |path: String| http.get(format!("{base}{path}")).header("cookie", &cookie).send();

    // The inbox has the escalated refund and the charge in doubt for an hour (and not the
    // receipt, which is done).
    let inbox = get("/".into()).await.unwrap().text().await.unwrap();
    let all = agent.list(None, &Default::default()).await.unwrap();
    let escalated = all.iter().find(|e| e.tool == "refund").unwrap().clone();
    let in_doubt = all.iter().find(|e| e.tool == "charge").unwrap().clone();
    assert!(inbox.contains("refund") && inbox.contains(&escalated.key), "{inbox}");
    assert!(inbox.contains(&in_doubt.key) && inbox.contains("run-1 · s"), "{inbox}");
    assert!(!inbox.contains("send_receipt"), "{inbox}");
    assert!(inbox.contains("Needs a person (2)"), "{inbox}");
    let href = format!("/entry?scope=acme&key={}", escalated.key.replace(':', "%3A"));
    let page = get(href.clone()).await.unwrap().text().await.unwrap();
    assert!(page.contains("the provider timed out") && page.contains("History"), "{page}");
    let (csrf, version) = (hidden(&page, "csrf"), hidden(&page, "version"));
    assert_eq!(version, escalated.version.to_string());
    // A link cannot make the page say something was settled.
    let page = get(format!("{href}&settled=stl-0123456789abcdef")).await.unwrap().text().await.unwrap();
    assert!(!page.contains("Settled") && !page.contains("stl-0123456789abcdef"), "{page}");

    let settle = |fields: Vec<(&'static str, String)>, extra: Option<(&'static str, &'static str)>| {
        let mut rq = http.post(format!("{base}/settle")).header("cookie", &cookie).form(&fields);
        if let Some((k, v)) = extra {
            rq = rq.header(k, v);
        }
        rq.send()
    };
    let form = |csrf: &str, version: &str| {
        vec![
            ("csrf", csrf.to_string()),
            ("scope", "acme".to_string()),
            ("key", escalated.key.clone()),
            ("version", version.to_string()),
            ("verdict", "happened".to_string()),
            ("result", r#"{"refund_id":"re_42","status":"succeeded"}"#.to_string()),
            ("note", "seen in the provider's dashboard".to_string()),
        ]
    };
    // Cross-site requests and forms without the session's CSRF token are refused; nothing moves.
    for (fields, extra) in [
        (form("", &version), None),
        (form("not-the-csrf-token", &version), None),
        (form(&csrf, &version), Some(("origin", "http://evil.example"))),
        (form(&csrf, &version), Some(("sec-fetch-site", "cross-site"))),
    ] {
        let r = settle(fields, extra).await.unwrap();
        assert_eq!(r.status().as_u16(), 403, "{extra:?}");
    }
    assert_eq!(agent.get("acme", &escalated.key).await.unwrap().unwrap(), escalated);
    // A verdict on a version the person did not see is refused.
    let r = settle(form(&csrf, &(escalated.version - 1).to_string()), None).await.unwrap();
    assert_eq!(r.status().as_u16(), 409);
    assert!(r.text().await.unwrap().contains("changed while you were looking"));
    // Not JSON: refused, nothing recorded.
    let mut bad = form(&csrf, &version);
    bad[5].1 = "{oops".into();
    assert_eq!(settle(bad, None).await.unwrap().status().as_u16(), 422);

    // The verdict, from the same origin.
    let own_origin: &'static str = Box::leak(base.clone().into_boxed_str());
    let r = settle(form(&csrf, &version), Some(("origin", own_origin))).await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    let id = to.split("settled=").nth(1).unwrap().to_string();
    assert!(id.starts_with("stl-"), "{to}");
    let page = get(to).await.unwrap().text().await.unwrap();
    assert!(page.contains(&id) && page.contains("Dana (ops)"), "{page}");
    let settled = agent.get("acme", &escalated.key).await.unwrap().unwrap();
    assert_eq!(settled.settlement.as_deref(), Some(id.as_str()));
    assert_eq!(settled.resolved_by.as_deref(), Some("Dana (ops)"));

    // The agent asks again: the person's verdict is the result; the tool is not called.
    let never = |_key: String| async { panic!("the tool ran again") as Result<serde_json::Value, ToolError> };
    let again = agent.effect(&intent("refund"), &policy).run(never).await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.value, serde_json::json!({"refund_id": "re_42", "status": "succeeded"}));
    assert!(get("/".into()).await.unwrap().text().await.unwrap().contains("Needs a person (1)"));

    // Metrics, with the token as a bearer, parsed line by line.
    let text = http.get(format!("{base}/metrics")).bearer_auth(TOKEN).send().await.unwrap().text().await.unwrap();
    let value = |name: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    assert_eq!(value(r#"oncely_entries{state="done"}"#), 2.0, "{text}");
    assert_eq!(value(r#"oncely_entries{state="escalated"}"#), 0.0);
    assert_eq!(value(r#"oncely_entries{state="in-doubt"}"#), 1.0);
    assert_eq!(value(r#"oncely_outcomes_total{kind="resolved"}"#), 1.0, "{text}");
    assert_eq!(value("oncely_needs_person"), 1.0);
    assert!(value("oncely_oldest_in_doubt_seconds") >= 3600.0, "{text}");
    assert!(text.trim_end().ends_with("# EOF"), "{text}");

    // The webhook: a notice for the escalation and one for the long doubt, each signed; the
    // first attempt was refused and sent again.
    let deadline = Instant::now() + Duration::from_secs(10);
    let delivered = || received.lock().unwrap().iter().filter(|r| r.0 == 200).count();
    while delivered() < 2 {
        let got: Vec<u16> = received.lock().unwrap().iter().map(|r| r.0).collect();
        assert!(
            Instant::now() < deadline,
            "webhooks not delivered: answered {got:?}; the server said:\n{}",
            log.lock().unwrap().join("\n")
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Delivered once each: no more requests for the same notices.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let got = received.lock().unwrap().clone();
    assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), vec![500, 200, 200], "{got:?}");
    let mut kinds = Vec::new();
    for (_, headers, body) in &got[1..] {
        let notice: serde_json::Value = serde_json::from_str(body).unwrap();
        let entry = if notice["type"] == "entry.escalated" { &escalated } else { &in_doubt };
        kinds.push(notice["type"].as_str().unwrap().to_string());
        assert_eq!(notice["entry"]["key"], entry.key.as_str());
        assert_eq!(notice["entry"]["run"], "run-1");
        let href = format!("/entry?scope=acme&key={}", entry.key.replace(':', "%3A"));
        assert_eq!(notice["entry"]["url"], format!("https://ops.example{href}").as_str());
        assert_eq!(headers["oncely-delivery"].to_str().unwrap(), notice["id"].as_str().unwrap());
        let sig = headers["oncely-signature"].to_str().unwrap();
        let (t, v1) = sig.strip_prefix("t=").unwrap().split_once(",v1=").unwrap();
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
        mac.update(format!("{t}.{body}").as_bytes());
        let want: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(v1, want, "the signature");
    }
    kinds.sort();
    assert_eq!(kinds, ["entry.escalated", "entry.in-doubt"]);
    assert!(got[1..].iter().any(|r| r.2 == got[0].2), "the refused notice was sent again, the same");
    assert_eq!(value_after(&http, base).await, 2.0);

    // Pages are never framed by another site (a settle button cannot be clicked through a
    // frame), carry no script and post forms only here.
    let r = get("/".into()).await.unwrap();
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    let csp = r.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(csp.contains("frame-ancestors 'none'") && csp.contains("form-action 'self'") && csp.contains("default-src 'none'"), "{csp}");
    // Signing out is a form too: without the session's CSRF token it is refused.
    let out = |csrf: &str| http.post(format!("{base}/logout")).header("cookie", &cookie).form(&[("csrf", csrf.to_string())]).send();
    assert_eq!(out("forged").await.unwrap().status().as_u16(), 403);
    assert_eq!(get("/".into()).await.unwrap().status().as_u16(), 200, "still signed in");
    // Behind a proxy the browser's Origin is the public address (--public-url), not the Host
    // the proxy passes on: that is this server too.
    let r = http
        .post(format!("{base}/logout"))
        .header("cookie", &cookie)
        .header("origin", "https://ops.example")
        .form(&[("csrf", csrf.clone())])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(get("/".into()).await.unwrap().status().as_u16(), 303, "signed out");
    // serve's own sweep (every 100 ms all along) has no reconciler for the charge: it left the
    // entry in doubt as it was, for a process that has one (no version churn under a person's eyes).
    assert_eq!(agent.get("acme", &in_doubt.key).await.unwrap().unwrap(), in_doubt);
}

/// `oncely_webhook_deliveries_total{result="ok"}` now.
async fn value_after(http: &reqwest::Client, base: &str) -> f64 {
    let text = http.get(format!("{base}/metrics")).bearer_auth(TOKEN).send().await.unwrap().text().await.unwrap();
    let line = text.lines().find(|l| l.starts_with(r#"oncely_webhook_deliveries_total{result="ok"}"#)).unwrap();
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// An escalated entry made by a real effect (a refund whose call timed out, with no way to
/// reconcile) and `copies` copies of its row under the keys `waiting-00001`…, in doubt since
/// `first_since` plus a second per copy (one statement); the real entry's key.
async fn escalated_with_copies(db: &str, copies: u32, first_since: u64) -> String {
    let agent = Ledger::open(db).await.unwrap().with_owner("agent-1");
    let policy = agent.runtime().parse_policy(MANUAL).unwrap();
    let timeout = |_key: String| async { Err::<serde_json::Value, _>(ToolError::ambiguous("the provider timed out")) };
    let Error::Escalated(escalated) = agent.effect(&intent("refund"), &policy).run(timeout).await.unwrap_err() else {
        panic!("not escalated")
    };
    let key = escalated.key;
    let column = |c: &str| match c {
        "key" => "printf('waiting-%05d', n)".to_string(),
        "in_doubt_since" | "updated_at" => "?3 + n * 1000".to_string(),
        c => c.to_string(),
    };
    let select = oncely::store::COLUMNS.split(", ").map(column).collect::<Vec<_>>().join(", ");
    let sql = format!(
        "WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?2) \
         INSERT INTO oncely_effects ({}) SELECT {select} FROM oncely_effects, seq WHERE scope = 'acme' AND key = ?1",
        oncely::store::COLUMNS
    );
    let store = oncely::store::SqliteStore::open(db).await.unwrap();
    let q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&key).bind(i64::from(copies)).bind(i64::try_from(first_since).unwrap());
    assert_eq!(q.execute(store.pool()).await.unwrap().rows_affected(), u64::from(copies));
    key
}

/// Sign in with the shared token; the session cookie.
async fn sign_in(http: &reqwest::Client, base: &str) -> String {
    let r = http.post(format!("{base}/login")).form(&[("token", TOKEN), ("name", "Dana")]).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    r.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string()
}

/// The keys of the entries an inbox page shows, in order, and the link to the next page.
fn inbox_keys(page: &str) -> (Vec<String>, Option<String>) {
    let mut keys: Vec<String> = Vec::new();
    for part in page.split("href=\"/entry?scope=acme&amp;key=").skip(1) {
        let key = part[..part.find('"').unwrap()].replace("%3A", ":");
        if keys.last() != Some(&key) {
            keys.push(key);
        }
    }
    let next = page.find("rel=\"next\" href=\"").map(|at| {
        let rest = &page[at + 17..];
        rest[..rest.find('"').unwrap()].replace("&amp;", "&")
    });
    (keys, next)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_inbox_hides_none_of_10000_entries_and_shows_the_oldest_first() {
    // The inbox used to read at most 1,000 escalated entries, newest first: the oldest — the
    // ones that have waited longest — were missing. 9,999 copies of a real escalated entry, in
    // doubt since 2001 and one second apart, and the real one, escalated now.
    let (_dir, db) = common::sqlite_path();
    let real = escalated_with_copies(&db, 9_999, 1_000_000_000_000).await;
    let server = serve(&db, &[], &[("ONCELY_SERVE_TOKEN", TOKEN)], "1h");
    let base = &server.base;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let cookie = sign_in(&http, base).await;
    let mut want: Vec<String> = (1..=9_999).map(|n| format!("waiting-{n:05}")).collect();
    want.push(real.clone());
    for (order, first) in [("oldest", "waiting-00001"), ("newest", real.as_str())] {
        let mut next = Some(format!("/?order={order}"));
        let (mut got, mut pages) = (Vec::new(), 0);
        while let Some(path) = next.take() {
            let page = http.get(format!("{base}{path}")).header("cookie", &cookie).send().await.unwrap().text().await.unwrap();
            if pages == 0 {
                assert!(page.contains("Needs a person (10000)"), "the count is of every entry");
                assert!(page.contains("10000 escalated, 0 in doubt"), "and says why");
            }
            let (keys, link) = inbox_keys(&page);
            assert!(keys.len() <= 100, "a page holds at most 100");
            got.extend(keys);
            (next, pages) = (link, pages + 1);
        }
        assert_eq!(got[0], first, "{order} first");
        assert_eq!(pages, 100, "{order}: 100 pages of 100");
        if order == "newest" {
            got.reverse();
        }
        assert!(got == want, "{order}: every entry once, in the order of waiting");
    }
    let metrics = http.get(format!("{base}/metrics")).bearer_auth(TOKEN).send().await.unwrap().text().await.unwrap();
    assert!(metrics.lines().any(|l| l == "oncely_needs_person 10000"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_webhook_sends_a_notice_for_every_entry_past_the_old_cap() {
    // The webhook's scan read the same 1,000 newest: 1,101 escalated entries got 1,000 notices.
    let (_dir, db) = common::sqlite_path();
    escalated_with_copies(&db, 1_100, 1_000_000_000_000).await;
    let ids: Arc<Mutex<std::collections::HashSet<String>>> = Arc::default();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(|State(ids): State<Arc<Mutex<std::collections::HashSet<String>>>>, body: String| async move {
                let notice: serde_json::Value = serde_json::from_str(&body).unwrap();
                ids.lock().unwrap().insert(notice["entry"]["key"].as_str().unwrap().to_string());
                StatusCode::OK
            }),
        )
        .with_state(ids.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let _server = serve(&db, &["--webhook", &hook], &[("ONCELY_SERVE_TOKEN", TOKEN), ("ONCELY_WEBHOOK_SECRET", SECRET)], "1h");
    let deadline = Instant::now() + Duration::from_secs(60);
    while ids.lock().unwrap().len() < 1_101 {
        assert!(Instant::now() < deadline, "{} notices of 1,101", ids.lock().unwrap().len());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ids.lock().unwrap().contains("waiting-00001"), "the oldest too");
}

/// `oncely serve` as `serve` starts it, with what it printed before it listened.
fn serve_saying(db: &str, extra: &[&str], env: &[(&str, &str)]) -> (Server, Vec<String>) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oncely"));
    c.args(["serve", "--db", db]).args(extra);
    c.env_remove("ONCELY_SERVE_TOKEN").env_remove("ONCELY_DB").env("ONCELY_LOG", "warn");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let base = loop {
        let line = lines.next().expect("oncely serve exited before listening").unwrap();
        if let Some(rest) = line.strip_prefix("oncely serve: listening on ") {
            break rest.trim_end_matches('/').to_string();
        }
        said.push(line);
    };
    std::thread::spawn(move || lines.for_each(drop));
    (Server { child, base }, said)
}

/// `oncely serve` refusing to start: its stderr.
fn refused_start(db: &str, extra: &[&str], env: &[(&str, &str)]) -> String {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oncely"));
    c.args(["serve", "--db", db, "--listen", "127.0.0.1:0"]).args(extra).env_remove("ONCELY_SERVE_TOKEN").env_remove("ONCELY_DB");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(2), "it started: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A value of the metrics text.
async fn metric(http: &reqwest::Client, base: &str, cookie: &str, name: &str) -> f64 {
    let text = http.get(format!("{base}/metrics")).header("cookie", cookie).send().await.unwrap().text().await.unwrap();
    let line = text.lines().find(|l| l.starts_with(name) && l[name.len()..].starts_with(' ')).unwrap_or_else(|| panic!("no {name}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn token_guessing_is_throttled_per_client_and_over_all_clients_and_counted() {
    // The 0.5 s delay of a wrong sign-in held one request: 100 at once made 197 tries a second,
    // and /metrics checked bearer tokens without any limit (23,000 a second).
    let (_dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    let server = serve(&db, &["--client-ip-header", "x-forwarded-for"], &[("ONCELY_SERVE_TOKEN", TOKEN)], "1h");
    let base = &server.base;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let statuses = |from: Vec<String>, bearer: bool| {
        let tries: Vec<_> = from
            .into_iter()
            .enumerate()
            .map(|(i, ip)| {
                let (http, base) = (http.clone(), base.clone());
                tokio::spawn(async move {
                    let guess = format!("guess-{i:04}-0123456789abcdef");
                    let r = if bearer {
                        http.get(format!("{base}/metrics")).bearer_auth(&guess).header("x-forwarded-for", ip).send().await.unwrap()
                    } else {
                        let form = [("token", guess.as_str()), ("name", "mallory")];
                        http.post(format!("{base}/login")).form(&form).header("x-forwarded-for", ip).send().await.unwrap()
                    };
                    let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
                    (r.status().as_u16(), retry)
                })
            })
            .collect();
        async move {
            let mut got = Vec::new();
            for t in tries {
                got.push(t.await.unwrap());
            }
            got
        }
    };
    let count = |got: &[(u16, Option<u64>)], status: u16| got.iter().filter(|r| r.0 == status).count();
    // What a bucket may have refilled while `t` ran: a cell per `every`, and one for luck.
    let refilled = |t: Instant, every: Duration| (t.elapsed().as_millis() / every.as_millis()) as usize + 1;
    // One client, 40 sign-ins at once: 10 are checked (its burst), the rest refused unchecked,
    // each saying when to come back.
    let t = Instant::now();
    let got = statuses(vec!["203.0.113.7".into(); 40], false).await;
    let (wrong_1, throttled_1) = (count(&got, 401), count(&got, 429));
    assert_eq!(wrong_1 + throttled_1, 40, "{got:?}");
    assert!((10..=10 + refilled(t, Duration::from_secs(3))).contains(&wrong_1), "{got:?}");
    assert!(got.iter().filter(|r| r.0 == 429).all(|r| r.1.is_some_and(|s| s >= 1)), "Retry-After on every 429");
    // The same client's bearer tokens share its budget: the right token is not even looked at.
    let r = http.get(format!("{base}/metrics")).bearer_auth(TOKEN).header("x-forwarded-for", "203.0.113.7").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 429);
    // 60 clients at once, one try each: over all of them, 30 at once (less what was checked
    // above), then 2 a second.
    let t = Instant::now();
    let got = statuses((0..60).map(|i| format!("198.51.100.{i}")).collect(), true).await;
    let (wrong_2, throttled_2) = (count(&got, 401), count(&got, 429));
    assert_eq!(wrong_2 + throttled_2, 60, "{got:?}");
    assert!(wrong_2 >= 30 - wrong_1 && wrong_2 <= 30 - 10 + refilled(t, Duration::from_millis(500)), "{wrong_1} then {got:?}");
    // A new client a second later finds a check to spare; every check was counted, by how it
    // ended.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let cookie = sign_in_from(&http, base, "192.0.2.1").await;
    let m = |via: &str, result: &str| format!("oncely_token_checks_total{{via=\"{via}\",result=\"{result}\"}}");
    let names = [m("sign-in", "wrong"), m("sign-in", "throttled"), m("sign-in", "ok"), m("bearer", "wrong"), m("bearer", "throttled")];
    let mut values = Vec::new();
    for n in &names {
        values.push(metric(&http, base, &cookie, n).await as usize);
    }
    assert_eq!(values, [wrong_1, throttled_1, 1, wrong_2, throttled_2 + 1], "{names:?}");
}

/// Sign in with the shared token from `ip` (as --client-ip-header says); the session cookie.
async fn sign_in_from(http: &reqwest::Client, base: &str, ip: &str) -> String {
    let form = [("token", TOKEN), ("name", "Dana")];
    let r = http.post(format!("{base}/login")).form(&form).header("x-forwarded-for", ip).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    r.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string()
}

#[test]
fn a_token_easy_to_guess_is_refused_at_start_whatever_its_length() {
    let (_dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    for weak in ["aaaaaaaaaaaaaaaa", "abcdefghijklmnopqrstuvwxyz", "passwordpassword1", "1234567890123456"] {
        let said = refused_start(&db, &[], &[("ONCELY_SERVE_TOKEN", weak)]);
        assert!(said.contains("too easy to guess"), "{weak}: {said}");
    }
    let said = refused_start(&db, &[], &[("ONCELY_SERVE_TOKEN", "short")]);
    assert!(said.contains("at least 16"), "{said}");
    // A random token starts (what the docs say to make: openssl rand -hex 24).
    drop(serve(&db, &[], &[("ONCELY_SERVE_TOKEN", "5f0c2b9e81d4a7763e0f9c1ab2d84e6f0a9b7c3d2e1f4a5b")], "1h"));
}

#[tokio::test(flavor = "multi_thread")]
async fn token_files_refuse_one_token_under_two_names_and_take_a_shared_token_whole() {
    let (dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    let file = |name: &str, text: &str| {
        let p = std::path::Path::new(dir.path()).join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    // The same token under two names: alice would sign in as bob. Refused, naming both lines.
    let twice = file("twice", "alice:tok-7f3a9c2e5b1d8046\n# bob\nbob:tok-7f3a9c2e5b1d8046\n");
    let said = refused_start(&db, &["--people-file", &twice], &[]);
    assert!(said.contains("line 3: \"bob\" has the token of \"alice\" (line 1)"), "{said}");
    let named_twice = file("named", "alice:tok-7f3a9c2e5b1d8046\nalice:tok-0e6b2d4f9a8c1357\n");
    assert!(refused_start(&db, &["--people-file", &named_twice], &[]).contains("named twice"));
    let weak = file("weak", "alice:tok-7f3a9c2e5b1d8046\nbob:bobbobbobbobbobbob\n");
    assert!(refused_start(&db, &["--people-file", &weak], &[]).contains("the token of \"bob\" (line 2)"));
    // A shared token in a file is taken whole, `:` and all; a file of several lines is not one.
    let colon = "ops:7f3a9c2e5b1d8046:0e6b2d4f";
    let shared = file("shared", &format!("# the inbox's token\n{colon}\n"));
    let several = file("several", "7f3a9c2e5b1d80460e6b2d4f\n0e6b2d4f9a8c13577f3a9c2e\n");
    assert!(refused_start(&db, &["--token-file", &several], &[]).contains("--people-file"));
    let (server, said) = serve_saying(&db, &["--listen", "127.0.0.1:0", "--token-file", &shared], &[("ONCELY_LOG", "info")]);
    assert!(said.iter().any(|l| l.contains("credentials: one shared token")), "{said:?}");
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let login = |token: &str, name: &str| {
        http.post(format!("{}/login", server.base)).form(&[("token", token.to_string()), ("name", name.to_string())]).send()
    };
    assert_eq!(login(colon, "Dana").await.unwrap().status().as_u16(), 303, "the whole line is the token");
    assert_eq!(login("7f3a9c2e5b1d8046:0e6b2d4f", "Dana").await.unwrap().status().as_u16(), 401, "not the part after the first `:`");
    drop(server);
    // One token per person: the name comes with the token.
    let people = file("people", "alice:tok-7f3a9c2e5b1d8046\nbob:tok-0e6b2d4f9a8c1357\n");
    let (server, said) = serve_saying(&db, &["--listen", "127.0.0.1:0", "--people-file", &people], &[("ONCELY_LOG", "info")]);
    assert!(said.iter().any(|l| l.contains("credentials: 2 people: alice, bob")), "{said:?}");
    let r = http.post(format!("{}/login", server.base)).form(&[("token", "tok-0e6b2d4f9a8c1357")]).send().await.unwrap();
    let cookie = r.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let page = http.get(format!("{}/", server.base)).header("cookie", cookie).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("signed in as bob"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_naming_another_host_are_refused_against_dns_rebinding() {
    let (_dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    let server =
        serve(&db, &["--allowed-host", "inbox.internal", "--public-url", "https://ops.example"], &[("ONCELY_SERVE_TOKEN", TOKEN)], "1h");
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let port = server.base.rsplit(':').next().unwrap().to_string();
    for (host, status) in [
        ("attacker.example".to_string(), 421),
        (format!("attacker.example:{port}"), 421),
        (format!("127.0.0.1:{port}"), 200),
        (format!("localhost:{port}"), 200),
        (format!("[::1]:{port}"), 200),
        ("inbox.internal".to_string(), 200),
        ("ops.example".to_string(), 200),
    ] {
        for path in ["/login", "/healthz"] {
            let r = http.get(format!("{}{path}", server.base)).header("host", &host).send().await.unwrap();
            assert_eq!(r.status().as_u16(), status, "{host} {path}");
        }
        let r = http.get(format!("{}/metrics", server.base)).bearer_auth(TOKEN).header("host", &host).send().await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{host} /metrics");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_of_a_request_is_read_before_its_credentials_and_a_huge_form_is_413() {
    let (_dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    let server = serve(&db, &[], &[("ONCELY_SERVE_TOKEN", TOKEN)], "1h");
    let base = &server.base;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    // Without a session, a malformed query or form says nothing about it: sign in first.
    for path in ["/entry", "/entry?scope=acme", "/?after_since=not-a-number"] {
        let r = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 303, "{path}");
        assert!(r.headers()["location"].to_str().unwrap().starts_with("/login?next="), "{path}");
    }
    let r =
        http.post(format!("{base}/settle")).header("content-type", "application/x-www-form-urlencoded").body("%%%").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    // Signed in: a malformed address is a page that says so; a form over 2 MB is 413.
    let cookie = sign_in(&http, base).await;
    let r = http.get(format!("{base}/entry?scope=acme")).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let huge = format!("scope=acme&key=k&version=1&verdict=happened&result={}", "7".repeat(3 << 20));
    let r = http
        .post(format!("{base}/settle"))
        .header("cookie", &cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    assert!(r.text().await.unwrap().contains("larger than 2 MB"));
}

#[test]
fn listening_beyond_loopback_over_plain_http_is_said_at_start() {
    let (_dir, db) = common::sqlite_path();
    std::fs::write(&db, b"").unwrap();
    let env = [("ONCELY_SERVE_TOKEN", TOKEN)];
    let (_server, said) = serve_saying(&db, &["--listen", "0.0.0.0:0"], &env);
    assert!(said.iter().any(|l| l.contains("warning: listening on 0.0.0.0:0 over plain HTTP")), "{said:?}");
    let (_server, said) = serve_saying(&db, &["--listen", "0.0.0.0:0", "--public-url", "https://ops.example"], &env);
    assert!(said.is_empty(), "behind TLS: {said:?}");
    let (_server, said) = serve_saying(&db, &["--listen", "127.0.0.1:0"], &env);
    assert!(said.is_empty(), "loopback: {said:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_inbox_shows_overrides_and_control_characters_by_their_code_points() {
    // A right-to-left override in a tool's error or arguments reversed the rest of the line in
    // the inbox ("refund 100$ ot" read as an amount to someone else).
    let (_dir, db) = common::sqlite_path();
    let agent = Ledger::open(&db).await.unwrap().with_owner("agent-1");
    let policy = agent.runtime().parse_policy(MANUAL).unwrap();
    let i = Intent { tool: "refund\u{202e}kcab".into(), args_json: "{\"to\":\"\u{202e}moc.live\\u001b[2J\"}".into(), ..intent("x") };
    let fail = |_key: String| async { Err::<serde_json::Value, _>(ToolError::ambiguous("sent \u{202e}001$ ot\u{200b}\u{7}")) };
    let e = agent.effect(&i, &policy).run(fail).await.unwrap_err();
    let Error::Escalated(escalated) = e else { panic!("not escalated: {e}") };
    let server = serve(&db, &[], &[("ONCELY_SERVE_TOKEN", TOKEN)], "1h");
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let cookie = sign_in(&http, &server.base).await;
    let href = format!("/entry?scope=acme&key={}", escalated.key.replace(':', "%3A"));
    for path in ["/".to_string(), href] {
        let page = http.get(format!("{}{path}", server.base)).header("cookie", &cookie).send().await.unwrap().text().await.unwrap();
        for raw in ['\u{202e}', '\u{1b}', '\u{200b}', '\u{7}'] {
            assert!(!page.contains(raw), "{path}: {raw:?} shown raw");
        }
        assert!(page.contains("refund[U+202E]kcab"), "{path}: the tool");
        assert!(page.contains("[U+202E]moc.live\\u001b[2J"), "{path}: the arguments (JSON escapes the rest)");
        assert!(page.contains("sent [U+202E]001$ ot[U+200B][U+0007]"), "{path}: the reason");
    }
}

const APPROVAL: &str = r#"{"class":"irreversible-external","key":{},"reconcile":"provider-idempotent","approval":"always"}"#;

/// A refund of `charge` for `amount` under `APPROVAL`; each call of the tool is counted in `paid`.
async fn refund_asked(agent: &Ledger, charge: &str, amount: u32, paid: &Arc<Mutex<Vec<String>>>) -> Result<serde_json::Value, Error> {
    let policy = agent.runtime().parse_policy(APPROVAL).unwrap();
    let args = format!(r#"{{"charge":"{charge}","amount":{amount}}}"#);
    let paid = paid.clone();
    let intent = Intent { args_json: args.clone(), ..intent("refund") };
    let run = move |_key: String| {
        paid.lock().unwrap().push(args.clone());
        async { Ok::<_, ToolError>(serde_json::json!({"refunded": true})) }
    };
    agent.effect(&intent, &policy).run(run).await.map(|r| r.value)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_approves_one_refund_and_denies_another_in_the_inbox() {
    let (_dir, sqlite) = common::sqlite_path();
    let mut ledgers = vec![sqlite];
    ledgers.extend(common::postgres_db().await);
    for db in ledgers {
        decide_in_the_inbox(&db).await;
    }
}

async fn decide_in_the_inbox(db: &str) {
    // The agent asks for two refunds; the policy asks a person first: neither runs.
    let agent = Ledger::open(db).await.unwrap().with_owner("agent-1");
    let paid: Arc<Mutex<Vec<String>>> = Arc::default();
    let Err(Error::AwaitingApproval(first)) = refund_asked(&agent, "ch_1", 500, &paid).await else { panic!("not awaiting approval") };
    let Err(Error::AwaitingApproval(second)) = refund_asked(&agent, "ch_2", 700, &paid).await else { panic!("not awaiting approval") };
    let Err(Error::AwaitingApproval(third)) = refund_asked(&agent, "ch_3", 300, &paid).await else { panic!("not awaiting approval") };
    assert!(paid.lock().unwrap().is_empty());

    let (hook, received) = receiver().await;
    let secret_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret_file.path(), SECRET).unwrap();
    let hook_args = ["--webhook", &hook, "--webhook-secret-file", secret_file.path().to_str().unwrap(), "--webhook-retry", "50ms"];
    let (server, log) = serve_logged(db, &hook_args, &[("ONCELY_SERVE_TOKEN", TOKEN)], "10m");
    let base = &server.base;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let cookie = sign_in(&http, base).await;
    let get = |path: String| http.get(format!("{base}{path}")).header("cookie", &cookie).send();

    // The inbox lists both requests, with their exact arguments.
    let inbox = get("/".into()).await.unwrap().text().await.unwrap();
    assert!(inbox.contains("Awaiting approval (3)") && inbox.contains("Needs a person (3)"), "{inbox}");
    assert!(inbox.contains(&first.key) && inbox.contains(&second.key), "{inbox}");
    assert!(inbox.contains("&quot;amount&quot;: 700"), "the arguments, pretty: {inbox}");
    assert_eq!(metric(&http, base, &cookie, "oncely_needs_person").await, 3.0);
    assert_eq!(metric(&http, base, &cookie, r#"oncely_entries{state="awaiting-approval"}"#).await, 3.0);

    let href = |key: &str| format!("/entry?scope=acme&key={}", key.replace(':', "%3A"));
    let page = get(href(&first.key)).await.unwrap().text().await.unwrap();
    assert!(page.contains("Approve or deny") && page.contains("No earlier call of this tool"), "{page}");
    let (csrf, version) = (hidden(&page, "csrf"), hidden(&page, "version"));
    assert_eq!(version, first.version.to_string());
    let decide = |key: &str, version: &str, csrf: &str, decision: &str, note: &str, origin: Option<&str>| {
        let fields = [("csrf", csrf), ("scope", "acme"), ("key", key), ("version", version), ("decision", decision), ("note", note)];
        let mut rq = http.post(format!("{base}/decide")).header("cookie", &cookie).form(&fields);
        if let Some(o) = origin {
            rq = rq.header("origin", o.to_string());
        }
        rq.send()
    };
    // Cross-site, without the CSRF token, or on a version the person did not see: refused.
    let r = decide(&first.key, &version, &csrf, "approve", "", Some("http://evil.example")).await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let r = decide(&first.key, &version, "forged", "approve", "", None).await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let r = decide(&first.key, &(first.version + 1).to_string(), &csrf, "approve", "", None).await.unwrap();
    assert_eq!(r.status().as_u16(), 409);
    assert!(r.text().await.unwrap().contains("changed while you were looking"));
    assert_eq!(agent.get("acme", &first.key).await.unwrap().unwrap().state, EntryState::AwaitingApproval);

    // Approved, as the person signed in.
    let r = decide(&first.key, &version, &csrf, "approve", "within policy", Some(base)).await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    let approved_id = to.split("decided=").nth(1).unwrap().to_string();
    let page = get(to).await.unwrap().text().await.unwrap();
    assert!(page.contains(&format!("Recorded: approved, decision <code>{approved_id}</code>")), "{page}");
    let e = agent.get("acme", &first.key).await.unwrap().unwrap();
    assert_eq!(
        (e.state, e.resolved_by.as_deref(), e.settlement.as_deref()),
        (EntryState::Approved, Some("Dana"), Some(approved_id.as_str()))
    );

    // The second request is shown against the first, member by member; denied with a reason.
    let page = get(href(&second.key)).await.unwrap().text().await.unwrap();
    assert!(page.contains("Compared with the last approved call"), "{page}");
    for changed in ["<code>/amount</code>", "<code>500</code>", "<code>700</code>", "<code>/charge</code>", "<code>&quot;ch_2&quot;</code>"]
    {
        assert!(page.contains(changed), "{changed} in {page}");
    }
    let csrf = hidden(&page, "csrf");
    let r = decide(&second.key, &second.version.to_string(), &csrf, "deny", "over the monthly limit", None).await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let denied_id = r.headers()["location"].to_str().unwrap().split("decided=").nth(1).unwrap().to_string();

    // The third, approved elsewhere (a library's approve, as a chat tool of the team would).
    let by_library = agent
        .approve("acme", &third.key, Decision { by: "ops-bot".into(), note: String::new(), seen_version: third.version })
        .await
        .unwrap();

    // The agent asks again: the approved refund runs once, the denied one never.
    assert_eq!(refund_asked(&agent, "ch_1", 500, &paid).await.unwrap(), serde_json::json!({"refunded": true}));
    assert_eq!(refund_asked(&agent, "ch_1", 500, &paid).await.unwrap(), serde_json::json!({"refunded": true}));
    let Err(Error::Denied(d)) = refund_asked(&agent, "ch_2", 700, &paid).await else { panic!("not denied") };
    assert_eq!(
        (d.by.as_str(), d.reason.as_str(), d.settlement.as_str()),
        ("Dana", "denied by Dana: over the monthly limit", denied_id.as_str())
    );
    assert_eq!(*paid.lock().unwrap(), [r#"{"charge":"ch_1","amount":500}"#]);
    assert_eq!(metric(&http, base, &cookie, r#"oncely_entries{state="approved"}"#).await, 1.0, "the third, not yet run");
    let inbox = get("/".into()).await.unwrap().text().await.unwrap();
    assert!(inbox.contains("Awaiting approval (0)") && inbox.contains("No call waits for approval."), "{inbox}");
    refund_asked(&agent, "ch_3", 300, &paid).await.unwrap();
    assert_eq!(metric(&http, base, &cookie, "oncely_needs_person").await, 0.0);
    assert_eq!(metric(&http, base, &cookie, r#"oncely_entries{state="denied"}"#).await, 1.0);
    assert_eq!(metric(&http, base, &cookie, r#"oncely_outcomes_total{kind="approved"}"#).await, 1.0);

    // The webhook: a notice per request, then one per decision under its id, wherever it was
    // made (the first attempt was refused and sent again).
    let deadline = Instant::now() + Duration::from_secs(10);
    let delivered = || received.lock().unwrap().iter().filter(|r| r.0 == 200).count();
    while delivered() < 6 {
        assert!(Instant::now() < deadline, "webhooks not delivered; the server said:\n{}", log.lock().unwrap().join("\n"));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    let got = received.lock().unwrap().clone();
    let mut notices: Vec<(String, String, String)> = got
        .iter()
        .filter(|r| r.0 == 200)
        .map(|(_, headers, body)| {
            let n: serde_json::Value = serde_json::from_str(body).unwrap();
            assert_eq!(headers["oncely-delivery"].to_str().unwrap(), n["id"].as_str().unwrap());
            (n["type"].as_str().unwrap().into(), n["entry"]["key"].as_str().unwrap().into(), n["id"].as_str().unwrap().into())
        })
        .collect();
    notices.sort();
    let mut want = vec![
        ("entry.approved".to_string(), first.key.clone(), approved_id.clone()),
        ("entry.denied".to_string(), second.key.clone(), denied_id.clone()),
        ("entry.approved".to_string(), third.key.clone(), by_library.clone()),
    ];
    want.sort();
    assert_eq!(notices.iter().filter(|n| n.0 != "entry.awaiting-approval").cloned().collect::<Vec<_>>(), want, "{got:?}");
    let mut asked: Vec<&str> = notices.iter().filter(|n| n.0 == "entry.awaiting-approval").map(|n| n.1.as_str()).collect();
    asked.sort();
    let mut keys = [first.key.as_str(), second.key.as_str(), third.key.as_str()];
    keys.sort();
    assert_eq!(asked, keys, "one notice per request: {got:?}");
}
