//! `oncely key`: the idempotency key of one intent, or of each JSONL intent on stdin.

use super::input::{bytes_error, spec_of, IntentJson};
use super::render;
use anyhow::{bail, Context, Result};
use clap::Args;
use oncely::wit::agent::CallContext;
use oncely::wit::keys::{Intent, KeySpec};
use oncely::wit::policy::EffectClass;
use oncely::Runtime;
use std::ffi::OsString;
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct KeyArgs {
    /// Scope (tenant).
    #[arg(long, required_unless_present = "lines")]
    scope: Option<String>,
    /// Run id.
    #[arg(long, required_unless_present = "lines")]
    run: Option<String>,
    /// Step id. Without `--step`, the core names the call as the libraries do
    /// (`agent.identify`): a key of identity `step` is keyed by the run. `--step ""` is the
    /// intent as written (the key scheme's own check: an empty step-id is refused).
    #[arg(long)]
    step: Option<String>,
    /// Tool name.
    #[arg(long, required_unless_present = "lines")]
    tool: Option<String>,
    /// Arguments as JSON text.
    #[arg(long, conflicts_with = "args_file")]
    args: Option<OsString>,
    /// Arguments from a JSON file.
    #[arg(long)]
    args_file: Option<PathBuf>,
    /// Policy document whose key spec to use (default: all arguments, identity step).
    #[arg(long)]
    policy: Option<PathBuf>,
    /// Print key, preimage and fingerprint as JSON.
    #[arg(long)]
    json: bool,
    /// Read JSONL intents {"scope","run","step","tool","args"} from stdin; one key per line out.
    #[arg(long)]
    lines: bool,
}

