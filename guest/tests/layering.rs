//! The module layering written in the crate's documentation (`guest/src/lib.rs`, "Module
//! layering") holds: every `crate::…` path in a module names a module of an earlier layer, so no
//! two modules import each other, directly or in a circle. The layers are read from that
//! documentation, so the text and this check cannot drift apart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Module name → layer, from the numbered list in lib.rs's crate documentation.
fn layers() -> BTreeMap<String, u32> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(item) = line.strip_prefix("//! ") else { continue };
        let Some((n, rest)) = item.split_once(". ") else { continue };
        let Ok(layer) = n.parse::<u32>() else { continue };
        let modules = rest.split(": ").next().unwrap();
        for piece in modules.split("[`").skip(1) {
            let name = piece.split('`').next().unwrap();
            out.insert(name.to_string(), layer);
        }
    }
    out
}

/// The crate modules a source file names through `crate::` paths in its code (comments, whose
/// links are no import, the WIT bindings, the prelude and the `msg!` macro excepted).
fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before == Some('$') {
            continue;
        }
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !(name.ends_with("_wit") || name == "prelude" || name == "bindings" || name == "Core" || name == "msg") {
            out.push(name);
        }
    }
    // `use crate::{a, b}` is not used in this crate; refuse it rather than miss its modules.
    assert!(!text.contains("use crate::{"), "write one `use crate::module…` per module");
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_import_only_earlier_layers() {
    let layers = layers();
    assert!(layers.len() >= 12, "the layer list in lib.rs was not found: {layers:?}");
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut checked = 0;
    for path in all {
        let rel = path.strip_prefix(src()).unwrap();
        let module = rel.iter().next().unwrap().to_str().unwrap().trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let own = *layers.get(&module).unwrap_or_else(|| panic!("module {module} is in no layer of lib.rs's documentation"));
        let text = std::fs::read_to_string(&path).unwrap();
        for used in imports(&text) {
            if used == module {
                continue;
            }
            let theirs = *layers.get(&used).unwrap_or_else(|| panic!("{}: crate::{used} is in no layer", rel.display()));
            assert!(theirs < own, "{} (layer {own}) uses crate::{used} (layer {theirs}): only earlier layers", rel.display());
        }
        checked += 1;
    }
    assert!(checked >= 12);
}
