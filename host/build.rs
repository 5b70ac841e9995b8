//! The core component this crate embeds, `$OUT_DIR/oncely_core.wasm`. Two cases:
//!
//! - **Inside the oncely workspace** (a checkout: `guest/` beside `host/`): built from source,
//!   `guest/` for `wasm32-unknown-unknown` (the `component` profile of the workspace Cargo.toml),
//!   shrunk by binaryen's `wasm-opt` when it is installed, and wrapped into a component with
//!   `wit-component`. The component imports nothing. A copy goes to
//!   `<target>/wasm/oncely-core.wasm`, which `scripts/component` commits as
//!   `bindings/oncely-core.wasm` (host/tests/component.rs checks the two are the same bytes).
//! - **From the crate's archive** (crates.io, `cargo package`, `cargo install`): there is no
//!   workspace, and the crate carries the committed component (`oncely-core.wasm`, a link to
//!   `bindings/oncely-core.wasm` in the checkout, a file in the archive), which is embedded as
//!   it is. No wasm target, no `wasm-opt`, no second cargo.
//!
//! `wasm-opt` (Debian package `binaryen`; `scripts/setup` installs it) shrinks the
//! module. Without it the build still succeeds, with a warning, and the component is larger but
//! behaves the same; `ONCELY_REQUIRE_WASM_OPT=1` (set by `scripts/test`) turns the warning into an
//! error. `WASM_OPT` names the binary when it is not `wasm-opt` on the PATH.

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("oncely_core.wasm");
    if !in_workspace(&root) {
        let committed = manifest.join("oncely-core.wasm");
        println!("cargo:rerun-if-changed={}", committed.display());
        let bytes = std::fs::read(&committed).unwrap_or_else(|e| panic!("the committed core component {}: {e}", committed.display()));
        // The committed component is the shipped form: built with wasm-opt.
        println!("cargo:rustc-env=ONCELY_COMPONENT_SIZE_OPTIMIZED=1");
        write_if_changed(&out, &bytes);
        return;
    }
    for p in ["guest/src", "guest/Cargo.toml", "wit", "Cargo.toml", "Cargo.lock", ".cargo/config.toml"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    for var in ["WASM_OPT", "ONCELY_REQUIRE_WASM_OPT", "PATH", "CARGO_HOME", "HOME"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let target_dir = if target_dir.is_absolute() { target_dir } else { root.join(target_dir) };
    ensure_target();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let build_dir = target_dir.join("component-build");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["build", "--profile", "component", "--locked", "-p", "oncely-core", "--lib", "--target", TARGET, "--target-dir"])
        .arg(&build_dir);
    // Reproducible bytes on any machine: panic locations name dependency sources by path, so the
    // Cargo home (`/home/<user>/.cargo/registry/…`) is written as `/cargo`. Workspace sources are
    // already relative and the standard library's are remapped by rustc. (Cargo appends this to
    // the simd128 flag of .cargo/config.toml.)
    if let Some(home) = cargo_home() {
        let flag = format!("--remap-path-prefix={}=/cargo", home.display());
        cmd.arg("--config").arg(format!("target.{TARGET}.rustflags=[{}]", toml_string(&flag)));
    }
    // The outer build's flags are for the host, not for wasm; RUSTC_BOOTSTRAP (cargo-fuzz sets
    // it) changes the component's bytes.
    for var in
        ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET", "CARGO_TARGET_DIR", "RUSTC_WORKSPACE_WRAPPER", "RUSTC_BOOTSTRAP"]
    {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("could not run cargo to build the core component");
    assert!(status.success(), "building the core component (guest/) for {TARGET} failed");

    let module_path = build_dir.join(TARGET).join("component/oncely_core.wasm");
    let (module, optimized) = optimize(&module_path);
    println!("cargo:rustc-env=ONCELY_COMPONENT_SIZE_OPTIMIZED={}", u8::from(optimized));
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("the core module carries its WIT type section")
        .validate(true)
        // No name section: names help debuggers, and the component ships in every package.
        .debug_names(false)
        .encode()
        .expect("wrapping the core module into a component");
    let component = without_name_sections(&component);

    std::fs::write(&out, &component).unwrap();
    let copy = target_dir.join("wasm");
    std::fs::create_dir_all(&copy).unwrap();
    write_if_changed(&copy.join("oncely-core.wasm"), &component);
}

/// Whether `root` is the oncely workspace: its manifest declares the workspace and the core's
/// crate (`guest/`) is there. Not so in a crate's archive, unpacked under `target/package/` or a
/// registry's source directory.
fn in_workspace(root: &Path) -> bool {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_default();
    read("Cargo.toml").contains("[workspace]") && read("guest/Cargo.toml").contains("name = \"oncely-core\"")
}

/// The core module, run through `wasm-opt -Oz` when binaryen is installed; and whether it was.
fn optimize(module_path: &Path) -> (Vec<u8>, bool) {
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let tool = std::env::var_os("WASM_OPT").map_or_else(|| PathBuf::from("wasm-opt"), PathBuf::from);
    let out = module_path.with_extension("opt.wasm");
    // The features the Rust target emits (its defaults plus simd128 from .cargo/config.toml);
    // wasm-opt may use only these.
    let features = [
        "--enable-simd",
        "--enable-bulk-memory",
        "--enable-sign-ext",
        "--enable-mutable-globals",
        "--enable-nontrapping-float-to-int",
        "--enable-multivalue",
        "--enable-reference-types",
    ];
    // `-Oz`, with `--low-memory-unused`: the first 1 KiB of linear memory is never addressed
    // (rustc's wasm32 layout puts the 1 MiB stack first, growing down towards 0, and the data
    // after it), so constant offsets can fold into loads and stores. `--converge` repeats the
    // passes until the module stops shrinking. `--flatten --rereloop` between two `-Oz` rounds
    // rebuilds the control flow of every function, which the second round shrinks further
    // (about 2 KB with binaryen 108).
    let passes = ["--low-memory-unused", "-Oz", "--flatten", "--rereloop", "-Oz", "--converge"];
    let problem = match Command::new(&tool).args(passes).args(features).arg(module_path).arg("-o").arg(&out).status() {
        Ok(status) if status.success() => return (read(&out), true),
        Ok(status) => format!("{} {} failed ({status}; an old binaryen?)", tool.display(), passes.join(" ")),
        Err(e) => format!("{} could not be run ({e})", tool.display()),
    };
    let why = format!(
        "{problem}: the core component is built without size optimization; it behaves the same \
         but is larger than shipped. Install binaryen (`apt-get install binaryen`, or `scripts/setup`)."
    );
    assert!(std::env::var_os("ONCELY_REQUIRE_WASM_OPT").is_none_or(|v| v == "0"), "{why}");
    println!("cargo:warning={why}");
    (read(module_path), false)
}

/// The component without its `component-name` section: debug names of the internal shim
/// components, which no host reads (exports are named by the export sections).
fn without_name_sections(component: &[u8]) -> Vec<u8> {
    use wasmparser::{Chunk, Parser, Payload};
    let mut out = wasm_encoder::Component::new();
    let mut parser = Parser::new(0);
    let mut rest = component;
    loop {
        let Chunk::Parsed { consumed, payload } = parser.parse(rest, true).expect("parsing the encoded component") else {
            unreachable!("the whole component is in memory")
        };
        rest = &rest[consumed..];
        if let Payload::End(_) = payload {
            break;
        }
        let Some((id, range)) = payload.as_section() else {
            continue;
        };
        let data = &component[usize::try_from(range.start).unwrap()..usize::try_from(range.end).unwrap()];
        match payload {
            Payload::CustomSection(c) if c.name() == "component-name" => continue,
            // Nested modules and components are copied whole, not parsed into: the parser has
            // moved past them, the input slice must too.
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => rest = &rest[data.len()..],
            _ => {}
        }
        out.section(&wasm_encoder::RawSection { id, data });
    }
    let bytes = out.finish();
    wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all())
        .validate_all(&bytes)
        .expect("the component stays valid without its name section");
    bytes
}

/// Where Cargo keeps downloaded sources: `$CARGO_HOME` (rustup sets it for cargo's children),
/// else `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|p| p.canonicalize().unwrap_or(p))
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() != Some(bytes) {
        std::fs::write(path, bytes).unwrap();
    }
}

/// Install the wasm target with rustup when it is missing, so a fresh machine needs no extra step.
fn ensure_target() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot =
        Command::new(rustc).args(["--print", "sysroot"]).output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let installed = sysroot.map(|s| Path::new(&s).join("lib/rustlib").join(TARGET).is_dir()).unwrap_or(false);
    if !installed {
        let ok = Command::new("rustup").args(["target", "add", TARGET]).status().map(|s| s.success()).unwrap_or(false);
        assert!(ok, "the Rust target {TARGET} is missing and `rustup target add {TARGET}` failed; install it by hand");
    }
}
