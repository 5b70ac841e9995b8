//! Tool policy: effect classes, MCP annotation mapping, the policy JSON extension and the
//! manifest check (the release gate).

use crate::json::{self, Value};
use crate::keys_wit::{KeyIdentity, KeySpec};
use crate::pointer;
use crate::policy_wit::{
    ApprovalRule, ClassSource, EffectClass, Finding, Guest, ManifestReport, PolicyError, ReconcilePath, ResolvedTool, Severity,
    ToolAnnotations, ToolPolicy,
};
use crate::prelude::*;
use crate::text::Q;

/// The `_meta` member that carries a tool's oncely policy.
pub const META_KEY: &str = "oncely/policy";

/// Default lease: 3 s. Short, so that a caller retrying right after a crash gets the real
/// outcome (through the tool's lookup) within seconds; a live holder's heartbeats (every third of
/// the lease, while its call runs: one write a second) renew it. A holder that stalls past it is
/// safe: its entry goes in doubt, and a lookup's "did not happen" is believed only after the
/// attempt's `max-call-ms`.
pub const DEFAULT_LEASE_MS: u64 = 3_000;
/// Default longest time a tool call may be in flight (from its start until its effect, if any,
/// has happened at the provider): 30 s. A lookup's "did not happen" is believed only once the
/// attempt's last possible start plus this much has passed.
pub const DEFAULT_MAX_CALL_MS: u64 = 30_000;
/// Default least time between reconciliations: 10 s.
pub const DEFAULT_RECONCILE_AFTER_MS: u64 = 10_000;
/// Default time in doubt before escalation: 1 h.
pub const DEFAULT_ESCALATE_AFTER_MS: u64 = 3_600_000;
/// Default retention of settled entries: 7 days.
pub const DEFAULT_RETENTION_MS: u64 = 7 * 24 * 3_600_000;
/// Default time an approval holds before the call must be approved again: 24 h.
pub const DEFAULT_APPROVAL_EXPIRES_MS: u64 = 24 * 3_600_000;

/// The class implied by MCP annotations, with the MCP spec's defaults.
pub fn classify(a: &ToolAnnotations) -> EffectClass {
    if a.read_only_hint.unwrap_or(false) {
        EffectClass::ReadOnly
    } else if a.idempotent_hint.unwrap_or(false) {
        EffectClass::OverwritingWrite
    } else if a.open_world_hint.unwrap_or(true) {
        EffectClass::IrreversibleExternal
    } else {
        EffectClass::AccumulatingWrite
    }
}

/// A class's policy with every field at its default.
pub fn default_policy(class: EffectClass) -> ToolPolicy {
    ToolPolicy {
        class,
        key: None,
        reconcile: ReconcilePath::None,
        lease_ms: DEFAULT_LEASE_MS,
        max_call_ms: DEFAULT_MAX_CALL_MS,
        reconcile_after_ms: DEFAULT_RECONCILE_AFTER_MS,
        escalate_after_ms: DEFAULT_ESCALATE_AFTER_MS,
        retention_ms: DEFAULT_RETENTION_MS,
        approval: None,
    }
}

/// Whether a class goes through the ledger.
pub fn uses_ledger(class: EffectClass) -> bool {
    matches!(class, EffectClass::AccumulatingWrite | EffectClass::IrreversibleExternal)
}

/// The class's name in policy JSON.
pub fn class_name(c: EffectClass) -> &'static str {
    match c {
        EffectClass::ReadOnly => "read-only",
        EffectClass::OverwritingWrite => "overwriting-write",
        EffectClass::AccumulatingWrite => "accumulating-write",
        EffectClass::IrreversibleExternal => "irreversible-external",
    }
}

fn rank(c: EffectClass) -> u8 {
    match c {
        EffectClass::ReadOnly => 0,
        EffectClass::OverwritingWrite => 1,
        EffectClass::AccumulatingWrite => 2,
        EffectClass::IrreversibleExternal => 3,
    }
}

