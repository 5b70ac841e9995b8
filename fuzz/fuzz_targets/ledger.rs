//! Fuzz target `ledger`: see `oncely_fuzz::ledger` for the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oncely_fuzz::ledger(data));
