//! CPU call stacks of a frame: which event encloses which on each (pid, tid), the way HTA's
//! `CallGraph` (`hta/common/trace_call_graph.py`, SPEC §2.13) nests events, without its kernel
//! bookkeeping and without re-parenting a backward thread under the main thread.
//!
//! Per thread (rows grouped by `(pid, tid)`):
//! 1. A thread is a GPU thread, and gets no stack, when all its rows have `stream > 0`, or its
//!    pid is the integer 0 for every row, or its tid is (HTA's `infer_device_type`).
//! 2. Nodes are the thread's rows with `stream == -1`. Each row gives an open point at `ts`
//!    and a close point at `ts + dur`; the points are sorted with HTA's comparator
//!    ([`hta_less`], shared with [`super::call_graph`] in [`super::endpoints`]): by time; at equal times a close comes before an open (touching events do
//!    not nest), of two opens the longer one first, of two closes the shorter one first, equal
//!    lengths by `index`; zero-length events sit inside whatever opens or closes at their time.
//! 3. A sweep pushes on open (the parent is the top of the stack) and pops on close.
//!
//! HTA raises `ValueError` when a zero-length and a negative-length event (HTA's rounding makes
//! −1 µs durations, SPEC §5.3) meet at the same time; [`CallStacks::build`] returns an error then.

use rustc_hash::FxHashMap;

use super::endpoints::{hta_less, Endpoint};
use super::hta_frame::HtaFrame;
use crate::model::{IdValue, RankTrace};

/// "No parent" in [`CallStacks::parent`].
pub const ROOT: usize = usize::MAX;

/// Parent links of the frame's rows (frame row positions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallStacks {
    /// The enclosing row of each frame row on its thread, [`ROOT`] at top level and for rows
    /// that are not nodes (GPU rows, rows on GPU threads).
    pub parent: Vec<usize>,
    /// Whether the row is a node of some CPU thread's stack.
    pub is_node: Vec<bool>,
}

/// HTA's comparator raised (a zero-length and a negative-length event at the same time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallStackError {
    /// `index` of one of the two events.
    pub index: u32,
}

/// Stable merge sort driven by a fallible `less` (Python's `sorted` only asks `<`, and a
/// comparator that is not a total order must not make us panic, as `slice::sort_by` may).
fn merge_sort<T: Copy>(v: &mut Vec<T>, less: &dyn Fn(&T, &T) -> Result<bool, CallStackError>) -> Result<(), CallStackError> {
    if v.len() < 2 {
        return Ok(());
    }
    let mut right = v.split_off(v.len() / 2);
    merge_sort(v, less)?;
    merge_sort(&mut right, less)?;
    let left = std::mem::take(v);
    v.reserve(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if less(&right[j], &left[i])? {
            v.push(right[j]);
            j += 1;
        } else {
            v.push(left[i]);
            i += 1;
        }
    }
    v.extend_from_slice(&left[i..]);
    v.extend_from_slice(&right[j..]);
    Ok(())
}

impl CallStacks {
    /// The call stacks of every CPU thread of `f` (module docs).
    pub fn build(f: &HtaFrame, r: &RankTrace) -> Result<CallStacks, CallStackError> {
        let n = f.len();
        let mut out = CallStacks { parent: vec![ROOT; n], is_node: vec![false; n] };
        let mut threads: FxHashMap<(u32, u32), Vec<usize>> = FxHashMap::default();
        for i in 0..n {
            threads.entry((f.pid[i], f.tid[i])).or_default().push(i);
        }
        let mut keys: Vec<(u32, u32)> = threads.keys().copied().collect();
        keys.sort_unstable();
        let is_zero = |id: u32| matches!(r.ids.get(id), Some(IdValue::Int(0)));
        for key in keys {
            let rows = &threads[&key];
            let gpu = rows.iter().all(|&i| f.stream[i] > 0) || is_zero(key.0) || is_zero(key.1);
            if gpu {
                continue;
            }
            // (frame row, end) pairs
            let mut points: Vec<(usize, Endpoint)> = Vec::new();
            for &i in rows.iter().filter(|&&i| f.stream[i] == -1) {
                points.extend(Endpoint::pair(i64::from(f.index[i]), f.ts_ns[i], f.dur_ns[i]).map(|e| (i, e)));
            }
            // the same starting order as HTA's pre-sort by time, so ties resolve alike
            points.sort_by_key(|p| p.1.time);
            merge_sort(&mut points, &|a, b| hta_less(&a.1, &b.1).map_err(|_| CallStackError { index: a.1.index as u32 }))?;
            let mut stack: Vec<usize> = Vec::new();
            for (row, end) in points {
                if end.open {
                    if out.is_node[row] {
                        continue; // HTA: "node already exists"
                    }
                    out.is_node[row] = true;
                    out.parent[row] = stack.last().copied().unwrap_or(ROOT);
                    stack.push(row);
                } else {
                    stack.pop();
                }
            }
        }
        Ok(out)
    }

    /// The enclosing rows of frame row `i`, innermost first (not `i` itself).
    pub fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let mut cur = self.parent.get(i).copied().unwrap_or(ROOT);
        let mut steps = 0;
        std::iter::from_fn(move || {
            // a parent chain is a tree path; the bound only guards against a cycle
            if cur == ROOT || steps > self.parent.len() {
                return None;
            }
            let out = cur;
            cur = self.parent[cur];
            steps += 1;
            Some(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(index: i64, dur: i64, open: bool, time: i64) -> Endpoint {
        Endpoint { index, dur, open, time }
    }

    /// The comparator the stacks are sorted with ([`hta_less`]), on the cases they rely on.
    #[test]
    fn comparator_follows_hta() {
        let point_less = hta_less;
        // close before open at the same time
        assert!(point_less(&p(1, 5, false, 10), &p(2, 5, true, 10)).unwrap());
        // longer opens first, shorter closes first
        assert!(point_less(&p(1, 9, true, 0), &p(2, 5, true, 0)).unwrap());
        assert!(point_less(&p(2, 5, false, 9), &p(1, 9, false, 9)).unwrap());
        // equal length: opens by index, closes by reverse index
        assert!(point_less(&p(1, 5, true, 0), &p(2, 5, true, 0)).unwrap());
        assert!(point_less(&p(2, 5, false, 5), &p(1, 5, false, 5)).unwrap());
        // a zero-length event sits inside an event opening or closing at its time
        assert!(!point_less(&p(1, 0, true, 10), &p(2, 5, true, 10)).unwrap());
        assert!(point_less(&p(1, 0, false, 10), &p(2, 5, false, 10)).unwrap());
        // zero against negative raises
        assert!(point_less(&p(1, 0, true, 10), &p(2, -1, false, 10)).is_err());
    }

    #[test]
    fn merge_sort_is_stable_and_fallible() {
        let mut v = vec![(1, 'a'), (0, 'b'), (1, 'c'), (0, 'd')];
        merge_sort(&mut v, &|x: &(i32, char), y: &(i32, char)| Ok(x.0 < y.0)).unwrap();
        assert_eq!(v, vec![(0, 'b'), (0, 'd'), (1, 'a'), (1, 'c')]);
        let mut w = vec![1, 2];
        assert!(merge_sort(&mut w, &|_: &i32, _: &i32| Err(CallStackError { index: 0 })).is_err());
    }
}
