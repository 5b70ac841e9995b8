//! What the effect machine's first step costs natively (`effect::start_effect` of the ledger
//! benchmark's intent: `bindings/python/bench_ledger.py`'s refund under its policy): how many
//! times it allocates, bounded here so that copies of the machine's claim and event do not come
//! back, and (opt-in) how long it takes:
//! `cargo test --release -p oncely-core --test effect_cost -- --ignored --nocapture`.
#![allow(unsafe_code)] // a counting global allocator: the allocation count is what is measured

use oncely_core::effect;
use oncely_core::effect_wit::EffectOptions;
use oncely_core::keys_wit::Intent;
use oncely_core::policy;
use oncely_core::policy_wit::EffectClass;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the allocations (and reallocations) made on the thread that
/// counts.
struct Counting;

static COUNTED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn count() {
    if COUNTING.with(std::cell::Cell::get) {
        COUNTED.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call goes to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The benchmark's intent (`args_of(1)` of `bench_ledger.py`, as the host writes it).
fn intent() -> Intent {
    Intent {
        scope: "bench".into(),
        run_id: "run-1".into(),
        step_id: "s-1".into(),
        tool: "refund".into(),
        args_json: r#"{"amount":4999,"charge":"ch_1","currency":"usd","note":"hello there"}"#.into(),
    }
}

/// The benchmark's effect: its intent (`args_of(1)` of `bench_ledger.py`, as the host writes
/// it), its policy and options.
fn start() -> oncely_core::effect_wit::Step {
    let intent = intent();
    let mut policy = policy::default_policy(EffectClass::IrreversibleExternal);
    policy.reconcile = oncely_core::policy_wit::ReconcilePath::ProviderIdempotent;
    let options = EffectOptions { owner: "w1".into(), max_attempts: 0, wait_ms: None, has_reconciler: false, approval_wait_ms: None };
    effect::start_effect(&intent, &policy, &options, 1_000).unwrap()
}

fn allocations_of_a_start() -> usize {
    COUNTED.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    let step = std::hint::black_box(start());
    COUNTING.with(|c| c.set(false));
    drop(step);
    COUNTED.load(Ordering::Relaxed)
}

#[test]
fn an_effects_first_step_allocates_a_bounded_number_of_times() {
    let n = allocations_of_a_start();
    // 2026-12-07: 129 with the claim and event copied with the machine, 91 shared, 47 once the
    // first step no longer builds the claim's insert, 29 once it builds no machine either
    // (docs/performance.md, "The crossing").
    assert!(n <= 32, "the first step of an effect allocated {n} times (at most 32)");
}

/// The best of 5 × 20,000 calls of `f`, in µs per call.
fn best_of(mut f: impl FnMut()) -> f64 {
    for _ in 0..2_000 {
        f();
    }
    let mut best = f64::MAX;
    for _ in 0..5 {
        let n = 20_000;
        let t = std::time::Instant::now();
        for _ in 0..n {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / f64::from(n) * 1e6);
    }
    best
}

#[test]
#[ignore = "opt-in: a timing; run with --ignored --nocapture in a release build"]
fn the_time_of_an_effects_first_step() {
    let step = best_of(|| drop(std::hint::black_box(start())));
    eprintln!("effect::start_effect: {step:.2} µs (best of 5 × 20,000), {} allocations", allocations_of_a_start());
    // Of which: the claim (`ledger::prepare`), and in it the key's derivation.
    let intent = intent();
    let policy = policy::default_policy(EffectClass::IrreversibleExternal);
    let spec = policy.key.clone().unwrap_or_else(oncely_core::keys::default_spec);
    let claim = best_of(|| drop(std::hint::black_box(oncely_core::ledger::prepare(&intent, &policy, "w1"))));
    let derive = best_of(|| drop(std::hint::black_box(oncely_core::keys::derive(&intent, &spec))));
    eprintln!("  of which ledger::prepare (the claim): {claim:.2} µs, keys::derive (the key): {derive:.2} µs");
}
