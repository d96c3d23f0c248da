//! `kinetoscope analyze --hta` against HTA 0.5.0 itself: for every oracle set in
//! `../shared/hta-oracle/out/`, the set's traces are loaded, every step of
//! `registry::hta_plan` runs in HTA mode, and each table whose name is an oracle file of an
//! implemented API ([`IMPLEMENTED`]) is compared with that file: same header, same rows in the
//! same order; text cells exactly, numbers within 1e-9 relative (HTA sums µs floats, we sum
//! integer ns; the last bits can differ), empty = NaN.
//!
//! An oracle file of an implemented API that we do not produce is a failure, as is a produced
//! table whose oracle says the API failed (`error`/`none` in `_status.csv` have no file) unless
//! listed in [`HTA_FAILS_WE_ANSWER`]. Known, explained differences (tie order of quicksort) are in
//! [`KNOWN`]; a listed difference that no longer occurs fails the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kinetoscope::analysis::api::Context;
use kinetoscope::analysis::registry::{hta_plan, run_step};

use crate::util;

/// Oracle file stems (before `__rank{r}`/variant suffixes) of the APIs implemented so far.
const IMPLEMENTED: &[&str] = &[
    "temporal_breakdown",
    // kernels, overlap, annotations, annotated_kernels
    "gpu_kernel_breakdown",
    "gpu_kernel_breakdown_all",
    "comm_comp_overlap",
    "gpu_user_annotation_breakdown",
    "gpu_kernels_with_user_annotations",
    // idle time, queue length, memory bandwidth, trace with counters (SPEC §2.4–§2.8)
    "idle_time_breakdown",
    "idle_time_interval_stats",
    "queue_length_time_series",
    "queue_length_time_series_collapsed",
    "queue_length_summary",
    "time_blocked_on_full_queue",
    "memory_bw_time_series",
    "memory_bw_time_series_collapsed",
    "memory_bw_summary",
    "trace_with_counters",
    // launch, aten_ops, steps, stragglers, cupti (helper-c)
    "cuda_kernel_launch_stats",
    "aten_op_kernels_and_delay",
    "profiler_steps",
    "potential_stragglers",
    "cupti_counter_data_with_operators",
    // frequent CUDA kernel sequences
    "frequent_cuda_kernel_sequences",
    // critical path (run with the oracle's parameters, see [`critical_path`])
    "critical_path_breakdown",
    "critical_path_summary",
    "critical_path_graph_edges",
    "critical_path_overlay_flows",
];

/// The critical path (SPEC §2.17–§2.18) as the oracle ran it: its rank, annotation and instance
/// are in `_status.csv` (`critical_path_analysis(rank=0, annotation='…', instance_id=1)`); a set
/// without that line runs with the plan's defaults (first rank, `ProfilerStep` 0 if present).
mod critical_path {
    use std::path::Path;

    use kinetoscope::analysis::api::{Context, Params};
    use kinetoscope::analysis::queue::queue_points;
    use kinetoscope::table::Report;

    use super::cell_eq;

    /// Whether `_status.csv` lists the oracle's critical-path call (one set has its tables
    /// without it, and without the overlay's).
    pub fn oracle_ran(dir: &Path) -> bool {
        oracle_params(dir).is_some()
    }

    /// `(rank, annotation, instance)` of the oracle's call.
    fn oracle_params(dir: &Path) -> Option<(String, String, String)> {
        let status = std::fs::read_to_string(dir.join("_status.csv")).ok()?;
        let line = status.lines().find(|l| l.contains("critical_path_analysis("))?;
        let rank = line.split("rank=").nth(1)?.split(',').next()?.to_string();
        let annotation = line.split("annotation='").nth(1)?.split("', instance_id=").next()?.to_string();
        let instance = line.split("instance_id=").nth(1)?.split(')').next()?.to_string();
        Some((rank, annotation, if instance == "None" { "0".into() } else { instance }))
    }

