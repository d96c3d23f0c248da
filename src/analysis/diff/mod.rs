//! Trace diff: what changed between a control and a test run.
//!
//! * `--hta`: HTA's `TraceDiff` ([`hta`], SPEC §3): per operator name, counts and total durations
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

mod hta;
mod more;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

pub use hta::{compare, hta_report, hta_summary, hta_tables, Device, LabeledTrace, OpChange, OpSummary};

use super::api::{fail, select_ranks, AnalysisError, Context};
use super::decode::DecodeOptions;
use super::hta_frame::{hta_frames, hta_step_number, HtaFrame, HtaFrameOptions, HtaFrames};
use super::intervals::{covered, merge_intervals};
use super::kernel_type::{gpu_rows, kernel_type};
use super::names::{plural, shorten_name};
use super::stats::np_round;
use super::units::{ms_f64, us_f64};
use crate::model::{Kind, RankTrace, StrId, Trace};
use crate::table::{Chart, Report, Series};
use crate::table::{Table, Unit, Values};

/// What the main comparison is by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// Operators (every event of the selected device) by name.
    Op,
    /// GPU kernels, memcpy, memset by name.
    Kernel,
    /// GPU work by kernel type.
    Type,
    /// Profiler steps, the n-th against the n-th.
    Step,
    /// User annotations by name.
    Annotation,
}

impl By {
    /// Every choice, in the order of the tables.
    pub const ALL: [By; 5] = [By::Op, By::Kernel, By::Type, By::Step, By::Annotation];

    /// `op`, `kernel`, `type`, `step`, `annotation`.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Op => "op",
            By::Kernel => "kernel",
            By::Type => "type",
            By::Step => "step",
            By::Annotation => "annotation",
        }
    }

    /// The choice spelled `s`.
    pub fn parse(s: &str) -> Option<By> {
        By::ALL.into_iter().find(|b| b.as_str() == s.trim())
    }

    /// Heading of the key column.
    fn key_column(self) -> &'static str {
        match self {
            By::Type => "kernel_type",
            By::Annotation => "annotation",
            By::Step => "step",
            By::Op | By::Kernel => "name",
        }
    }
}

/// Options of [`report`].
#[derive(Debug, Clone, PartialEq)]
pub struct DiffOptions {
    /// The main comparison (first table, charted).
    pub by: By,
    /// Rows `diff_by_op` counts.
    pub device: Device,
    /// Compare operator and kernel names shortened (§1.12).
    pub short_names: bool,
    /// Compare this step only (`None`: the average over every complete step).
    pub iteration: Option<i64>,
    /// The test side's step when it differs from `iteration` (HTA's `test_iteration`).
    pub test_iteration: Option<i64>,
    /// How decode steps are found for `diff_decode`.
    pub decode: DecodeOptions,
}

impl DiffOptions {
    /// The steps compared on the control and on the test side.
    fn iterations(&self) -> (Option<i64>, Option<i64>) {
        (self.iteration, self.test_iteration.or(self.iteration))
    }
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            by: By::Op,
            device: Device::All,
            short_names: false,
            iteration: None,
            test_iteration: None,
            decode: DecodeOptions::default(),
        }
    }
}

/// One side of a comparison: some ranks of one run.
pub struct Side<'a> {
    /// `control`, `test`, or the user's label.
    pub label: String,
    /// The run and its selected ranks (exact frames, built on first use).
    pub ctx: Context<'a>,
    /// Step numbers of each selected rank (`step_numbers`), found on first use.
    steps: std::cell::OnceCell<Vec<Vec<i64>>>,
}

