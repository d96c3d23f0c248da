//! `memory_bound`: phases where transfers dominate the device.
//!
//! 1. The device's copies by start, grouped into phases: a copy starting less than
//!    `phase_merge_us` after the phase's end so far joins it.
//! 2. A phase qualifies when it lasts at least `min_phase_us`, the copies' union covers at least
//!    `copy_busy_pct` % of it, and the device's kernels cover less of it than the copies do.
//! 3. Evidence: each qualifying phase (start, end; detail = copies, bytes and GB/s over the copy
//!    busy time when every copy's size is known, the kernels' busy %; `value` = copy busy time).
//! 4. Fires when any phase qualifies.

use super::finding::{percent, Detail, Evidence, Finding};
use super::{DeviceView, Thresholds};
use crate::analysis::devices::Op;
use crate::analysis::intervals::{covered, covered_within, merge_intervals};
use crate::analysis::names::plural;
use crate::analysis::units::duration_text;
use crate::model::{IntArg, RankTrace};

/// Groups `copies` (by start) into phases: index ranges of copies less than `merge_ns` apart.
pub fn phases(copies: &[Op], merge_ns: i64) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut end = i64::MIN;
    for (i, c) in copies.iter().enumerate() {
        match out.last_mut() {
            Some(r) if c.start - end < merge_ns => {
                r.end = i + 1;
                end = end.max(c.end);
            }
            _ => {
                out.push(i..i + 1);
                end = c.end;
            }
        }
    }
    out
}

/// Bytes the copies moved, if every one's size is known.
fn bytes(r: &RankTrace, copies: &[Op]) -> Option<i64> {
    copies.iter().map(|c| r.events.int_arg(c.event, IntArg::Bytes)).sum()
}

/// The phase of `copies` as evidence if it qualifies.
fn qualifying(v: &DeviceView<'_>, kernels: &[(i64, i64)], copies: &[Op], t: &Thresholds) -> Option<Evidence> {
    let start = copies[0].start;
    let end = copies.iter().map(|c| c.end).max().unwrap_or(start);
    let busy = covered(&merge_intervals(copies.iter().map(|c| (c.start, c.end)).collect()));
    let kernel_busy = covered_within(kernels, start, end);
    let dur = end - start;
    if dur < t.min_phase_ns || percent(busy, dur) < t.copy_busy_pct || kernel_busy >= busy {
        return None;
    }
    let detail = Detail::Phase { copies: copies.len(), bytes: bytes(v.rank, copies), busy, kernel_busy, dur };
    Some(Evidence { start, end, detail, value: busy })
}

/// The pattern on one device.
pub fn detect(v: &DeviceView<'_>, t: &Thresholds) -> Finding {
    let copies = &v.ops.copies;
    let kernels = merge_intervals(v.ops.kernels.iter().map(|k| (k.start, k.end)).collect());
    let evidence: Vec<Evidence> =
        phases(copies, t.phase_merge_ns).into_iter().filter_map(|r| qualifying(v, &kernels, &copies[r], t)).collect();
    let n = evidence.len();
    let total: i64 = evidence.iter().map(|e| e.end - e.start).sum();
    let what = format!(
        "of at least {} where copies keep the device at least {}% busy and kernels less",
        duration_text(t.min_phase_ns),
        t.copy_busy_pct
    );
    let summary = match n {
        0 => format!("no phase {what}"),
        _ => format!("{n} phase{} {what} ({} in all)", plural(n), duration_text(total)),
    };
    Finding::judged(n >= 1, n as f64, 1.0, evidence, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_less_than_merge_apart_form_a_phase() {
        let op = |start, end| Op { start, end, event: 0 };
        // 0..50 and 10..20 overlap; 149 - 50 = 99 < 100 joins; 349 - 250 = 99 joins; 500 - 400 = 100 does not
        let c = [op(0, 50), op(10, 20), op(149, 250), op(349, 400), op(500, 510)];
        assert_eq!(phases(&c, 100), [0..4, 4..5]);
        assert_eq!(phases(&[], 100), []);
    }
}
