//! Step 7 of [`super`]'s module docs: `_filter_irrelevant_gpu_kernels` (§1.9) as HTA runs it
//! ([`last_step_filter`]) and without its bugs ([`last_step_filter_exact`], whose inputs the
//! frame's correlation pass makes: [`ExactKept`]).

use super::{gpu_kernel_rows, HtaFrame};
use crate::model::RankTrace;

/// The rows that are not GPU rows (`gpu`) and whose name contains `ProfilerStep`.
fn step_rows(f: &HtaFrame, r: &RankTrace, gpu: &[bool]) -> Vec<usize> {
    let step: Vec<bool> = r.strings.iter().map(|s| s.contains("ProfilerStep")).collect();
    (0..f.len()).filter(|&i| !gpu[i] && step[f.name(r, i).0 as usize]).collect()
}

/// The exact filter's bound (ns, before the alignment: the filter compares times of one rank
/// only, so it is the same after): CPU rows starting before it are kept. The latest start of a
/// step, or with `include_last` the latest end + 1 ns; `None` for a rank without steps.
pub(super) fn step_limit(f: &HtaFrame, r: &RankTrace, gpu: &[bool], include_last: bool) -> Option<i64> {
    let steps = step_rows(f, r, gpu);
    if include_last {
        steps.iter().map(|&i| f.ts_ns(r, i) + f.dur_ns(r, i) + 1).max()
    } else {
        steps.iter().map(|&i| f.ts_ns(r, i)).max()
    }
}

/// What [`last_step_filter_exact`] needs of a rank, made by `index_correlation` before the
/// alignment (the frame's rows are those of the filter).
#[derive(Debug, Default)]
pub(super) struct ExactKept {
    /// [`step_limit`].
    pub(super) limit: Option<i64>,
    /// Per row (none without a `limit`): bit 0 a GPU row ([`gpu_kernel_rows`]), bit 1 a GPU row
    /// whose correlation a CPU row starting before `limit` has too.
    pub(super) rows: Vec<u8>,
}

/// The frame rows `_filter_irrelevant_gpu_kernels` returns for one rank, in its order (§1.9).
pub(super) fn last_step_filter(f: &HtaFrame, r: &RankTrace, include_last: bool) -> Vec<usize> {
    let n = f.row.len();
    let gpu = gpu_kernel_rows(f, r);
    let steps = step_rows(f, r, &gpu);
    let cpu: Vec<usize> = if include_last {
        let last_end = steps.iter().map(|&i| f.end(r, i)).reduce(f64::max);
        (0..n).filter(|&i| !gpu[i] && last_end.is_some_and(|e| (f.ts(r, i) as f64) <= e)).collect()
    } else {
        let last_start = steps.iter().map(|&i| f.ts(r, i)).max();
        (0..n).filter(|&i| !gpu[i] && last_start.is_some_and(|s| f.ts(r, i) < s)).collect()
    };
    let mut cpu_per_corr: rustc_hash::FxHashMap<i64, usize> = Default::default();
    for &i in &cpu {
        *cpu_per_corr.entry(f.correlation(r, i)).or_default() += 1;
    }
    let mut order = Vec::with_capacity(n);
    for i in (0..n).filter(|&i| gpu[i]) {
        let k = cpu_per_corr.get(&f.correlation(r, i)).copied().unwrap_or(0);
        order.extend(std::iter::repeat_n(i, k));
    }
    order.extend(cpu);
    order
}

/// [`last_step_filter`] without HTA's bugs (§5.9): rows kept in their order; GPU rows once, if
/// a kept CPU row shares their correlation, or (no correlation) if they start before the last
/// step; a rank without steps keeps everything (`None`). `k`: the rank's [`ExactKept`]. Per row,
/// whether it is kept.
pub(super) fn last_step_filter_exact(f: &HtaFrame, r: &RankTrace, k: &ExactKept) -> Option<Vec<bool>> {
    let limit = k.limit?;
    // the bound was found before the alignment, the times are read after it
    let limit = limit.saturating_sub(f.ts_shift_ns);
    Some(
        (0..f.row.len())
            .map(|i| match (k.rows[i] & 1 != 0, f.correlation(r, i)) {
                (false, _) | (true, -1) => f.ts_ns(r, i) < limit,
                (true, _) => k.rows[i] & 2 != 0,
            })
            .collect(),
    )
}
