//! `derive_key`: an intent and a key spec, both structured, with a second intent near the first.

use crate::gen;
use arbitrary::{Result, Unstructured};
use oncely_core::keys_wit::{DerivedKey, Intent, KeyError, KeyErrorKind, KeySpec, Verdict};
use oncely_core::{canonical, keys, ledger, pointer, policy};

struct Input {
    a: Intent,
    b: Intent,
    spec: KeySpec,
    owner: String,
}

fn input(u: &mut Unstructured<'_>) -> Result<Input> {
    let (a, pointers) = gen::intent(u)?;
    let spec = gen::key_spec(u, &pointers)?;
    // The second intent: each part kept or changed.
    let (other, _) = gen::intent(u)?;
    let mut b = a.clone();
    if u.ratio(1u8, 4u8)? {
        b.scope = other.scope;
    }
    if u.ratio(1u8, 4u8)? {
        b.tool = other.tool;
    }
    if u.ratio(1u8, 3u8)? {
        b.run_id = other.run_id;
    }
    if u.ratio(1u8, 3u8)? {
        b.step_id = other.step_id;
    }
    if u.ratio(1u8, 2u8)? {
        b.args_json = other.args_json;
    }
    let owner = gen::text(u, &["w1", ""])?;
    Ok(Input { a, b, spec, owner })
}

/// Properties:
/// - never panics;
/// - deterministic: `derive` twice gives the same answer, and `key` gives its key (or the same
///   error);
/// - a derived key is `oncely1:` + SHA-256 of the preimage, the fingerprint SHA-256 of the
///   canonical arguments, and the preimage and arguments are canonical JSON;
/// - errors are typed: `invalid-args` carries exactly the canonicalizer's error of the
///   arguments, the other kinds none; pointer and field errors name what they are about;
/// - `explain` of an intent with itself is `same-intent` with no differences; of two intents,
///   its verdict follows from their keys and fingerprints;
/// - `prepare` under a policy with this spec claims the derived key.
pub fn derive_key(data: &[u8]) {
    let Ok(i) = input(&mut Unstructured::new(data)) else { return };
    let a = check_one(&i.a, &i.spec);
    let b = check_one(&i.b, &i.spec);
    match (&a, keys::explain(&i.a, &i.b, &i.spec)) {
        (Err(e), Err(x)) => assert_eq!(&x, e, "explain reports the first intent's error first"),
        (Ok(_), Err(x)) => assert_eq!(Err(x), b.clone(), "explain reports the second intent's error"),
        (Ok(ka), Ok(x)) => {
            let kb = b.as_ref().expect("explain succeeded, so both derive");
            assert_eq!((&x.key_a, &x.key_b), (ka, kb));
            let want = if ka.key != kb.key {
                Verdict::DifferentKeys
            } else if ka.fingerprint != kb.fingerprint {
                Verdict::Conflict
            } else {
                Verdict::SameIntent
            };
            assert_eq!(x.verdict, want, "explain's verdict");
        }
        (Err(e), Ok(x)) => panic!("derive failed ({e:?}) but explain succeeded: {x:?}"),
    }
    if let Ok(d) = &a {
        let x = keys::explain(&i.a, &i.a, &i.spec).expect("explain of an intent that derives");
        assert_eq!(x.verdict, Verdict::SameIntent);
        assert!(x.differences.is_empty(), "{:?}", x.differences);
        let mut p = policy::default_policy(oncely_core::policy_wit::EffectClass::IrreversibleExternal);
        p.key = Some(i.spec.clone());
        match ledger::prepare(&i.a, &p, &i.owner) {
            Ok(c) => {
                assert_eq!((&c.key, &c.fingerprint, &c.args_canonical), (&d.key, &d.fingerprint, &d.args_canonical));
                assert_eq!(c.owner, i.owner);
            }
            Err(e) => {
                assert!(i.owner.is_empty(), "prepare failed where derive did not: {e:?}");
                assert_eq!((e.kind, e.at.as_deref()), (KeyErrorKind::EmptyField, Some("owner")));
            }
        }
    }
}

fn check_one(intent: &Intent, spec: &KeySpec) -> std::result::Result<DerivedKey, KeyError> {
    let got = keys::derive(intent, spec);
    assert_eq!(keys::derive(intent, spec), got, "derive is not deterministic");
    assert_eq!(keys::key(intent, spec), got.clone().map(|d| d.key), "key and derive disagree");
    match &got {
        Ok(d) => {
            assert_eq!(d.key, format!("oncely1:{}", keys::sha256_hex(d.preimage.as_bytes())));
            assert_eq!(d.fingerprint, keys::sha256_hex(d.args_canonical.as_bytes()));
            assert_eq!(canonical::canonicalize(&d.preimage).as_ref(), Ok(&d.preimage), "the preimage is not canonical");
            assert_eq!(canonical::canonicalize(&d.args_canonical).as_ref(), Ok(&d.args_canonical), "the arguments are not canonical");
            assert!(!intent.scope.is_empty() && !intent.tool.is_empty());
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            match e.kind {
                KeyErrorKind::InvalidArgs => {
                    let canon = canonical::canonicalize(&intent.args_json).expect_err("invalid-args for arguments that canonicalize");
                    assert_eq!(e.canon.as_ref(), Some(&canon));
                }
                KeyErrorKind::InvalidPointer => {
                    assert!(e.canon.is_none());
                    let at = e.at.as_deref().expect("invalid-pointer names the pointer");
                    assert!(at.is_empty() || pointer::parse(at).is_err(), "{at:?} is a valid pointer");
                    assert!(spec.ignore.iter().chain(spec.only.iter().flatten()).any(|p| p == at));
                }
                KeyErrorKind::MissingMember => {
                    let at = e.at.as_deref().expect("missing-member names the pointer");
                    assert!(spec.only.iter().flatten().any(|p| p == at), "{at:?} is not an `only` pointer");
                    assert!(e.canon.is_none());
                }
                KeyErrorKind::PointerIntoArray => {
                    let at = e.at.as_deref().expect("pointer-into-array names the pointer");
                    assert!(spec.ignore.iter().any(|p| p == at), "{at:?} is not an `ignore` pointer");
                    assert!(e.canon.is_none());
                }
                KeyErrorKind::EmptyField => {
                    let at = e.at.as_deref().expect("empty-field names the field");
                    let empty = match at {
                        "scope" => intent.scope.is_empty(),
                        "tool" => intent.tool.is_empty(),
                        "run-id" | "run_id" | "runId" => intent.run_id.is_empty(),
                        "step-id" | "step_id" | "stepId" => intent.step_id.is_empty(),
                        "only" => spec.only.as_ref().is_some_and(Vec::is_empty),
                        other => panic!("empty-field at {other:?}"),
                    };
                    assert!(empty, "empty-field at {at:?}, which is not empty");
                    assert!(e.canon.is_none());
                }
            }
        }
    }
    got
}
