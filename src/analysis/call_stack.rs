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
/// Top-down: the first `len / 2` items, then the rest, then one merge (with a comparator that
/// is not transitive the result depends on these splits, so they stay as they are).
fn merge_sort<T: Copy>(v: &mut [T], less: &dyn Fn(&T, &T) -> Result<bool, CallStackError>) -> Result<(), CallStackError> {
    let mut scratch = v.to_vec();
    sort_into(v, &mut scratch, less)
}

/// Sorts `v`, using `scratch` (as long as `v`) for the merges.
fn sort_into<T: Copy>(v: &mut [T], scratch: &mut [T], less: &dyn Fn(&T, &T) -> Result<bool, CallStackError>) -> Result<(), CallStackError> {
    let n = v.len();
    if n < 2 {
        return Ok(());
    }
    let mid = n / 2;
    sort_into(&mut v[..mid], &mut scratch[..mid], less)?;
    sort_into(&mut v[mid..], &mut scratch[mid..], less)?;
    let (left, right) = v.split_at(mid);
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < left.len() && j < right.len() {
        if less(&right[j], &left[i])? {
            scratch[k] = right[j];
            j += 1;
        } else {
            scratch[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    // what is left of `right` is already in place
    scratch[k..k + left.len() - i].copy_from_slice(&left[i..]);
    let done = k + left.len() - i;
    v[..done].copy_from_slice(&scratch[..done]);
    Ok(())
}

/// Sorts `points` by [`hta_less`] without [`merge_sort`] where that comparator is a strict
/// total order on them: at no time does a zero-length end meet the end of an event that is not
/// zero-length (the comparator's one intransitive case, and its error) and no two ends tie.
/// Then every stable sort gives this order. Returns `false` otherwise (`points` then in some
/// other order).
fn sort_total(points: &mut [(usize, Endpoint)]) -> bool {
    // hta_less as a key where it is a total order: closes (shorter first, then later index)
    // before opens (longer first, then earlier index); zero-length ends apart
    let key = |e: &Endpoint| match (e.dur == 0, e.open) {
        (false, false) => (e.time, 0, e.dur, -e.index),
        (false, true) => (e.time, 1, -e.dur, e.index),
        (true, true) => (e.time, 2, 0, e.index),
        (true, false) => (e.time, 3, 0, -e.index),
    };
    points.sort_unstable_by_key(|p| key(&p.1));
    points.windows(2).all(|w| {
        let (a, b) = (&w[0].1, &w[1].1);
        a.time != b.time || (a.dur == 0) == (b.dur == 0) && key(a) != key(b)
    })
}

impl CallStacks {
    /// The call stacks of every CPU thread of `f` (module docs).
    pub fn build(f: &HtaFrame, r: &RankTrace) -> Result<CallStacks, CallStackError> {
        let n = f.len();
        let mut out = CallStacks { parent: vec![ROOT; n], is_node: vec![false; n] };
        let mut threads: FxHashMap<(u32, u32), Vec<usize>> = FxHashMap::default();
        for i in 0..n {
            threads.entry((f.pid(r, i), f.tid(r, i))).or_default().push(i);
        }
        let mut keys: Vec<(u32, u32)> = threads.keys().copied().collect();
        keys.sort_unstable();
        let is_zero = |id: u32| matches!(r.ids.get(id), Some(IdValue::Int(0)));
        for key in keys {
            let rows = &threads[&key];
            let gpu = rows.iter().all(|&i| f.stream(r, i) > 0) || is_zero(key.0) || is_zero(key.1);
            if gpu {
                continue;
            }
            // (frame row, end) pairs
            let mut points: Vec<(usize, Endpoint)> = Vec::new();
            for &i in rows.iter().filter(|&&i| f.stream(r, i) == -1) {
                points.extend(Endpoint::pair(i64::from(f.index(r, i)), f.ts_ns(r, i), f.dur_ns(r, i)).map(|e| (i, e)));
            }
            if !sort_total(&mut points) {
                // the same starting order as HTA's pre-sort by time (rows in order, each row's
                // open before its close), so ties resolve alike
                points.sort_unstable_by_key(|p| (p.1.time, p.0, !p.1.open));
                merge_sort(&mut points, &|a, b| hta_less(&a.1, &b.1).map_err(|_| CallStackError { index: a.1.index as u32 }))?;
            }
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

    /// Pseudo-random numbers below `m` (a linear congruential generator from `seed`).
    fn numbers(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |m| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        }
    }

    /// The allocating merge sort this module used before: same splits, same merges.
    fn reference_sort(v: &mut Vec<Endpoint>) {
        if v.len() < 2 {
            return;
        }
        let mut right = v.split_off(v.len() / 2);
        reference_sort(v);
        reference_sort(&mut right);
        let left = std::mem::take(v);
        let (mut i, mut j) = (0, 0);
        while i < left.len() && j < right.len() {
            if hta_less(&right[j], &left[i]).unwrap() {
                v.push(right[j]);
                j += 1;
            } else {
                v.push(left[i]);
                i += 1;
            }
        }
        v.extend_from_slice(&left[i..]);
        v.extend_from_slice(&right[j..]);
    }

    /// With [`hta_less`], which is not transitive (a close, an open and a zero-length event at
    /// one time), the order depends on the merges: it is the one the allocating sort gave.
    #[test]
    fn merge_sort_merges_as_before() {
        let mut rand = numbers(12345);
        for round in 0..300 {
            let n = 1 + rand(40) as i64;
            let mut v: Vec<Endpoint> = Vec::new();
            for index in 0..n {
                // few distinct times and durations of 0, so ties and zero-length events abound
                let (ts, dur) = (rand(4) as i64 * 5, [0, 0, 5, 10][rand(4) as usize]);
                v.extend(Endpoint::pair(index, ts, dur));
            }
            // shuffle
            for i in (1..v.len()).rev() {
                v.swap(i, rand(i as u64 + 1) as usize);
            }
            let mut want = v.clone();
            reference_sort(&mut want);
            merge_sort(&mut v, &|a, b| Ok(hta_less(a, b).unwrap())).unwrap();
            assert_eq!(v, want, "round {round}");
        }
    }

    /// Where [`sort_total`] takes the order without the merge sort, it is the merge sort's.
    #[test]
    fn total_sort_agrees_with_the_merge_sort() {
        let mut rand = numbers(99);
        let (mut fast, mut slow) = (0, 0);
        for round in 0..2000 {
            let n = 1 + rand(12) as i64;
            let mut v: Vec<(usize, Endpoint)> = Vec::new();
            for index in 0..n {
                let (ts, dur) = (rand(6) as i64 * 5, [0, 5, 10, 15, -5][rand(5) as usize]);
                v.extend(Endpoint::pair(index, ts, dur).map(|e| (index as usize, e)));
            }
            let mut want = v.clone();
            want.sort_by_key(|p| p.1.time);
            let merged = merge_sort(&mut want, &|a, b| hta_less(&a.1, &b.1).map_err(|_| CallStackError { index: 0 }));
            if sort_total(&mut v) {
                fast += 1;
                assert!(merged.is_ok(), "round {round}");
                assert_eq!(v, want, "round {round}");
            } else {
                slow += 1;
            }
        }
        assert!(fast > 200 && slow > 200, "{fast} sorted by key, {slow} merged");
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
