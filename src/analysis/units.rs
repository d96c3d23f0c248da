//! Time at the output edges: the model's integer ns as the float µs or ms that tables, charts and
//! notes show. Nothing is summed in these units.

/// ns → µs.
pub fn us(ns: i64) -> f64 {
    ns as f64 / 1000.0
}

/// ns (already a float: a mean, a median) → µs.
pub fn us_f64(ns: f64) -> f64 {
    ns / 1000.0
}

/// ns → ms.
pub fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// ns (already a float) → ms.
pub fn ms_f64(ns: f64) -> f64 {
    ns / 1e6
}

/// ns as text for sentences, in the largest unit that keeps it at least 1 (`850 ns`, `10 µs`,
/// `2.1 ms`, `1.25 s`): one decimal (two for seconds), a trailing `.0` dropped.
pub fn duration_text(ns: i64) -> String {
    let a = ns.unsigned_abs();
    let (v, unit, decimals) = if a < 1_000 {
        (ns as f64, "ns", 0)
    } else if a < 1_000_000 {
        (us(ns), "µs", 1)
    } else if a < 1_000_000_000 {
        (ms(ns), "ms", 1)
    } else {
        (ns as f64 / 1e9, "s", 2)
    };
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    format!("{text} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_text() {
        assert_eq!(duration_text(850), "850 ns");
        assert_eq!(duration_text(10_000), "10 µs");
        assert_eq!(duration_text(2_149_999), "2.1 ms");
        assert_eq!(duration_text(1_250_000_000), "1.25 s");
        assert_eq!(duration_text(999_960), "1000 µs");
    }
}
