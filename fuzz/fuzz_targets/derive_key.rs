//! Fuzz target `derive_key`: see `oncely_fuzz::derive_key` for the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oncely_fuzz::derive_key(data));
