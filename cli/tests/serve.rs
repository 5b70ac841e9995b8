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
use oncely::{Error, Ledger, ToolError};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "a-long-test-token-0123456789";
const SECRET: &str = "webhook-secret-0123456789";

fn serve(db: &str, extra: &[&str], env: &[(&str, &str)], in_doubt_after: &str) -> Server {
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
    std::thread::spawn(move || lines.for_each(drop));
    Server { child, base }
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
    let server = serve(
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
        assert!(Instant::now() < deadline, "webhooks not delivered: {:?}", received.lock().unwrap().len());
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