fn perr(at: &str, message: impl Into<String>) -> PolicyError {
    PolicyError { at: at.to_string(), message: message.into() }
}

fn parse_doc(text: &str) -> Result<Value<'_>, PolicyError> {
    json::parse(text).map_err(|e| perr("", crate::canonical::to_wit_error(text.as_bytes(), e).message))
}

fn member<'v, 'a>(v: &'v Value<'a>, name: &str) -> Option<&'v Value<'a>> {
    match v {
        Value::Object(m) => m.iter().find(|(k, _)| k == name).map(|(_, v)| v),
        _ => None,
    }
}

fn child(at: &str, name: &str) -> String {
    let mut p = at.to_string();
    pointer::push_token(&mut p, name);
    p
}

fn as_str<'v>(v: &'v Value<'_>, at: &str) -> Result<&'v str, PolicyError> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(perr(at, msg![at, " must be a string"])),
    }
}

fn as_ms(v: &Value<'_>, at: &str) -> Result<u64, PolicyError> {
    match v {
        Value::Number(n) if *n >= 0.0 && *n <= 9_007_199_254_740_991.0 && (*n as u64) as f64 == *n => Ok(*n as u64),
        _ => Err(perr(at, msg![at, " must be a whole number of milliseconds, 0 or more"])),
    }
}

fn string_list(v: &Value<'_>, at: &str) -> Result<Vec<String>, PolicyError> {
    match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = child(at, &msg![i]);
                let s = as_str(item, &at)?;
                pointer::parse(s).map_err(|m| perr(&at, m))?;
                Ok(s.to_string())
            })
            .collect(),
        _ => Err(perr(at, msg![at, " must be an array of JSON pointers"])),
    }
}

fn parse_class(v: &Value<'_>, at: &str) -> Result<EffectClass, PolicyError> {
    match as_str(v, at)? {
        "read-only" => Ok(EffectClass::ReadOnly),
        "overwriting-write" => Ok(EffectClass::OverwritingWrite),
        "accumulating-write" => Ok(EffectClass::AccumulatingWrite),
        "irreversible-external" => Ok(EffectClass::IrreversibleExternal),
        other => Err(perr(
            at,
            msg!["unknown class ", Q(other), "; expected read-only, overwriting-write, accumulating-write or irreversible-external"],
        )),
    }
}

/// A key spec object. Members are checked in the order of their names in canonical JSON (the
/// parsed object's order: `identity`, `ignore`, `only`), each in full before the next.
fn parse_key(v: &Value<'_>, at: &str) -> Result<KeySpec, PolicyError> {
    let Value::Object(members) = v else {
        return Err(perr(at, msg![at, " must be an object"]));
    };
    let mut spec = crate::keys::default_spec();
    for (name, value) in members {
        let at = child(at, name);
        match name.as_ref() {
            "only" => {
                let only = string_list(value, &at)?;
                if only.is_empty() {
                    return Err(perr(&at, "\"only\" must name at least one member"));
                }
                spec.only = Some(only);
            }
            "ignore" => spec.ignore = string_list(value, &at)?,
            "identity" => {
                spec.identity = match as_str(value, &at)? {
                    "step" => KeyIdentity::Step,
                    "run" => KeyIdentity::Run,
                    "scope" => KeyIdentity::Scope,
                    other => return Err(perr(&at, msg!["unknown identity ", Q(other), "; expected step, run or scope"])),
                }
            }
            other => return Err(perr(&at, msg!["unknown key spec field ", Q(other), "; expected only, ignore, identity"])),
        }
    }
    Ok(spec)
}

