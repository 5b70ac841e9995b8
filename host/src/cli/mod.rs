//! The CLI's modules: renderings and the demo.

pub mod demo;
pub mod render;
