//! Key scheme v1 (`docs/key-scheme.md`): the idempotency key of an intent, its fingerprint, and
//! `explain`, which says why two intents do or don't share a key.

use crate::canonical_wit::CanonError;
use crate::json::{self, Value};
use crate::keys_wit::{
    DerivedKey, Difference, DifferenceEffect, Explanation, Guest, Intent, IntentPart, KeyError, KeyErrorKind, KeyIdentity, KeySpec, Verdict,
};
use crate::pointer::{self, Pointer};
use crate::prelude::*;
use crate::text::{put, Q};
use sha2::{Digest, Sha256};

/// The scheme tag: first element of every preimage, and the key's prefix.
pub const SCHEME: &str = "oncely1";

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(char::from(json::HEX[usize::from(b >> 4)]));
        out.push(char::from(json::HEX[usize::from(b & 0xF)]));
    }
    out
}

/// The spec used when a policy declares none: all arguments, identity `step`.
pub fn default_spec() -> KeySpec {
    KeySpec { only: None, ignore: Vec::new(), identity: KeyIdentity::Step }
}

fn error(kind: KeyErrorKind, at: Option<&str>, message: String) -> KeyError {
    KeyError { kind, at: at.map(str::to_string), canon: None, message }
}

/// The spec's pointers, parsed: `(only, ignore)`. `only` is sorted and de-duplicated.
pub struct ParsedSpec {
    only: Option<Vec<Pointer>>,
    ignore: Vec<Pointer>,
}

/// Parse and check every pointer of a spec, in the order of the key spec's canonical JSON
/// members: `ignore` (each pointer in the order written), then `only` (not empty, then each
/// pointer in the order written).
pub fn parse_spec(spec: &KeySpec) -> Result<ParsedSpec, KeyError> {
    let parse = |p: &String| pointer::parse(p).map_err(|m| error(KeyErrorKind::InvalidPointer, Some(p), m));
    let ignore = spec.ignore.iter().map(parse).collect::<Result<Vec<_>, _>>()?;
    let only = match &spec.only {
        None => None,
        Some(list) if list.is_empty() => {
            return Err(error(
                KeyErrorKind::EmptyField,
                Some("only"),
                "the key spec's \"only\" is empty: a key made of no member would give every call one key; leave \"only\" out to key every argument".into(),
            ))
        }
        Some(list) => {
            // Sorted (JCS order of the pointer texts) and de-duplicated, by insertion: these lists
            // are short.
            let mut ps: Vec<Pointer> = Vec::with_capacity(list.len());
            for p in list {
                let p = parse(p)?;
                if let Err(at) = ps.binary_search_by(|q| json::cmp_utf16(&q.text, &p.text)) {
                    ps.insert(at, p);
                }
            }
            Some(ps)
        }
    };
    Ok(ParsedSpec { only, ignore })
}

/// Parse the arguments and remove the ignored members. Every `ignore` pointer is checked against
/// the arguments as given (so whether a spec is accepted does not depend on the order of its
/// pointers), the first in the order written that names an array element being the error.
fn fingerprinted_args<'a>(args_json: &'a str, spec: &ParsedSpec) -> Result<Value<'a>, KeyError> {
    let mut args = parse_args(args_json)?;
    for p in &spec.ignore {
        let parent = p.tokens.split_last().map_or(&[][..], |(_, parent)| parent);
        if let Some(Value::Array(_)) = pointer::get(&args, parent) {
            return Err(error(
                KeyErrorKind::PointerIntoArray,
                Some(&p.text),
                msg!["ignore pointer ", Q(&p.text), " names an array element; only object members can be ignored"],
            ));
        }
    }
    for p in &spec.ignore {
        // Cannot name an array element: checked above, and removing members changes no type.
        let _ = pointer::remove(&mut args, &p.tokens);
    }
    Ok(args)
}

fn parse_args(args_json: &str) -> Result<Value<'_>, KeyError> {
    json::parse(args_json).map_err(|e| invalid_args(crate::canonical::to_wit_error(args_json.as_bytes(), e)))
}

/// `invalid-args` for what canonicalization made of the arguments.
fn invalid_args(canon: CanonError) -> KeyError {
    KeyError {
        kind: KeyErrorKind::InvalidArgs,
        at: None,
        message: msg!["the arguments are not acceptable JSON: ", canon.message],
        canon: Some(canon),
    }
}

