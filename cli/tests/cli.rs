//! The `oncely` CLI on real files: output bytes, exit codes (0 ok, 1 "no", 2 error), and the
//! 100,000-line modes.

use oncely_test_support as common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn oncely(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oncely"));
    // The compiled-component cache under cargo's scratch directory (not /tmp: it is left behind).
    c.args(args)
        .env("ONCELY_CACHE_DIR", std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("oncely-cli-cache"))
        .env_remove("ONCELY_DB");
    c
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = oncely(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().ok();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn canon_prints_exact_bytes_from_file_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("doc.json");
    std::fs::write(&f, "{ \"b\": 1e21, \"a\": [1.0, \"\\u00e9\"] }\n").unwrap();
    let o = run(&["canon", f.to_str().unwrap()], b"");
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), "{\"a\":[1,\"é\"],\"b\":1e+21}".to_string()));
    let o = run(&["canon"], b"[3, 2,1]");
    assert_eq!(o.stdout, b"[3,2,1]");
}

#[test]
fn canon_refuses_bad_input_with_position_and_writes_nothing() {
    let o = run(&["canon"], b"{\"amount\": 9007199254740993}");
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = text(&o.stderr);
    assert!(err.contains("line 1, column 12") && err.contains("string"), "{err}");
    let o = run(&["canon", "/nonexistent/doc.json"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("/nonexistent/doc.json"));
}

#[test]
fn canon_lines_handles_100k_lines_and_names_bad_ones() {
    let mut input = String::new();
    for i in 0..100_000 {
        if i == 4_242 {
            input.push_str("{\"dup\":1,\"dup\":2}\n");
        } else {
            input.push_str(&format!("{{\"n\": {i}, \"a\": [true, null]}}\n"));
        }
    }
    let o = run(&["canon", "--lines"], input.as_bytes());
    assert_eq!(o.status.code(), Some(1), "an invalid line makes the exit non-zero");
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 99_999);
    assert_eq!(lines[0], "{\"a\":[true,null],\"n\":0}");
    assert_eq!(lines[99_998], "{\"a\":[true,null],\"n\":99999}");
    assert!(text(&o.stderr).contains("line 4243"), "{}", text(&o.stderr));
}

#[test]
fn key_single_json_and_100k_lines_agree() {
    let args = ["key", "--scope", "acme", "--run", "r:1", "--step", "s", "--tool", "refund", "--args", "{\"charge_id\":\"ch_1\"}"];
    let o = run(&args, b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let key = text(&o.stdout).trim().to_string();
    assert!(key.starts_with("oncely1:") && key.len() == 72, "{key}");
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let j: serde_json::Value = serde_json::from_slice(&run(&with_json, b"").stdout).unwrap();
    assert_eq!(j["key"], key);
    assert_eq!(j["preimage"], "[\"oncely1\",\"acme\",\"refund\",\"r:1\",\"s\",\"args\",{\"charge_id\":\"ch_1\"}]");

    let mut input = String::new();
    for i in 0..100_000 {
        input.push_str(&format!(
            "{{\"scope\":\"acme\",\"run\":\"r:1\",\"step\":\"s\",\"tool\":\"refund\",\"args\":{{\"charge_id\":\"ch_{i}\"}}}}\n"
        ));
    }
    let o = run(&["key", "--lines"], input.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let keys: Vec<String> = text(&o.stdout).lines().map(str::to_string).collect();
    assert_eq!(keys.len(), 100_000);
    assert_eq!(keys[1], key, "line 2 is the same intent as the single call");
    assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), 100_000, "distinct intents, distinct keys");
}

#[test]
fn key_lines_reports_bad_lines_and_big_integers() {
    let input = b"{\"scope\":\"a\",\"run\":\"r\",\"step\":\"s\",\"tool\":\"t\",\"args\":{\"n\":9007199254740993}}\nnot json\n{\"scope\":\"a\",\"run\":\"r\",\"step\":\"s\",\"tool\":\"t\",\"args\":{}}\n";
    let o = run(&["key", "--lines"], input);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout).lines().count(), 1);
    let err = text(&o.stderr);
    assert!(err.contains("line 1") && err.contains("line 2"), "{err}");
}

