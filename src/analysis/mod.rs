//! Analyses: pure functions from the model to typed results. Options structs default to HTA's
//! defaults where an HTA API exists.

pub mod hta_frame;
pub mod overview;