    /// Our report with the oracle's parameters; `None` where the analysis fails (as HTA did).
    pub fn run(dir: &Path, ctx: &Context<'_>) -> Option<Report> {
        let a = &kinetoscope::analysis::critical_path::ANALYSIS;
        let given: Vec<(&str, String)> = match oracle_params(dir) {
            Some((rank, annotation, instance)) => vec![("rank", rank), ("annotation", annotation), ("instance", instance)],
            None => Vec::new(),
        };
        let params = Params::new(a.options, given.iter().map(|(k, v)| (*k, v.as_str()))).expect("options");
        a.report(ctx, &params).ok()
    }

    /// Our `critical_path_info.json` has every key of the oracle's with the same value, but
    /// `n_edges`, which may differ by the edges we have more at queue-length ties.
    pub fn compare_info(dir: &Path, report: &Report, edges_at_ties: i64) -> Result<(), String> {
        let Ok(text) = std::fs::read(dir.join("critical_path_info.json")) else { return Ok(()) };
        let oracle: serde_json::Value = serde_json::from_slice(&text).expect("oracle json");
        let ours = report.files.iter().find(|f| f.name == "critical_path_info.json").ok_or("no critical_path_info.json produced")?;
        let ours: serde_json::Value = serde_json::from_slice(&ours.bytes).expect("our json");
        let diffs: Vec<String> = oracle
            .as_object()
            .expect("object")
            .iter()
            .filter(|(k, v)| {
                let tie = *k == "n_edges" && v.as_i64().zip(ours[k.as_str()].as_i64()).is_some_and(|(a, b)| b - a == edges_at_ties);
                ours.get(k.as_str()) != Some(v) && !tie
            })
            .map(|(k, v)| format!("{k}: oracle {v}, ours {}", ours.get(k.as_str()).unwrap_or(&serde_json::Value::Null)))
            .collect();
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(diffs.join("; "))
        }
    }

    /// Every graph edge, as a multiset of rows. A difference is allowed only where HTA's
    /// quicksort decides (SPEC "Determinism and ties"): a GPU operation whose incoming edge is
    /// a launch delay in one and a kernel-kernel delay in the other, when its start or its
    /// launch's start ties with another queue-length point of its stream (the queue length at a
    /// tie decides between the two edges).
    /// Returns how many edges more we have than the oracle (at ties).
    pub fn compare_edges(oracle: &[u8], ours: &str, ctx: &Context<'_>) -> Result<i64, String> {
        let rows = |b: &[u8]| -> Vec<Vec<String>> {
            let mut v: Vec<Vec<String>> = csv::Reader::from_reader(b)
                .records()
                .map(|r| r.expect("csv").iter().map(|c| c.parse::<f64>().map_or(c.to_string(), |x| x.to_string())).collect())
                .collect();
            v.sort();
            v
        };
        let header = |b: &[u8]| csv::Reader::from_reader(b).headers().expect("header").clone();
        if header(oracle) != header(ours.as_bytes()) {
            return Err(format!("header: oracle {:?}, ours {:?}", header(oracle), header(ours.as_bytes())));
        }
        let (o, u) = (rows(oracle), rows(ours.as_bytes()));
        let only = |a: &[Vec<String>], b: &[Vec<String>]| -> Vec<Vec<String>> {
            let mut b = b.to_vec();
            a.iter()
                .filter(|r| match b.iter().position(|x| x == *r || x.iter().zip(r.iter()).all(|(p, q)| cell_eq(p, q))) {
                    Some(i) => {
                        b.swap_remove(i);
                        false
                    }
                    None => true,
                })
                .cloned()
                .collect()
        };
        let (lost, extra) = (only(&o, &u), only(&u, &o));
        if lost.is_empty() && extra.is_empty() {
            return Ok(0);
        }
        // (stream, ts) with more than one queue point, over the selected ranks
        let mut tied: std::collections::HashSet<(i64, i64)> = Default::default();
        let mut stream_ts_of_index: std::collections::HashMap<i64, (i64, i64)> = Default::default();
        assert!(ctx.hta, "the oracle's edges are HTA's");
        for &pos in &ctx.selected {
            let f = &ctx.frames().ranks[pos];
            let mut count: std::collections::HashMap<(i64, i64), usize> = Default::default();
            for p in queue_points(ctx, pos).unwrap_or_default() {
                *count.entry((p.stream, p.ts_ns)).or_default() += 1;
                stream_ts_of_index.insert(i64::from(f.index(&ctx.trace.ranks[pos], p.row())), (p.stream, p.ts_ns));
            }
            tied.extend(count.into_iter().filter(|c| c.1 > 1).map(|c| c.0));
        }
        let explained = |r: &Vec<String>| {
            let kind = r[6].as_str();
            let launch_or_gap = kind == "critical_path_kernel_launch_delay" || kind == "critical_path_kernel_kernel_delay";
            let at_tie =
                |idx: &str| idx.parse::<f64>().ok().and_then(|i| stream_ts_of_index.get(&(i as i64))).is_some_and(|k| tied.contains(k));
            launch_or_gap && r[7] != "0" && (at_tie(&r[3]) || at_tie(&r[0]))
        };
        let unexplained: Vec<String> = lost.iter().chain(&extra).filter(|r| !explained(r)).map(|r| r.join(",")).take(3).collect();
        if unexplained.is_empty() {
            println!("tie order: {} oracle edges and {} of ours differ at queue-length ties", lost.len(), extra.len());
            Ok(extra.len() as i64 - lost.len() as i64)
        } else {
            Err(format!("{} oracle edges not ours, {} ours not the oracle's; e.g. {}", lost.len(), extra.len(), unexplained.join(" | ")))
        }
    }
}