pub fn run(a: KeyArgs) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let spec = spec_of(&rt, a.policy.as_deref())?;
    if a.lines {
        return lines(&rt, &spec, a.json);
    }
    // Bytes: arguments that are not UTF-8 are the core's to judge as JSON, not refused as text.
    let args = match (a.args, a.args_file) {
        (Some(t), _) => t.into_encoded_bytes(),
        (None, Some(f)) => std::fs::read(&f).with_context(|| format!("reading {}", f.display()))?,
        (None, None) => bail!("give the arguments with --args JSON or --args-file FILE"),
    };
    let step_given = a.step.is_some();
    let mut intent = Intent {
        scope: a.scope.unwrap_or_default(),
        run_id: a.run.unwrap_or_default(),
        step_id: a.step.unwrap_or_default(),
        tool: a.tool.unwrap_or_default(),
        args_json: String::new(),
    };
    // The tool's class, when the policy names one: a class that passes through needs no run.
    let class = match a.policy.as_deref() {
        Some(p) if !step_given => Some(crate::cli::input::load_policy(&rt, p)?.class),
        _ => None,
    };
    let spec = if step_given { spec } else { identified(&rt, &mut intent, spec, class)? };
    intent.args_json = match String::from_utf8(args) {
        Ok(text) => text,
        Err(e) => return Err(bad_args(&rt, &intent, &spec, e.as_bytes())),
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", render::derived(&rt.derive(&intent, &spec)?))?;
    } else {
        writeln!(out, "{}", rt.key(&intent, &spec)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// An intent given without a step, named by the core (`agent.identify`, as `derive_key` and
/// `deriveKey` do): its scope, run and step, and the key spec with the identity the core keys
/// it by. An intent without a tool (the keys' own error) is left as it is.
fn identified(rt: &Runtime, intent: &mut Intent, spec: KeySpec, class: Option<EffectClass>) -> Result<KeySpec> {
    if intent.tool.is_empty() {
        return Ok(spec);
    }
    let call = CallContext {
        tool: intent.tool.clone(),
        key_identity: spec.identity,
        effect_class: class,
        scope: Some(intent.scope.clone()).filter(|s| !s.is_empty()),
        run: Some(intent.run_id.clone()).filter(|r| !r.is_empty()),
        step: None,
        conversation: None,
        meta_json: String::new(),
        params_key: None,
        session: None,
        default_scope: None,
        default_run: None,
    };
    let id = rt.identify(&call)?.map_err(|e| anyhow::anyhow!(e.message))?;
    intent.scope = id.scope;
    intent.run_id = id.run.unwrap_or_default();
    intent.step_id = id.step.unwrap_or_default();
    Ok(KeySpec { identity: id.key_identity, ..spec })
}

/// The error of an intent whose arguments are bytes that are not UTF-8, as the core orders its
/// errors (docs/key-scheme.md §8): the core is asked about the intent with a stand-in for the
/// arguments that it refuses (empty text), so what it checks before them (empty fields, the
/// spec) comes first; else `invalid-args`, with the core's judgement of the bytes as JSON.
fn bad_args(rt: &Runtime, stand_in: &Intent, spec: &KeySpec, bytes: &[u8]) -> anyhow::Error {
    let found = match rt.key(stand_in, spec) {
        Err(oncely::Error::Key(e)) => Some(e),
        Err(e) => return e.into(),
        Ok(_) => None,
    };
    // Which error wins, and its words, are the core's (keys.args-refused).
    match rt.canonicalize_bytes(bytes) {
        Err(oncely::Error::Canon(canon)) => match rt.args_refused(found, canon) {
            Ok(e) => oncely::Error::Key(e).into(),
            Err(e) => e.into(),
        },
        Err(e) => e.into(),
        Ok(_) => bytes_error(bytes),
    }
}

/// Why a line that is not UTF-8 is refused: the core's judgement of its bytes as JSON
/// (`invalid-utf8`, or `lone-surrogate` for a surrogate encoded in them, with the position).
fn not_utf8(rt: &Runtime, line: &[u8]) -> Result<String> {
    match rt.canonicalize_bytes(line) {
        Err(oncely::Error::Canon(e)) => Ok(e.message),
        Err(e) => Err(e.into()),
        Ok(_) => Ok("the line is not UTF-8 text".to_string()),
    }
}

/// `--lines`: JSONL intents from stdin, derived in batches; output lines keep the input order.
/// A bad line (not UTF-8, not an intent object, or an intent the core refuses) is reported on
/// stderr with its line number and the stream goes on; the exit status is then 1.
fn lines(rt: &Runtime, spec: &KeySpec, json: bool) -> Result<ExitCode> {
    let mut stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut bad = 0u64;
    let mut batch: Vec<(usize, Intent)> = Vec::new();
    let flush = |batch: &mut Vec<(usize, Intent)>, out: &mut BufWriter<_>, bad: &mut u64| -> Result<()> {
        let intents: Vec<Intent> = batch.iter().map(|(_, i)| i.clone()).collect();
        for ((n, _), r) in batch.iter().zip(rt.derive_many(&intents, spec)?) {
            match r {
                Ok(d) if json => writeln!(out, "{}", render::derived(&d))?,
                Ok(d) => writeln!(out, "{}", d.key)?,
                Err(e) => {
                    *bad += 1;
                    eprintln!("oncely: line {n}: {}", e.message);
                }
            }
        }
        batch.clear();
        Ok(())
    };
    // Lines are read as bytes: a line that is not UTF-8 is one bad line, not the end of the stream.
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        if stdin.read_until(b'\n', &mut buf).context("reading stdin")? == 0 {
            break;
        }
        let bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = match std::str::from_utf8(bytes) {
            Ok(line) => serde_json::from_str::<IntentJson>(line).map_err(|e| format!("not an intent object: {e}")),
            Err(_) => Err(not_utf8(rt, bytes)?),
        };
        match parsed {
            Ok(ij) => batch.push((n, ij.intent())),
            Err(why) => {
                // Keep output lines in input order: finish the batch before reporting.
                flush(&mut batch, &mut out, &mut bad)?;
                bad += 1;
                eprintln!("oncely: line {n}: {why}");
            }
        }
        if batch.len() >= 1024 {
            flush(&mut batch, &mut out, &mut bad)?;
        }
    }
    flush(&mut batch, &mut out, &mut bad)?;
    out.flush()?;
    if bad > 0 {
        eprintln!("oncely: {bad} invalid line(s)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
