//! Builds the core component from source: `guest/` for `wasm32-unknown-unknown` (release
//! profile), wrapped into a component with `wit-component`. The component imports nothing.
//! Output: `$OUT_DIR/idem_core.wasm` (embedded by this crate) and a copy at
//! `<target>/wasm/idem-core.wasm` for the Python and JavaScript packages.

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    for p in ["guest/src", "guest/Cargo.toml", "wit", "Cargo.toml", "Cargo.lock", ".cargo/config.toml"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let target_dir = if target_dir.is_absolute() { target_dir } else { root.join(target_dir) };
    ensure_target();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let build_dir = target_dir.join("component-build");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["build", "--release", "--locked", "-p", "idem-core", "--lib", "--target", TARGET])
        // The component's release build: opt-level 3 and panic=abort from the profile, plus fat
        // LTO and a single codegen unit (see the workspace Cargo.toml).
        .args(["--config", "profile.release.lto=true", "--config", "profile.release.codegen-units=1", "--target-dir"])
        .arg(&build_dir);
    // The outer build's flags are for the host, not for wasm.
    for var in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET", "CARGO_TARGET_DIR", "RUSTC_WORKSPACE_WRAPPER"] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("could not run cargo to build the core component");
    assert!(status.success(), "building the core component (guest/) for {TARGET} failed");

    let module_path = build_dir.join(TARGET).join("release/idem_core.wasm");
    let module = std::fs::read(&module_path).unwrap_or_else(|e| panic!("{}: {e}", module_path.display()));
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("the core module carries its WIT type section")
        .validate(true)
        // No name section: names help debuggers, and the component ships in every package.
        .debug_names(false)
        .encode()
        .expect("wrapping the core module into a component");

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("idem_core.wasm");
    std::fs::write(&out, &component).unwrap();
    let copy = target_dir.join("wasm");
    std::fs::create_dir_all(&copy).unwrap();
    write_if_changed(&copy.join("idem-core.wasm"), &component);
}

fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() != Some(bytes) {
        std::fs::write(path, bytes).unwrap();
    }
}

/// Install the wasm target with rustup when it is missing, so a fresh machine needs no extra step.
fn ensure_target() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(rustc).args(["--print", "sysroot"]).output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let installed = sysroot.map(|s| Path::new(&s).join("lib/rustlib").join(TARGET).is_dir()).unwrap_or(false);
    if !installed {
        let ok = Command::new("rustup").args(["target", "add", TARGET]).status().map(|s| s.success()).unwrap_or(false);
        assert!(ok, "the Rust target {TARGET} is missing and `rustup target add {TARGET}` failed; install it by hand");
    }
}