/// Differences explained elsewhere: (set, file, reason).
const KNOWN: &[(&str, &str, &str)] = &[];

/// Relative tolerance of numeric cells.
const REL_TOL: f64 = 1e-9;

fn implemented(file: &str) -> bool {
    IMPLEMENTED.iter().any(|p| file == format!("{p}.csv") || file == format!("{p}.csv.gz") || file.starts_with(&format!("{p}__")))
}

#[test]
fn golden_hta_analyses_match_oracle() {
    if util::skip_without_corpus() {
        return;
    }
    let out = util::shared("hta-oracle/out");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()))
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    let mut problems: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut compared = 0;
    for dir in &sets {
        compared += check_set(dir, &mut problems);
    }
    let mut unexplained = Vec::new();
    for ((set, file), msg) in &problems {
        let known = KNOWN.iter().find(|k| k.0 == set && k.1 == file);
        println!("DIFF {set}/{file}: {msg}{}", known.map(|k| format!("  [known: {}]", k.2)).unwrap_or_default());
        if known.is_none() {
            unexplained.push(format!("{set}/{file}: {msg}"));
        }
    }
    let stale: Vec<_> = KNOWN.iter().filter(|k| !problems.contains_key(&(k.0.to_string(), k.1.to_string()))).collect();
    println!("golden_hta: {compared} oracle files compared");
    assert!(compared >= 16, "only {compared} oracle files compared");
    assert!(unexplained.is_empty(), "analyses differ from HTA:\n{}", unexplained.join("\n"));
    assert!(stale.is_empty(), "KNOWN lists differences that no longer occur: {stale:?}");
}

