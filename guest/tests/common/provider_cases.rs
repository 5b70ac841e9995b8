// The cases of `tests/vectors/provider.json`, shared by the native replay (guest/tests/
// provider_vectors.rs) and the one through the component (host/tests/provider_vectors.rs), which
// `include!` this file after bringing the provider types and four functions into scope:
// `admit`, `record_http`, `replay_http`, `refuse`, each as the core's.

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}")).to_string()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { char::from(B64[(n >> (18 - 6 * i) & 63) as usize]) } else { '=' });
        }
    }
    out
}

fn unb64(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let pad = quad.iter().filter(|&&c| c == b'=').count();
        let n = quad.iter().filter(|&&c| c != b'=').fold(0u32, |n, &c| n << 6 | B64.iter().position(|&a| a == c).expect("base64") as u32)
            << (6 * pad);
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
    }
    out
}

fn body_of(v: &Value) -> Vec<u8> {
    match (v.get("body"), v.get("body64")) {
        (Some(b), None) => s(b).into_bytes(),
        (None, Some(b)) => unb64(&s(b)),
        _ => panic!("body or body64: {v}"),
    }
}

fn put_body(m: &mut Map<String, Value>, body: &[u8]) {
    match std::str::from_utf8(body) {
        Ok(t) => m.insert("body".into(), json!(t)),
        Err(_) => m.insert("body64".into(), json!(b64(body))),
    };
}

fn refusal_json(r: &Refusal) -> Value {
    json!({"status": r.status, "kind": r.kind, "pointer": r.pointer, "part": r.part, "retryAfterS": r.retry_after_s,
           "title": r.title, "detail": r.detail, "problem": r.problem_json})
}

fn admit_case(c: &Value) -> Value {
    let o = &c["operation"];
    let op = Operation { tool: s(&o["tool"]), policy_json: s(&o["policy"]), required: o["required"].as_bool().unwrap() };
    let req = if let Some(h) = c["request"].get("http") {
        Request::Http(HttpRequest {
            method: s(&h["method"]),
            path: s(&h["path"]),
            query: s(&h["query"]),
            content_type: s(&h["contentType"]),
            body: body_of(h),
            keys: h["keys"].as_array().unwrap().iter().map(s).collect(),
        })
    } else {
        let m = &c["request"]["mcp"];
        Request::Mcp(McpCall {
            arguments_json: s(&m["arguments"]),
            meta_json: s(&m["meta"]),
            params_key: m["paramsKey"].as_str().map(String::from),
        })
    };
    match admit(&s(&c["scope"]), &op, &req) {
        Err(e) => json!({"error": e}),
        Ok(Admission::Pass) => json!({"pass": true}),
        Ok(Admission::Refuse(r)) => json!({"refuse": refusal_json(&r)}),
        Ok(Admission::Keyed(k)) => {
            let spec = k.policy.key.as_ref().unwrap();
            json!({"keyed": {"clientKey": k.client_key, "key": k.key, "tool": k.intent.tool, "args": k.intent.args_json, "ignore": spec.ignore}})
        }
    }
}

fn record_case(c: &Value) -> Value {
    let r = &c["response"];
    let resp = HttpResponse {
        status: r["status"].as_u64().unwrap() as u16,
        headers: r["headers"].as_array().unwrap().iter().map(|p| (s(&p[0]), s(&p[1]))).collect(),
        body: body_of(r),
    };
    match record_http(&resp) {
        Recording::Returned(t) => json!({"returned": t}),
        Recording::Failed(f) => json!({"failed": {"definite": f.definite, "reason": f.reason}}),
        Recording::Unrecordable(why) => json!({"unrecordable": why}),
    }
}

fn oversized_case(c: &Value) -> Value {
    refusal_json(&oversized(c["limitBytes"].as_u64().unwrap()))
}

fn record_mcp_case(c: &Value) -> Value {
    match record_mcp(&s(&c["result"])) {
        Recording::Returned(t) => json!({"returned": t}),
        Recording::Failed(f) => json!({"failed": {"definite": f.definite, "reason": f.reason}}),
        Recording::Unrecordable(why) => json!({"unrecordable": why}),
    }
}

fn replay_case(c: &Value) -> Value {
    let r = replay_http(&s(&c["recorded"]));
    let mut m = Map::new();
    m.insert("status".into(), json!(r.status));
    m.insert("headers".into(), json!(r.headers.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>()));
    put_body(&mut m, &r.body);
    Value::Object(m)
}

fn effect_error(v: &Value) -> EffectError {
    let (name, b) = v.as_object().unwrap().iter().next().unwrap();
    let keyed = || Keyed { key: s(&b["key"]), reason: s(&b["reason"]) };
    match name.as_str() {
        "conflict" => EffectError::Conflict(Conflict {
            key: s(&b["key"]),
            pointer: s(&b["pointer"]),
            stored_fingerprint: s(&b["storedFingerprint"]),
            given_fingerprint: s(&b["givenFingerprint"]),
        }),
        "in-progress" => EffectError::InProgress(Busy {
            key: s(&b["key"]),
            owner: s(&b["owner"]),
            retry_after_ms: b["retryAfterMs"].as_u64().unwrap(),
        }),
        "in-doubt" => EffectError::InDoubt(Doubt {
            key: s(&b["key"]),
            reason: s(&b["reason"]),
            retry_after_ms: b["retryAfterMs"].as_u64(),
        }),
        "escalated" => EffectError::Escalated(keyed()),
        "result-not-recorded" => EffectError::ResultNotRecorded(keyed()),
        "tool-failed" => EffectError::ToolFailed(s(b)),
        "storage" => EffectError::Storage(s(b)),
        "contention" => EffectError::Contention(b.as_u64().unwrap() as u32),
        "ledger" => {
            assert_eq!(b["kind"], "invalid-request");
            EffectError::Ledger(LedgerError { kind: LedgerErrorKind::InvalidRequest, state: None, message: s(&b["message"]) })
        }
        other => panic!("error {other}"),
    }
}

fn refuse_case(c: &Value) -> Value {
    match refuse(&effect_error(&c["error"]), c["handlerRan"].as_bool().unwrap()) {
        Answer::Handler => json!({"handler": true}),
        Answer::Refuse(r) => refusal_json(&r),
    }
}

/// Replay every case; with `bless`, write the outputs as the expectations instead.
fn replay_provider_vectors(bless: bool) {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/provider.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut failures = Vec::new();
    type Case = fn(&Value) -> Value;
    let runs: [(&str, Case); 6] = [("admit", admit_case), ("record", record_case), ("recordMcp", record_mcp_case), ("replay", replay_case), ("refuse", refuse_case), ("oversized", oversized_case)];
    for (section, f) in runs {
        for case in doc[section].as_array_mut().unwrap() {
            let got = f(case);
            if bless {
                case["expect"] = got;
            } else if case["expect"] != got {
                failures.push(format!("{section} {:?}:\n  expected {}\n  got      {got}", case["name"], case["expect"]));
            }
        }
    }
    if bless {
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
