//! Reading what the commands are given: a file or stdin, policy documents, intents as JSON.

use anyhow::{Context, Result};
use oncely::wit::keys::{Intent, KeySpec};
use oncely::wit::policy::ToolPolicy;
use oncely::Runtime;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::Read;
use std::path::Path;

/// The bytes of `file`, or of stdin when there is none.
pub fn read_input(file: Option<&Path>) -> Result<Vec<u8>> {
    match file {
        Some(p) => std::fs::read(p).with_context(|| format!("reading {}", p.display())),
        None => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).context("reading stdin")?;
            Ok(buf)
        }
    }
}

/// The text of the JSON document at `path`; the error names the file. A file that is not UTF-8
/// is refused with the core's judgement of its bytes as JSON (kind, line, column, byte: an error
/// in the text before the bad bytes comes first, docs/key-scheme.md §8), not as unreadable text.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    String::from_utf8(bytes).or_else(|e| Err(bytes_error(e.as_bytes())).with_context(|| format!("reading {}", path.display())))
}

/// The core's error for JSON bytes that are not UTF-8 (`canonicalize-bytes`).
pub fn bytes_error(bytes: &[u8]) -> anyhow::Error {
    match Runtime::shared().and_then(|rt| rt.canonicalize_bytes(bytes)) {
        Err(e) => e.into(),
        Ok(_) => anyhow::anyhow!("the bytes are not UTF-8"),
    }
}

/// A policy document, parsed (and judged) by the core.
pub fn load_policy(rt: &Runtime, path: &Path) -> Result<ToolPolicy> {
    let text = read_text(path)?;
    rt.parse_policy(&text).with_context(|| format!("policy {}", path.display()))
}

/// The key spec of the policy at `policy`; the default spec when there is none or it has none.
pub fn spec_of(rt: &Runtime, policy: Option<&Path>) -> Result<KeySpec> {
    match policy {
        Some(p) => match load_policy(rt, p)?.key {
            Some(k) => Ok(k),
            None => Ok(rt.default_spec()?),
        },
        None => Ok(rt.default_spec()?),
    }
}

/// An intent as JSON: the arguments are kept as raw text so the core sees exactly what was
/// written (a big integer or a duplicate member is the core's to judge, not serde's).
#[derive(Deserialize)]
pub struct IntentJson<'a> {
    scope: String,
    run: String,
    step: String,
    tool: String,
    #[serde(borrow)]
    args: &'a RawValue,
    /// A policy carried with the intent (`oncely explain`).
    #[serde(default, borrow)]
    pub policy: Option<&'a RawValue>,
}

impl IntentJson<'_> {
    /// The intent the core takes.
    pub fn intent(&self) -> Intent {
        Intent {
            scope: self.scope.clone(),
            run_id: self.run.clone(),
            step_id: self.step.clone(),
            tool: self.tool.clone(),
            args_json: self.args.get().to_string(),
        }
    }
}
