//! The component against the same code compiled natively: key derivation (goal: component
//! ≤ 1.5× native) and canonicalization of 1 MiB documents (goal: ≥ 150 MB/s through the
//! component). `scripts/bench` runs these and prints the ratios.

#![allow(missing_docs)] // criterion_group! generates undocumented functions

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oncely::wit::keys::{Intent as HostIntent, KeySpec as HostSpec};
use oncely::Runtime;
use std::time::Duration;

/// Arguments of about `n` bytes: a refund with a note padded to size.
fn args(n: usize) -> String {
    let base = r#"{"charge_id":"ch_3PqR8s2eZvKYlo2C","amount":4999,"currency":"usd","reason":"requested_by_customer","metadata":{"order":"A-1042","agent":"support-bot"},"note":""}"#;
    let pad = n.saturating_sub(base.len());
    base.replace("\"note\":\"\"", &format!("\"note\":\"{}\"", "x".repeat(pad)))
}

/// A 1 MiB document shaped like tool arguments: objects, strings, numbers, nesting.
pub fn mib_document() -> String {
    let mut items = Vec::new();
    let mut i = 0u64;
    while items.iter().map(|s: &String| s.len() + 1).sum::<usize>() < (1 << 20) - 200 {
        items.push(format!(
            r#"{{"id":{i},"sku":"SKU-{i:06}","price":{}.{:02},"qty":{},"tags":["a","b\u00e9","c"],"ok":true,"note":null}}"#,
            i * 7 % 1000,
            i % 100,
            i % 9
        ));
        i += 1;
    }
    format!("{{\"items\":[{}]}}", items.join(","))
}

fn derive(c: &mut Criterion) {
    let rt = Runtime::shared().unwrap();
    let mut g = c.benchmark_group("derive");
    g.measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    for size in [200usize, 4096, 65536] {
        let a = args(size);
        let hi = HostIntent {
            scope: "acme".into(),
            run_id: "run-7".into(),
            step_id: "refund-1".into(),
            tool: "refund".into(),
            args_json: a.clone(),
        };
        let hs = HostSpec { only: None, ignore: vec!["/metadata/agent".into()], identity: oncely::wit::keys::KeyIdentity::Step };
        let ni = oncely_core::keys_wit::Intent {
            scope: "acme".into(),
            run_id: "run-7".into(),
            step_id: "refund-1".into(),
            tool: "refund".into(),
            args_json: a.clone(),
        };
        let ns = oncely_core::keys_wit::KeySpec {
            only: None,
            ignore: vec!["/metadata/agent".into()],
            identity: oncely_core::keys_wit::KeyIdentity::Step,
        };
        assert_eq!(rt.derive(&hi, &hs).unwrap().key, oncely_core::keys::derive(&ni, &ns).unwrap().key);
        g.throughput(Throughput::Bytes(a.len() as u64));
        g.bench_with_input(BenchmarkId::new("component", size), &size, |b, _| b.iter(|| rt.derive(&hi, &hs).unwrap()));
        g.bench_with_input(BenchmarkId::new("native", size), &size, |b, _| b.iter(|| oncely_core::keys::derive(&ni, &ns).unwrap()));
        // `keys.key`: the key alone (one SHA-256 pass, only the key copied back).
        assert_eq!(rt.key(&hi, &hs).unwrap(), oncely_core::keys::key(&ni, &ns).unwrap());
        g.bench_with_input(BenchmarkId::new("key-component", size), &size, |b, _| b.iter(|| rt.key(&hi, &hs).unwrap()));
        g.bench_with_input(BenchmarkId::new("key-native", size), &size, |b, _| b.iter(|| oncely_core::keys::key(&ni, &ns).unwrap()));
    }
    g.finish();
}

fn canonicalize(c: &mut Criterion) {
    let rt = Runtime::shared().unwrap();
    let doc = mib_document();
    assert_eq!(rt.canonicalize(&doc).unwrap(), oncely_core::canonical::canonicalize(&doc).unwrap());
    let mut g = c.benchmark_group("canonicalize-1MiB");
    g.measurement_time(Duration::from_secs(5)).sample_size(30);
    g.throughput(Throughput::Bytes(doc.len() as u64));
    g.bench_function("component", |b| b.iter(|| rt.canonicalize(&doc).unwrap()));
    g.bench_function("native", |b| b.iter(|| oncely_core::canonical::canonicalize(&doc).unwrap()));
    g.finish();
}

criterion_group!(benches, derive, canonicalize);
criterion_main!(benches);