/// Lines that are not UTF-8: bytes FF, a surrogate encoded in the bytes (WTF-8 ED A0 80), a
/// truncated sequence; then a good line. Each bad line is one error naming its line number; the
/// lines after it are still served.
const NOT_UTF8: [&[u8]; 3] = [b"\xff", b"\xed\xa0\x80", b"\xe2\x82"];

#[test]
fn key_lines_goes_on_past_a_line_that_is_not_utf8() {
    let good = |n: u32| format!("{{\"scope\":\"a\",\"run\":\"r\",\"step\":\"s{n}\",\"tool\":\"t\",\"args\":{{\"n\":{n}}}}}\n").into_bytes();
    let mut input = good(1);
    for bad in NOT_UTF8 {
        input.extend_from_slice(b"{\"scope\":\"a\",\"run\":\"r\",\"step\":\"s\",\"tool\":\"t\",\"args\":{\"note\":\"");
        input.extend_from_slice(bad);
        input.extend_from_slice(b"\"}}\n");
    }
    input.extend_from_slice(b"{\"scope\":\"a\xff\",\"run\":\"r\",\"step\":\"s\",\"tool\":\"t\",\"args\":{}}\r\n");
    input.extend(good(2));
    let o = run(&["key", "--lines"], &input);
    assert_eq!(o.status.code(), Some(1), "a bad line makes the exit status 1");
    let keys: Vec<String> = text(&o.stdout).lines().map(str::to_string).collect();
    assert_eq!(keys.len(), 2, "both good lines are served: {}", text(&o.stderr));
    let single = |n: u32| {
        let o = run(
            &["key", "--scope", "a", "--run", "r", "--step", &format!("s{n}"), "--tool", "t", "--args", &format!("{{\"n\":{n}}}")],
            b"",
        );
        text(&o.stdout).trim().to_string()
    };
    assert_eq!(keys, [single(1), single(2)]);
    let err = text(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 5, "{err}");
    assert!(lines[0].starts_with("oncely: line 2: the bytes are not valid UTF-8 (line 1, column 62, byte 61)"), "{err}");
    assert!(lines[1].starts_with("oncely: line 3: a UTF-16 surrogate is encoded directly in the bytes"), "{err}");
    assert!(lines[2].starts_with("oncely: line 4: the bytes are not valid UTF-8"), "{err}");
    assert!(lines[3].starts_with("oncely: line 5: the bytes are not valid UTF-8 (line 1, column 12, byte 11)"), "{err}");
    assert_eq!(lines[4], "oncely: 4 invalid line(s)");
}

#[test]
fn canon_lines_goes_on_past_a_line_that_is_not_utf8() {
    let mut input = b"[1.0]\n".to_vec();
    for bad in NOT_UTF8 {
        input.extend_from_slice(b"[\"");
        input.extend_from_slice(bad);
        input.extend_from_slice(b"\"]\n");
    }
    input.extend_from_slice(b"{\"b\":2,\"a\":1}\n");
    let o = run(&["canon", "--lines"], &input);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "[1]\n{\"a\":1,\"b\":2}\n");
    let err = text(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "oncely: line 2: the bytes are not valid UTF-8 (line 1, column 3, byte 2)",
            "oncely: line 3: a UTF-16 surrogate is encoded directly in the bytes (not valid UTF-8); its text has no canonical form (line 1, column 3, byte 2)",
            "oncely: line 4: the bytes are not valid UTF-8 (line 1, column 3, byte 2)",
            "oncely: 3 invalid line(s)",
        ],
        "{err}"
    );
}