/// `keys.args-refused`: an error found before the arguments wins; else `invalid-args`.
pub fn args_refused(found: Option<KeyError>, canon: CanonError) -> KeyError {
    match found {
        Some(e) if e.kind != KeyErrorKind::InvalidArgs => e,
        _ => invalid_args(canon),
    }
}

/// The part of the arguments the key is made of, and its mode tag. An absent `only` pointer is
/// an error: the first absent one in the order the spec writes them.
fn selected<'v, 'a>(args: &'v Value<'a>, spec: &ParsedSpec, written: &KeySpec) -> Result<(&'static str, Cow<'v, Value<'a>>), KeyError> {
    match &spec.only {
        None => Ok(("args", Cow::Borrowed(args))),
        Some(only) => {
            let mut members = Vec::with_capacity(only.len());
            for p in only {
                let Some(v) = pointer::get(args, &p.tokens) else {
                    // Error path: find the first absent pointer in the order written.
                    let absent = |t: &String| match only.binary_search_by(|q| json::cmp_utf16(&q.text, t)) {
                        Ok(i) => pointer::get(args, &only[i].tokens).is_none(),
                        Err(_) => false,
                    };
                    let first = written.only.iter().flatten().find(|t| absent(t)).unwrap_or(&p.text);
                    return Err(error(
                        KeyErrorKind::MissingMember,
                        Some(first),
                        msg!["the key uses ", Q(first), ", which the arguments do not have"],
                    ));
                };
                members.push((Cow::Owned(p.text.clone()), v.clone()));
            }
            Ok(("only", Cow::Owned(Value::Object(members))))
        }
    }
}

fn check_intent(intent: &Intent, identity: KeyIdentity) -> Result<(), KeyError> {
    let mut required = vec![("scope", &intent.scope), ("tool", &intent.tool)];
    if matches!(identity, KeyIdentity::Step | KeyIdentity::Run) {
        required.push(("run-id", &intent.run_id));
    }
    if matches!(identity, KeyIdentity::Step) {
        required.push(("step-id", &intent.step_id));
    }
    for (name, value) in required {
        if value.is_empty() {
            return Err(error(KeyErrorKind::EmptyField, Some(name), msg!["the intent's ", name, " is empty"]));
        }
    }
    Ok(())
}

/// Derive the key of an intent under a spec.
pub fn derive(intent: &Intent, spec: &KeySpec) -> Result<DerivedKey, KeyError> {
    check_intent(intent, spec.identity)?;
    let parsed = parse_spec(spec)?;
    let args = fingerprinted_args(&intent.args_json, &parsed)?;
    let args_canonical = json::to_string(&args);
    let fingerprint = sha256_hex(args_canonical.as_bytes());
    let (mode, sel) = selected(&args, &parsed, spec)?;

    let mut preimage = String::with_capacity(args_canonical.len() + 128);
    preimage_head(intent, spec.identity, mode, &mut preimage);
    if mode == "args" {
        preimage.push_str(&args_canonical);
    } else {
        json::write(&sel, &mut preimage);
    }
    preimage.push(']');

    let key = msg![SCHEME, ":", sha256_hex(preimage.as_bytes())];
    Ok(DerivedKey { key, preimage, fingerprint, args_canonical })
}

/// The key alone (`derive(..).key`): the same checks in the same order, no fingerprint, and
/// the selected arguments written straight into the preimage.
pub fn key(intent: &Intent, spec: &KeySpec) -> Result<String, KeyError> {
    check_intent(intent, spec.identity)?;
    let parsed = parse_spec(spec)?;
    let args = fingerprinted_args(&intent.args_json, &parsed)?;
    let (mode, sel) = selected(&args, &parsed, spec)?;
    let mut preimage = String::with_capacity(intent.args_json.len() + 128);
    preimage_head(intent, spec.identity, mode, &mut preimage);
    json::write(&sel, &mut preimage);
    preimage.push(']');
    Ok(msg![SCHEME, ":", sha256_hex(preimage.as_bytes())])
}

/// The preimage up to its last element: `["oncely1",scope,tool,run|null,step|null,mode,`.
fn preimage_head(intent: &Intent, identity: KeyIdentity, mode: &str, preimage: &mut String) {
    put(preimage, "[");
    json::write_string(SCHEME, preimage);
    put(preimage, ",");
    json::write_string(&intent.scope, preimage);
    put(preimage, ",");
    json::write_string(&intent.tool, preimage);
    put(preimage, ",");
    match identity {
        KeyIdentity::Step | KeyIdentity::Run => json::write_string(&intent.run_id, preimage),
        KeyIdentity::Scope => put(preimage, "null"),
    }
    put(preimage, ",");
    match identity {
        KeyIdentity::Step => json::write_string(&intent.step_id, preimage),
        KeyIdentity::Run | KeyIdentity::Scope => put(preimage, "null"),
    }
    put(preimage, ",");
    json::write_string(mode, preimage);
    put(preimage, ",");
}

