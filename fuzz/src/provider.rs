//! `provider`: any bytes as a request to a provider (HTTP or MCP), a handler's response, and a
//! recorded result.

use oncely_core::provider_wit::{Admission, HttpRequest, HttpResponse, McpCall, Operation, Recording, Refusal, Request};
use oncely_core::{json, keys, provider};

/// The fuzzer's bytes cut into fields at 0xFF bytes (the last field takes the rest).
fn fields(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = data.splitn(n, |b| *b == 0xff).collect();
    out.resize(n, b"");
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Properties:
/// - `admit`, `record-http`, `record-mcp` and `replay-http` never panic and are deterministic;
/// - a keyed request's key is the key `keys.derive` gives its intent under its policy, its
///   client key is 1–255 printable ASCII, and its args are canonical JSON;
/// - a refusal's problem document is JSON whose `status` is the refusal's;
/// - a recorded response replays with its status and body, flagged as a replay;
/// - an error is a misconfiguration (it names the scope, the tool or the policy).
pub fn provider(data: &[u8]) {
    let f = fields(data, 8);
    let op = Operation { tool: "POST /refunds/{charge}".into(), policy_json: text(f[0]), required: f[1].first() == Some(&1) };
    let keys: Vec<String> = if f[2].is_empty() { vec![] } else { f[2].split(|b| *b == b'\n').map(text).collect() };
    let http = Request::Http(HttpRequest {
        method: text(f[3]),
        path: text(f[4]),
        query: "a=1".into(),
        content_type: if f[5].first() == Some(&b'j') { "application/json".into() } else { text(f[5]) },
        body: f[7].to_vec(),
        keys,
    });
    let mcp = Request::Mcp(McpCall { arguments_json: text(f[7]), meta_json: text(f[6]), params_key: None });
    for request in [http, mcp] {
        let got = provider::admit("acct_1", &op, &request);
        assert_eq!(provider::admit("acct_1", &op, &request), got, "admit is not deterministic");
        match got {
            Ok(Admission::Keyed(k)) => {
                assert!(!k.client_key.is_empty() && k.client_key.len() <= 255);
                assert!(k.client_key.bytes().all(|b| (0x20..=0x7e).contains(&b)), "{:?}", k.client_key);
                let spec = k.policy.key.as_ref().expect("a keyed call's policy has its key spec");
                let d = keys::derive(&k.intent, spec).expect("a keyed call derives");
                assert_eq!(d.key, k.key);
                assert!(json::parse(&k.intent.args_json).is_ok());
            }
            Ok(Admission::Refuse(r)) => problem(&r),
            Ok(Admission::Pass) => {}
            Err(e) => assert!(e.contains("scope") || e.contains("tool") || e.contains("policy"), "{e}"),
        }
    }
    let response = HttpResponse {
        status: u16::from_le_bytes([f[1].first().copied().unwrap_or(200), f[1].get(1).copied().unwrap_or(0)]) % 600,
        headers: f[2].split(|b| *b == b'\n').map(|l| (text(l.split(|b| *b == b':').next().unwrap_or(b"")), text(l))).collect(),
        body: f[7].to_vec(),
    };
    let recording = provider::record_http(&response);
    assert_eq!(provider::record_http(&response), recording, "record-http is not deterministic");
    if let Recording::Returned(json) = &recording {
        let replay = provider::replay_http(json);
        assert_eq!((replay.status, &replay.body), (response.status, &response.body), "a recorded response replays as it was");
        assert_eq!(replay.headers.last().map(|(n, v)| (n.as_str(), v.as_str())), Some(("idempotent-replayed", "true")));
    }
    let mcp_recording = provider::record_mcp(&text(f[7]));
    assert_eq!(provider::record_mcp(&text(f[7])), mcp_recording);
    let replay = provider::replay_http(&text(f[7]));
    assert_eq!(provider::replay_http(&text(f[7])), replay, "replay-http is not deterministic");
}

fn problem(r: &Refusal) {
    let doc = json::parse(&r.problem_json).expect("a problem document is JSON");
    let json::Value::Object(members) = doc else { panic!("a problem document is an object") };
    let status = members.iter().find(|(n, _)| n == "status").map(|(_, v)| v.clone());
    assert_eq!(status, Some(json::Value::Number(f64::from(r.status))));
    assert!(!r.detail.is_empty());
}
