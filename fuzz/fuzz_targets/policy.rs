//! Fuzz target `policy`: see `oncely_fuzz::policy` for the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oncely_fuzz::policy(data));
