//! The CLI's command families, one module each (its clap arguments and its handler), and what
//! they share: reading input and rendering the core's records.

pub mod canon;
pub mod check;
pub mod component;
pub mod demo;
pub mod explain;
pub mod input;
pub mod key;
pub mod ledger;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod render;
#[cfg(feature = "serve")]
pub mod serve;
pub mod untrusted;
