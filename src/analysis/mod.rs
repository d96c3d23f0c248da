//! Analyses: pure functions from the model to typed results. Options default to HTA's defaults
//! where an HTA API exists; [`registry`] lists every analysis the CLI and the page offer.

pub mod call_graph;
pub mod common;
pub mod hta_frame;
pub mod overview;
pub mod registry;
pub mod report;
pub mod sequences;
pub mod temporal;