impl<'a> Side<'a> {
    /// Ranks `ranks` of `trace` (`None`: all of them). A rank the run lacks is an error.
    pub fn new(label: &str, trace: &'a Trace, ranks: Option<&[i64]>) -> Result<Side<'a>, AnalysisError> {
        let ctx = Context::new(trace, false, ranks).map_err(|e| AnalysisError(format!("{label}: {e}")))?;
        if ctx.selected.is_empty() {
            return fail(format!("{label}: the trace has no ranks"));
        }
        Ok(Side { label: label.to_string(), ctx, steps: Default::default() })
    }

    /// The same over frames already built with [`side_frames`] (the CLI builds them while it
    /// reads the other run).
    pub fn with_frames(label: &str, trace: &'a Trace, ranks: Option<&[i64]>, frames: HtaFrames) -> Result<Side<'a>, AnalysisError> {
        let selected = select_ranks(trace, ranks).map_err(|e| AnalysisError(format!("{label}: {e}")))?;
        if selected.is_empty() {
            return fail(format!("{label}: the trace has no ranks"));
        }
        Ok(Side { label: label.to_string(), ctx: Context::with_frames(trace, Some(frames), false, selected), steps: Default::default() })
    }

    /// Step numbers of each selected rank, in rank order.
    fn steps(&self) -> &[Vec<i64>] {
        self.steps.get_or_init(|| self.ctx.ranks().map(|(f, r)| step_numbers(f, r)).collect())
    }

    /// Rank numbers of the side.
    pub fn ranks(&self) -> Vec<u32> {
        self.ctx.selected.iter().map(|&p| self.ctx.trace.ranks[p].rank).collect()
    }

    /// `control (rank 3)`, `test (8 ranks, median)`.
    pub fn describe(&self) -> String {
        match self.ranks().as_slice() {
            [r] => format!("{} (rank {r})", self.label),
            rs => format!("{} ({} ranks, median)", self.label, rs.len()),
        }
    }
}

/// With one run on both sides, the control side by default: every rank of `trace` not in
/// `test_ranks` (an error when none is left).
pub fn other_ranks(trace: &Trace, test_ranks: &[i64]) -> Result<Vec<i64>, AnalysisError> {
    let others: Vec<i64> = trace.ranks.iter().map(|r| i64::from(r.rank)).filter(|r| !test_ranks.contains(r)).collect();
    if others.is_empty() {
        return fail("the test ranks take every rank of the trace; nothing is left to compare with");
    }
    Ok(others)
}

/// The frames a side reads: every rank, exact times (what [`Side::new`] builds on first use).
pub fn side_frames(trace: &Trace) -> HtaFrames {
    hta_frames(trace, &HtaFrameOptions { exact: true, ..Default::default() })
}

/// What one rank contributes: its frame rows in scope and the divisor that makes them per step.
struct Scope<'f> {
    f: &'f HtaFrame,
    r: &'f RankTrace,
    /// Step numbers in scope, ascending (empty: the rank has no steps; all rows count).
    steps: Vec<i64>,
    /// Number of steps the sums are divided by (1 without steps or with `--iteration`).
    per: f64,
}

impl Scope<'_> {
    fn keeps(&self, i: usize) -> bool {
        self.steps.is_empty() || self.f.iteration[i].is_some_and(|n| self.steps.binary_search(&n).is_ok())
    }

    fn kind(&self, i: usize) -> Kind {
        self.r.events.kind[self.f.row[i] as usize]
    }
}

/// Step numbers of a frame's `ProfilerStep#N` rows, ascending, once each.
fn step_numbers(f: &HtaFrame, r: &RankTrace) -> Vec<i64> {
    let mut s: Vec<i64> = f.name.iter().filter_map(|&n| hta_step_number(r.strings.get(n))).filter(|&n| n >= 0).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// Whether some rank of `side` has a complete step.
fn has_steps(side: &Side<'_>) -> bool {
    side.steps().iter().any(|s| !s.is_empty())
}

/// The scope of every rank of `side` (module docs); `per_step` false: whole traces (when one side
/// has no steps, neither side is divided by its steps).
fn scopes<'s>(side: &'s Side<'_>, iteration: Option<i64>, per_step: bool) -> Result<Vec<Scope<'s>>, AnalysisError> {
    let mut out = Vec::new();
    for ((f, r), all) in side.ctx.ranks().zip(side.steps()) {
        let steps = match iteration {
            None if !per_step => Vec::new(),
            Some(n) if all.contains(&n) => vec![n],
            Some(n) => {
                let have: Vec<String> = all.iter().map(i64::to_string).collect();
                return fail(format!(
                    "{}: rank {} has no complete step {n} (steps: {})",
                    side.label,
                    f.rank,
                    if have.is_empty() { "none".into() } else { have.join(", ") }
                ));
            }
            None => all.clone(),
        };
        let per = if iteration.is_some() { 1.0 } else { steps.len().max(1) as f64 };
        out.push(Scope { f, r, steps, per });
    }
    Ok(out)
}

/// What row `i` is counted under in a comparison by `by` (`None`: not counted): its name id
/// and a class that, with the name, makes the key ([`key_text`]). Rows are grouped by this pair
/// first, so the texts are made once per distinct pair, not once per row.
fn key(s: &Scope<'_>, i: usize, by: By, o: &DiffOptions) -> Option<(StrId, KeyClass)> {
    let (id, kind) = (s.f.name[i], s.kind(i));
    let gpu = s.f.stream[i] != -1 && kind != Kind::CudaSync;
    match by {
        By::Op => {
            let keep = match o.device {
                Device::All => true,
                Device::Cpu => s.f.stream[i] == -1,
                Device::Gpu => s.f.stream[i] != -1,
            };
            keep.then_some((id, KeyClass::Name))
        }
        By::Kernel => gpu.then_some((id, KeyClass::Name)),
        By::Type => gpu.then_some((id, KeyClass::Type(kind))),
        By::Annotation => match kind {
            Kind::UserAnnotation => Some((id, KeyClass::Annotation)),
            Kind::GpuUserAnnotation => Some((id, KeyClass::GpuAnnotation)),
            _ => None,
        },
        By::Step => None,
    }
}

/// How a name id becomes a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum KeyClass {
    /// The name (shortened with `--short-names`); every `ProfilerStep#N` is `ProfilerStep#*`.
    Name,
    /// The kernel type of a GPU event of this kind.
    Type(Kind),
    /// A user annotation (steps are not annotations here).
    Annotation,
    /// Its GPU-side copy: `NAME (GPU)`.
    GpuAnnotation,
}

