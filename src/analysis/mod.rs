//! Analyses: pure functions from the model to typed results. Options default to HTA's defaults
//! where an HTA API exists; [`registry`] lists every analysis the CLI and the page offer.

pub mod annotated_kernels;
pub mod annotations;
pub mod api;
pub mod aten_ops;
pub mod call_graph;
pub mod call_stack;
pub mod counters;
pub mod cupti;
pub mod decode;
pub mod diff;
pub mod endpoints;
pub mod error;
pub mod gpu_ops;
pub mod hta_frame;
pub mod idle;
pub mod intervals;
pub mod kernel_type;
pub mod kernels;
pub mod launch;
pub mod launches;
pub mod memory_bw;
pub mod names;
pub mod overlap;
pub mod overview;
pub mod params;
pub mod queue;
pub mod registry;
pub mod sequences;
pub mod series;
pub mod stats;
pub mod steps;
pub mod stragglers;
pub mod summary;
pub mod temporal;
pub mod units;
