//! Numbers as text the way Python writes them, so our CSVs compare with HTA's (pandas) as text.

/// Python's `repr` of a float (what pandas writes for float64 cells): shortest round-trip
/// digits (of two equally close, the even one), `.0` on integral values, exponent form below
/// 1e-4 and from 1e16 on; NaN is empty.
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
        // thousandths, which integer formatting writes faster than the float formatter. `n` is
        // a * 1000 rounded (any `n` that passes the test is right; a tie is never a thousandth)
        let n = (a * 1000.0 + 0.5) as u64;
        if n as f64 / 1000.0 == a {
            let frac = (n % 1000) as u16;
            let digits = [b'.', b'0' + (frac / 100) as u8, b'0' + (frac / 10 % 10) as u8, b'0' + (frac % 10) as u8];
            // at least one digit, no trailing zeros
            let len = if frac.is_multiple_of(100) {
                2
            } else if frac.is_multiple_of(10) {
                3
            } else {
                4
            };
            push_number(out, x.is_sign_negative(), n / 1000, digits, len);
            return;
        }
    } else if a < INTEGRAL_BELOW && a == a.trunc() {
        // an integral value below 2^53 (a timestamp in µs; zero and -0.0 too): its digits are
        // the integer's (the floats there are at most 1 apart, so no shorter digits round-trip)
        push_number(out, x.is_sign_negative(), a as u64, *b".0\0\0", 2);
        return;
    }
    // the shortest round-trip digits, of two equally close the even one, as Python's repr
    // writes them (Rust's `{}` picks the other at such ties); in this range ryu writes them
    // without an exponent, with `.0` on integral values
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(x);
    if !text.contains('e') {
        out.push_str(text);
        return;
    }
    let start = out.len();
    let _ = write!(out, "{x}");
    if !out[start..].contains('.') {
        out.push_str(".0");
    }
}

/// 2^53: every integral float below is an integer's exact value, one apart at most.
const INTEGRAL_BELOW: f64 = 9_007_199_254_740_992.0;

/// Appends `-` (if `negative`), the decimal digits of `whole`, then the first `tail_len` bytes
/// of `tail` (ASCII): laid out in a buffer on the stack, two digits at a time from the right,
/// and copied into `out` as one fixed-size block (a CSV writes hundreds of thousands of these;
/// copies of their exact lengths were calls to `memcpy`).
fn push_number(out: &mut String, negative: bool, mut whole: u64, tail: [u8; 4], tail_len: usize) {
    // the digits end at END (at most 20 of them), the tail follows; COPY bytes from the first
    // are copied, of which the number's own are kept
    const END: usize = 24;
    const COPY: usize = 32;
    let mut buf = [0u8; END + COPY];
    let mut start = END;
    while whole >= 100 {
        let pair = (whole % 100) as usize * 2;
        whole /= 100;
        start -= 2;
        buf[start..start + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if whole >= 10 {
        start -= 2;
        buf[start..start + 2].copy_from_slice(&DIGIT_PAIRS[whole as usize * 2..whole as usize * 2 + 2]);
    } else {
        start -= 1;
        buf[start] = b'0' + whole as u8;
    }
    if negative {
        start -= 1;
        buf[start] = b'-';
    }
    buf[END..END + 4].copy_from_slice(&tail);
    let len = END + tail_len.min(4) - start;
    assert!(tail.is_ascii(), "a number's tail is ASCII");
    out.reserve(COPY);
    // SAFETY: `out` has room for COPY more bytes (reserved above), and `buf[start..start + COPY]`
    // is inside `buf` (start >= END - 21); the `len` bytes kept are ASCII (a sign, digits and
    // `tail`, checked above), so `out` stays UTF-8
    unsafe {
        let v = out.as_mut_vec();
        let at = v.len();
        std::ptr::copy_nonoverlapping(buf.as_ptr().add(start), v.as_mut_ptr().add(at), COPY);
        v.set_len(at + len);
    }
}

/// "00" to "99", each number's two digits.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_every_length_append_their_digits() {
        let mut wholes = vec![0u64, u64::MAX, u64::MAX - 1];
        for p in 0..20 {
            let t = 10u64.pow(p);
            wholes.extend([t - 1, t, t + 1, t * 9 / 7]);
        }
        for &whole in &wholes {
            for negative in [false, true] {
                for (tail, tail_len) in [(*b".0\0\0", 2), (*b".125", 4), (*b".5\0\0", 2), (*b".25\0", 3)] {
                    let mut out = String::from("x,");
                    push_number(&mut out, negative, whole, tail, tail_len);
                    let sign = if negative { "-" } else { "" };
                    assert_eq!(out, format!("x,{sign}{whole}{}", std::str::from_utf8(&tail[..tail_len]).unwrap()));
                }
            }
        }
    }

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

    /// Python's own repr of these (checked with CPython 3): at a tie between two shortest
    /// candidates (`….25` at 1e15 µs, a quarter ULP) Python keeps the even digit, as ryu does;
    /// Rust's `{}` writes `….3` there.
    #[test]
    fn as_python_writes_them() {
        // quarters written as n / 4 (exact: a quarter is the spacing of floats at 1e15)
        for (x, py) in [
            (7626159595367293.0 / 4.0, "1906539898841823.2"),
            (3159671921518605.0 / 4.0, "789917980379651.2"),
            (6730903592946543.0 / 4.0, "1682725898236635.8"),
            (0.1 + 0.2, "0.30000000000000004"),
            (123456.789, "123456.789"),
            (1e-4, "0.0001"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.0 / 7.0 * 1e10, "2857142857.142857"),
        ] {
            assert_eq!(python_float_repr(x), py);
        }
    }

    /// The thousandths shortcut writes what the general form (ryu's shortest digits) does, over
    /// every magnitude written without an exponent.
    #[test]
    fn thousandths_as_the_general_form() {
        let general = |x: f64| ryu::Buffer::new().format_finite(x).to_string();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..300_000 {
            let ns = (next() % 2_000_000_000_000_000) as i64 - 1_000_000_000_000_000;
            let x = match i % 6 {
                0 => ns as f64 / 1000.0,
                1 => (ns % 100_000_000) as f64 / 1000.0,
                2 => (ns % 1000) as f64 / 1000.0,
                3 => f64::from_bits(next() >> 2) % 1e9,
                // any magnitude from 1e-4 to 1e16, either sign
                4 => (next() as f64 / u64::MAX as f64 - 0.5) * 10f64.powi((next() % 21) as i32 - 4),
                _ => (next() % 100_000) as f64 / [3.0, 7.0, 10.0, 1e4, 1e6][(next() % 5) as usize],
            };
            if x != 0.0 && x.abs() < 1e16 && x.abs() >= 1e-4 {
                assert_eq!(python_float_repr(x), general(x), "{x:?}");
            }
            // integral values from 1e12 to 1e16 (timestamps in µs), either side of 2^53
            let whole = ((next() % 9_000_000_000_000_000) + 1_000_000_000_000) as f64;
            let whole = if i % 2 == 0 { whole } else { -whole };
            assert_eq!(python_float_repr(whole), general(whole), "{whole:?}");
        }
    }
}
