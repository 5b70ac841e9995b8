//! Whole-process `oncely key` with a warm compilation cache (goal: ≤ 20 ms per process),
//! measured by spawning the binary.

#![allow(missing_docs)] // criterion_group! generates undocumented functions

use criterion::{criterion_group, criterion_main, Criterion};
use std::process::Command;
use std::time::Duration;

fn oncely_key(c: &mut Criterion) {
    let cache = tempfile::tempdir().unwrap();
    let run = || {
        let o = Command::new(env!("CARGO_BIN_EXE_oncely"))
            .args([
                "key",
                "--scope",
                "acme",
                "--run",
                "run-7",
                "--step",
                "refund-1",
                "--tool",
                "refund",
                "--args",
                r#"{"charge_id":"ch_1","amount":500}"#,
            ])
            .env("ONCELY_CACHE_DIR", cache.path())
            .output()
            .unwrap();
        assert!(o.status.success());
        o
    };
    run(); // fills the cache
    let mut g = c.benchmark_group("cli");
    g.sample_size(30).measurement_time(Duration::from_secs(5));
    g.bench_function("oncely-key-warm-cache", |b| b.iter(run));
    g.finish();
}

criterion_group!(benches, oncely_key);
criterion_main!(benches);
