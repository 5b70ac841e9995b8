//! `oncely component`: write the core component this binary embeds, for packaging.

use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ComponentArgs {
    /// Where to write it.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(a: ComponentArgs) -> Result<ExitCode> {
    write_atomically(&a.out, oncely::runtime::COMPONENT)?;
    Ok(ExitCode::SUCCESS)
}

/// Write a whole file or nothing: a temporary file renamed into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming into {}", path.display()))
}