fn parse_reconcile(v: &Value<'_>, at: &str) -> Result<ReconcilePath, PolicyError> {
    match v {
        Value::String(s) => match s.as_ref() {
            "none" => Ok(ReconcilePath::None),
            "provider-idempotent" => Ok(ReconcilePath::ProviderIdempotent),
            "manual" => Ok(ReconcilePath::Manual),
            other => Err(perr(
                at,
                msg!["unknown reconcile path ", Q(other), "; expected \"provider-idempotent\", \"manual\", \"none\" or {\"lookup\": TOOL}"],
            )),
        },
        Value::Object(m) if m.len() == 1 && m[0].0 == "lookup" => {
            let tool = as_str(&m[0].1, &child(at, "lookup"))?;
            if tool.is_empty() {
                return Err(perr(&child(at, "lookup"), "the lookup tool's name is empty"));
            }
            Ok(ReconcilePath::Lookup(tool.to_string()))
        }
        _ => Err(perr(at, msg![at, " must be \"provider-idempotent\", \"manual\", \"none\" or {\"lookup\": TOOL}"])),
    }
}

/// An approval rule: `"always"`, or an object with `when` (a condition, guest/src/approval.rs)
/// and `expiresAfterMs`, each optional.
fn parse_approval(v: &Value<'_>, at: &str) -> Result<ApprovalRule, PolicyError> {
    let mut rule = ApprovalRule { when: None, expires_after_ms: DEFAULT_APPROVAL_EXPIRES_MS };
    match v {
        Value::String(s) if s == "always" => return Ok(rule),
        Value::Object(members) => {
            for (name, value) in members {
                let at = child(at, name);
                match name.as_ref() {
                    "when" => {
                        crate::approval::check(value, &at).map_err(|r| perr(&r.at, r.message))?;
                        rule.when = Some(json::to_string(value));
                    }
                    "expiresAfterMs" => {
                        rule.expires_after_ms = as_ms(value, &at)?;
                        if rule.expires_after_ms == 0 {
                            return Err(perr(&at, "expiresAfterMs must be more than 0"));
                        }
                    }
                    other => return Err(perr(&at, msg!["unknown approval field ", Q(other), "; expected when, expiresAfterMs"])),
                }
            }
        }
        _ => return Err(perr(at, msg![at, " must be \"always\" or an object such as {\"when\": {\"/amount\": {\">\": 100}}}"])),
    }
    Ok(rule)
}

/// A condition may not read a member the key ignores: an approval is bound to the arguments'
/// fingerprint, which leaves that member out, so a person could approve one value of it and
/// another would run.
fn check_approval(policy: &ToolPolicy, at: &str) -> Result<(), PolicyError> {
    let (Some(ApprovalRule { when: Some(when), .. }), Some(key)) = (&policy.approval, &policy.key) else {
        return Ok(());
    };
    let at = child(&child(at, "approval"), "when");
    let doc = json::parse(when).map_err(|_| perr(&at, "the condition is not JSON"))?;
    for p in crate::approval::check(&doc, &at).map_err(|r| perr(&r.at, r.message))? {
        if let Some(ignored) = key.ignore.iter().find(|i| pointer::is_under(&p, i)) {
            return Err(perr(
                &at,
                msg![
                    "the condition reads ",
                    Q(&p),
                    ", which the key ignores (",
                    Q(ignored),
                    "): an approval holds for the arguments without it, so it could not be bound to the value a person saw"
                ],
            ));
        }
    }
    Ok(())
}

