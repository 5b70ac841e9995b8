//! Differential run: the component (wasmtime, through `oncely::Runtime`) against the native core
//! on the same inputs — canonicalization, key derivation, policy parsing, the manifest check —
//! with byte-identical answers and identical errors (kind, offset, line, column, message, `at`).
//!
//! Inputs: the committed fuzz inputs (`fuzz/seeds/`, `fuzz/regressions/`) and random mutations
//! of them; with `ONCELY_FUZZ_CORPUS=1`, also the local corpora that fuzzing grew
//! (`fuzz/corpus/`, not committed). `ONCELY_DIFF_CASES` sets the number of mutations per target
//! (default 3,000) and `ONCELY_DIFF_SEED` their seed. `scripts/fuzz` runs it after the fuzz
//! targets, over the corpora; every `cargo test` runs it over the committed inputs.
//!
//! The two type families (wasmtime's bindings in the host, wit-bindgen's in the core) are
//! generated from one WIT and print alike, so answers are compared by their `Debug` text.

use oncely::wit::keys::{Intent as HostIntent, KeyIdentity as HostIdentity, KeySpec as HostSpec};
use oncely::{Error, Runtime};
use oncely_core::keys_wit::{Intent, KeyIdentity, KeySpec};
use oncely_core::{canonical, keys, policy};
use std::fmt::Debug;
use std::path::Path;

/// A small deterministic generator (xorshift64*), so that a failing case can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"",
    "\\",
    "\\u",
    "\\ud800",
    "\\udc00",
    "null",
    "true",
    "-0",
    "1e400",
    "9007199254740993",
    "1.5e-7",
    "0.1",
    " ",
    "\n",
    "\u{e9}",
    "\u{1f600}",
    "\u{fb33}",
    "\"a\":1,\"a\":2",
    "\"class\"",
    "\"key\"",
    "\"only\"",
    "\"ignore\"",
    "\"/a\"",
    "\"tools\"",
    "\"name\"",
    "\"_meta\"",
    "\"oncely/policy\"",
    "\"annotations\"",
    "\"lookup\"",
    "\"leaseMs\"",
];

/// One mutation of `input` (bytes flipped, tokens inserted, a slice deleted or repeated, or a
/// splice with `other`).
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(3) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 | 2 => {
                let t = rng.pick(TOKENS).as_bytes();
                out.splice(at..at, t.iter().copied());
            }
            3 if at < out.len() => {
                let end = (at + 1 + rng.below(8)).min(out.len());
                out.drain(at..end);
            }
            4 if at < out.len() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(end..end, piece);
            }
            _ => {
                let from = rng.below(other.len() + 1);
                out.truncate(at);
                out.extend_from_slice(&other[from..]);
            }
        }
    }
    out
}

fn inputs(target: &str) -> Vec<Vec<u8>> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut dirs = vec!["seeds", "regressions"];
    if std::env::var_os("ONCELY_FUZZ_CORPUS").is_some_and(|v| v == "1") {
        dirs.push("corpus");
    }
    let mut out = Vec::new();
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(fuzz.join(d).join(target)) else { continue };
        let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
        paths.sort();
        out.extend(paths.iter().map(|p| std::fs::read(p).unwrap()));
    }
    assert!(!out.is_empty(), "no inputs for {target} under {}", fuzz.display());
    out
}

