//! `oncely canon`: the RFC 8785 canonical form of a document, or of each line of a JSONL stream.

use super::input::read_input;
use anyhow::Result;
use clap::Args;
use oncely::{Error, Runtime};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CanonArgs {
    /// The document; stdin when absent.
    file: Option<PathBuf>,
    /// One JSON document per input line, one canonical document per output line.
    #[arg(long)]
    lines: bool,
}

pub fn run(a: CanonArgs) -> Result<ExitCode> {
    let rt = Runtime::shared()?;
    let input = read_input(a.file.as_deref())?;
    if !a.lines {
        let out = rt.canonicalize_bytes(&input)?;
        std::io::stdout().write_all(out.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut bad = 0u64;
    for (n, line) in input.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match rt.canonicalize_bytes(line) {
            Ok(c) => {
                out.write_all(c.as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(Error::Canon(e)) => {
                bad += 1;
                eprintln!("oncely: line {}: {}", n + 1, e.message);
            }
            Err(e) => return Err(e.into()),
        }
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("oncely: {bad} invalid line(s)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