#[test]
fn key_uses_the_policy_key_spec() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("policy.json");
    std::fs::write(&p, r#"{"class":"irreversible-external","key":{"only":["/charge_id"],"identity":"scope"},"reconcile":"manual"}"#)
        .unwrap();
    let k = |run_id: &str, amount: u32| {
        let args = format!("{{\"charge_id\":\"ch_1\",\"amount\":{amount}}}");
        let o = run(
            &[
                "key",
                "--scope",
                "acme",
                "--run",
                run_id,
                "--step",
                "x",
                "--tool",
                "refund",
                "--args",
                &args,
                "--policy",
                p.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    assert_eq!(k("run-1", 5), k("run-2", 7), "natural key: one refund per charge, whatever the run");
}

#[test]
fn explain_names_the_differing_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    let policy = r#"{"class":"irreversible-external","key":{"only":["/charge_id"]},"reconcile":"manual"}"#;
    std::fs::write(
        &a,
        format!(r#"{{"scope":"acme","run":"r","step":"s","tool":"refund","args":{{"charge_id":"ch_1","amount":500}},"policy":{policy}}}"#),
    )
    .unwrap();
    std::fs::write(&b, r#"{"scope":"acme","run":"r","step":"s","tool":"refund","args":{"amount":700,"charge_id":"ch_1"}}"#).unwrap();
    let o = run(&["explain", a.to_str().unwrap(), b.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("conflict") && out.contains("/amount") && out.contains("500 vs 700"), "{out}");
    let o = run(&["explain", "--json", a.to_str().unwrap(), b.to_str().unwrap()], b"");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "conflict");
}

#[test]
fn check_is_a_release_gate() {
    let dir = tempfile::tempdir().unwrap();
    let doc = common::vectors("policy.json");
    for m in doc["manifests"].as_array().unwrap().iter().filter(|m| m.get("passed").is_some()) {
        let f = dir.path().join("tools.json");
        std::fs::write(&f, m["manifest"].to_string()).unwrap();
        let o = run(&["check", f.to_str().unwrap()], b"");
        let passed = m["passed"].as_bool().unwrap();
        assert_eq!(o.status.code(), Some(if passed { 0 } else { 1 }), "{}: {}", m["name"], text(&o.stdout));
        for finding in m["findings"].as_array().unwrap() {
            assert!(text(&o.stdout).contains(finding["code"].as_str().unwrap()), "{}", m["name"]);
        }
        let o = run(&["check", "--json", f.to_str().unwrap()], b"");
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["passed"], passed);
    }
    let f = dir.path().join("bad.json");
    std::fs::write(&f, "{\"jsonrpc\":\"2.0\"}").unwrap();
    assert_eq!(run(&["check", f.to_str().unwrap()], b"").status.code(), Some(2));
}

/// An intent of the ledger tests.
fn intent(step: &str) -> oncely::wit::keys::Intent {
    oncely::wit::keys::Intent {
        scope: "acme".into(),
        run_id: "r".into(),
        step_id: step.into(),
        tool: "refund".into(),
        args_json: "{}".into(),
    }
}

#[test]
fn ledger_commands_list_show_sweep_resolve_purge() {
    let (_dir, db) = common::sqlite_path();
    // The settled entry's lease is the default: with a lease of 1 ms a loaded machine takes
    // longer than that from the claim to the call, and the core then claims again (the attempt
    // "not called: its lease ran out") as long as that goes on.
    let settled = r#"{"class":"irreversible-external","key":{},"reconcile":"manual","retentionMs":1}"#;
    let manual = r#"{"class":"irreversible-external","key":{},"reconcile":"manual","leaseMs":1,"retentionMs":1}"#;
    // Through the library: a settled entry, and a claim whose worker died before recording the
    // result (claimed, never completed; its lease of 1 ms runs out at once).
    let done_key = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let ledger = oncely::Ledger::open(&db).await.unwrap().with_owner("w");
        let policy = ledger.runtime().parse_policy(settled).unwrap();
        let tool = |_key| async { Ok::<_, oncely::ToolError>(serde_json::json!({"by": "w"})) };
        let done = ledger.effect(&intent("1"), &policy).run(tool).await.unwrap();
        let policy = ledger.runtime().parse_policy(manual).unwrap();
        let (_claim, outcome) = ledger.begin(&intent("2"), &policy).await.unwrap();
        assert!(matches!(outcome, oncely::wit::ledger::Outcome::Execute(_)), "{outcome:?}");
        done.key
    });

    let o = run(&["ledger", "list", "--db", &db, "--scope", "acme", "--json"], b"");
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let states: Vec<&str> = list.as_array().unwrap().iter().map(|e| e["state"].as_str().unwrap()).collect();
    assert_eq!(states.iter().filter(|s| **s == "done").count(), 1, "{list}");
    assert_eq!(states.iter().filter(|s| **s == "pending").count(), 1, "{list}");
    let o = run(&["ledger", "show", "--db", &db, "--scope", "acme", &done_key], b"");
    assert!(text(&o.stdout).contains("\"state\": \"done\""));
    let o = run(&["ledger", "show", "--db", &db, "--scope", "other", &done_key], b"");
    assert_eq!(o.status.code(), Some(2), "another scope does not see it");

    // The crashed claim: the sweep escalates it (manual reconciliation), and purges the settled
    // entry past its retention; a human resolves the escalated one; purge clears it in turn.
    std::thread::sleep(std::time::Duration::from_millis(5));
    let o = run(&["ledger", "sweep", "--db", &db, "--json"], b"");
    let sweep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(sweep["escalated"].as_array().unwrap().len(), 1, "{sweep}");
    assert_eq!(sweep["purged"], 1, "{sweep}");
    let o = run(&["ledger", "list", "--db", &db, "--scope", "acme", "--state", "escalated", "--json"], b"");
    let esc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let esc_key = esc[0]["key"].as_str().unwrap().to_string();
    let seen = esc[0]["version"].as_u64().unwrap().to_string();
    let resolve = |result: &str, version: &str| {
        run(
            &[
                "ledger",
                "resolve",
                "--db",
                &db,
                "--scope",
                "acme",
                &esc_key,
                "--happened",
                result,
                "--by",
                "ops",
                "--note",
                "seen in dashboard",
                "--version",
                version,
            ],
            b"",
        )
    };
    let o = resolve("{not json", &seen);
    assert_eq!(o.status.code(), Some(2), "a result must be JSON");
    // The version the person saw is required, and a settlement of an older one is refused.
    let o = run(&["ledger", "resolve", "--db", &db, "--scope", "acme", &esc_key, "--not-happened", "--by", "ops"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--version"), "{}", text(&o.stderr));
    let older = (esc[0]["version"].as_u64().unwrap() - 1).to_string();
    let o = resolve("{\"refund\":\"re_9\"}", &older);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("changed since version"), "{}", text(&o.stderr));
    let o = resolve("{\"refund\":\"re_9\"}", &seen);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let line = text(&o.stdout);
    let id = line.trim().strip_suffix(')').and_then(|l| l.rsplit_once("(settlement ")).map(|(_, id)| id.to_string());
    let id = id.unwrap_or_else(|| panic!("no settlement id in {line:?}"));
    assert!(line.starts_with(&format!("{esc_key}: done (settlement stl-")), "{line}");
    // `show` has the settlement, and the history that led to it.
    let o = run(&["ledger", "show", "--db", &db, "--scope", "acme", &esc_key], b"");
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(shown["settlement"], id.as_str(), "{shown}");
    let history: Vec<(&str, Option<&str>)> =
        shown["history"].as_array().unwrap().iter().map(|h| (h["state"].as_str().unwrap(), h["settlement"].as_str())).collect();
    assert_eq!(history.first(), Some(&("pending", None)), "{shown}");
    assert_eq!(history.last(), Some(&("done", Some(id.as_str()))), "{shown}");
    assert!(history.contains(&("escalated", None)), "{shown}");
    std::thread::sleep(std::time::Duration::from_millis(5));
    let o = run(&["ledger", "purge", "--db", &db, "--scope", "acme"], b"");
    assert_eq!(text(&o.stdout).trim(), "purged 1");
    let o = run(&["ledger", "list", "--db", &db, "--scope", "acme", "--json"], b"");
    assert_eq!(text(&o.stdout).trim(), "[]");
}

#[test]
fn the_shipped_binary_has_no_test_hook() {
    // The test worker (oncely-test-worker, in the unpublished crate oncely-test-support) is a
    // binary of its own: the CLI neither runs nor lists `ledger exec`, and carries none of its
    // code.
    for args in [&["ledger", "exec", "--help"][..], &["ledger", "exec", "--db", "x.db", "--crash-after-call"]] {
        let o = run(args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stdout));
        assert!(text(&o.stderr).contains("unrecognized subcommand 'exec'"), "{}", text(&o.stderr));
        assert!(o.stdout.is_empty());
    }
    let o = run(&["ledger", "--help"], b"");
    assert_eq!(o.status.code(), Some(0));
    assert!(!text(&o.stdout).contains("exec"), "{}", text(&o.stdout));
    let bin = std::fs::read(env!("CARGO_BIN_EXE_oncely")).unwrap();
    let bin = String::from_utf8_lossy(&bin);
    for needle in ["crash-after-call", "crash_after_call"] {
        assert!(!bin.contains(needle), "the CLI binary contains {needle:?}");
    }
}

#[test]
fn demo_charges_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let o = run(&["demo", "--db", db.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o.stdout), text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("naive: ch_A 3×, ch_B 2×") && out.contains("oncely: ch_A 1×, ch_B 1×"), "{out}");
    assert!(out.contains("exactly once"));
}

