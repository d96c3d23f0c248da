//! recorder2text's output for one rank (`tools/recorder2text.c`): one line per call,
//!
//! `<tstart> <tend> <func> <depth> <layer> ( <arg> <arg> … )`
//!
//! with both times in seconds since the run's start printed `%.<d>f`, where
//! `d = (int) log10(1 / time_resolution)` (7 for the default 1e-7 s ticks); a user function's
//! arguments are not printed (`( )`). Times are computed as the C reader does, in `double`:
//! `tstart = Δstart · resolution + previous tstart`, `tend = Δend · resolution + previous
//! tstart`, so the rounding of the printed digits is the same.

use std::fmt::Write;

use super::record::{RankRecords, USER_FUNCTION};

/// The digits after the point recorder2text prints for `time_resolution` (C's `int` truncation of
/// `log10(1 / resolution)`, kept between 0 and 17).
pub fn decimals(time_resolution: f64) -> usize {
    (1.0 / time_resolution).log10().clamp(0.0, 17.0) as usize
}

/// The text recorder2text writes to `_text/<rank>.txt` for this rank.
pub fn to_text(rank: &RankRecords) -> String {
    let d = decimals(rank.time_resolution);
    let res = rank.time_resolution;
    let mut out = String::new();
    let (mut prev_ticks, mut prev_secs) = (0u64, 0.0f64);
    for r in &rank.records {
        let delta = |t: u64| (t as i128 - prev_ticks as i128) as f64;
        let tstart = delta(r.start) * res + prev_secs;
        let tend = delta(r.end) * res + prev_secs;
        (prev_ticks, prev_secs) = (r.start, tstart);
        let c = &r.call;
        let _ = write!(out, "{tstart:.d$} {tend:.d$} {} {} {} (", c.func, c.depth, c.layer as u8);
        if c.func_id != USER_FUNCTION {
            for a in &c.args {
                out.push(' ');
                out.push_str(a);
            }
        }
        out.push_str(" )\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::recorder::record::{Call, Layer, Record};

    #[test]
    fn decimals_truncate_like_c() {
        assert_eq!((decimals(1e-7), decimals(1e-6), decimals(3e-7), decimals(1.0), decimals(10.0)), (7, 6, 6, 0, 0));
    }

    #[test]
    fn lines_as_recorder2text_prints_them() {
        let rec = |start, end, func: &str, func_id, layer, args: &[&str]| Record {
            start,
            end,
            call: std::sync::Arc::new(Call {
                func_id,
                func: func.into(),
                depth: 1,
                layer,
                tid: 0,
                args: args.iter().map(|s| s.to_string()).collect(),
            }),
        };
        let rank = RankRecords {
            rank: 0,
            time_resolution: 1e-7,
            records: vec![
                rec(5569, 5569, "MPI_Comm_rank", 1, Layer::Mpi, &["MPI_COMM_WORLD", "0"]),
                rec(123_456_789, 123_456_790, "main", USER_FUNCTION, Layer::Ftrace, &["x", "main"]),
                rec(123_456_789, 123_456_789, "close", 0, Layer::Posix, &[]),
            ],
            unused_timestamps: 0,
        };
        assert_eq!(
            to_text(&rank),
            "0.0005569 0.0005569 MPI_Comm_rank 1 2 ( MPI_COMM_WORLD 0 )\n\
             12.3456789 12.3456790 main 1 4 ( )\n\
             12.3456789 12.3456789 close 1 0 ( )\n"
        );
    }
}
