//! `scripts/release --check`: the smoke test of the crates `oncely` and `oncely-core` as a user
//! gets them, built from their packaged archives in a project of its own (the script writes its
//! Cargo.toml). Usage: `smoke DIR CASE_JSON`, CASE_JSON a case of tests/vectors/keys.json.
//!
//! It checks that the component embedded in `oncely` loads and derives the golden key, that the
//! native `oncely-core` derives the same, that the SQLite store applies its packaged migrations,
//! and that an effect runs once and replays.

use std::sync::atomic::{AtomicU32, Ordering};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (dir, case) = (args.next().ok_or("usage: smoke DIR CASE_JSON")?, args.next().ok_or("usage: smoke DIR CASE_JSON")?);
    let case: serde_json::Value = serde_json::from_str(&case)?;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_owned).ok_or("a case field is not a string");
    let i = &case["intent"];
    let intent = oncely::wit::keys::Intent {
        scope: text(&i["scope"])?,
        run_id: text(&i["run"])?,
        step_id: text(&i["step"])?,
        tool: text(&i["tool"])?,
        args_json: text(&i["args"])?,
    };
    let golden = text(&case["key"])?;

    let ledger = oncely::Ledger::open(&format!("{dir}/ledger.db")).await?;
    let policy = ledger.runtime().parse_policy(&case["policy"].to_string())?;
    let spec = policy.key.clone().ok_or("the case's policy has no key")?;
    let key = ledger.runtime().key(&intent, &spec)?;
    assert_eq!(key, golden, "the component's key is not the golden one");

    let native_policy = oncely_core::policy::parse_policy(&case["policy"].to_string()).map_err(|e| format!("{e:?}"))?;
    let native_intent = oncely_core::keys_wit::Intent {
        scope: intent.scope.clone(),
        run_id: intent.run_id.clone(),
        step_id: intent.step_id.clone(),
        tool: intent.tool.clone(),
        args_json: intent.args_json.clone(),
    };
    let native = oncely_core::keys::key(&native_intent, &native_policy.key.ok_or("no key")?).map_err(|e| format!("{e:?}"))?;
    assert_eq!(native, golden, "oncely-core's native key is not the golden one");

    let calls = AtomicU32::new(0);
    let tool = |key: String| {
        calls.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, oncely::ToolError>(serde_json::json!({ "refund": "re_1", "key": key })) }
    };
    let first = ledger.effect(&intent, &policy).run(tool).await?;
    let again = ledger.effect(&intent, &policy).run(tool).await?;
    assert!(!first.replayed && again.replayed, "the second run is not a replay");
    assert_eq!(first.value, again.value);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the tool ran more than once");
    assert_eq!(first.key, golden);
    println!("smoke: the crates oncely and oncely-core from their archives: the golden key {key}, one call, one replay");
    Ok(())
}