#[test]
fn component_out_writes_the_embedded_component() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("core.wasm");
    let o = run(&["component", "--out", f.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&f).unwrap(), oncely::runtime::COMPONENT);
    assert_eq!(&oncely::runtime::COMPONENT[..4], b"\0asm");
}

#[test]
fn ledger_commands_need_a_ledger_that_exists() {
    let dir = tempfile::tempdir().unwrap();
    let here = |args: &[&str]| {
        let o = oncely(args).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
        (o.status.code(), text(&o.stdout), text(&o.stderr))
    };
    // No --db and no ONCELY_DB: an error that says what to give; no file is made.
    let (code, out, err) = here(&["ledger", "list"]);
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert!(err.contains("--db") && err.contains("ONCELY_DB"), "{err}");
    // A SQLite path that does not exist is not created, for a read or for a settlement.
    for args in [&["ledger", "list", "--db", "missing.db"][..], &["ledger", "sweep", "--db", "missing.db"]] {
        let (code, _, err) = here(args);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(err.starts_with("oncely: no ledger at missing.db: the file does not exist"), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the commands created files");
    // ONCELY_DB names it as --db does.
    let db = dir.path().join("ledger.db");
    let o = oncely(&["ledger", "list"]).env("ONCELY_DB", &db).output().unwrap();
    assert!(text(&o.stderr).contains(&format!("no ledger at {}", db.display())), "{}", text(&o.stderr));
}

#[test]
fn storage_errors_are_one_line_that_says_the_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    // Not a SQLite file: the driver's message repeats its source; the CLI says it once.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let o = run(&["ledger", "list", "--db", junk.to_str().unwrap()], b"");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("file is not a database").count(), 1, "{err}");
    // A PostgreSQL server that refuses: within a few seconds (not the pool's timeout), with the
    // real cause.
    let started = std::time::Instant::now();
    let o = run(&["ledger", "list", "--db", "postgres://u@127.0.0.1:1/db"], b"");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // Far below the pool's 5 s acquire timeout on an idle machine; the bound leaves room for a
    // loaded one while still ruling out sqlx's 30 s.
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "took {:?}: {err}", started.elapsed());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.to_lowercase().matches("connection refused").count(), 1, "{err}");
    assert!(!err.contains("timed out"), "{err}");
    // A password in the URL is not printed.
    let o = run(&["ledger", "list", "--db", "postgres://u:s3cret@127.0.0.1:1/db"], b"");
    let err = text(&o.stderr);
    assert!(err.contains("postgres://u:***@127.0.0.1:1/db") && !err.contains("s3cret"), "{err}");
}

