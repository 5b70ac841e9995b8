//! Fuzz target `canonicalize`: see `oncely_fuzz::canonicalize` for the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oncely_fuzz::canonicalize(data));
