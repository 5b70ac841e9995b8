//! The idem host: runs the core component (built from `guest/` by `build.rs`) and wires it to
//! storage. This first cut only carries the component's bytes.

/// The core component, built from source by `build.rs`; it imports nothing.
pub const COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/idem_core.wasm"));
