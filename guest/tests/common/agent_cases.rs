// The cases of `tests/vectors/adapters.json`, shared by the native replay (guest/tests/
// agent_vectors.rs) and the one through the component (host/tests/vectors.rs), which `include!`
// this file after bringing the agent, keys, canonical, effect and ledger types and three functions
// into scope (the policy's `EffectClass` too), each as the core's: `identify(&CallContext)`, `answer(&Failure)` and
// `derive_key(&Intent, &KeySpec) -> Result<String, KeyError>`.

fn agent_text(v: &Value) -> String {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}")).to_string()
}

fn agent_opt(v: &Value) -> Option<String> {
    v.as_str().map(String::from)
}

/// A key spec written as a policy's `key` member (`{}`: all arguments, identity step).
fn agent_spec(v: &Value) -> KeySpec {
    KeySpec {
        only: v.get("only").map(|o| o.as_array().unwrap().iter().map(agent_text).collect()),
        ignore: v.get("ignore").map_or_else(Vec::new, |o| o.as_array().unwrap().iter().map(agent_text).collect()),
        identity: match v.get("identity").and_then(Value::as_str).unwrap_or("step") {
            "step" => KeyIdentity::Step,
            "run" => KeyIdentity::Run,
            "scope" => KeyIdentity::Scope,
            other => panic!("identity {other}"),
        },
    }
}

fn identity_name(i: KeyIdentity) -> &'static str {
    match i {
        KeyIdentity::Step => "step",
        KeyIdentity::Run => "run",
        KeyIdentity::Scope => "scope",
    }
}

fn origin_name(o: Origin) -> &'static str {
    match o {
        Origin::Given => "given",
        Origin::Conversation => "conversation",
        Origin::Meta => "meta",
        Origin::IdempotencyKey => "idempotency-key",
        Origin::HostDefault => "host-default",
        Origin::Session => "session",
        Origin::Fallback => "fallback",
    }
}

/// `meta`: the `_meta` object (written as JSON text), or `metaJson`: the text itself.
fn call_context(c: &Value) -> CallContext {
    let meta_json = match (c.get("meta"), c.get("metaJson")) {
        (Some(m), None) => m.to_string(),
        (None, Some(t)) => agent_text(t),
        (None, None) => String::new(),
        _ => panic!("meta or metaJson: {c}"),
    };
    CallContext {
        tool: agent_text(&c["tool"]),
        key_identity: c.get("key").map_or(KeyIdentity::Step, |k| agent_spec(k).identity),
        effect_class: c.get("class").map(|k| match k.as_str() {
            Some("read-only") => EffectClass::ReadOnly,
            Some("overwriting-write") => EffectClass::OverwritingWrite,
            Some("accumulating-write") => EffectClass::AccumulatingWrite,
            Some("irreversible-external") => EffectClass::IrreversibleExternal,
            _ => panic!("class {k}"),
        }),
        scope: agent_opt(&c["scope"]),
        run: agent_opt(&c["run"]),
        step: agent_opt(&c["step"]),
        conversation: agent_opt(&c["conversation"]),
        meta_json,
        params_key: agent_opt(&c["paramsKey"]),
        session: agent_opt(&c["session"]),
        default_scope: agent_opt(&c["defaultScope"]),
        default_run: agent_opt(&c["defaultRun"]),
    }
}

fn identify_case(c: &Value) -> Value {
    match identify(&call_context(&c["call"])) {
        Err(e) => {
            let kind = match e.kind {
                IdentityErrorKind::NoRun => "no-run",
                IdentityErrorKind::InvalidMeta => "invalid-meta",
            };
            json!({"error": {"kind": kind, "at": e.at, "message": e.message}})
        }
        Ok(i) => {
            let mut v = json!({
                "scope": i.scope, "run": i.run, "step": i.step, "keyIdentity": identity_name(i.key_identity),
                "from": {"scope": origin_name(i.scope_from), "run": i.run_from.map(origin_name),
                         "step": i.step_from.map(origin_name)},
            });
            if let Some(args) = c.get("args") {
                let intent = Intent {
                    scope: i.scope.clone(),
                    run_id: i.run.clone().unwrap_or_default(),
                    step_id: i.step.clone().unwrap_or_default(),
                    tool: agent_text(&c["call"]["tool"]),
                    args_json: agent_text(args),
                };
                // The policy's spec (or the default) with the identity identify gives.
                let spec = KeySpec { identity: i.key_identity, ..c["call"].get("key").map_or_else(|| agent_spec(&json!({})), agent_spec) };
                v["derived"] = json!(derive_key(&intent, &spec).expect("identify's output is derivable"));
            }
            v
        }
    }
}

