//! Exact decimal → integer-nanosecond conversion.
//!
//! Trace files write times as decimal text in microseconds (`"ts": 1795388036039728.123`) or as
//! strings with a unit (`"1234.567 us"`). Going through `f64` loses nanoseconds once a µs value
//! has more than ~15 significant digits (absolute Unix-epoch µs already have 16), so the text is
//! converted digit by digit. Digits below 1 ns are rounded to nearest, ties away from zero.

/// Why a decimal text could not be converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeError {
    /// Not a decimal number (`-?digits(.digits)?([eE][+-]?digits)?`).
    NotANumber,
    /// Outside the ±9.2e18 ns (±292 years) range of `i64`.
    OutOfRange,
}

/// Returns `round(value × 10^pow10)` for a JSON-style decimal `text`, e.g. `pow10 = 3` turns µs
/// into ns. Rounds to nearest, ties away from zero.
pub fn decimal_scaled(text: &[u8], pow10: i32) -> Result<i64, TimeError> {
    if let Some(v) = plain_decimal(text, pow10) {
        return Ok(v);
    }
    let mut i = 0;
    let neg = match text.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut mantissa: i128 = 0;
    let mut digits = 0u32; // significant digits kept in `mantissa`
    let mut dropped_exp: i32 = 0; // integer digits dropped because mantissa was full
    let mut frac_len: i32 = 0;
    let mut any_digit = false;
    // Digits beyond 36 cannot change an i64 result but could overflow i128; they are dropped.
    while i < text.len() && text[i].is_ascii_digit() {
        any_digit = true;
        push_digit(text[i], &mut mantissa, &mut digits, &mut dropped_exp, false);
        i += 1;
    }
    if i < text.len() && text[i] == b'.' {
        i += 1;
        while i < text.len() && text[i].is_ascii_digit() {
            any_digit = true;
            if push_digit(text[i], &mut mantissa, &mut digits, &mut dropped_exp, true) {
                frac_len += 1;
            }
            i += 1;
        }
    }
    if !any_digit {
        return Err(TimeError::NotANumber);
    }
    let mut exp: i32 = 0;
    if i < text.len() && (text[i] == b'e' || text[i] == b'E') {
        i += 1;
        let mut eneg = false;
        if i < text.len() && (text[i] == b'+' || text[i] == b'-') {
            eneg = text[i] == b'-';
            i += 1;
        }
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            exp = exp.saturating_mul(10).saturating_add((text[i] - b'0') as i32);
            i += 1;
        }
        if i == start {
            return Err(TimeError::NotANumber);
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != text.len() {
        return Err(TimeError::NotANumber);
    }
    // value = mantissa × 10^(shift) (+ the dropped digits)
    let shift = exp.saturating_add(pow10).saturating_add(dropped_exp).saturating_sub(frac_len);
    let value = if mantissa == 0 {
        0
    } else if shift >= 0 {
        if shift > 38 {
            return Err(TimeError::OutOfRange);
        }
        mantissa.checked_mul(10i128.pow(shift as u32)).ok_or(TimeError::OutOfRange)?
    } else {
        let div_exp = -shift;
        if div_exp > 38 {
            0
        } else {
            let div = 10i128.pow(div_exp as u32);
            // round to nearest, ties away from zero (mantissa is non-negative here)
            let (q, r) = (mantissa / div, mantissa % div);
            q + i128::from(r * 2 >= div)
        }
    };
    let value = if neg { -value } else { value };
    i64::try_from(value).map_err(|_| TimeError::OutOfRange)
}

/// The common case of [`decimal_scaled`] in one pass over `u64`: `-?digits(.digits)?` with at
/// most 19 digits and no more fraction digits than `pow10` (so nothing is rounded). `None` for
/// anything else, which the general path then handles (with the same result where both apply).
fn plain_decimal(text: &[u8], pow10: i32) -> Option<i64> {
    let (neg, t) = match text.first()? {
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    if t.len() > 20 || !(0..=9).contains(&pow10) {
        return None;
    }
    let (int, v) = digits(t, 0, 0);
    let (end, v) = if t.get(int) == Some(&b'.') { digits(t, int + 1, v) } else { (int, v) };
    let frac = end.saturating_sub(int + 1) as i32;
    if int == 0 || end != t.len() || int + frac as usize > 19 || frac > pow10 {
        return None;
    }
    // 0 <= pow10 - frac <= 9 (checked above): a table, not `pow`'s loop (`info` of the 100 MB
    // trace: 10 M fewer instructions). The product fits an i64 exactly when `v` is at most
    // i64::MAX / 10^k: a comparison with a second table instead of `checked_mul`, which wasm32
    // (no 64 × 64 → 128-bit multiply) makes a call to `__multi3` (the page's parse: 3 % faster)
    const POW10: [u64; 10] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];
    const FITS: [u64; 10] = {
        let mut t = [0u64; 10];
        let mut k = 0;
        while k < 10 {
            t[k] = i64::MAX as u64 / POW10[k];
            k += 1;
        }
        t
    };
    let k = (pow10 - frac) as usize;
    if v > FITS[k] {
        return None;
    }
    let v = (v * POW10[k]) as i64;
    Some(if neg { -v } else { v })
}

/// Appends the decimal digits of `t` from `i` to `v` (8 at a time while there are that many,
/// then one by one); returns where the digits end and the value (wrapped past 19 digits).
pub(crate) fn digits(t: &[u8], mut i: usize, mut v: u64) -> (usize, u64) {
    while let Some(w) = t.get(i..i + 8) {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        let all_digits = w & 0xf0f0_f0f0_f0f0_f0f0 == 0x3030_3030_3030_3030
            && w.wrapping_add(0x0606_0606_0606_0606) & 0xf0f0_f0f0_f0f0_f0f0 == 0x3030_3030_3030_3030;
        if !all_digits {
            break;
        }
        v = v.wrapping_mul(100_000_000).wrapping_add(eight_digits(w));
        i += 8;
    }
    while let Some(&c) = t.get(i).filter(|c| c.is_ascii_digit()) {
        v = v.wrapping_mul(10).wrapping_add((c - b'0') as u64);
        i += 1;
    }
    (i, v)
}

/// The value of 8 ASCII digits read as a little-endian word (first digit in the lowest byte):
/// pairs, then quads, then all eight combined with three multiplications (as in fast_float).
fn eight_digits(w: u64) -> u64 {
    let w = (w & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(2561) >> 8;
    let w = (w & 0x00ff_00ff_00ff_00ff).wrapping_mul(6_553_601) >> 16;
    (w & 0x0000_ffff_0000_ffff).wrapping_mul(42_949_672_960_001) >> 32
}

/// Appends one digit; returns whether it was kept (fraction digits past the precision are not).
fn push_digit(d: u8, mantissa: &mut i128, digits: &mut u32, dropped_exp: &mut i32, is_fraction: bool) -> bool {
    let v = (d - b'0') as i128;
    if *digits == 0 && v == 0 {
        // leading zeros carry no precision
        return true;
    }
    if *digits < 36 {
        *mantissa = *mantissa * 10 + v;
        *digits += 1;
        true
    } else {
        if !is_fraction {
            *dropped_exp += 1;
        }
        false
    }
}

/// Microseconds (JSON decimal text) to nanoseconds.
pub fn us_text_to_ns(text: &[u8]) -> Result<i64, TimeError> {
    decimal_scaled(text, 3)
}

/// Parses a time string with a unit, as PaddlePaddle writes it: `"1234.567 us"`, `"12.3 ms"`,
/// `"5 ns"`, `"1.5 s"`. A bare number is taken as µs.
pub fn with_unit_to_ns(text: &str) -> Result<i64, TimeError> {
    // what Paddle writes (`"6118217.302 us"`), without trimming
    if let Some(v) = text.strip_suffix(" us").and_then(|n| plain_decimal(n.as_bytes(), 3)) {
        return Ok(v);
    }
    let t = text.trim();
    let (num, pow10) = if let Some(n) = t.strip_suffix("us").or_else(|| t.strip_suffix("µs")) {
        (n, 3)
    } else if let Some(n) = t.strip_suffix("ns") {
        (n, 0)
    } else if let Some(n) = t.strip_suffix("ms") {
        (n, 6)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 9)
    } else {
        (t, 3)
    };
    decimal_scaled(num.trim().as_bytes(), pow10)
}

/// Formats nanoseconds as microseconds with up to three decimals, trailing zeros removed
/// (`1500` → `"1.5"`). For display and CSV only.
pub fn ns_to_us_string(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    let (int, frac) = (a / 1000, a % 1000);
    if frac == 0 {
        format!("{sign}{int}")
    } else {
        let f = format!("{frac:03}");
        format!("{sign}{int}.{}", f.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_microseconds() {
        assert_eq!(us_text_to_ns(b"1795388036039728.123"), Ok(1_795_388_036_039_728_123));
        assert_eq!(us_text_to_ns(b"9197.396"), Ok(9_197_396));
        assert_eq!(us_text_to_ns(b"0"), Ok(0));
        assert_eq!(us_text_to_ns(b"-3.5"), Ok(-3_500));
        assert_eq!(us_text_to_ns(b"1.5e3"), Ok(1_500_000));
        assert_eq!(us_text_to_ns(b"2E-3"), Ok(2));
        assert_eq!(us_text_to_ns(b"0.0005"), Ok(1)); // tie → away from zero
        assert_eq!(us_text_to_ns(b"0.0004"), Ok(0));
        assert_eq!(us_text_to_ns(b"-0.0005"), Ok(-1));
        assert_eq!(us_text_to_ns(b"1.0005"), Ok(1001));
        assert_eq!(us_text_to_ns(b"12.34567"), Ok(12_346));
        assert_eq!(us_text_to_ns(b"000012.000"), Ok(12_000));
        assert_eq!(us_text_to_ns(b"9223372036854775.807"), Ok(i64::MAX));
        assert_eq!(us_text_to_ns(b"-9223372036854775.808"), Ok(i64::MIN));
        assert_eq!(us_text_to_ns(b"9223372036854775.808"), Err(TimeError::OutOfRange));
        assert_eq!(us_text_to_ns(b"1."), Ok(1_000));
        assert_eq!(us_text_to_ns(b".5"), Ok(500));
        assert_eq!(us_text_to_ns(b"-"), Err(TimeError::NotANumber));
    }

    #[test]
    fn fast_path_agrees_with_the_general_one() {
        for n in [0u64, 1, 9, 10, 12345678, 87654321, 99999999, 10000000, 1763884806259476, 9999999999999999999] {
            let t = n.to_string();
            assert_eq!(plain_decimal(t.as_bytes(), 0), i64::try_from(n).ok(), "{t}");
            assert_eq!(digits(t.as_bytes(), 0, 0), (t.len(), n), "{t}");
        }
        assert_eq!(digits(b"1234567:9", 0, 0), (7, 1234567));
        assert_eq!(digits(b"12345678/9", 0, 0), (8, 12345678));
        assert_eq!(plain_decimal(b"12.", 3), Some(12_000));
        assert_eq!(plain_decimal(b"12.3.4", 3), None);
        assert_eq!(plain_decimal(b"12345678901234567.123", 3), None);
        let cases = [
            "0",
            "-0",
            "7",
            "12.5",
            "0.001",
            "1763884806259476",
            "53544.999",
            "18446744073709551615",
            "9999999999999999999",
            "1.2345",
            "00000000000000000001.5",
        ];
        for t in cases {
            for pow10 in 0..=9 {
                if let Some(v) = plain_decimal(t.as_bytes(), pow10) {
                    let f = t.parse::<f64>().unwrap() * 10f64.powi(pow10);
                    assert!((v as f64 - f).abs() <= f.abs() * 1e-15, "{t} {pow10}: {v} vs {f}");
                }
            }
        }
        // the overflow bound at every scale: the largest value whose product fits, and the next
        // (which the general path rejects too), with and without fraction digits
        for pow10 in 0..=9i32 {
            let scale = 10i64.pow(pow10 as u32);
            let fits = i64::MAX / scale;
            assert_eq!(plain_decimal(fits.to_string().as_bytes(), pow10), Some(fits * scale), "{fits} {pow10}");
            assert_eq!(plain_decimal(format!("-{fits}").as_bytes(), pow10), Some(-fits * scale), "-{fits} {pow10}");
            let over = (i128::from(fits) + 1).to_string();
            assert_eq!(plain_decimal(over.as_bytes(), pow10), None, "{over} {pow10}");
            assert_eq!(decimal_scaled(over.as_bytes(), pow10), Err(TimeError::OutOfRange), "{over} {pow10}");
            if pow10 < 9 {
                // the same bound with a fraction digit: one scale fewer left to apply
                for (v, want) in [(i128::from(fits), Some(fits * scale)), (i128::from(fits) + 1, None)] {
                    let s = v.to_string();
                    let (int, frac) = s.split_at(s.len() - 1);
                    let text = format!("{int}.{frac}");
                    assert_eq!(plain_decimal(text.as_bytes(), pow10 + 1), want, "{text} {}", pow10 + 1);
                }
            }
        }
    }

    #[test]
    fn rejects_garbage_and_overflow() {
        assert_eq!(us_text_to_ns(b""), Err(TimeError::NotANumber));
        assert_eq!(us_text_to_ns(b"abc"), Err(TimeError::NotANumber));
        assert_eq!(us_text_to_ns(b"1.2.3"), Err(TimeError::NotANumber));
        assert_eq!(us_text_to_ns(b"1e"), Err(TimeError::NotANumber));
        assert_eq!(us_text_to_ns(b"1e30"), Err(TimeError::OutOfRange));
        assert_eq!(us_text_to_ns(b"99999999999999999999"), Err(TimeError::OutOfRange));
    }

    #[test]
    fn units() {
        assert_eq!(with_unit_to_ns("2684054.000 us"), Ok(2_684_054_000));
        assert_eq!(with_unit_to_ns("12.3 ms"), Ok(12_300_000));
        assert_eq!(with_unit_to_ns("7 ns"), Ok(7));
        assert_eq!(with_unit_to_ns("1.5 s"), Ok(1_500_000_000));
        assert_eq!(ns_to_us_string(1_500), "1.5");
        assert_eq!(ns_to_us_string(-2_000), "-2");
        assert_eq!(ns_to_us_string(1_001), "1.001");
    }
}
