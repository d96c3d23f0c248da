//! `long_gaps`: stretches without any GPU work on the device.
//!
//! 1. The device's kernels, copies and memsets by start; a gap is where the next operation starts
//!    at least `long_gap_us` after the latest end so far (between the first and the last
//!    operation: idle time before and after the trace's GPU work is not a gap).
//! 2. Evidence: each gap (start, end; detail = the operation that ended last before it → the one
//!    that starts it, by their short names (HTA's `shorten_name`), and the host API call that overlaps the gap the longest, if any: what the
//!    host was doing; `value` = the gap).
//! 3. Fires when there is any such gap.

use super::finding::{Detail, Evidence, Finding};
use super::{DeviceView, Thresholds};
use crate::analysis::devices::Op;
use crate::analysis::names::plural;
use crate::analysis::units::duration_text;

/// Gaps of at least `min_ns` in the union of `ops` (by start): (operation before, operation after).
pub fn gaps(ops: &[Op], min_ns: i64) -> Vec<(Op, Op)> {
    let mut out = Vec::new();
    let Some(mut last) = ops.first().copied() else { return out };
    for op in &ops[1..] {
        if op.start - last.end >= min_ns {
            out.push((last, *op));
        }
        if op.end > last.end {
            last = *op;
        }
    }
    out
}

/// The pattern on one device.
pub fn detect(v: &DeviceView<'_>, t: &Thresholds) -> Finding {
    let evidence: Vec<Evidence> = gaps(&v.ops.all(), t.long_gap_ns)
        .into_iter()
        .map(|(before, after)| {
            let (start, end) = (before.end, after.start);
            let detail = Detail::Gap { before: before.event, after: after.event, host: v.host.longest_overlap(start, end) };
            Evidence { start, end, detail, value: end - start }
        })
        .collect();
    let n = evidence.len();
    let total: i64 = evidence.iter().map(|e| e.value).sum();
    let longest = evidence.iter().map(|e| e.value).max().unwrap_or(0);
    let summary = match n {
        0 => format!("no gap of at least {} without GPU work", duration_text(t.long_gap_ns)),
        _ => format!(
            "{n} gap{} of at least {} without GPU work: {} in all, the longest {}",
            plural(n),
            duration_text(t.long_gap_ns),
            duration_text(total),
            duration_text(longest)
        ),
    };
    Finding::judged(n >= 1, n as f64, 1.0, evidence, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_start_at_the_latest_end() {
        let op = |start, end, event| Op { start, end, event };
        // 1 covers 2; 3 starts 100 after 1's end; 4 starts 99 after 3's end
        let ops = [op(0, 500, 1), op(10, 20, 2), op(600, 700, 3), op(799, 800, 4)];
        assert_eq!(gaps(&ops, 100), [(ops[0], ops[2])]);
        assert_eq!(gaps(&ops[..1], 1), []);
    }
}
