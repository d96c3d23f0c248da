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

use kinetoscope::analysis::registry::{hta_plan, run_step, Context};

use crate::util;

/// Oracle file stems (before `__rank{r}`/variant suffixes) of the APIs implemented so far.
const IMPLEMENTED: &[&str] = &["temporal_breakdown", "frequent_cuda_kernel_sequences"];

/// Differences explained elsewhere: (set, file, reason).
const KNOWN: &[(&str, &str, &str)] = &[];

/// Relative tolerance of numeric cells.
const REL_TOL: f64 = 1e-9;

fn implemented(file: &str) -> bool {
    IMPLEMENTED.iter().any(|p| file == format!("{p}.csv") || file == format!("{p}.csv.gz") || file.starts_with(&format!("{p}__")))
}

#[test]
fn golden_hta_analyses_match_oracle() {
    let out = util::shared("hta-oracle/out");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display())).filter_map(|d| d.ok().map(|d| d.path())).filter(|p| p.is_dir()).collect();
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
    let mut files: Vec<String> = std::fs::read_dir(dir).expect("set dir").filter_map(|d| d.ok()?.file_name().into_string().ok()).filter(|f| implemented(f)).collect();
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
        if let Err(msg) = compare_csv(&oracle, mine.as_bytes()) {
            report(msg);
        }
        n += 1;
    }
    // a table HTA did not produce (its API failed or returned None) for an implemented API
    for name in ours.keys().filter(|k| implemented(k)) {
        if !files.iter().any(|f| f.trim_end_matches(".gz") == name) {
            problems.insert((set.clone(), name.clone()), "produced, but the oracle has no such file".into());
        }
    }
    n
}

/// Compares two CSVs cell by cell; `Err` describes the first differences.
fn compare_csv(oracle: &[u8], ours: &[u8]) -> Result<(), String> {
    let parse = |b: &[u8]| -> Vec<csv::StringRecord> { csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(b).records().map(|r| r.expect("csv")).collect() };
    let (o, u) = (parse(oracle), parse(ours));
    if o.first() != u.first() {
        return Err(format!("header: oracle {:?}, ours {:?}", o.first(), u.first()));
    }
    let mut diffs = Vec::new();
    let mut bad_rows = 0;
    for (i, (a, b)) in o.iter().zip(&u).enumerate().skip(1) {
        let cols: Vec<String> = a.iter().zip(b.iter()).enumerate().filter(|(_, (x, y))| !cell_eq(x, y)).map(|(c, (x, y))| format!("{}: {x:?} vs {y:?}", &o[0][c])).collect();
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