/// Compares one set; returns the number of oracle files compared.
fn check_set(dir: &Path, problems: &mut BTreeMap<(String, String), String>) -> usize {
    let set = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let Some((trace, _, _)) = util::oracle_trace(dir) else { return 0 };
    let ctx = Context::new(&trace, true, None).expect("context");
    let mut ours: BTreeMap<String, String> = BTreeMap::new();
    for step in hta_plan(&ctx) {
        if let Ok(report) = run_step(&ctx, &step) {
            for t in report.tables {
                ours.insert(format!("{}.csv", t.name), t.to_csv());
            }
        }
    }
    // the critical path with the oracle's parameters instead of the plan's defaults
    ours.retain(|k, _| !k.starts_with("critical_path_"));
    let cp = critical_path::run(dir, &ctx);
    if let Some(report) = &cp {
        for t in &report.tables {
            ours.insert(format!("{}.csv", t.name), t.to_csv());
        }
    }
    let mut edges_at_ties = 0i64;
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("set dir")
        .filter_map(|d| d.ok()?.file_name().into_string().ok())
        .filter(|f| implemented(f))
        .collect();
    files.sort();
    let mut n = 0;
    for file in &files {
        let stem = file.trim_end_matches(".gz");
        let mut report = |msg: String| {
            problems.insert((set.clone(), stem.to_string()), msg);
        };
        let Some(mine) = ours.get(stem) else {
            report("we produce no such table".into());
            continue;
        };
        let oracle = util::gunzip_if_needed(util::bytes(&dir.join(file)));
        let result = if stem == "critical_path_graph_edges.csv" {
            critical_path::compare_edges(&oracle, mine, &ctx).map(|extra| edges_at_ties = extra)
        } else {
            tie_order::compare_file(stem, &oracle, mine, &ours, dir)
        };
        if let Err(msg) = result {
            report(msg);
        }
        n += 1;
    }
    if let Some(report) = &cp {
        if let Err(msg) = critical_path::compare_info(dir, report, edges_at_ties) {
            problems.insert((set.clone(), "critical_path_info.json".into()), msg);
        }
    }
    // a table HTA did not produce (its API failed or returned None) for an implemented API; the
    // oracle ran the critical path's overlay only where `_status.csv` lists the call
    let partial_cp = !critical_path::oracle_ran(dir);
    for name in ours.keys().filter(|k| implemented(k) && !tie_order::oracle_may_lack(k) && !(partial_cp && k.starts_with("critical_path_")))
    {
        if !files.iter().any(|f| f.trim_end_matches(".gz") == name) {
            problems.insert((set.clone(), name.clone()), "produced, but the oracle has no such file".into());
        }
    }
    n
}

/// Compares two CSVs cell by cell; `Err` describes the first differences.
fn compare_csv(oracle: &[u8], ours: &[u8]) -> Result<(), String> {
    let parse = |b: &[u8]| -> Vec<csv::StringRecord> {
        csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(b).records().map(|r| r.expect("csv")).collect()
    };
    let (o, u) = (parse(oracle), parse(ours));
    if o.first() != u.first() {
        return Err(format!("header: oracle {:?}, ours {:?}", o.first(), u.first()));
    }
    let mut diffs = Vec::new();
    let mut bad_rows = 0;
    for (i, (a, b)) in o.iter().zip(&u).enumerate().skip(1) {
        let cols: Vec<String> = a
            .iter()
            .zip(b.iter())
            .enumerate()
            .filter(|(_, (x, y))| !cell_eq(x, y))
            .map(|(c, (x, y))| format!("{}: {x:?} vs {y:?}", &o[0][c]))
            .collect();
        if !cols.is_empty() || a.len() != b.len() {
            bad_rows += 1;
            if diffs.len() < 3 {
                diffs.push(format!("row {i}: {}", cols.join(", ")));
            }
        }
    }
    if o.len() != u.len() {
        diffs.insert(0, format!("{} rows in oracle, {} in ours", o.len() - 1, u.len().saturating_sub(1)));
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!("{bad_rows} rows differ; {}", diffs.join("; ")))
    }
}

/// Text equal, or both numbers within [`REL_TOL`] (empty = NaN).
fn cell_eq(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let num = |s: &str| if s.is_empty() { Some(f64::NAN) } else { s.parse::<f64>().ok() };
    match (num(a), num(b)) {
        (Some(x), Some(y)) if x.is_nan() || y.is_nan() => x.is_nan() && y.is_nan(),
        (Some(x), Some(y)) => x == y || (x - y).abs() <= REL_TOL * x.abs().max(y.abs()),
        _ => false,
    }
}

