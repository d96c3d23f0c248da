//! The two ends of a CPU event and the orders in which HTA and the exact view sort them: how the
//! call graph ([`super::call_graph`]) and the call stacks ([`super::call_stack`]) nest events
//! in time.

use rustc_hash::FxHashSet;

/// HTA's `ValueError`: a zero-duration and a negative-duration end at the same time (SPEC §5.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointError {
    /// `index` of the two events.
    pub indexes: (i64, i64),
}

impl std::fmt::Display for EndpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ValueError: Unexpected case: events #{} and #{} at the same time, one with a zero and one with a negative duration",
            self.indexes.0, self.indexes.1
        )
    }
}

impl std::error::Error for EndpointError {}

/// One end of a CPU event, as HTA sorts them (`index, dur, kind, time`; times and durations in
/// the frame's ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    /// The event's `index`.
    pub index: i64,
    /// The event's duration.
    pub dur: i64,
    /// Opening end (`ts`), else closing end (`ts + dur`).
    pub open: bool,
    /// Time of this end.
    pub time: i64,
}

impl Endpoint {
    /// The two ends of an event.
    pub fn pair(index: i64, ts: i64, dur: i64) -> [Endpoint; 2] {
        [Endpoint { index, dur, open: true, time: ts }, Endpoint { index, dur, open: false, time: ts + dur }]
    }
}

/// HTA's comparator `_less_than` (with `_cmp_events_with_zero_duration`): `x < y`. At equal
/// time: the two ends of one event open first; a zero-duration end sorts after a non-zero open
/// and before a non-zero close; two zero-duration events nest (opens by index, closes by reverse
/// index); otherwise closes before opens, longer intervals open first and close last, ties by
/// index. A zero duration against a negative one is HTA's `ValueError` (`Err`).
pub fn hta_less(x: &Endpoint, y: &Endpoint) -> Result<bool, EndpointError> {
    if x.time != y.time {
        return Ok(x.time < y.time);
    }
    if x.index == y.index {
        return Ok(x.open);
    }
    if x.dur == 0 || y.dur == 0 {
        return if x.dur == 0 && y.dur > 0 {
            Ok(!y.open)
        } else if x.dur > 0 && y.dur == 0 {
            Ok(x.open)
        } else if x.dur == 0 && y.dur == 0 {
            Ok(match (x.open, y.open) {
                (true, true) => x.index < y.index,
                (false, false) => x.index > y.index,
                _ => x.open,
            })
        } else {
            Err(EndpointError { indexes: (x.index, y.index) })
        };
    }
    Ok(match (x.open, y.open) {
        (false, true) => true,
        (true, false) => false,
        (true, true) if x.dur != y.dur => x.dur > y.dur,
        (false, false) if x.dur != y.dur => x.dur < y.dur,
        (true, true) => x.index < y.index,
        (false, false) => x.index > y.index,
    })
}

/// Sorts `ends` the way HTA's `sort_events` does, as a total order. [`hta_less`] is not
/// transitive: at a time where a non-zero event closes, another opens and a zero-duration event
/// lies, it says close < open < zero < close. Python's sort then usually returns
/// opens, zeros, closes (the next event nests in the previous one); this order does that and
/// agrees with [`hta_less`] everywhere else. `Err` where HTA raises (a zero-duration and a
/// negative-duration end at the same time).
pub fn hta_order(ends: &mut [Endpoint]) -> Result<(), EndpointError> {
    let zero_times: FxHashSet<i64> = ends.iter().filter(|e| e.dur == 0).map(|e| e.time).collect();
    if let Some(neg) = ends.iter().find(|e| e.dur < 0 && zero_times.contains(&e.time)) {
        let zero = ends.iter().find(|e| e.dur == 0 && e.time == neg.time).copied().unwrap_or(*neg);
        hta_less(neg, &zero)?;
    }
    ends.sort_unstable_by_key(|e| {
        let has_zero = zero_times.contains(&e.time);
        match (e.dur == 0, e.open) {
            (true, true) => (e.time, 1, 0, e.index),
            (true, false) => (e.time, 1, 1, -e.index),
            (false, true) => (e.time, if has_zero { 0 } else { 2 }, -e.dur, e.index),
            (false, false) => (e.time, if has_zero { 2 } else { 0 }, e.dur, -e.index),
        }
    });
    Ok(())
}

