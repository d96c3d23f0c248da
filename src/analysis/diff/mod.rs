//! Trace diff: what changed between a control and a test run.
//!
//! * `--hta`: HTA's `TraceDiff` (`hta`, SPEC §3): per operator name, counts and total durations
//!   of the first iteration of one rank of each side.
//! * kinetoscope's comparison ([`report`]): a side is a set of ranks of one run (a file, a folder,
//!   or some ranks of a run against its other ranks), read like every other analysis (exact ns;
//!   the last, usually incomplete, step left out, SPEC §1.9). Per rank the values are **per
//!   step**: summed over the rank's complete `ProfilerStep#N` iterations (an event belongs to the
//!   iteration of the CPU call that launched it) and divided by their number; `--iteration N`
//!   takes that one step (`--test-iteration M`: step M on the test side); a rank without steps gives whole-trace totals. A side of several ranks
//!   takes, per key, the **median over its ranks** (a rank without the key counts 0), which is
//!   what "rank 3 against the others" needs.
//!
//! Tables (every one has a control and a test column per value and is ranked by the absolute
//! change of time, largest first):
//! * `diff_by_op`: operators by name (`--device cpu|gpu|all`, `--short-names`), calls and time;
//!   the steps themselves as one name, `ProfilerStep#*`;
//! * `diff_by_kernel`: GPU kernels, memcpy and memset by name (no synchronisation events);
//! * `diff_by_type`: the same by kernel type (COMPUTATION, COMMUNICATION, MEMORY);
//! * `diff_by_annotation`: user annotations (`record_function`; GPU-side copies as `NAME (GPU)`);
//! * `diff_steps`: the n-th step of each side: duration, GPU busy time, kernels;
//! * `diff_temporal`, `diff_overlap`: the temporal breakdown and communication/computation overlap
//!   per rank (per rank when both sides have the same ranks, else the medians);
//! * `diff_decode`: LLM decode-step statistics per operation (name, occurrence), when both sides
//!   have decode steps ([`super::decode`]);
//! * `diff_kernel_sequences`: CPU operators whose most frequent kernel sequence changed.
//!
//! Files: `side.rs` (a side and the scopes summed over), `changes.rs` (keyed comparisons),
//! `steps.rs` (step comparison), `options.rs` (the options and their checks), `analyses.rs` (other analyses compared side by side), `hta.rs`
//! (HTA's TraceDiff); this file holds the options and assembles the report.

mod analyses;
mod changes;
mod hta;
mod options;
mod side;
mod steps;

pub use changes::{changes, changes_table, Change};
pub use hta::{compare, hta_report, hta_summary, hta_tables, Device, LabeledTrace, OpChange, OpSummary};
pub use options::{choices, By, DiffOptions, OPTIONS};
pub use side::{other_ranks, side_frames, Side};

use super::api::AnalysisError;
use super::names::{middle_cut, plural};
use super::units::{ms_f64, us_f64};
use crate::table::Report;
use changes::grouped;
use steps::{mean_finite, rank_steps, side_steps, steps_table, StepValues};

/// `+1.2 ms` / `−40.0 µs`.
fn signed_time(ns: f64) -> String {
    if ns.abs() >= 1e6 {
        format!("{:+.2} ms", ms_f64(ns))
    } else {
        format!("{:+.1} µs", us_f64(ns))
    }
}

/// Longest operator name in a summary line (kernel names run to kilobytes; the tables have them whole).
pub(super) const SUMMARY_NAME: usize = 100;

/// The one-line summary: mean step time of each side (of the compared step with
/// `--iteration`) and the biggest gain and loss of `rows`.
fn summary(control: &Side<'_>, test: &Side<'_>, c: &[StepValues], t: &[StepValues], o: &DiffOptions, rows: &[Change], by: By) -> String {
    let step = |v: &[StepValues], it: Option<i64>| mean_finite(v.iter().filter(|s| it.is_none_or(|n| s.number == n)).map(|s| s.duration));
    let (ci, ti) = o.iterations();
    let (cs, ts) = (step(c, ci), step(t, ti));
    let mut line = if cs.is_finite() && ts.is_finite() {
        format!("step time {:.3} → {:.3} ms ({:+.1} %)", ms_f64(cs), ms_f64(ts), 100.0 * (ts - cs) / cs)
    } else {
        "no ProfilerStep on one side: whole traces compared".to_string()
    };
    line += &format!("; {} vs {}", control.describe(), test.describe());
    let what = if by == By::Op { "" } else { by.as_str() };
    let real = |r: &&Change| !r.key.starts_with("ProfilerStep");
    if let Some(g) = rows.iter().filter(real).filter(|r| r.diff_ns() < 0.0).min_by(|a, b| a.diff_ns().total_cmp(&b.diff_ns())) {
        line += &format!(
            "; biggest gain{}: {} {}",
            if what.is_empty() { String::new() } else { format!(" ({what})") },
            middle_cut(&g.key, SUMMARY_NAME),
            signed_time(g.diff_ns())
        );
    }
    if let Some(l) = rows.iter().filter(real).filter(|r| r.diff_ns() > 0.0).max_by(|a, b| a.diff_ns().total_cmp(&b.diff_ns())) {
        line += &format!(
            "; biggest loss{}: {} {}",
            if what.is_empty() { String::new() } else { format!(" ({what})") },
            middle_cut(&l.key, SUMMARY_NAME),
            signed_time(l.diff_ns())
        );
    }
    line
}

