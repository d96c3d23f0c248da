//! Interval algebra on integer ns (SPEC §1.11): merging overlapping or touching intervals and the
//! time their union covers, in all or within a window.

/// `merge_kernel_intervals` (§1.11): `[start, end)` intervals sorted (by start, then end) and
/// merged; touching intervals merge. Returns merged intervals in time order. Times are ns
/// (`i64`), or HTA's µs floats (`f64`) where an analysis must round like HTA; NaN never occurs
/// (HTA drops rows without `dur`).
pub fn merge_intervals<T: Copy + PartialOrd>(mut iv: Vec<(T, T)>) -> Vec<(T, T)> {
    // stable: intervals come in runs already in order (a stream's kernels), which it merges
    iv.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let mut out: Vec<(T, T)> = Vec::with_capacity(iv.len());
    for (s, e) in iv {
        match out.last_mut() {
            Some(last) if s <= last.1 => {
                if e > last.1 {
                    last.1 = e;
                }
            }
            _ => out.push((s, e)),
        }
    }
    out
}

/// Length of the union of intervals given in order of start, ns: what [`covered`] of their
/// [`merge_intervals`] is, without a sort or a copy.
pub fn covered_sorted(iv: impl IntoIterator<Item = (i64, i64)>) -> i64 {
    let mut total = 0;
    let mut open: Option<(i64, i64)> = None;
    for (s, e) in iv {
        match &mut open {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => {
                total += open.map_or(0, |(a, b)| b - a);
                open = Some((s, e));
            }
        }
    }
    total + open.map_or(0, |(a, b)| b - a)
}

/// Total length of merged intervals, ns.
pub fn covered(merged: &[(i64, i64)]) -> i64 {
    merged.iter().map(|(s, e)| e - s).sum()
}

/// Length of `[start, end)` that the merged intervals `merged` (sorted, disjoint) cover, ns.
/// Binary search, then only the intervals that overlap: cheap for many short windows over a long
/// list.
pub fn covered_within(merged: &[(i64, i64)], start: i64, end: i64) -> i64 {
    let first = merged.partition_point(|iv| iv.1 <= start);
    merged[first..].iter().take_while(|iv| iv.0 < end).map(|iv| iv.1.min(end) - iv.0.max(start)).filter(|&d| d > 0).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_within_a_window() {
        let m = [(0, 10), (20, 30), (40, 50)];
        assert_eq!(covered_within(&m, 5, 45), 5 + 10 + 5);
        assert_eq!(covered_within(&m, 10, 20), 0);
        assert_eq!(covered_within(&m, 25, 26), 1);
        assert_eq!(covered_within(&m, 60, 70), 0);
        assert_eq!(covered_within(&[], 0, 70), 0);
    }

    #[test]
    fn intervals_merge_when_touching() {
        assert_eq!(merge_intervals(vec![(5, 8), (0, 2), (2, 3), (7, 10)]), vec![(0, 3), (5, 10)]);
        assert_eq!(covered(&merge_intervals(vec![(0, 10), (1, 2)])), 10);
    }

    /// The union's length from sorted intervals equals that of the merge, on nested, touching,
    /// empty and disjoint intervals.
    #[test]
    fn covered_sorted_is_the_merge() {
        let mut iv = vec![(5, 8), (0, 2), (2, 3), (7, 10), (1, 1), (12, 12), (20, 25), (21, 22), (30, 40), (30, 31)];
        iv.sort_unstable();
        assert_eq!(covered_sorted(iv.iter().copied()), covered(&merge_intervals(iv.clone())));
        assert_eq!(covered_sorted(iv), 3 + 5 + 5 + 10);
        assert_eq!(covered_sorted([]), 0);
    }
}