#[test]
fn ledger_list_spans_scopes_with_times_filters_and_json_values() {
    let (_dir, db) = common::sqlite_path();
    let policy = r#"{"class":"irreversible-external","key":{},"reconcile":"manual"}"#;
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let ledger = oncely::Ledger::open(&db).await.unwrap().with_owner("w");
        let policy = ledger.runtime().parse_policy(policy).unwrap();
        for (scope, tool) in [("acme", "refund"), ("globex", "send_email")] {
            let i = oncely::wit::keys::Intent {
                scope: scope.into(),
                tool: tool.into(),
                args_json: r#"{"n":1,"to":"a@b"}"#.into(),
                ..intent("1")
            };
            let tool = |_key| async { Ok::<_, oncely::ToolError>(serde_json::json!({"id": "x_1", "ok": true})) };
            ledger.effect(&i, &policy).run(tool).await.unwrap();
        }
    });
    let list = |extra: &[&str]| {
        let mut args = vec!["ledger", "list", "--db", &db, "--json"];
        args.extend_from_slice(extra);
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", text(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    // Every scope by default; arguments and results are JSON values, times both ways.
    let all = list(&[]);
    let mut scopes: Vec<&str> = all.as_array().unwrap().iter().map(|e| e["scope"].as_str().unwrap()).collect();
    scopes.sort();
    assert_eq!(scopes, ["acme", "globex"], "{all}");
    let e = &all[0];
    assert_eq!(e["args"], serde_json::json!({"n": 1, "to": "a@b"}), "{e}");
    assert_eq!(e["result"], serde_json::json!({"id": "x_1", "ok": true}), "{e}");
    let updated = e["updated"].as_str().unwrap();
    assert!(updated.len() == 20 && updated.ends_with('Z') && updated.starts_with("20"), "{updated}");
    // Filters.
    assert_eq!(list(&["--scope", "globex"]).as_array().unwrap().len(), 1);
    assert_eq!(list(&["--tool", "refund"])[0]["scope"], "acme");
    assert_eq!(list(&["--state", "done"]).as_array().unwrap().len(), 2);
    assert_eq!(list(&["--state", "escalated"]).as_array().unwrap().len(), 0);
    assert_eq!(list(&["--since", "1h"]).as_array().unwrap().len(), 2);
    assert_eq!(list(&["--since", "2099-01-01T00:00:00Z"]).as_array().unwrap().len(), 0);
    let o = run(&["ledger", "list", "--db", &db, "--since", "yesterday-ish"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("neither a duration"), "{}", text(&o.stderr));
    // For people: one line each, with the time, state, scope and tool.
    let o = run(&["ledger", "list", "--db", &db], b"");
    let lines = text(&o.stdout);
    assert_eq!(lines.lines().count(), 2, "{lines}");
    for line in lines.lines() {
        assert!(line.starts_with("20") && line.contains("Z  done ") && line.contains("attempt 1"), "{line}");
    }
    assert!(lines.contains("  acme  refund  ") && lines.contains("  globex  send_email  "), "{lines}");
}

#[test]
fn check_names_a_policy_without_a_class_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tools.json");
    let tools =
        r#"{"tools":[{"name":"refund","inputSchema":{"type":"object"},"_meta":{"oncely/policy":{"key":{},"reconcile":"manual"}}}]}"#;
    std::fs::write(&f, tools).unwrap();
    let o = run(&["check", f.to_str().unwrap()], b"");
    let out = text(&o.stdout);
    assert!(out.contains("[class-from-defaults] \"refund\" has no class (no annotations, no policy class)"), "{out}");
    assert!(!out.contains("nor an oncely policy"), "{out}");
}

