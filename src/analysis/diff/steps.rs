//! The step comparison: the n-th step of each side (duration, GPU busy time, kernels), per rank and
//! as a side's median.

use rustc_hash::FxHashMap;

use super::side::{scopes, Side};
use crate::analysis::api::AnalysisError;
use crate::analysis::hta_frame::hta_step_number;
use crate::analysis::intervals::{covered, merge_intervals};
use crate::analysis::kernel_type::gpu_rows;
use crate::analysis::stats::median;
use crate::analysis::stats::np_round;
use crate::analysis::units::us_f64;
use crate::table::{Table, Unit, Values};

/// One step of one rank: number, duration, GPU busy time (ns) and kernels.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StepValues {
    pub(super) number: i64,
    pub(super) duration: f64,
    pub(super) busy: f64,
    pub(super) kernels: f64,
}

/// The steps of every rank of a side, in order.
pub(super) fn rank_steps(side: &Side<'_>) -> Result<Vec<Vec<StepValues>>, AnalysisError> {
    let mut out = Vec::new();
    for s in scopes(side, None, true)? {
        let (f, r) = (s.f, s.r);
        // one pass: each step's CPU-side row and the GPU work of each iteration
        let mut dur: FxHashMap<i64, i64> = FxHashMap::default();
        for i in (0..f.len()).filter(|&i| f.stream(r, i) == -1) {
            if let Some(n) = hta_step_number(r.strings.get(f.name(r, i))) {
                dur.entry(n).or_insert(f.dur_ns(r, i));
            }
        }
        let mut work: FxHashMap<i64, Vec<(i64, i64)>> = FxHashMap::default();
        for i in gpu_rows(f, r, false) {
            if let Some(n) = f.iteration(i) {
                work.entry(n).or_default().push((f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i)));
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
pub(super) fn side_steps(ranks: &[Vec<StepValues>]) -> Vec<StepValues> {
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
pub(super) fn steps_table(c: &[StepValues], t: &[StepValues], control: &str, test: &str) -> Table {
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
        .with("change", Unit::None, Values::Str(change.into()))
}

/// Mean of the finite values (NaN when none).
pub(super) fn mean_finite(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}