/// Files whose row values depend on HTA's quicksort order at equal timestamps (SPEC
/// "Determinism and ties"): the queue-length and memory-bandwidth series, the counter events
/// made from them, and the `describe()` summaries of all their points. They are compared
/// without that order: every row (event index, time, stream, ...) must be the same, values must
/// agree outside groups of points at one timestamp, and a summary row may differ only if it is
/// `describe()` of the oracle's own series values while ours is `describe()` of ours.
mod tie_order {
    use std::collections::BTreeMap;
    use std::path::Path;

    use kinetoscope::analysis::stats::Describe;

    use super::{cell_eq, compare_csv};

    /// (file stem prefix, columns whose equal values form a tie group, value column).
    const SERIES: &[(&str, &[&str], &str)] = &[
        ("queue_length_time_series__", &["stream", "ts"], "queue_length"),
        ("memory_bw_time_series__", &["name", "ts"], "memory_bw_gbps"),
        ("trace_with_counters__", &["name", "counter", "pid", "id", "ts"], "value"),
    ];

    /// (summary file, series file prefix, key column, value column, only positive values).
    const SUMMARIES: &[(&str, &str, &str, &str, bool)] = &[
        ("queue_length_summary.csv", "queue_length_time_series__rank", "stream", "queue_length", false),
        ("memory_bw_summary.csv", "memory_bw_time_series__rank", "name", "memory_bw_gbps", true),
    ];

    /// The oracle wrote `*_collapsed__rank{r}` files for some sets only (not for trace_filter,
    /// trace_file_list, triton_example); producing one where it has none is not a difference.
    pub fn oracle_may_lack(name: &str) -> bool {
        name.contains("_collapsed__rank")
    }

    fn parse(b: &[u8]) -> Vec<csv::StringRecord> {
        csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(b).records().map(|r| r.expect("csv")).collect()
    }

    /// Compares one oracle file with our table: the order-independent way for the files above,
    /// else cell by cell. Float cumulative sums (memory bandwidth) may differ from HTA's by
    /// rounding residues after points taken in another order: values within 1e-9 of the file's
    /// largest value agree.
    pub fn compare_file(stem: &str, oracle: &[u8], ours: &str, all_ours: &BTreeMap<String, String>, dir: &Path) -> Result<(), String> {
        if let Some((_, group, value)) = SERIES.iter().find(|s| stem.starts_with(s.0)) {
            return compare_series(oracle, ours.as_bytes(), group, value);
        }
        if stem.starts_with("memory_bw_time_series_collapsed__") {
            return compare_series(oracle, ours.as_bytes(), &[], "memory_bw_gbps");
        }
        if let Some(&(_, series, key, value, positive)) = SUMMARIES.iter().find(|s| s.0 == stem) {
            return compare_summary(oracle, ours, all_ours, dir, series, key, value, positive);
        }
        compare_csv(oracle, ours.as_bytes())
    }

    fn col(header: &csv::StringRecord, name: &str) -> Result<usize, String> {
        header.iter().position(|h| h == name).ok_or_else(|| format!("no column {name}"))
    }