/// Arguments that are not UTF-8, from `--args-file` or `--args`, are judged as JSON by the core
/// (docs/key-scheme.md §8, rule 7), exactly as `oncely canon` judges the same bytes: an error in
/// the text before the bad byte comes first; what the core checks before the arguments (an empty
/// field) comes before them all.
#[test]
fn key_judges_arguments_that_are_not_utf8_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("args.json");
    let f = f.to_str().unwrap();
    let key = |scope: &str, args: &[&str]| {
        let mut all = vec!["key", "--scope", scope, "--run", "r", "--step", "s", "--tool", "t"];
        all.extend_from_slice(args);
        run(&all, b"")
    };
    for (bytes, byte, why) in [
        (&b"{\"a\":1,\"a\":\xff"[..], 7, "duplicate member name \"a\""),
        (b"[1,,\"\xff\"]", 3, "unexpected character \",\""),
        (b"[1\xff]", 2, "the bytes are not valid UTF-8"),
        (b"[\xed\xa0\x80]", 1, "a UTF-16 surrogate is encoded directly in the bytes"),
    ] {
        std::fs::write(f, bytes).unwrap();
        let canon = run(&["canon", f], b"");
        let canon = text(&canon.stderr);
        assert!(canon.contains(why) && canon.contains(&format!("byte {byte})")), "{canon}");
        let o = key("a", &["--args-file", f]);
        assert_eq!(o.status.code(), Some(2));
        assert!(o.stdout.is_empty());
        let err = text(&o.stderr);
        let core = canon.trim().strip_prefix("oncely: ").unwrap();
        assert_eq!(err.trim(), format!("oncely: the arguments are not acceptable JSON: {core}"), "{err}");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let mut c = oncely(&["key", "--scope", "a", "--run", "r", "--step", "s", "--tool", "t", "--args"]);
            let o = c.arg(std::ffi::OsStr::from_bytes(bytes)).output().unwrap();
            assert_eq!((o.status.code(), text(&o.stderr)), (Some(2), err.clone()));
        }
        let o = key("", &["--args-file", f]);
        assert_eq!(text(&o.stderr).trim(), "oncely: the intent's scope is empty");
    }
    // A policy or tool list that is not UTF-8: the core's JSON error, not "not valid UTF-8 text".
    std::fs::write(f, b"{\"tools\":[1,,\"\xff\"]}").unwrap();
    let o = run(&["check", f], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("(line 1, column 13, byte 12)"), "{}", text(&o.stderr));
}

