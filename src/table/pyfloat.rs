//! Numbers as text the way Python writes them, so our CSVs compare with HTA's (pandas) as text.

/// Python's `repr` of a float (what pandas writes for float64 cells): shortest round-trip
/// digits, `.0` on integral values, exponent form below 1e-4 and from 1e16 on; NaN is empty.
pub fn python_float_repr(x: f64) -> String {
    let mut s = String::new();
    push_python_float(&mut s, x);
    s
}

/// [`python_float_repr`] appended to `out` (no allocation of its own for the common forms).
pub fn push_python_float(out: &mut String, x: f64) {
    use std::fmt::Write as _;
    if x.is_nan() {
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Rust `{:e}` gives "1.5e-5"; Python writes "1.5e-05" and "1e+16".
        let s = format!("{x:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = exp.strip_prefix('-').map(|d| ('-', d)).unwrap_or(('+', exp));
        let _ = write!(out, "{mant}e{sign}{digits:0>2}");
        return;
    }
    if a < 1e12 && x != 0.0 {
        // whole thousandths (every µs value made from ns): the shortest digits are those
        // thousandths, which integer formatting writes faster than the float formatter
        let n = (a * 1000.0).round();
        if n / 1000.0 == a {
            let n = n as u64;
            if x < 0.0 {
                out.push('-');
            }
            let _ = write!(out, "{}.", n / 1000);
            let frac = n % 1000;
            match (frac.is_multiple_of(10), frac.is_multiple_of(100)) {
                (_, true) => out.push(char::from(b'0' + (frac / 100) as u8)),
                (true, false) => {
                    let _ = write!(out, "{:02}", frac / 10);
                }
                _ => {
                    let _ = write!(out, "{frac:03}");
                }
            }
            return;
        }
    }
    let start = out.len();
    let _ = write!(out, "{x}");
    if !out[start..].contains('.') {
        out.push_str(".0");
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
        assert_eq!(python_float_repr(f64::NEG_INFINITY), "-inf");
        let mut s = String::from("x,");
        push_python_float(&mut s, 2.5e-7);
        push_python_float(&mut s, 3.0);
        assert_eq!(s, "x,2.5e-073.0");
        assert_eq!(python_float_repr(-0.0), "-0.0");
        assert_eq!(python_float_repr(-0.5), "-0.5");
        assert_eq!(python_float_repr(1587219.25), "1587219.25");
        assert_eq!(python_float_repr(0.001), "0.001");
        assert_eq!(python_float_repr(12.07), "12.07");
    }

    /// The thousandths shortcut writes what the float formatter does.
    #[test]
    fn thousandths_as_the_general_form() {
        let general = |x: f64| {
            let s = format!("{x}");
            if s.contains('.') {
                s
            } else {
                s + ".0"
            }
        };
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..200_000 {
            let ns = (next() % 2_000_000_000_000_000) as i64 - 1_000_000_000_000_000;
            let x = match i % 4 {
                0 => ns as f64 / 1000.0,
                1 => (ns % 100_000_000) as f64 / 1000.0,
                2 => (ns % 1000) as f64 / 1000.0,
                _ => f64::from_bits(next() >> 2) % 1e9,
            };
            if x != 0.0 && x.abs() < 1e16 && x.abs() >= 1e-4 {
                assert_eq!(python_float_repr(x), general(x), "{x:?}");
            }
        }
    }
}
