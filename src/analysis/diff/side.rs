//! A side of a diff (some ranks of one run, their frames) and the scopes values are summed over:
//! each rank's complete steps, one step, or the whole trace.

use crate::analysis::api::{fail, select_ranks, AnalysisError, Context};
use crate::analysis::hta_frame::{hta_frames, hta_step_number, HtaFrame, HtaFrameOptions, HtaFrames};
use crate::model::{Kind, RankTrace, Trace};

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
pub(super) struct Scope<'f> {
    pub(super) f: &'f HtaFrame,
    pub(super) r: &'f RankTrace,
    /// Step numbers in scope, ascending (empty: the rank has no steps; all rows count).
    pub(super) steps: Vec<i64>,
    /// Number of steps the sums are divided by (1 without steps or with `--iteration`).
    pub(super) per: f64,
}

impl Scope<'_> {
    pub(super) fn keeps(&self, i: usize) -> bool {
        self.steps.is_empty() || self.f.iteration(i).is_some_and(|n| self.steps.binary_search(&n).is_ok())
    }

    pub(super) fn kind(&self, i: usize) -> Kind {
        self.r.events.kind[self.f.row[i] as usize]
    }
}

/// Step numbers of a frame's `ProfilerStep#N` rows, ascending, once each.
pub(super) fn step_numbers(f: &HtaFrame, r: &RankTrace) -> Vec<i64> {
    let mut s: Vec<i64> = f.row.iter().filter_map(|&e| hta_step_number(r.name(e))).filter(|&n| n >= 0).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// Whether some rank of `side` has a complete step.
pub(super) fn has_steps(side: &Side<'_>) -> bool {
    side.steps().iter().any(|s| !s.is_empty())
}

/// The scope of every rank of `side` (module docs); `per_step` false: whole traces (when one side
/// has no steps, neither side is divided by its steps).
pub(super) fn scopes<'s>(side: &'s Side<'_>, iteration: Option<i64>, per_step: bool) -> Result<Vec<Scope<'s>>, AnalysisError> {
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