#[test]
fn key_without_a_step_is_named_by_the_core_as_the_libraries_name_it() {
    let base = ["key", "--scope", "acme", "--run", "r1", "--tool", "refund", "--args", "{\"a\":1}", "--json"];
    let o = run(&base, b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // No step: the run is the identity (agent.identify), so the step is null in the preimage.
    assert_eq!(j["preimage"], r#"["oncely1","acme","refund","r1",null,"args",{"a":1}]"#);
    // `--step ""` is the intent as written: the key scheme refuses an empty step-id.
    let empty = run(&[&base[..5], &["--step", ""], &base[5..]].concat(), b"");
    assert!(!empty.status.success() && text(&empty.stderr).contains("step-id is empty"), "{}", text(&empty.stderr));
    let stepped = run(&[&base[..5], &["--step", "s1"], &base[5..]].concat(), b"");
    assert_ne!(text(&stepped.stdout), text(&o.stdout));
    // No run either: the core's refusal, in its words.
    let o = run(&["key", "--scope", "acme", "--run", "", "--tool", "refund", "--args", "{}"], b"");
    assert!(!o.status.success() && o.stdout.is_empty());
    assert!(text(&o.stderr).contains("needs a run"), "{}", text(&o.stderr));
    // Unless the policy's class is not keyed (read-only): keyed by its scope, as every host does
    // (tests/vectors/adapters.json, "a read-only tool and nothing naming a run").
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("read-only.json");
    std::fs::write(&ro, r#"{"class":"read-only"}"#).unwrap();
    let args = ["key", "--scope", "", "--run", "", "--tool", "get_balance", "--args", r#"{"customer":"c1"}"#, "--policy"];
    let o = run(&[&args[..], &[ro.to_str().unwrap()]].concat(), b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), "oncely1:5cb43f57a17fe514b9f3dca1f5c4f838a79f01ee2087678cf9e43b3ec349c18b");
}

#[test]
fn ledger_output_neutralises_escapes_and_overrides_from_tools_and_reasons() {
    // A tool's error reason holding a clear-screen sequence, an OSC 8 link and a right-to-left
    // override; a tool name and arguments with an override. The terminal gets none of them raw:
    // text output shows each by its code point, JSON escapes them (the same values).
    let (_dir, db) = common::sqlite_path();
    let reason = "timeout\u{1b}[2J\u{1b}]8;;https://evil.example\u{7}click\u{1b}]8;;\u{7} \u{202e}001$ ot dnufer";
    let tool = "refund\u{202e}kcabgnirud";
    let args = "{\"memo\":\"\u{202e}evil\u{9b}31m\"}";
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let ledger = oncely::Ledger::open(&db).await.unwrap().with_owner("w\u{1b}[31m");
        let policy = ledger.runtime().parse_policy(r#"{"class":"irreversible-external","key":{},"reconcile":"manual"}"#).unwrap();
        let intent = oncely::wit::keys::Intent { tool: tool.into(), args_json: args.into(), ..intent("1") };
        let fail = |_key| async { Err::<serde_json::Value, _>(oncely::ToolError::ambiguous(reason)) };
        let e = ledger.effect(&intent, &policy).run(fail).await.unwrap_err();
        assert!(matches!(e, oncely::Error::Escalated(_)), "{e}");
    });
    let raw = |out: &[u8]| out.iter().any(|b| *b == 0x1b || *b == 0x07) || text(out).contains(['\u{202e}', '\u{9b}']);
    let o = run(&["ledger", "list", "--db", &db], b"");
    let listed = text(&o.stdout);
    assert!(!raw(&o.stdout), "{listed:?}");
    assert!(listed.contains("refund[U+202E]kcabgnirud") && listed.contains("timeout[U+001B][2J[U+001B]]8;;https://evil.example[U+0007]"));
    assert!(listed.contains("w[U+001B][31m"), "the owner too: {listed:?}");
    assert_eq!(listed.lines().count(), 1, "one line per entry");
    let o = run(&["ledger", "list", "--db", &db, "--json"], b"");
    assert!(!raw(&o.stdout), "{:?}", text(&o.stdout));
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((list[0]["tool"].as_str(), list[0]["args"]["memo"].as_str()), (Some(tool), Some("\u{202e}evil\u{9b}31m")));
    let kept = list[0]["reason"].as_str().unwrap();
    assert!(kept.contains(reason), "the values are kept: {kept:?}");
    let key = list[0]["key"].as_str().unwrap().to_string();
    let o = run(&["ledger", "show", "--db", &db, "--scope", "acme", &key], b"");
    assert!(!raw(&o.stdout), "{:?}", text(&o.stdout));
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(shown["tool"].as_str(), Some(tool));
    let o = run(&["ledger", "sweep", "--db", &db], b"");
    assert!(!raw(&o.stdout), "{:?}", text(&o.stdout));
}
