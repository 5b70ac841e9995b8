//! Structured inputs read from the fuzzer's bytes (`arbitrary::Unstructured`): JSON text that is
//! valid most of the time, JSON pointers into it, intents, key specs and policies. Every value
//! the core is given is built here or by the core itself; entries never are (only the core's
//! `ledger::handle` writes them).

use arbitrary::{Result, Unstructured};
use oncely_core::keys_wit::{Intent, KeyIdentity, KeySpec};
use oncely_core::policy;
use oncely_core::policy_wit::{EffectClass, ReconcilePath, ToolPolicy};

/// One of `items`.
pub fn pick<T: Clone>(u: &mut Unstructured<'_>, items: &[T]) -> Result<T> {
    Ok(u.choose(items)?.clone())
}

/// Mostly one of `pool`, sometimes any string.
pub fn text(u: &mut Unstructured<'_>, pool: &[&str]) -> Result<String> {
    if u.ratio(7u8, 8u8)? {
        Ok(pick(u, pool)?.to_string())
    } else {
        u.arbitrary()
    }
}

/// Member names: ASCII, two- and three-byte characters, U+E000..U+FFFF and supplementary
/// characters (the UTF-16 ordering cases), and the pointer escapes `~` and `/`.
const NAMES: &[&str] = &["a", "b", "c", "A", "", "é", "\u{1f600}", "\u{fb33}", "\u{e000}", "charge_id", "request_id", "a/b", "m~n", "0"];

/// String literals as they appear in JSON text (already escaped), with valid and invalid escapes.
const STRINGS: &[&str] = &[
    r#""""#,
    r#""x""#,
    r#""é""#,
    r#""\u00e9""#,
    r#""\ud83d\ude00""#,
    r#""\ud800""#,
    r#""\udc00x""#,
    r#""\n\t\"\\\/\b\f\r""#,
    r#""\u0000\u001f\u007f""#,
    "\"\u{2028}\u{1f600}\"",
    r#""\x""#,
    r#""\u12""#,
];

/// Number literals around the edges: exactness of integers, overflow, underflow, -0, exponents.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.1",
    "1.5e-7",
    "1E2",
    "1e+21",
    "1e21",
    "1e-7",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "295147905179352825856",
    "333333333333333300000",
    "18446744073709551616",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "0.30000000000000004",
    "123456789012345680000",
    "01",
    "1.",
    ".5",
    "-",
    "1e",
    "+1",
];

/// Generated JSON text and the pointers of the members it holds.
pub struct Json {
    /// The text (valid JSON most of the time, not always).
    pub text: String,
    /// RFC 6901 pointers of members and elements present in it.
    pub pointers: Vec<String>,
}

/// JSON text, nested at most `depth` levels, with random whitespace.
pub fn json(u: &mut Unstructured<'_>, depth: u32) -> Result<Json> {
    let mut j = Json { text: String::new(), pointers: Vec::new() };
    value(u, depth, "", &mut j)?;
    if u.ratio(1u8, 64u8)? {
        // Trailing data, a byte order mark, or a truncation.
        match u.int_in_range(0..=2u8)? {
            0 => j.text.push_str(&text(u, &[" x", ",", "]", "}", " 1"])?),
            1 => j.text.insert(0, '\u{feff}'),
            _ => {
                let mut cut = u.int_in_range(0..=j.text.len())?;
                while !j.text.is_char_boundary(cut) {
                    cut -= 1;
                }
                j.text.truncate(cut);
            }
        }
    }
    Ok(j)
}

fn ws(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    if u.ratio(1u8, 8u8)? {
        out.push_str(pick(u, &[" ", "\n", "\t", "\r\n", "  "])?);
    }
    Ok(())
}

fn escape_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn value(u: &mut Unstructured<'_>, depth: u32, at: &str, j: &mut Json) -> Result<()> {
    ws(u, &mut j.text)?;
    let kind = if depth == 0 { u.int_in_range(0..=5u8)? } else { u.int_in_range(0..=7u8)? };
    match kind {
        0 => j.text.push_str(pick(u, &["null", "true", "false", "nul", "True"])?),
        1 => j.text.push_str(pick(u, NUMBERS)?),
        2 => {
            let n: i64 = u.arbitrary()?;
            j.text.push_str(&n.to_string());
        }
        3 => {
            let f: f64 = u.arbitrary()?;
            if f.is_finite() {
                // Rust's shortest round-trip text (exponent-free or with `e`).
                j.text.push_str(&if u.arbitrary()? { format!("{f:e}") } else { format!("{f:?}") });
            } else {
                j.text.push('0');
            }
        }
        4 => j.text.push_str(pick(u, STRINGS)?),
        5 => {
            let s: String = u.arbitrary()?;
            j.text.push_str(&serde_json::to_string(&s).unwrap());
        }
        6 => {
            j.text.push('[');
            let n = u.int_in_range(0..=4usize)?;
            for i in 0..n {
                if i > 0 {
                    j.text.push(',');
                }
                let p = format!("{at}/{i}");
                j.pointers.push(p.clone());
                value(u, depth - 1, &p, j)?;
            }
            ws(u, &mut j.text)?;
            j.text.push(']');
        }
        _ => {
            j.text.push('{');
            let n = u.int_in_range(0..=4usize)?;
            for i in 0..n {
                if i > 0 {
                    j.text.push(',');
                }
                let name = text(u, NAMES)?;
                ws(u, &mut j.text)?;
                j.text.push_str(&serde_json::to_string(&name).unwrap());
                ws(u, &mut j.text)?;
                j.text.push(':');
                let p = format!("{at}/{}", escape_token(&name));
                j.pointers.push(p.clone());
                value(u, depth - 1, &p, j)?;
            }
            ws(u, &mut j.text)?;
            j.text.push('}');
        }
    }
    ws(u, &mut j.text)
}