fn agent_effect_error(name: &str, b: &Value) -> EffectError {
    let keyed = || Keyed { key: agent_text(&b["key"]), reason: agent_text(&b["reason"]) };
    match name {
        "conflict" => EffectError::Conflict(Conflict {
            key: agent_text(&b["key"]),
            pointer: agent_text(&b["pointer"]),
            stored_fingerprint: agent_text(&b["storedFingerprint"]),
            given_fingerprint: agent_text(&b["givenFingerprint"]),
        }),
        "in-progress" => EffectError::InProgress(Busy {
            key: agent_text(&b["key"]),
            owner: agent_text(&b["owner"]),
            retry_after_ms: b["retryAfterMs"].as_u64().unwrap(),
        }),
        "in-doubt" => EffectError::InDoubt(Doubt {
            key: agent_text(&b["key"]),
            reason: agent_text(&b["reason"]),
            retry_after_ms: b["retryAfterMs"].as_u64(),
        }),
        "escalated" => EffectError::Escalated(keyed()),
        "result-not-recorded" => EffectError::ResultNotRecorded(keyed()),
        "tool-failed" => EffectError::ToolFailed(agent_text(b)),
        "storage" => EffectError::Storage(agent_text(b)),
        "contention" => EffectError::Contention(b.as_u64().unwrap() as u32),
        "ledger" => {
            assert_eq!(b["kind"], "invalid-request");
            EffectError::Ledger(LedgerError { kind: LedgerErrorKind::InvalidRequest, state: None, message: agent_text(&b["message"]) })
        }
        other => panic!("effect error {other}"),
    }
}

/// `{"effect": {NAME: …}}`, `{"key": {kind, at, message}}` or `{"canon": {kind, offset, message}}`.
fn failure(v: &Value) -> Failure {
    let (name, b) = v.as_object().unwrap().iter().next().unwrap();
    match name.as_str() {
        "effect" => {
            let (name, b) = b.as_object().unwrap().iter().next().unwrap();
            Failure::Effect(agent_effect_error(name, b))
        }
        "key" => Failure::Key(KeyError {
            kind: match b["kind"].as_str().unwrap() {
                "invalid-args" => KeyErrorKind::InvalidArgs,
                "invalid-pointer" => KeyErrorKind::InvalidPointer,
                "missing-member" => KeyErrorKind::MissingMember,
                "pointer-into-array" => KeyErrorKind::PointerIntoArray,
                "empty-field" => KeyErrorKind::EmptyField,
                other => panic!("key error {other}"),
            },
            at: agent_opt(&b["at"]),
            canon: None,
            message: agent_text(&b["message"]),
        }),
        "canon" => Failure::Canon(CanonError {
            kind: match b["kind"].as_str().unwrap() {
                "syntax" => CanonErrorKind::Syntax,
                "lone-surrogate" => CanonErrorKind::LoneSurrogate,
                "number-overflow" => CanonErrorKind::NumberOverflow,
                "inexact-integer" => CanonErrorKind::InexactInteger,
                "too-deep" => CanonErrorKind::TooDeep,
                other => panic!("canon error {other}"),
            },
            offset: b["offset"].as_u64().unwrap(),
            line: 1,
            column: b["offset"].as_u64().unwrap() as u32 + 1,
            message: agent_text(&b["message"]),
        }),
        other => panic!("failure {other}"),
    }
}

fn answer_case(c: &Value) -> Value {
    match answer(&failure(&c["failure"])) {
        None => Value::Null,
        Some(r) => {
            let code = match r.code {
                ReplyCode::Conflict => "conflict",
                ReplyCode::InProgress => "in-progress",
                ReplyCode::InDoubt => "in-doubt",
                ReplyCode::Escalated => "escalated",
                ReplyCode::ResultNotRecorded => "result-not-recorded",
                ReplyCode::ToolFailed => "tool-failed",
                ReplyCode::Contention => "contention",
                ReplyCode::InvalidArguments => "invalid-arguments",
                ReplyCode::AwaitingApproval => "awaiting-approval",
                ReplyCode::Denied => "denied",
            };
            json!({"code": code, "text": r.text, "key": r.key, "pointer": r.pointer,
                   "retryAfterMs": r.retry_after_ms, "repeatable": r.repeatable})
        }
    }
}

/// Replay every case; with `bless`, write the outputs as the expectations instead. Also checks
/// `sameKeyAs` (the index of an `identify` case whose derived key this one's must equal) and
/// `otherKeyThan` (one it must differ from).
fn replay_agent_vectors(bless: bool) {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/adapters.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut failures = Vec::new();
    type Case = fn(&Value) -> Value;
    let runs: [(&str, Case); 2] = [("identify", identify_case), ("answer", answer_case)];
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
    let cases = doc["identify"].as_array().unwrap();
    for case in cases {
        let derived = |i: &Value| cases[i.as_u64().unwrap() as usize]["expect"]["derived"].clone();
        let mine = &case["expect"]["derived"];
        if let Some(i) = case.get("sameKeyAs") {
            if derived(i) != *mine || mine.is_null() {
                failures.push(format!("identify {:?}: not the key of case {i}", case["name"]));
            }
        }
        if let Some(i) = case.get("otherKeyThan") {
            if derived(i) == *mine || mine.is_null() {
                failures.push(format!("identify {:?}: the key of case {i}", case["name"]));
            }
        }
    }
    assert!(cases.len() + doc["answer"].as_array().unwrap().len() >= 40, "at least 40 cases");
    if bless {
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
