//! Replays every committed input (`seeds/<target>/`, `regressions/<target>/`) and, when present,
//! the local corpus (`corpus/<target>/`) through its target's properties: the fuzz targets as
//! ordinary tests, without libFuzzer (`cargo test --no-default-features`).

use std::path::Path;

#[test]
fn every_committed_input_holds_its_properties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut total = 0;
    for (name, check) in oncely_fuzz::TARGETS {
        let mut n = 0;
        for dir in ["seeds", "regressions", "corpus"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else { continue };
            let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
            paths.sort();
            for p in paths {
                let data = std::fs::read(&p).unwrap();
                if let Err(e) = std::panic::catch_unwind(|| check(&data)) {
                    let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                    panic!("{name}: {} fails: {}", p.display(), why.unwrap_or_default());
                }
                n += 1;
            }
        }
        println!("{name}: {n} inputs");
        total += n;
    }
    assert!(total > 0, "no committed input found");
}
