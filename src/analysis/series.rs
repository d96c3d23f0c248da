//! Step-function time series shared by the queue-length and memory-bandwidth analyses (SPEC
//! §2.5, §2.7): change points with a running value, the value after all changes at one
//! timestamp ("collapsed"), an exact running sum of floats, and downsampling for charts.
//!
//! A series is a list of change points in time order; the value holds until the next point.
//! Several points can share a timestamp; their running values in between are transient (HTA's
//! order of such points is quicksort-defined, see SPEC "Determinism and ties"), while the value
//! after the last of them is well defined: that is what [`collapse`] keeps.

/// `(ts, value)` of the last point at each distinct timestamp of `points` (time order).
pub fn collapse<T: Copy>(points: impl IntoIterator<Item = (i64, T)>) -> Vec<(i64, T)> {
    let mut out: Vec<(i64, T)> = Vec::new();
    for (ts, v) in points {
        match out.last_mut() {
            Some(last) if last.0 == ts => last.1 = v,
            _ => out.push((ts, v)),
        }
    }
    out
}

/// An exact running sum of `f64` values, for bandwidths that are added when a copy starts and
/// subtracted when it ends: after every `+x` has met its `-x`, the sum is exactly 0 (a float
/// running sum leaves residues like 1e-13 that depend on the order of the additions).
///
/// Values are held as integers in units of 2^-80 (an `i128`): `x · 2^80` is exact in `f64` (a
/// power-of-two scale), its integer part keeps every bit of values down to 2^-80 ≈ 8e-25, and
/// integer additions are exact and order-independent. Wrapping arithmetic keeps `+x` and `-x`
/// cancelling even in the (unrealistic) case of an overflow; values are clamped to ±2^40 so
/// that 2^46 of them cannot overflow. [`ExactSum::value`] is the correctly rounded `f64` of the
/// exact sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactSum(i128);

impl ExactSum {
    const SCALE: f64 = 1_208_925_819_614_629_174_706_176.0; // 2^80
    const LIMIT: f64 = 1_099_511_627_776.0; // 2^40

    /// The fixed-point integer of `x` (NaN counts as 0).
    fn fixed(x: f64) -> i128 {
        if x.is_nan() {
            return 0;
        }
        (x.clamp(-Self::LIMIT, Self::LIMIT) * Self::SCALE) as i128
    }

    /// Adds `x`.
    pub fn add(&mut self, x: f64) {
        self.0 = self.0.wrapping_add(Self::fixed(x));
    }

    /// Subtracts `x` (exactly undoes [`ExactSum::add`] of the same `x`).
    pub fn sub(&mut self, x: f64) {
        self.0 = self.0.wrapping_sub(Self::fixed(x));
    }

    /// The sum as the nearest `f64`.
    pub fn value(self) -> f64 {
        // i128 → f64 rounds to nearest; dividing by a power of two is exact
        self.0 as f64 / Self::SCALE
    }
}

/// At most about `limit` points of a step line for drawing: the x range is cut into `limit / 2`
/// equal buckets and each bucket keeps its first point and its highest point, so every peak
/// stays visible. Points must be in x order; fewer than `limit` points are returned unchanged.
pub fn downsample_max(points: &[(f64, f64)], limit: usize) -> Vec<(f64, f64)> {
    let buckets = (limit / 2).max(1);
    let (Some(first), Some(last)) = (points.first(), points.last()) else { return Vec::new() };
    if points.len() <= limit || last.0 <= first.0 {
        return points.to_vec();
    }
    let width = (last.0 - first.0) / buckets as f64;
    let bucket = |x: f64| (((x - first.0) / width) as usize).min(buckets - 1);
    let mut out = Vec::with_capacity(limit);
    let mut i = 0;
    while i < points.len() {
        let b = bucket(points[i].0);
        let mut j = i;
        let mut top = i;
        while j < points.len() && bucket(points[j].0) == b {
            if points[j].1 > points[top].1 {
                top = j;
            }
            j += 1;
        }
        out.push(points[i]);
        if top != i {
            out.push(points[top]);
        }
        i = j;
    }
    out
}

/// A pid/tid column of rank `r`'s ids `ids`: integers when every id's text is one (so canonical
/// sorting is numeric, as in the oracle), else text. Each distinct id is formatted and parsed
/// once.
pub fn id_column(r: &crate::model::RankTrace, ids: impl IntoIterator<Item = u32>) -> crate::table::Values {
    use crate::table::{Texts, Values};
    let texts = Texts::by_key(ids, |i| r.id_text(i));
    let ints: Option<Vec<i64>> = texts.words().iter().map(|t| t.parse().ok()).collect();
    match ints {
        Some(v) => Values::Int((0..texts.len()).map(|row| v[texts.code(row)]).collect()),
        None => Values::Str(texts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_keeps_last_value_per_timestamp() {
        assert_eq!(collapse([(1, 1), (1, 2), (1, 1), (3, 0), (4, 1), (4, 0)]), vec![(1, 1), (3, 0), (4, 0)]);
        assert!(collapse(Vec::<(i64, f64)>::new()).is_empty());
    }

    #[test]
    fn exact_sum_returns_to_zero() {
        let xs = [0.1, 385.268_080_1, 3.683_453_2, 1e-30, 7.744, 0.142_777_467_930_842_17];
        let mut s = ExactSum::default();
        let mut f = 0.0f64;
        for x in xs {
            s.add(x);
            f += x;
        }
        // the float running sum does not come back to 0 in this order; the exact one does
        for x in xs {
            s.sub(x);
            f -= x;
        }
        assert_ne!(f, 0.0);
        assert_eq!(s.value(), 0.0);
        // a small value survives next to a large one that comes and goes
        let mut s = ExactSum::default();
        s.add(1e11);
        s.add(1e-5);
        s.sub(1e11);
        assert_eq!(s.value(), 1e-5);
        assert_ne!((1e11 + 1e-5) - 1e11, 1e-5);
        s.add(f64::NAN);
        assert_eq!(s.value(), 1e-5);
    }

    #[test]
    fn downsampling_keeps_peaks() {
        let pts: Vec<(f64, f64)> = (0..1000).map(|i| (i as f64, if i == 501 { 99.0 } else { (i % 3) as f64 })).collect();
        let d = downsample_max(&pts, 100);
        assert!(d.len() <= 100, "{}", d.len());
        assert!(d.contains(&(501.0, 99.0)));
        assert_eq!(d[0], (0.0, 0.0));
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(downsample_max(&pts[..10], 100), pts[..10].to_vec());
    }
}