/// kinetoscope's comparison of two sides (module docs): the table and charts of `o.by` first,
/// then every other table; the summary line is the first note.
pub fn report(control: &Side<'_>, test: &Side<'_>, o: &DiffOptions) -> Result<Report, AnalysisError> {
    let (cl, tl) = (control.label.as_str(), test.label.as_str());
    let (c_steps, t_steps) = (side_steps(&rank_steps(control)?), side_steps(&rank_steps(test)?));
    let mut keyed = Vec::new();
    for by in [By::Op, By::Kernel, By::Type, By::Annotation] {
        keyed.push((by, changes(control, test, by, o)?));
    }
    let summary_by = if o.by == By::Step { By::Op } else { o.by };
    let main_rows = keyed.iter().find(|(b, _)| *b == summary_by).map(|(_, r)| r.as_slice()).unwrap_or_default();

    let mut report = Report::default();
    report.notes.push(summary(control, test, &c_steps, &t_steps, o, main_rows, summary_by));
    let per = match o.iterations() {
        (Some(c), Some(t)) if c == t => format!("step {c}"),
        (Some(c), Some(t)) => format!("step ({cl} {c}, {tl} {t})"),
        _ => "step".to_string(),
    };
    let has_steps = !c_steps.is_empty() && !t_steps.is_empty();
    report.notes.push(if has_steps {
        format!(
            "times and calls are per {per}: {cl} {} step{}, {tl} {} step{}{}",
            c_steps.len(),
            plural(c_steps.len()),
            t_steps.len(),
            plural(t_steps.len()),
            if o.iteration.is_some() { " (one compared)" } else { " averaged" }
        )
    } else {
        "a side has no complete ProfilerStep: times and calls are whole-trace totals".to_string()
    });
    let unit = if has_steps { format!("per {per}") } else { "whole trace".to_string() };

    let steps = steps_table(&c_steps, &t_steps, cl, tl);
    let mut tables = Vec::new();
    for (by, rows) in &keyed {
        let table = changes_table(rows, *by, cl, tl);
        if *by == o.by {
            let keys: Vec<String> = rows.iter().map(|r| r.key.clone()).collect();
            let time: Vec<(f64, f64)> = rows.iter().map(|r| (us_f64(r.control_ns), us_f64(r.test_ns))).collect();
            let calls: Vec<(f64, f64)> = rows.iter().map(|r| (r.control_count, r.test_count)).collect();
            report.charts.push(grouped(
                &format!("Time {unit} by {}: {cl} vs {tl}", by.as_str()),
                by.key_column(),
                "time (µs)",
                (cl, tl),
                &keys,
                &time,
            ));
            report.charts.push(grouped(
                &format!("Calls {unit} by {}: {cl} vs {tl}", by.as_str()),
                by.key_column(),
                "calls",
                (cl, tl),
                &keys,
                &calls,
            ));
            tables.insert(0, table);
        } else {
            tables.push(table);
        }
    }
    if o.by == By::Step {
        let n = c_steps.len().max(t_steps.len());
        let keys: Vec<String> = (1..=n).map(|k| k.to_string()).collect();
        let pairs: Vec<(f64, f64)> = (0..n)
            .map(|k| (c_steps.get(k).map_or(f64::NAN, |s| ms_f64(s.duration)), t_steps.get(k).map_or(f64::NAN, |s| ms_f64(s.duration))))
            .collect();
        report.charts.push(grouped(
            &format!("Step durations: {cl} vs {tl}"),
            "step (n-th of each side)",
            "duration (ms)",
            (cl, tl),
            &keys,
            &pairs,
        ));
        tables.insert(0, steps);
    } else {
        tables.push(steps);
    }
    analyses::add_tables(control, test, o, &mut tables, &mut report.notes);
    report.tables = tables;
    report.drop_uninformative_charts();
    Ok(report)
}