    /// Same header and rows; the `value` column compared only outside tie groups (rows with
    /// equal `group` columns; no grouping when `group` is empty), with an absolute tolerance of
    /// 1e-9 × the largest |value|.
    fn compare_series(oracle: &[u8], ours: &[u8], group: &[&str], value: &str) -> Result<(), String> {
        let (o, u) = (parse(oracle), parse(ours));
        if o.first() != u.first() {
            return Err(format!("header: oracle {:?}, ours {:?}", o.first(), u.first()));
        }
        if o.len() != u.len() {
            return Err(format!("{} rows in oracle, {} in ours", o.len().saturating_sub(1), u.len().saturating_sub(1)));
        }
        let Some(header) = o.first() else { return Ok(()) };
        let v = col(header, value)?;
        let g: Vec<usize> = group.iter().map(|c| col(header, c)).collect::<Result<_, _>>()?;
        let key = |r: &csv::StringRecord| g.iter().map(|&c| r[c].to_string()).collect::<Vec<_>>();
        let scale = o.iter().skip(1).filter_map(|r| r[v].parse::<f64>().ok()).fold(0.0f64, |m, x| m.max(x.abs()));
        let mut diffs = Vec::new();
        let (mut bad, mut tie_diffs) = (0, 0);
        for i in 1..o.len() {
            let tied = !g.is_empty() && ((i > 1 && key(&o[i - 1]) == key(&o[i])) || (i + 1 < o.len() && key(&o[i + 1]) == key(&o[i])));
            let mut cols: Vec<String> = Vec::new();
            for c in 0..header.len() {
                let (a, b) = (o[i].get(c).unwrap_or(""), u[i].get(c).unwrap_or(""));
                if c == v && tied && !cell_eq(a, b) {
                    tie_diffs += 1;
                }
                let same = if c == v {
                    tied || cell_eq(a, b)
                        || a.parse::<f64>().ok().zip(b.parse::<f64>().ok()).is_some_and(|(x, y)| (x - y).abs() <= 1e-9 * scale)
                } else {
                    cell_eq(a, b)
                };
                if !same {
                    cols.push(format!("{}: {a:?} vs {b:?}", &header[c]));
                }
            }
            if !cols.is_empty() {
                bad += 1;
                if diffs.len() < 3 {
                    diffs.push(format!("row {i}: {}", cols.join(", ")));
                }
            }
        }
        if tie_diffs > 0 {
            println!("tie order: {tie_diffs} of {} {value} values differ at equal timestamps", o.len() - 1);
        }
        if bad == 0 {
            Ok(())
        } else {
            Err(format!("{bad} rows differ (outside ties); {}", diffs.join("; ")))
        }
    }

    /// Values of `value` per (rank, key) in the series tables of every rank.
    fn series_values(files: &[(u32, Vec<u8>)], key: &str, value: &str, positive: bool) -> BTreeMap<(String, String), Vec<f64>> {
        let mut out: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
        for (rank, bytes) in files {
            let rows = parse(bytes);
            let Some(h) = rows.first() else { continue };
            let (Ok(k), Ok(v)) = (col(h, key), col(h, value)) else { continue };
            for r in rows.iter().skip(1) {
                let x: f64 = r[v].parse().unwrap_or(f64::NAN);
                if !positive || x > 0.0 {
                    out.entry((rank.to_string(), r[k].to_string())).or_default().push(x);
                }
            }
        }
        out
    }

    /// Whether `row` (rank, key, 8 describe columns) is `describe()` of `values`.
    fn is_describe_of(row: &csv::StringRecord, values: Option<&Vec<f64>>) -> bool {
        let d = Describe::of(values.map(Vec::as_slice).unwrap_or_default()).values();
        row.len() == 10 && d.iter().enumerate().all(|(k, x)| cell_eq(&row[k + 2], &kinetoscope::table::python_float_repr(*x)))
    }

