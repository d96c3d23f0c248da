//! Which of a few time windows contain a time, asked for millions of times: the profiler steps
//! a row falls in (the link columns, HTA's `iteration`).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// Windows `[start, end)`, each with a value; where several contain a time, the last one given
/// wins. Which windows contain a time changes only at a window's start or end, so the answer is
/// worked out once per segment between two such bounds, and a lookup remembers its segment: times
/// that come mostly in order (rows of a trace) are answered without a search.
pub struct Windows<T> {
    /// Every start and end, sorted, once each: segment `k` is `[bounds[k-1], bounds[k])`, segment 0
    /// everything before `bounds[0]`.
    bounds: Vec<i64>,
    /// The answer in each segment.
    answer: Vec<Option<T>>,
    /// The segment of the last lookup: `[lo, hi)` and its answer.
    last: (i64, i64, Option<T>),
}

impl<T: Copy> Windows<T> {
    /// The windows `(start, end, value)`, in precedence order (the last wins).
    pub fn new(windows: &[(i64, i64, T)]) -> Windows<T> {
        let mut bounds: Vec<i64> = windows.iter().flat_map(|w| [w.0, w.1]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        // a sweep over the bounds: windows open at their start, close at their end
        let mut by_start: Vec<usize> = (0..windows.len()).collect();
        by_start.sort_by_key(|&k| windows[k].0);
        let (mut open, mut ends, mut next) = (BTreeSet::new(), BinaryHeap::new(), 0);
        let mut answer = vec![None];
        for &b in &bounds {
            while let Some(&k) = by_start.get(next).filter(|&&k| windows[k].0 <= b) {
                open.insert(k);
                ends.push(Reverse((windows[k].1, k)));
                next += 1;
            }
            while let Some(&Reverse((end, k))) = ends.peek() {
                if end > b {
                    break;
                }
                ends.pop();
                open.remove(&k);
            }
            answer.push(open.last().map(|&k| windows[k].2));
        }
        Windows { bounds, answer, last: (i64::MAX, i64::MIN, None) }
    }

    /// The value of the last window containing `t`, if any.
    pub fn at(&mut self, t: i64) -> Option<T> {
        let (lo, hi, value) = self.last;
        if lo <= t && t < hi {
            return value;
        }
        let k = self.bounds.partition_point(|&b| b <= t);
        let lo = if k == 0 { i64::MIN } else { self.bounds[k - 1] };
        let hi = self.bounds.get(k).copied().unwrap_or(i64::MAX);
        self.last = (lo, hi, self.answer[k]);
        self.answer[k]
    }
}

#[cfg(test)]
mod tests {
    use super::Windows;

    /// Every answer equals the plain rule (the last window with `start <= t < end`), for times in
    /// and out of order, on overlapping, nested, empty and equal windows.
    #[test]
    fn the_last_containing_window() {
        let windows = [(0, 10, 'a'), (5, 15, 'b'), (20, 30, 'c'), (22, 25, 'd'), (40, 40, 'e'), (20, 30, 'f'), (50, 60, 'g'), (8, 55, 'h')];
        let plain = |t: i64| windows.iter().rev().find(|w| w.0 <= t && t < w.1).map(|w| w.2);
        let mut w = Windows::new(&windows);
        let times: Vec<i64> = (-3..65).chain((-3..65).rev()).chain([7, 41, 3, 59, 60, 25, 24, i64::MIN, i64::MAX]).collect();
        for t in times {
            assert_eq!(w.at(t), plain(t), "t = {t}");
        }
        let mut none: Windows<u8> = Windows::new(&[]);
        assert_eq!(none.at(0), None);
    }
}