/// The key of `(name, class)` (`None`: not counted after all).
fn key_text(name: &str, class: KeyClass, o: &DiffOptions) -> Option<String> {
    let step = name.starts_with("ProfilerStep#");
    match class {
        KeyClass::Name if step => Some("ProfilerStep#*".to_string()),
        KeyClass::Name if o.short_names => Some(shorten_name(name)),
        KeyClass::Name => Some(name.to_string()),
        KeyClass::Type(kind) => Some(kernel_type(name, kind, false).as_str().to_string()),
        KeyClass::Annotation | KeyClass::GpuAnnotation if step => None,
        KeyClass::Annotation => Some(name.to_string()),
        KeyClass::GpuAnnotation => Some(format!("{name} (GPU)")),
    }
}

/// Per key: calls and time (ns) per step, of one side (medians over its ranks).
fn side_values(
    side: &Side<'_>,
    by: By,
    o: &DiffOptions,
    iteration: Option<i64>,
    per_step: bool,
) -> Result<BTreeMap<String, (f64, f64)>, AnalysisError> {
    let scopes = scopes(side, iteration, per_step)?;
    let mut per_rank: Vec<BTreeMap<String, (f64, f64)>> = Vec::new();
    for s in &scopes {
        let mut by_id: FxHashMap<(StrId, KeyClass), (i64, i64)> = FxHashMap::default();
        for i in 0..s.f.len() {
            if !s.keeps(i) {
                continue;
            }
            if let Some(k) = key(s, i, by, o) {
                let v = by_id.entry(k).or_default();
                v.0 += 1;
                v.1 += s.f.dur_ns[i];
            }
        }
        let mut m: BTreeMap<String, (f64, f64)> = BTreeMap::new();
        for ((id, class), (n, ns)) in by_id {
            if let Some(k) = key_text(s.r.strings.get(id), class, o) {
                let v = m.entry(k).or_default();
                v.0 += n as f64 / s.per;
                v.1 += ns as f64 / s.per;
            }
        }
        per_rank.push(m);
    }
    Ok(median_by_key(&per_rank))
}

/// Per key, the median over the maps of each value (a map without the key counts 0).
fn median_by_key(maps: &[BTreeMap<String, (f64, f64)>]) -> BTreeMap<String, (f64, f64)> {
    if let [one] = maps {
        return one.clone();
    }
    let mut keys: Vec<&String> = maps.iter().flat_map(|m| m.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let v: Vec<(f64, f64)> = maps.iter().map(|m| m.get(k).copied().unwrap_or_default()).collect();
            (k.clone(), (median(v.iter().map(|x| x.0).collect()), median(v.iter().map(|x| x.1).collect())))
        })
        .collect()
}

/// Median of `v` (mean of the middle two for an even count; NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// One key of a comparison: calls and time (ns) per step on each side.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Name, kernel type or annotation.
    pub key: String,
    /// Control calls.
    pub control_count: f64,
    /// Control time, ns.
    pub control_ns: f64,
    /// Test calls.
    pub test_count: f64,
    /// Test time, ns.
    pub test_ns: f64,
}

impl Change {
    /// test − control, ns.
    pub fn diff_ns(&self) -> f64 {
        self.test_ns - self.control_ns
    }

    /// Relative change of time, % rounded to 0.01 (NaN when control is 0).
    pub fn pct(&self) -> f64 {
        if self.control_ns > 0.0 {
            np_round(100.0 * self.diff_ns() / self.control_ns, 2)
        } else {
            f64::NAN
        }
    }