/// A policy object; `class` is the class to use when the object names none (`None`: required).
/// Members are checked in the order of their names in canonical JSON (the parsed object's
/// order), each in full before the next; a missing `class` is reported after them. `null` is
/// not a value of any member.
fn parse_policy_value(v: &Value<'_>, at: &str, class: Option<EffectClass>) -> Result<ToolPolicy, PolicyError> {
    let Value::Object(members) = v else {
        return Err(perr(at, msg!["the policy at ", Q(at), " must be an object"]));
    };
    let mut named = false;
    let mut policy = default_policy(class.unwrap_or(EffectClass::IrreversibleExternal));
    for (name, value) in members {
        let at = child(at, name);
        match name.as_ref() {
            "class" => {
                policy.class = parse_class(value, &at)?;
                named = true;
            }
            "key" => policy.key = Some(parse_key(value, &at)?),
            "reconcile" => policy.reconcile = parse_reconcile(value, &at)?,
            "leaseMs" => {
                policy.lease_ms = as_ms(value, &at)?;
                if policy.lease_ms == 0 {
                    return Err(perr(&at, "leaseMs must be more than 0"));
                }
            }
            "maxCallMs" => {
                policy.max_call_ms = as_ms(value, &at)?;
                if policy.max_call_ms == 0 {
                    return Err(perr(&at, "maxCallMs must be more than 0"));
                }
            }
            "reconcileAfterMs" => policy.reconcile_after_ms = as_ms(value, &at)?,
            "escalateAfterMs" => policy.escalate_after_ms = as_ms(value, &at)?,
            "retentionMs" => policy.retention_ms = as_ms(value, &at)?,
            "approval" => policy.approval = Some(parse_approval(value, &at)?),
            other => {
                return Err(perr(
                    &at,
                    msg![
                        "unknown policy field ",
                        Q(other),
                        "; expected class, key, reconcile, leaseMs, maxCallMs, reconcileAfterMs, escalateAfterMs, retentionMs, approval"
                    ],
                ))
            }
        }
    }
    if !named && class.is_none() {
        return Err(perr(at, "the policy must name its \"class\""));
    }
    check_approval(&policy, at)?;
    Ok(policy)
}

/// Read a standalone policy document.
pub fn parse_policy(text: &str) -> Result<ToolPolicy, PolicyError> {
    parse_policy_value(&parse_doc(text)?, "", None)
}

/// Read a policy document that may leave out its class (then `class`).
pub fn parse_policy_or(text: &str, class: EffectClass) -> Result<ToolPolicy, PolicyError> {
    parse_policy_value(&parse_doc(text)?, "", Some(class))
}

fn annotations_of(tool: &Value<'_>, at: &str) -> Result<Option<ToolAnnotations>, PolicyError> {
    // MCP's own optional fields read `null` as absent (SDKs write unset fields so).
    let Some(a) = member(tool, "annotations").filter(|a| !matches!(a, Value::Null)) else {
        return Ok(None);
    };
    if !matches!(a, Value::Object(_)) {
        return Err(perr(&child(at, "annotations"), "annotations must be an object"));
    }
    let hint = |name: &str| -> Result<Option<bool>, PolicyError> {
        match member(a, name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(perr(&child(&child(at, "annotations"), name), msg![name, " must be true or false"])),
        }
    };
    Ok(Some(ToolAnnotations {
        read_only_hint: hint("readOnlyHint")?,
        destructive_hint: hint("destructiveHint")?,
        idempotent_hint: hint("idempotentHint")?,
        open_world_hint: hint("openWorldHint")?,
    }))
}

fn resolve_value(tool: &Value<'_>, at: &str) -> Result<ResolvedTool, PolicyError> {
    if !matches!(tool, Value::Object(_)) {
        return Err(perr(at, "a tool must be an object"));
    }
    let name = match member(tool, "name") {
        Some(Value::String(s)) if !s.is_empty() => s.to_string(),
        _ => return Err(perr(&child(at, "name"), "a tool must have a non-empty \"name\"")),
    };
    let annotations = annotations_of(tool, at)?;
    let implied = annotations.as_ref().map(classify);
    let meta_at = child(at, "_meta");
    let explicit = match member(tool, "_meta").and_then(|m| member(m, META_KEY)) {
        Some(p) => Some(parse_policy_value(p, &child(&meta_at, META_KEY), Some(implied.unwrap_or(EffectClass::IrreversibleExternal)))?),
        None => None,
    };
    let policy_names_class = member(tool, "_meta").and_then(|m| member(m, META_KEY)).and_then(|p| member(p, "class")).is_some();
    let class_source = if policy_names_class {
        ClassSource::Policy
    } else if implied.is_some() {
        ClassSource::Annotations
    } else {
        ClassSource::Defaults
    };
    let policy = explicit.unwrap_or_else(|| default_policy(implied.unwrap_or(EffectClass::IrreversibleExternal)));
    Ok(ResolvedTool { name, policy, class_source })
}

