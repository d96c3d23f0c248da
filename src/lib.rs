//! kinetoscope: a GPU/ML/HPC trace analyzer for the command line and the browser.
//!
//! ```text
//! bytes (file / File.stream()) ─► read::FileReader (gzip inflate, content detection,
//!   streaming scanner, format reader) ─► model::RankTrace (columnar, interned)
//!   ─► read::assemble (ranks, links) ─► model::Trace ─► analysis::* ─► CLI / wasm API
//! ```
//!
//! ```
//! let json = br#"{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1.5, "dur": 2, "pid": 0, "tid": 7}]}"#;
//! let trace = kinetoscope::read::read_all(&[("t.json", &json[..])]).unwrap();
//! let r = &trace.ranks[0];
//! assert_eq!(r.events.ts[0], 1_500); // ns, exact
//! assert_eq!(kinetoscope::analysis::overview::overview(&trace).events, 1);
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod chart;
pub mod error;
pub mod export;
pub mod html;
pub mod model;
pub mod page;
pub mod profile;
pub mod read;
pub mod table;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use error::{ReadError, Warning, WarningKind, Warnings};
pub use model::{RankTrace, Trace};
