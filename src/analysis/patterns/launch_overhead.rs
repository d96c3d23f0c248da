//! `launch_overhead`: many short kernels with longer gaps between them, the GPU waiting for
//! launches.
//!
//! 1. The device's kernels by start (all streams together). A kernel is launch bound when it
//!    lasts less than `short_kernel_us` and the gap from its end to the next kernel's start is
//!    longer than the kernel and shorter than `long_gap_us` (longer gaps are `long_gaps`). The
//!    last kernel has no next one and never is.
//! 2. Evidence: maximal runs of at least 2 consecutive launch-bound kernels (first start, last
//!    end; `value` = the gaps after the run's kernels, the last one's included, which ends after
//!    the run at the next kernel's start).
//! 3. Fires when launch-bound kernels are `launch_bound_pct` % of the device's kernels or more
//!    and there are at least `min_kernels` of them. A device without kernels is not applicable.

use super::finding::{percent, Detail, Evidence, Finding};
use super::{DeviceView, Thresholds};
use crate::analysis::devices::Op;
use crate::analysis::units::duration_text;

/// The gap after each kernel of `kernels` (by start) if the kernel is launch bound.
pub fn launch_bound_gaps(kernels: &[Op], t: &Thresholds) -> Vec<Option<i64>> {
    (0..kernels.len())
        .map(|i| {
            let (k, next) = (&kernels[i], kernels.get(i + 1)?);
            let gap = next.start - k.end;
            (k.dur() < t.short_kernel_ns && gap > k.dur() && gap < t.long_gap_ns).then_some(gap)
        })
        .collect()
}

/// Maximal runs of consecutive `Some` in `gaps`, as index ranges.
fn runs(gaps: &[Option<i64>]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for i in 0..=gaps.len() {
        match (gaps.get(i).copied().flatten(), start) {
            (Some(_), None) => start = Some(i),
            (None, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The pattern on one device.
pub fn detect(v: &DeviceView<'_>, t: &Thresholds) -> Finding {
    let kernels = &v.ops.kernels;
    if kernels.is_empty() {
        return Finding::not_applicable(t.launch_bound_pct, "no kernels on this device");
    }
    let gaps = launch_bound_gaps(kernels, t);
    let evidence: Vec<Evidence> = runs(&gaps)
        .into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| {
            let busy: i64 = kernels[r.clone()].iter().map(Op::dur).sum();
            let gap: i64 = gaps[r.clone()].iter().flatten().sum();
            let detail = Detail::Kernels { count: r.len(), busy, gaps: gap };
            Evidence { start: kernels[r.start].start, end: kernels[r.end - 1].end, detail, value: gap }
        })
        .collect();
    let bound = gaps.iter().flatten().count();
    let pct = percent(bound as i64, kernels.len() as i64);
    let summary = format!(
        "{bound} of {} kernels ({pct:.0}%) are shorter than {} and followed by a longer gap; {} of gaps",
        kernels.len(),
        duration_text(t.short_kernel_ns),
        duration_text(gaps.iter().flatten().sum())
    );
    Finding::judged(pct >= t.launch_bound_pct && bound >= t.min_kernels, pct, t.launch_bound_pct, evidence, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_launch_bound_kernels() {
        let op = |start, end| Op { start, end, event: 0 };
        let t = Thresholds { short_kernel_ns: 10, long_gap_ns: 100, ..Thresholds::default() };
        // 0..5 gap 15; 20..25 gap 5 (not longer than 5); 30..35 gap 20; 55..60 gap 100 (long); 160..161 last
        let k = [op(0, 5), op(20, 25), op(30, 35), op(55, 60), op(160, 161)];
        assert_eq!(launch_bound_gaps(&k, &t), [Some(15), None, Some(20), None, None]);
        assert_eq!(runs(&[Some(1), Some(2), None, Some(3), None, Some(4), Some(5)]), [0..2, 3..4, 5..7]);
    }
}
