//! Analyses: pure functions from the model to typed results. Options default to HTA's defaults
//! where an HTA API exists; [`registry`] lists every analysis the CLI and the page offer.

pub mod annotated_kernels;
pub mod annotations;
pub mod common;
pub mod counters;
pub mod hta_frame;
pub mod kernels;
pub mod overlap;
pub mod idle;
pub mod memory_bw;
pub mod overview;
pub mod queue;
pub mod registry;
pub mod report;
pub mod series;
pub mod temporal;
