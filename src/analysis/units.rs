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
