//! Charts drawn with plotters, generic over the backend (SVG in the CLI and tests, canvas in the
//! page), each from a small typed input.

pub mod draw;
pub mod kinds;
#[cfg(not(target_arch = "wasm32"))]
pub mod png;
