//! Writing traces out: Chrome Trace Event Format JSON (opens in Perfetto and chrome://tracing).
//! Later: pprof, folded stacks, speedscope.

pub mod chrome;
pub mod gzip;
