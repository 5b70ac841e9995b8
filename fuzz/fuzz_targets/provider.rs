//! Fuzz target `provider`: see `oncely_fuzz::provider` for the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oncely_fuzz::provider(data));