/// The committed inputs, then `ONCELY_DIFF_CASES` mutations of them.
fn cases(target: &str, seed: u64) -> Vec<Vec<u8>> {
    let base = inputs(target);
    let n: usize = std::env::var("ONCELY_DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seed = std::env::var("ONCELY_DIFF_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(seed);
    let mut rng = Rng(seed | 1);
    let mut all = base.clone();
    for _ in 0..n {
        let a = rng.pick(&base);
        let b = rng.pick(&base);
        all.push(mutate(&mut rng, a, b));
    }
    all
}

fn rt() -> Runtime {
    Runtime::shared().unwrap()
}

/// The host's answer with its error unwrapped to the core's error record, as `Debug` text.
fn host<T: Debug>(r: Result<T, Error>) -> String {
    match r {
        Ok(v) => format!("Ok({v:?})"),
        Err(Error::Canon(e)) => format!("Err({e:?})"),
        Err(Error::Key(e)) => format!("Err({e:?})"),
        Err(Error::Policy(e)) => format!("Err({e:?})"),
        Err(e) => panic!("the component failed: {e}"),
    }
}

fn native<T: Debug, E: Debug>(r: Result<T, E>) -> String {
    match r {
        Ok(v) => format!("Ok({v:?})"),
        Err(e) => format!("Err({e:?})"),
    }
}

fn same(what: &str, input: &dyn Debug, component: String, core: String) {
    assert_eq!(component, core, "{what} differs between the component and the native core on {input:?}");
}

#[test]
fn canonicalization_is_the_same_in_the_component() {
    let rt = rt();
    let cases = cases("canonicalize", 0x8785);
    for input in &cases {
        same(
            "canonicalize-bytes",
            &String::from_utf8_lossy(input),
            host(rt.canonicalize_bytes(input)),
            native(canonical::canonicalize_bytes(input)),
        );
        if let Ok(text) = std::str::from_utf8(input) {
            same("canonicalize", &text, host(rt.canonicalize(text)), native(canonical::canonicalize(text)));
        }
    }
    println!("differential canonicalize: {} inputs", cases.len());
}

#[test]
fn policies_and_manifests_are_read_the_same_in_the_component() {
    let rt = rt();
    let cases = cases("policy", 0x5eed);
    let mut n = 0;
    for input in &cases {
        let Ok(text) = std::str::from_utf8(input) else { continue };
        same("parse-policy", &text, host(rt.parse_policy(text)), native(policy::parse_policy(text)));
        same("resolve-tool", &text, host(rt.resolve_tool(text)), native(policy::resolve_tool(text)));
        same("check-manifest", &text, host(rt.check_manifest(text)), native(policy::check_manifest(text)));
        n += 1;
    }
    println!("differential policy: {n} inputs");
}

/// Intents whose arguments are the canonicalization inputs (valid or not), with ids and key
/// specs drawn from small pools that include empty ids and malformed pointers.
#[test]
fn keys_are_derived_the_same_in_the_component() {
    let rt = rt();
    let args: Vec<String> = cases("canonicalize", 0x4b45).into_iter().filter_map(|b| String::from_utf8(b).ok()).collect();
    let mut rng = Rng(0x6b6579 | 1);
    let ids = ["acme", "r", "s:1", "", "\u{e9}\u{1f600}", "\"q\""];
    let pointers = ["/a", "/b", "/a/b", "/0", "", "/", "~", "/~2", "/\u{e9}", "/charge_id", "/a~1b", "/-"];
    for (i, a) in args.iter().enumerate() {
        let b = rng.pick(&args);
        let only = match rng.below(3) {
            0 => None,
            _ => Some((0..rng.below(3)).map(|_| rng.pick(&pointers).to_string()).collect::<Vec<_>>()),
        };
        let ignore: Vec<String> = (0..rng.below(3)).map(|_| rng.pick(&pointers).to_string()).collect();
        let identity = rng.below(3);
        let spec = KeySpec {
            only: only.clone(),
            ignore: ignore.clone(),
            identity: [KeyIdentity::Step, KeyIdentity::Run, KeyIdentity::Scope][identity],
        };
        let hspec = HostSpec { only, ignore, identity: [HostIdentity::Step, HostIdentity::Run, HostIdentity::Scope][identity] };
        let mk = |rng: &mut Rng, args: &str| {
            let f = |rng: &mut Rng| if rng.below(8) == 0 { rng.pick(&ids).to_string() } else { rng.pick(&ids[..3]).to_string() };
            (f(rng), f(rng), f(rng), if rng.below(8) == 0 { String::new() } else { "refund".to_string() }, args.to_string())
        };
        let (x, y) = (mk(&mut rng, a), mk(&mut rng, b));
        let core = |t: &(String, String, String, String, String)| Intent {
            scope: t.0.clone(),
            run_id: t.1.clone(),
            step_id: t.2.clone(),
            tool: t.3.clone(),
            args_json: t.4.clone(),
        };
        let hosted = |t: &(String, String, String, String, String)| HostIntent {
            scope: t.0.clone(),
            run_id: t.1.clone(),
            step_id: t.2.clone(),
            tool: t.3.clone(),
            args_json: t.4.clone(),
        };
        let ctx = (i, &x, &spec);
        same("derive", &ctx, host(rt.derive(&hosted(&x), &hspec)), native(keys::derive(&core(&x), &spec)));
        same("key", &ctx, host(rt.key(&hosted(&x), &hspec)), native(keys::key(&core(&x), &spec)));
        same(
            "explain",
            &(&ctx, &y),
            host(rt.explain(&hosted(&x), &hosted(&y), &hspec)),
            native(keys::explain(&core(&x), &core(&y), &spec)),
        );
    }
    println!("differential derive: {} intents", args.len());
}