/// A pointer: mostly one into `args`, else a malformed or absent one.
pub fn pointer(u: &mut Unstructured<'_>, pointers: &[String]) -> Result<String> {
    if !pointers.is_empty() && u.ratio(3u8, 4u8)? {
        return pick(u, pointers);
    }
    text(u, &["", "/", "/a", "/a/b", "/~", "/~2", "/~01", "a", "/0", "/-", "/zz", "/charge_id", "/a~1b"])
}

/// An intent and the pointers of its arguments.
pub fn intent(u: &mut Unstructured<'_>) -> Result<(Intent, Vec<String>)> {
    let args = if u.ratio(1u8, 16u8)? { Json { text: u.arbitrary()?, pointers: Vec::new() } } else { json(u, 3)? };
    let intent = Intent {
        scope: text(u, &["acme", "beta", "", "a:b", "\"q\""])?,
        run_id: text(u, &["r", "run-7", "", "r:1"])?,
        step_id: text(u, &["s", "refund-1", "", "s:\u{1f600}"])?,
        tool: text(u, &["refund", "t", "", "send_email"])?,
        args_json: args.text,
    };
    Ok((intent, args.pointers))
}

/// A key spec with pointers mostly into the arguments.
pub fn key_spec(u: &mut Unstructured<'_>, pointers: &[String]) -> Result<KeySpec> {
    let identity = pick(u, &[KeyIdentity::Step, KeyIdentity::Run, KeyIdentity::Scope])?;
    let mut ignore = Vec::new();
    for _ in 0..u.int_in_range(0..=3u8)? {
        ignore.push(pointer(u, pointers)?);
    }
    let only = if u.arbitrary()? {
        let mut only = Vec::new();
        for _ in 0..u.int_in_range(0..=3u8)? {
            only.push(pointer(u, pointers)?);
        }
        Some(only)
    } else {
        None
    };
    Ok(KeySpec { only, ignore, identity })
}

/// A duration: mostly small (so that leases expire and retention ends within a run), sometimes
/// 0 or anything up to `u64::MAX`.
/// A duration option: none (the core's default) or some [`millis`].
pub fn maybe_millis(u: &mut Unstructured<'_>) -> Result<Option<u64>> {
    Ok(if u.ratio(1u8, 4u8)? { None } else { Some(millis(u)?) })
}

pub fn millis(u: &mut Unstructured<'_>) -> Result<u64> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => 0,
        1 => u.arbitrary()?,
        2 => u64::MAX - u64::from(u.int_in_range(0..=3u8)?),
        _ => u64::from(u.int_in_range(1..=3000u16)?),
    })
}

/// A policy, built from the core's own default for a class (so that the record may gain fields
/// without this code changing), with its fields then set at random.
pub fn tool_policy(u: &mut Unstructured<'_>, pointers: &[String]) -> Result<ToolPolicy> {
    let class = pick(
        u,
        &[EffectClass::IrreversibleExternal, EffectClass::AccumulatingWrite, EffectClass::ReadOnly, EffectClass::OverwritingWrite],
    )?;
    // Mostly classes that go through the ledger.
    let class = if u.ratio(1u8, 8u8)? { class } else { pick(u, &[EffectClass::IrreversibleExternal, EffectClass::AccumulatingWrite])? };
    let mut p = policy::default_policy(class);
    p.reconcile = match u.int_in_range(0..=3u8)? {
        0 => ReconcilePath::None,
        1 => ReconcilePath::ProviderIdempotent,
        2 => ReconcilePath::Lookup(text(u, &["get_refund", ""])?),
        _ => ReconcilePath::Manual,
    };
    p.lease_ms = millis(u)?;
    p.reconcile_after_ms = millis(u)?;
    p.escalate_after_ms = millis(u)?;
    p.retention_ms = millis(u)?;
    if u.ratio(1u8, 4u8)? {
        p.key = Some(key_spec(u, pointers)?);
    }
    Ok(p)
}
