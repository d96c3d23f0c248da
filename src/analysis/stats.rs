//! pandas' and numpy's statistics as HTA's tables use them (`describe`, sample `std`, linear
//! `quantile`, numpy `round`), and the per-rank summary table built from them.

use crate::table::{Table, Unit, Values};

/// numpy's `around(x, decimals)` (what pandas' `round` does): scale, round half to even, unscale.
pub fn np_round(x: f64, decimals: i32) -> f64 {
    let p = 10f64.powi(decimals);
    (x * p).round_ties_even() / p
}

/// pandas `describe()` of a numeric series: count, mean, sample std (NaN below 2 values), min,
/// quartiles with linear interpolation, max. NaN values are skipped, as pandas does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Describe {
    /// Number of non-NaN values.
    pub count: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (ddof = 1).
    pub std: f64,
    /// Minimum.
    pub min: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// Maximum.
    pub max: f64,
}

impl Describe {
    /// Column suffixes in pandas' order.
    pub const STATS: [&'static str; 8] = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"];

    /// `series.describe()`.
    pub fn of(values: &[f64]) -> Describe {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        v.sort_by(f64::total_cmp);
        Describe {
            count: v.len() as f64,
            mean: mean(&v),
            std: std(&v),
            min: v.first().copied().unwrap_or(f64::NAN),
            p25: quantile_sorted(&v, 0.25),
            p50: quantile_sorted(&v, 0.5),
            p75: quantile_sorted(&v, 0.75),
            max: v.last().copied().unwrap_or(f64::NAN),
        }
    }

    /// The values in [`Describe::STATS`] order.
    pub fn values(&self) -> [f64; 8] {
        [self.count, self.mean, self.std, self.min, self.p25, self.p50, self.p75, self.max]
    }
}

/// Mean as pandas computes it (sum in order, then divide); NaN when empty.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// Sample standard deviation (ddof = 1) as pandas computes it (two-pass); NaN below 2 values.
pub fn std(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return f64::NAN;
    }
    let m = mean(v);
    let ss: f64 = v.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (v.len() - 1) as f64).sqrt()
}

/// numpy's linear-interpolation quantile of sorted values; NaN when empty. Interpolates as
/// numpy's `_lerp` does (`a + (b - a)·t` below `t = 0.5`, `b - (b - a)·(1 - t)` from there), so
/// the result is bit-identical to pandas' `quantile`/`describe`.
pub fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let pos = (v.len() - 1) as f64 * q;
    let lo = (pos.floor().max(0.0) as usize).min(v.len() - 1);
    let hi = (lo + 1).min(v.len() - 1);
    let t = pos - lo as f64;
    let (a, b) = (v[lo], v[hi]);
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// `rank, <key>, <col>_count, <col>_mean, ...`: HTA's `groupby([rank, key]).describe()` with
/// flattened column names.
pub(crate) fn summary_table(name: &str, ranks: Vec<i64>, key: &str, keys: Values, col: &str, stats: &[Describe]) -> Table {
    let mut t = Table::new(name).with("rank", Unit::None, Values::Int(ranks.into())).with(key, Unit::None, keys);
    for (k, stat) in Describe::STATS.iter().enumerate() {
        let unit = if k == 0 { Unit::Count } else { Unit::None };
        t = t.with(&format!("{col}_{stat}"), unit, Values::Float(stats.iter().map(|d| d.values()[k]).collect()));
    }
    t
}

/// Median of `v` (mean of the middle two for an even count; NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandas_statistics() {
        let d = Describe::of(&[1.0, 2.0, 3.0, 4.0, f64::NAN]);
        assert_eq!(d.values(), [4.0, 2.5, 1.2909944487358056, 1.0, 1.75, 2.5, 3.25, 4.0]);
        assert!(Describe::of(&[7.0]).std.is_nan());
        // numpy's lerp from the upper end for t >= 0.5 (values from np.percentile)
        assert_eq!(quantile_sorted(&[6.95, 15.96, 16.81, 52.74], 0.9), 41.961000000000006);
        assert_eq!(quantile_sorted(&[0.1, 0.7, 1.3, 2.9, 3.3], 0.8), 2.98);
        assert_eq!(quantile_sorted(&[1.0, 2.0], 1.0), 2.0);
        assert!(quantile_sorted(&[], 0.5).is_nan());
        assert_eq!(np_round(0.125, 2), 0.12);
        assert_eq!(np_round(53.555, 2), 53.56);
        assert_eq!(np_round(2.5, 0), 2.0);
    }
}