/// The exact view's order: half-open intervals `[ts, ts + dur)`. At equal time, closes (shorter
/// first) before opens (longer first), then zero-duration events, each opening and closing before
/// the next (they nest in whatever is open, not in each other). Negative durations count as 0.
pub fn exact_order(ends: &mut [Endpoint]) {
    ends.sort_unstable_by_key(|e| match (e.dur <= 0, e.open) {
        (false, false) => (e.time, 0, e.dur, -e.index),
        (false, true) => (e.time, 1, -e.dur, e.index),
        (true, open) => (e.time - if open { 0 } else { e.dur.min(0) }, 2, e.index, i64::from(!open)),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(index: i64, ts: i64, dur: i64) -> Endpoint {
        Endpoint::pair(index, ts, dur)[0]
    }

    fn close(index: i64, ts: i64, dur: i64) -> Endpoint {
        Endpoint::pair(index, ts, dur)[1]
    }

    fn lt(x: Endpoint, y: Endpoint) -> bool {
        hta_less(&x, &y).expect("comparable")
    }

    /// `(index, open)` of sorted ends.
    fn shape(ends: &[Endpoint]) -> Vec<(i64, bool)> {
        ends.iter().map(|e| (e.index, e.open)).collect()
    }

    #[test]
    fn hta_comparator_at_equal_times() {
        // back to back: A [0, 10) closes before B [10, 20) opens
        assert!(lt(close(1, 0, 10), open(2, 10, 10)));
        assert!(!lt(open(2, 10, 10), close(1, 0, 10)));
        // nesting: the longer interval opens first and closes last
        assert!(lt(open(1, 0, 10), open(2, 0, 5)));
        assert!(lt(close(2, 5, 5), close(1, 0, 10)));
        // same length: opens by index, closes by reverse index
        assert!(lt(open(1, 0, 10), open(2, 0, 10)));
        assert!(lt(close(2, 0, 10), close(1, 0, 10)));
        // earlier time wins whatever the rest
        assert!(lt(close(9, 0, 5), open(1, 6, 100)));
    }

    #[test]
    fn hta_comparator_zero_durations() {
        // both ends of one zero-length event: open first
        assert!(lt(open(3, 10, 0), close(3, 10, 0)));
        assert!(!lt(close(3, 10, 0), open(3, 10, 0)));
        // a zero-length event sits after a non-zero open and before a non-zero close
        assert!(lt(open(1, 10, 5), open(3, 10, 0)));
        assert!(lt(close(3, 10, 0), close(2, 5, 5)));
        // two zero-length events nest: the lower index encloses the other
        assert!(lt(open(3, 10, 0), open(4, 10, 0)));
        assert!(lt(close(4, 10, 0), close(3, 10, 0)));
        assert!(lt(open(4, 10, 0), close(3, 10, 0)));
        // zero against negative (HTA's µs rounding): ValueError
        assert!(hta_less(&open(4, 40, -1), &open(5, 40, 0)).is_err());
        assert!(hta_less(&open(5, 40, 0), &open(4, 40, -1)).is_err());
        // negative against positive follows the general rules
        assert_eq!(hta_less(&open(4, 40, -1), &open(6, 40, 3)), Ok(false));
    }

    #[test]
    fn hta_order_follows_the_comparator_where_it_is_consistent() {
        // random small threads on a coarse grid (many ties), no time with a zero-length event
        // and both a non-zero close and a non-zero open (there the comparator is cyclic)
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as i64
        };
        let mut checked = 0;
        for _ in 0..3000 {
            let n = 1 + next(6);
            let mut ends: Vec<Endpoint> = (0..n).flat_map(|i| Endpoint::pair(i, next(4), next(3))).collect();
            let cyclic = ends.iter().any(|z| {
                z.dur == 0
                    && ends.iter().any(|c| c.dur > 0 && !c.open && c.time == z.time)
                    && ends.iter().any(|o| o.dur > 0 && o.open && o.time == z.time)
            });
            if cyclic {
                continue;
            }
            hta_order(&mut ends).expect("no negative durations");
            for w in ends.windows(2) {
                assert!(lt(w[0], w[1]), "{:?} before {:?} in {:?}", w[0], w[1], ends);
            }
            checked += 1;
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn hta_order_resolves_the_cycle_as_python_does() {
        // A [0, 10), Z [10, 10), B [10, 20): Python's sorted() of HTA's input gives
        // A_o B_o Z_o Z_c A_c B_c (checked with HTA 0.5.0): B nests in A
        let mut ends = [Endpoint::pair(1, 0, 10), Endpoint::pair(2, 10, 0), Endpoint::pair(3, 10, 10)].concat();
        hta_order(&mut ends).expect("sorts");
        assert_eq!(shape(&ends), [(1, true), (3, true), (2, true), (2, false), (1, false), (3, false)]);
    }

    #[test]
    fn hta_order_raises_on_negative_meeting_zero() {
        let mut ends = [Endpoint::pair(4, 40, -1), Endpoint::pair(5, 40, 0)].concat();
        assert!(hta_order(&mut ends).unwrap_err().to_string().starts_with("ValueError"));
        // at different times it sorts (the negative event closes before it opens)
        let mut ends = [Endpoint::pair(4, 40, -1), Endpoint::pair(5, 41, 0)].concat();
        hta_order(&mut ends).expect("sorts");
        assert_eq!(shape(&ends), [(4, false), (4, true), (5, true), (5, false)]);
    }

    #[test]
    fn exact_order_is_half_open() {
        // A [0, 10), Z [10, 10), B [10, 20): A closes, B opens, Z lies in B
        let mut ends = [Endpoint::pair(1, 0, 10), Endpoint::pair(2, 10, 0), Endpoint::pair(3, 10, 10)].concat();
        exact_order(&mut ends);
        assert_eq!(shape(&ends), [(1, true), (1, false), (3, true), (2, true), (2, false), (3, false)]);
        // nesting with equal starts and ends; two zero-length events are siblings
        let mut ends = [Endpoint::pair(2, 0, 5), Endpoint::pair(1, 0, 10), Endpoint::pair(4, 5, 0), Endpoint::pair(3, 5, 0)].concat();
        exact_order(&mut ends);
        assert_eq!(shape(&ends), [(1, true), (2, true), (2, false), (3, true), (3, false), (4, true), (4, false), (1, false)]);
    }
}
