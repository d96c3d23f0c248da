//! One integration-test binary (see STYLE.md A1). Each module says what it covers.

/// Paths to `testdata/` and `../shared`, comparison helpers, chunk-size sweeps.
mod util;

/// Kernels with their GPU user annotations on a hand-made trace.
mod analysis_annotated_kernels;
/// User-annotation breakdown on a hand-made trace.
mod analysis_annotations;
/// Analyses on hand-made traces in testdata/analysis/ (launch, aten_ops, steps, stragglers,
/// cupti): exact numbers, default mode and where `--hta` differs.
mod analysis_aten_ops;
/// Trace with counters: the counter table and the produced gzip trace read back (SPEC §2.8).
mod analysis_counters;
/// Critical path on hand-made traces (CPU-, GPU-, launch-, sync-bound, event wait, HIP, CUDA
/// graph): exact paths by hand, default mode and --hta; the overlay; bad input.
mod analysis_critical_path;
mod analysis_cupti;
/// LLM decode-step statistics and extract (kernel_extractor's stats/extract) on testdata/decode/.
mod analysis_decode;
/// Trace diff (HTA's TraceDiff and the ranked default) on testdata/diff/.
mod analysis_diff;
/// Idle time breakdown on a hand-made trace: default and --hta (SPEC §2.4, §5.8).
mod analysis_idle;
/// The Recorder I/O report (functions, ranks, files, sizes, access patterns, conflicts), against recorder2text's output and hand-made traces.
mod analysis_io;
/// Kernel breakdown on a hand-made trace (also the helpers of the analysis_* modules below).
mod analysis_kernels;
mod analysis_launch;
/// Memory bandwidth series and summary on a hand-made trace: default and --hta (SPEC §2.7).
mod analysis_memory_bw;
/// Communication/computation overlap on a hand-made trace.
mod analysis_overlap;
/// Performance patterns (serialized execution, launch overhead, memory-bound phases, long gaps):
/// hand-made Kineto traces and a rocprofv3 set, exact tables; every corpus trace runs.
mod analysis_patterns;
/// Queue length, summary, blocked time on a hand-made trace: default and --hta (SPEC §2.5, §2.6, §5.6).
mod analysis_queue;
/// rocprof's stats.csv, byte for byte rocprof's own on the shared runs; per GPU; what rocprof input lacks.
mod analysis_rocprof_stats;
/// Frequent kernel sequences and the call graph: hand-made traces, exact tables, overlaid trace.
mod analysis_sequences;
mod analysis_steps;
mod analysis_stragglers;
/// Where the time went (the Overview dashboard): exact tables and agreement with the analyses it summarises.
mod analysis_summary;
/// Temporal breakdown: hand-made trace, default and --hta.
mod analysis_temporal;
/// Transfers per direction and device, compute/copy overlap as unions: hand-made Kineto and rocprofv3 files.
mod analysis_transfers;
/// The real binary: exit codes, messages, --json shape.
mod cli;
/// Every analysis in HTA mode equals HTA's own output on the oracle sets.
mod golden_hta;
/// Loaded events equal HTA's parsed_trace oracle after HTA's filtering rules.
mod golden_hta_parse;
/// `analyze --partial` + `merge` write exactly what one `analyze` writes; the merge's refusals.
mod partial;
/// Call stacks from event nesting and the profile exports (folded, pprof, speedscope).
mod profile;
/// Reading in blocks parsed by other workers (the page) equals the one-pass read.
mod read_blocks;
/// Kineto / Chrome-trace reader: every real trace in ../shared, counted independently.
mod read_kineto;
/// Recorder HPC I/O traces: the shared folders equal recorder2text's output; hand-made folders per layout; damage.
mod read_recorder;
/// rocprof v1/v3 readers.
mod read_rocprof;
/// rocprofv3 JSON reader: hand-made results.json, exact rows, chunk sizes, damage.
mod read_rocprof_json;
/// Hand-made traces in testdata/: each variant and each kind of damage, exact values.
mod read_testdata;