    /// `ops_diff`'s class by calls: added, deleted, increased, decreased, unchanged.
    pub fn class(&self) -> &'static str {
        let (c, t) = (self.control_count, self.test_count);
        if c == 0.0 {
            "added"
        } else if t == 0.0 {
            "deleted"
        } else if t > c {
            "increased"
        } else if t < c {
            "decreased"
        } else {
            "unchanged"
        }
    }
}

/// The comparison by `by` (not [`By::Step`]): every key of either side, ranked by the absolute
/// change of time (largest first, then by key).
pub fn changes(control: &Side<'_>, test: &Side<'_>, by: By, o: &DiffOptions) -> Result<Vec<Change>, AnalysisError> {
    let (ci, ti) = o.iterations();
    let per_step = has_steps(control) && has_steps(test);
    let (c, t) = (side_values(control, by, o, ci, per_step)?, side_values(test, by, o, ti, per_step)?);
    let mut keys: Vec<&String> = c.keys().chain(t.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut rows: Vec<Change> = keys
        .into_iter()
        .map(|k| {
            let (cc, cn) = c.get(k).copied().unwrap_or_default();
            let (tc, tn) = t.get(k).copied().unwrap_or_default();
            Change { key: k.clone(), control_count: cc, control_ns: cn, test_count: tc, test_ns: tn }
        })
        .collect();
    rows.sort_by(|a, b| b.diff_ns().abs().total_cmp(&a.diff_ns().abs()));
    Ok(rows)
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

/// Table `diff_by_<by>` of [`changes`].
pub fn changes_table(rows: &[Change], by: By, control: &str, test: &str) -> Table {
    let f = |g: &dyn Fn(&Change) -> f64| Values::Float(rows.iter().map(g).collect());
    Table::new(&format!("diff_by_{}", by.as_str()))
        .with(by.key_column(), Unit::None, Values::Str(rows.iter().map(|r| r.key.clone()).collect()))
        .with(&format!("{control}_time_us"), Unit::Us, f(&|r| us_f64(r.control_ns)))
        .with(&format!("{test}_time_us"), Unit::Us, f(&|r| us_f64(r.test_ns)))
        .with("diff_time_us", Unit::Us, f(&|r| us_f64(r.diff_ns())))
        .with("change_pct", Unit::Percent, f(&Change::pct))
        .with(&format!("{control}_count"), Unit::Count, f(&|r| r.control_count))
        .with(&format!("{test}_count"), Unit::Count, f(&|r| r.test_count))
        .with(&format!("{control}_mean_us"), Unit::Us, f(&|r| us_f64(ratio(r.control_ns, r.control_count))))
        .with(&format!("{test}_mean_us"), Unit::Us, f(&|r| us_f64(ratio(r.test_ns, r.test_count))))
        .with("change", Unit::None, Values::Str(rows.iter().map(|r| r.class().to_string()).collect()))
}

/// Grouped bars (control, test, difference) of the `MAX` first rows.
fn grouped(title: &str, x_label: &str, y_label: &str, labels: (&str, &str), keys: &[String], pairs: &[(f64, f64)]) -> Chart {
    const MAX: usize = 20;
    let n = keys.len().min(MAX);
    let s = |name: &str, g: &dyn Fn(&(f64, f64)) -> f64| Series { name: name.to_string(), values: pairs[..n].iter().map(g).collect() };
    Chart::GroupedBars {
        title: title.to_string(),
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        categories: keys[..n].to_vec(),
        series: vec![s(labels.0, &|p| p.0), s(labels.1, &|p| p.1), s("difference", &|p| p.1 - p.0)],
    }
}

/// One step of one rank: number, duration, GPU busy time (ns) and kernels.
#[derive(Debug, Clone, Copy, Default)]
struct StepValues {
    number: i64,
    duration: f64,
    busy: f64,
    kernels: f64,
}

/// The steps of every rank of a side, in order.
fn rank_steps(side: &Side<'_>) -> Result<Vec<Vec<StepValues>>, AnalysisError> {
    let mut out = Vec::new();
    for s in scopes(side, None, true)? {
        let (f, r) = (s.f, s.r);
        // one pass: each step's CPU-side row and the GPU work of each iteration
        let mut dur: FxHashMap<i64, i64> = FxHashMap::default();
        for i in (0..f.len()).filter(|&i| f.stream[i] == -1) {
            if let Some(n) = hta_step_number(r.strings.get(f.name[i])) {
                dur.entry(n).or_insert(f.dur_ns[i]);
            }
        }
        let mut work: FxHashMap<i64, Vec<(i64, i64)>> = FxHashMap::default();
        for i in gpu_rows(f, r, false) {
            if let Some(n) = f.iteration[i] {
                work.entry(n).or_default().push((f.ts_ns[i], f.ts_ns[i] + f.dur_ns[i]));
            }
        }
        let steps = s
            .steps
            .iter()
            .map(|&n| {
                let iv = work.remove(&n).unwrap_or_default();
                let kernels = iv.len() as f64;
                StepValues {
                    number: n,
                    duration: dur.get(&n).map_or(f64::NAN, |&d| d as f64),
                    busy: covered(&merge_intervals(iv)) as f64,
                    kernels,
                }
            })
            .collect();
        out.push(steps);
    }
    Ok(out)
}

/// Per step position (0-based): the first rank's step number and the medians over the ranks
/// that have that many steps.
fn side_steps(ranks: &[Vec<StepValues>]) -> Vec<StepValues> {
    let n = ranks.iter().map(Vec::len).max().unwrap_or(0);
    (0..n)
        .map(|k| {
            let have: Vec<&StepValues> = ranks.iter().filter_map(|r| r.get(k)).collect();
            let med = |g: &dyn Fn(&StepValues) -> f64| median(have.iter().map(|s| g(s)).collect());
            StepValues { number: have[0].number, duration: med(&|s| s.duration), busy: med(&|s| s.busy), kernels: med(&|s| s.kernels) }
        })
        .collect()
}

/// Table `diff_steps`: the n-th step of each side against each other.
fn steps_table(c: &[StepValues], t: &[StepValues], control: &str, test: &str) -> Table {
    let n = c.len().max(t.len());
    let col = |v: &[StepValues], g: &dyn Fn(&StepValues) -> f64| Values::Float((0..n).map(|k| v.get(k).map_or(f64::NAN, g)).collect());
    let num =
        |v: &[StepValues]| Values::Str((0..n).map(|k| v.get(k).map_or(String::new(), |s| format!("ProfilerStep#{}", s.number))).collect());
    let diff: Vec<f64> = (0..n).map(|k| t.get(k).map_or(f64::NAN, |s| s.duration) - c.get(k).map_or(f64::NAN, |s| s.duration)).collect();
    let pct: Vec<f64> = (0..n).map(|k| np_round(100.0 * diff[k] / c.get(k).map_or(f64::NAN, |s| s.duration), 2)).collect();
    let change: Vec<String> = (0..n)
        .map(|k| match (c.get(k), t.get(k)) {
            (None, Some(_)) => "added".into(),
            (Some(_), None) => "deleted".into(),
            _ => String::new(),
        })
        .collect();
    Table::new("diff_steps")
        .with("step", Unit::Count, Values::Int((1..=n as i64).collect()))
        .with(&format!("{control}_step"), Unit::None, num(c))
        .with(&format!("{test}_step"), Unit::None, num(t))
        .with(&format!("{control}_duration_us"), Unit::Us, col(c, &|s| us_f64(s.duration)))
        .with(&format!("{test}_duration_us"), Unit::Us, col(t, &|s| us_f64(s.duration)))
        .with("diff_duration_us", Unit::Us, Values::Float(diff.iter().map(|&d| us_f64(d)).collect()))
        .with("change_pct", Unit::Percent, Values::Float(pct))
        .with(&format!("{control}_gpu_busy_us"), Unit::Us, col(c, &|s| us_f64(s.busy)))
        .with(&format!("{test}_gpu_busy_us"), Unit::Us, col(t, &|s| us_f64(s.busy)))
        .with(&format!("{control}_kernels"), Unit::Count, col(c, &|s| s.kernels))
        .with(&format!("{test}_kernels"), Unit::Count, col(t, &|s| s.kernels))
        .with("change", Unit::None, Values::Str(change))
}

/// Mean of the finite values (NaN when none).
fn mean_finite(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// `+1.2 ms` / `−40.0 µs`.
fn signed_time(ns: f64) -> String {
    if ns.abs() >= 1e6 {
        format!("{:+.2} ms", ms_f64(ns))
    } else {
        format!("{:+.1} µs", us_f64(ns))
    }
}

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
            g.key,
            signed_time(g.diff_ns())
        );
    }
    if let Some(l) = rows.iter().filter(real).filter(|r| r.diff_ns() > 0.0).max_by(|a, b| a.diff_ns().total_cmp(&b.diff_ns())) {
        line += &format!(
            "; biggest loss{}: {} {}",
            if what.is_empty() { String::new() } else { format!(" ({what})") },
            l.key,
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
    more::add_tables(control, test, o, &mut tables, &mut report.notes);
    report.tables = tables;
    Ok(report)
}
