//! Charts drawn with plotters, generic over the backend (SVG in the CLI and tests, canvas in the
//! page), each from a small typed input.

mod bars;
pub mod draw;
mod flame;
pub mod kinds;
mod plots;
#[cfg(not(target_arch = "wasm32"))]
pub mod png;
pub mod style;
mod timeline;