/// Resolve one MCP tool object.
pub fn resolve_tool(text: &str) -> Result<ResolvedTool, PolicyError> {
    resolve_value(&parse_doc(text)?, "")
}

fn finding(severity: Severity, tool: &str, code: &str, message: String) -> Finding {
    Finding { severity, tool: Some(tool.to_string()), code: code.to_string(), message }
}

/// The release gate over a tool list.
pub fn check_manifest(text: &str) -> Result<ManifestReport, PolicyError> {
    let doc = parse_doc(text)?;
    let (tools, at) = if let Value::Array(items) = &doc {
        (items, String::new())
    } else if let Some(Value::Array(items)) = member(&doc, "tools") {
        (items, "/tools".to_string())
    } else if let Some(Value::Array(items)) = member(&doc, "result").and_then(|r| member(r, "tools")) {
        (items, "/result/tools".to_string())
    } else {
        return Err(perr("", "no tool list: expected {\"tools\": [...]}, a JSON-RPC response with result.tools, or an array"));
    };

    let mut findings = Vec::new();
    let mut resolved: Vec<(ResolvedTool, &Value<'_>, Option<EffectClass>)> = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let tool_at = child(&at, &msg![i]);
        match resolve_value(tool, &tool_at) {
            Ok(r) => {
                if resolved.iter().any(|(o, _, _)| o.name == r.name) {
                    findings.push(finding(Severity::Error, &r.name, "duplicate-tool", msg!["two tools are named ", Q(&r.name)]));
                    continue;
                }
                let implied = annotations_of(tool, &tool_at).ok().flatten().as_ref().map(classify);
                resolved.push((r, tool, implied));
            }
            Err(e) => {
                let name = match member(tool, "name") {
                    Some(Value::String(s)) => Some(s.to_string()),
                    _ => None,
                };
                findings.push(Finding {
                    severity: Severity::Error,
                    tool: name,
                    code: "invalid-tool".into(),
                    message: msg![e.message, " (at ", if e.at.is_empty() { "/" } else { &e.at }, ")"],
                });
            }
        }
    }

    for (r, tool, implied) in &resolved {
        let name = Q(&r.name);
        let name = &name;
        let tool_name = r.name.as_str();
        let p = &r.policy;
        let class = class_name(p.class);
        if r.class_source == ClassSource::Defaults {
            findings.push(finding(
                Severity::Warning,
                tool_name,
                "class-from-defaults",
                msg![name, " has no class (no annotations, no policy class); MCP's defaults make it irreversible-external"],
            ));
        }
        if let (ClassSource::Policy, Some(implied)) = (r.class_source, implied) {
            if rank(p.class) < rank(*implied) {
                findings.push(finding(
                    Severity::Warning,
                    tool_name,
                    "policy-weaker-than-annotations",
                    msg![name, ": the policy says ", class, " but its annotations say ", class_name(*implied)],
                ));
            }
        }
        match p.class {
            EffectClass::IrreversibleExternal => {
                if p.key.is_none() {
                    findings.push(finding(
                        Severity::Error,
                        tool_name,
                        "irreversible-without-key",
                        msg![name, " is irreversible-external but declares no key spec; declare \"key\" (e.g. {\"only\": [\"/charge_id\"]} or {\"ignore\": [\"/request_id\"]})"],
                    ));
                }
                match &p.reconcile {
                    ReconcilePath::None => findings.push(finding(
                        Severity::Error,
                        tool_name,
                        "irreversible-without-reconcile",
                        msg![name, " is irreversible-external but declares no way to reconcile an unknown outcome; declare \"reconcile\": \"provider-idempotent\", {\"lookup\": TOOL} or \"manual\""],
                    )),
                    ReconcilePath::Manual => findings.push(finding(
                        Severity::Warning,
                        tool_name,
                        "manual-reconcile",
                        msg![name, " reconciles by hand only: every unknown outcome waits for a human"],
                    )),
                    _ => {}
                }
            }
            EffectClass::AccumulatingWrite => {
                if p.key.is_none() {
                    findings.push(finding(
                        Severity::Warning,
                        tool_name,
                        "accumulating-without-key",
                        msg![name, " is accumulating-write with no declared key spec; every argument, timestamps included, will be part of its key"],
                    ));
                }
            }
            EffectClass::ReadOnly | EffectClass::OverwritingWrite => {}
        }
        if let ReconcilePath::Lookup(lookup) = &p.reconcile {
            if uses_ledger(p.class) && p.escalate_after_ms <= p.max_call_ms {
                findings.push(finding(
                    Severity::Warning,
                    tool_name,
                    "escalates-before-grace",
                    msg![name, ": escalateAfterMs must exceed maxCallMs, or lookups come too late"],
                ));
            }
            match resolved.iter().find(|(o, _, _)| &o.name == lookup) {
                None => findings.push(finding(
                    Severity::Error,
                    tool_name,
                    "unknown-lookup-tool",
                    msg![name, " reconciles with ", Q(lookup), ", which is not in the tool list"],
                )),
                Some((o, _, _)) if o.policy.class != EffectClass::ReadOnly => findings.push(finding(
                    Severity::Warning,
                    tool_name,
                    "lookup-tool-not-read-only",
                    msg![name, " reconciles with ", Q(lookup), ", which is ", class_name(o.policy.class), " rather than read-only"],
                )),
                Some(_) => {}
            }
        }
        if let Some(only) = p.key.as_ref().and_then(|k| k.only.as_ref()) {
            let schema = member(tool, "inputSchema");
            let props = schema.and_then(|s| member(s, "properties"));
            let required: Vec<&str> = match schema.and_then(|s| member(s, "required")) {
                Some(Value::Array(r)) => r.iter().filter_map(|v| if let Value::String(s) = v { Some(s.as_ref()) } else { None }).collect(),
                _ => Vec::new(),
            };
            if let Some(Value::Object(props)) = props {
                for p in only {
                    let Ok(ptr) = pointer::parse(p) else { continue };
                    let top = &ptr.tokens[0];
                    if !props.iter().any(|(k, _)| k == top) {
                        findings.push(finding(
                            Severity::Warning,
                            tool_name,
                            "key-member-not-in-schema",
                            msg![name, "'s key uses ", Q(p), " but its inputSchema has no property ", Q(top)],
                        ));
                    } else if !required.contains(&top.as_str()) {
                        findings.push(finding(
                            Severity::Warning,
                            tool_name,
                            "key-member-optional",
                            msg![
                                name,
                                "'s key uses ",
                                Q(p),
                                " but ",
                                Q(top),
                                " is not required by its inputSchema; a call without it cannot be keyed"
                            ],
                        ));
                    }
                }
            }
        }
    }
    let passed = !findings.iter().any(|f| f.severity == Severity::Error);
    Ok(ManifestReport { passed, tools: resolved.into_iter().map(|(r, _, _)| r).collect(), findings })
}

impl Guest for crate::Core {
    fn classify(annotations: ToolAnnotations) -> EffectClass {
        classify(&annotations)
    }

    fn default_policy(class: EffectClass) -> ToolPolicy {
        default_policy(class)
    }

    fn parse_policy(json: String) -> Result<ToolPolicy, PolicyError> {
        parse_policy(&json)
    }

    fn resolve_tool(tool_json: String) -> Result<ResolvedTool, PolicyError> {
        resolve_tool(&tool_json)
    }

    fn check_manifest(json: String) -> Result<ManifestReport, PolicyError> {
        check_manifest(&json)
    }
}
