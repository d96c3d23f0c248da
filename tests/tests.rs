//! One integration-test binary (see STYLE.md A1). Each module says what it covers.

/// Paths to `testdata/` and `../shared`, comparison helpers, chunk-size sweeps.
mod util;

/// Kineto / Chrome-trace reader: every real trace in ../shared, counted independently.
mod read_kineto;
/// Hand-made traces in testdata/: each variant and each kind of damage, exact values.
mod read_testdata;
/// rocprof v1/v3 readers.
mod read_rocprof;
/// rocprofv3 JSON reader: hand-made results.json, exact rows, chunk sizes, damage.
mod read_rocprof_json;
/// Loaded events equal HTA's parsed_trace oracle after HTA's filtering rules.
mod golden_hta_parse;
/// Temporal breakdown: hand-made trace, default and --hta.
mod analysis_temporal;
/// Every analysis in HTA mode equals HTA's own output on the oracle sets.
mod golden_hta;
/// The real binary: exit codes, messages, --json shape.
mod cli;