    #[allow(clippy::too_many_arguments)]
    fn compare_summary(
        oracle: &[u8],
        ours: &str,
        all_ours: &BTreeMap<String, String>,
        dir: &Path,
        series: &str,
        key: &str,
        value: &str,
        positive: bool,
    ) -> Result<(), String> {
        let (o, u) = (parse(oracle), parse(ours.as_bytes()));
        if o.first() != u.first() || o.len() != u.len() {
            return compare_csv(oracle, ours.as_bytes());
        }
        let rank_of = |name: &str| {
            name.strip_prefix(series).and_then(|r| r.trim_end_matches(".gz").strip_suffix(".csv")).and_then(|r| r.parse::<u32>().ok())
        };
        let mut oracle_files = Vec::new();
        for e in std::fs::read_dir(dir).expect("set dir").flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(rank) = rank_of(&name) {
                oracle_files.push((rank, crate::util::gunzip_if_needed(crate::util::bytes(&e.path()))));
            }
        }
        let our_files: Vec<(u32, Vec<u8>)> = all_ours.iter().filter_map(|(n, t)| rank_of(n).map(|r| (r, t.clone().into_bytes()))).collect();
        let (ov, uv) = (series_values(&oracle_files, key, value, positive), series_values(&our_files, key, value, positive));
        let mut diffs = Vec::new();
        for i in 1..o.len() {
            if o[i].len() == u[i].len() && o[i].iter().zip(u[i].iter()).all(|(a, b)| cell_eq(a, b)) {
                continue;
            }
            let k = (o[i][0].to_string(), o[i][1].to_string());
            if (&o[i][0], &o[i][1]) != (&u[i][0], &u[i][1]) || !is_describe_of(&o[i], ov.get(&k)) || !is_describe_of(&u[i], uv.get(&k)) {
                diffs.push(format!("row {i} ({}, {}) is not describe() of the series values", k.0, k.1));
            } else {
                println!("tie order: summary row ({}, {}) differs, each side describes its own series", k.0, k.1);
            }
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(diffs.join("; "))
        }
    }
}

/// TraceDiff (SPEC §3) against `out/trace_diff__control_vs_test/`: labels `control`/`test`, the
/// first rank and first iteration of each side, every device selection, names and short names.
#[test]
fn golden_trace_diff_matches_oracle() {
    if util::skip_without_corpus() {
        return;
    }
    use kinetoscope::analysis::diff::{hta_tables, LabeledTrace};
    let read = |rel: &str| {
        let p = util::shared(&format!("traces/hta/trace_diff/{rel}"));
        kinetoscope::read::read_all(&[(rel, &util::bytes(&p)[..])]).expect("read")
    };
    let (c, t) = (read("control/control.json.gz"), read("test/test.json.gz"));
    let (c, t) =
        (LabeledTrace::new("control", &c, None, false).expect("control"), LabeledTrace::new("test", &t, None, false).expect("test"));
    let dir = util::shared("hta-oracle/out/trace_diff__control_vs_test");
    let tables = hta_tables(&c, &t, (None, None));
    let mut checked = 0;
    let mut problems = Vec::new();
    for f in std::fs::read_dir(&dir).expect("oracle dir").filter_map(|d| d.ok()) {
        let name = f.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".csv").filter(|s| !s.starts_with('_')) else { continue };
        match tables.iter().find(|t| t.name == stem) {
            None => problems.push(format!("{stem}: not produced")),
            Some(t) => {
                if let Err(e) = compare_csv(&util::bytes(&f.path()), t.to_csv().as_bytes()) {
                    problems.push(format!("{stem}: {e}"));
                }
                checked += 1;
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(checked, 13, "oracle files compared");
    assert_eq!(tables.len(), 13, "every table we produce has an oracle file");
}

/// `kinetoscope diff CONTROL TEST --hta --out DIR` writes the oracle's 13 TraceDiff files byte for
/// byte.
#[test]
fn diff_command_writes_the_oracle_files() {
    if util::skip_without_corpus() {
        return;
    }
    let t = util::shared("traces/hta/trace_diff");
    let dir = std::env::temp_dir().join(format!("kinetoscope-diff-{}", std::process::id()));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kinetoscope"))
        .arg("diff")
        .arg(t.join("control/control.json.gz"))
        .arg(t.join("test/test.json.gz"))
        .args(["--hta", "--csv", "--out"])
        .arg(&dir)
        .output()
        .expect("run kinetoscope");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr).starts_with("step time 75.473 → 100.298 ms (+32.9 %;"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let oracle = util::shared("hta-oracle/out/trace_diff__control_vs_test");
    let mut n = 0;
    for f in std::fs::read_dir(&dir).expect("out dir").filter_map(|d| d.ok()) {
        let ours = std::fs::read(f.path()).expect("ours");
        assert!(ours == util::bytes(&oracle.join(f.file_name())), "{:?} differs from the oracle", f.file_name());
        n += 1;
    }
    assert_eq!(n, 13);
}
