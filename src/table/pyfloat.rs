//! Numbers as text the way Python writes them, so our CSVs compare with HTA's (pandas) as text.

/// Python's `repr` of a float (what pandas writes for float64 cells): shortest round-trip
/// digits, `.0` on integral values, exponent form below 1e-4 and from 1e16 on; NaN is empty.
pub fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return String::new();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Rust `{:e}` gives "1.5e-5"; Python writes "1.5e-05" and "1e+16".
        let s = format!("{x:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = exp.strip_prefix('-').map(|d| ('-', d)).unwrap_or(('+', exp));
        return format!("{mant}e{sign}{digits:0>2}");
    }
    let s = format!("{x}");
    if s.contains('.') {
        s
    } else {
        s + ".0"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr() {
        assert_eq!(python_float_repr(68.0), "68.0");
        assert_eq!(python_float_repr(1682725898236635.0), "1682725898236635.0");
        assert_eq!(python_float_repr(1e16), "1e+16");
        assert_eq!(python_float_repr(1.5e-5), "1.5e-05");
        assert_eq!(python_float_repr(-1.0), "-1.0");
        assert_eq!(python_float_repr(0.1), "0.1");
        assert_eq!(python_float_repr(f64::NAN), "");
    }
}