fn value_text(v: Option<&Value<'_>>) -> Option<String> {
    v.map(json::to_string)
}

/// Why two intents do or don't share a key.
pub fn explain(a: &Intent, b: &Intent, spec: &KeySpec) -> Result<Explanation, KeyError> {
    let key_a = derive(a, spec)?;
    let key_b = derive(b, spec)?;
    let parsed = parse_spec(spec)?;
    let mut differences = Vec::new();

    let ids: [(IntentPart, &String, &String, bool); 4] = [
        (IntentPart::Scope, &a.scope, &b.scope, true),
        (IntentPart::Tool, &a.tool, &b.tool, true),
        (IntentPart::RunId, &a.run_id, &b.run_id, !matches!(spec.identity, KeyIdentity::Scope)),
        (IntentPart::StepId, &a.step_id, &b.step_id, matches!(spec.identity, KeyIdentity::Step)),
    ];
    for (part, x, y, in_key) in ids {
        if x != y {
            differences.push(Difference {
                part,
                pointer: None,
                a: Some(x.clone()),
                b: Some(y.clone()),
                effect: if in_key { DifferenceEffect::Key } else { DifferenceEffect::None },
            });
        }
    }

    // Arguments: first difference in the key, first in the fingerprint only, first in neither.
    let full_a = parse_args(&a.args_json)?;
    let full_b = parse_args(&b.args_json)?;
    let fp_a = fingerprinted_args(&a.args_json, &parsed)?;
    let fp_b = fingerprinted_args(&b.args_json, &parsed)?;
    let arg_diff = |pointer: &str, x: Option<&Value<'_>>, y: Option<&Value<'_>>, effect| Difference {
        part: IntentPart::Args,
        pointer: Some(pointer.to_string()),
        a: value_text(x),
        b: value_text(y),
        effect,
    };
    let in_key = |p: &str| match &parsed.only {
        None => true,
        Some(only) => only.iter().any(|o| pointer::is_under(p, &o.text) || pointer::is_under(&o.text, p)),
    };
    let mut first_key = None;
    let mut first_fp = None;
    pointer::walk_differences(Some(&fp_a), Some(&fp_b), &mut String::new(), &mut |p, x, y| {
        if in_key(p) {
            first_key.get_or_insert_with(|| arg_diff(p, x, y, DifferenceEffect::Key));
        } else {
            first_fp.get_or_insert_with(|| arg_diff(p, x, y, DifferenceEffect::Fingerprint));
        }
        first_key.is_none() || first_fp.is_none()
    });
    let mut first_none = None;
    pointer::walk_differences(Some(&full_a), Some(&full_b), &mut String::new(), &mut |p, x, y| {
        if parsed.ignore.iter().any(|i| pointer::is_under(p, &i.text)) {
            first_none = Some(arg_diff(p, x, y, DifferenceEffect::None));
            return false;
        }
        true
    });
    differences.extend([first_key, first_fp, first_none].into_iter().flatten());

    let verdict = if key_a.key != key_b.key {
        Verdict::DifferentKeys
    } else if key_a.fingerprint != key_b.fingerprint {
        Verdict::Conflict
    } else {
        Verdict::SameIntent
    };
    Ok(Explanation { verdict, key_a, key_b, differences })
}

impl Guest for crate::Core {
    fn derive(intent: Intent, spec: KeySpec) -> Result<DerivedKey, KeyError> {
        derive(&intent, &spec)
    }

    fn key(intent: Intent, spec: KeySpec) -> Result<String, KeyError> {
        key(&intent, &spec)
    }

    fn derive_many(intents: Vec<Intent>, spec: KeySpec) -> Vec<Result<DerivedKey, KeyError>> {
        intents.iter().map(|i| derive(i, &spec)).collect()
    }

    fn default_spec() -> KeySpec {
        default_spec()
    }

    fn args_refused(found: Option<KeyError>, canon: CanonError) -> KeyError {
        args_refused(found, canon)
    }

    fn explain(a: Intent, b: Intent, spec: KeySpec) -> Result<Explanation, KeyError> {
        explain(&a, &b, &spec)
    }
}
