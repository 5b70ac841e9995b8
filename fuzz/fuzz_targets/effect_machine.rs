//! Fuzz target `effect_machine`: see `oncely_fuzz::effect_machine` for the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oncely_fuzz::effect_machine(data));
