//! Step 4 of [`super`]'s module docs: `add_iteration` (§1.6), the step each frame row belongs
//! to, as codes into its distinct values.

use super::{hta_step_number, HtaFrame, NAN_ITERATION};
use crate::model::RankTrace;

/// `add_iteration` (§1.6); needs `index_correlation`. The column as codes (4 bytes a row; two
/// columns of `Option<i64>` were 32, most of the frame's transient memory) and the value of each
/// code ([`NAN_ITERATION`] for HTA's NaN).
pub(super) fn iteration(f: &HtaFrame, r: &RankTrace, exact: bool, partner: &[u32]) -> (Vec<u32>, Vec<i64>) {
    // each name tested once
    let number: Vec<Option<i64>> = r.strings.iter().map(hta_step_number).collect();
    // Step windows in row order: (start, first integer ts not inside, number). HTA tests
    // `ts < start + dur` in float64; for an integer ts that is `ts < ceil(start + dur)`.
    // Exact: the same in ns (times not yet aligned; windows and rows shift alike).
    let steps: Vec<(i64, i64, i64)> = (0..f.len())
        .filter_map(|i| {
            let num = number[f.name(r, i).0 as usize]?;
            Some(if exact {
                (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i), num)
            } else {
                (f.ts(r, i), (f.ts(r, i) as f64 + f.dur(r, i)).ceil() as i64, num)
            })
        })
        .collect();
    let mut codes = Codes::default();
    let mut column = vec![0u32; f.len()];
    // first the rows with stream < 0: the number of the last step (in row order) whose window
    // contains the row's `ts`, else −1 (HTA loops over every step for every row)
    let mut windows = crate::model::windows::Windows::new(&steps);
    for (i, code) in column.iter_mut().enumerate() {
        if f.stream(r, i) < 0 {
            let start = if exact { f.ts_ns(r, i) } else { f.ts(r, i) };
            *code = codes.of(windows.at(start).unwrap_or(-1));
        }
    }
    // then the others
    for i in 0..f.len() {
        let code = match f.stream(r, i) {
            s if s < 0 => continue,
            0 => codes.of(NAN_ITERATION),
            _ if f.index_correlation(r, i) > 0 => {
                // the partner's value as assigned so far: NaN unless it is a stream < 0 row
                let p = partner[i] as usize;
                if f.stream(r, p) < 0 {
                    column[p]
                } else {
                    codes.of(NAN_ITERATION)
                }
            }
            _ => codes.of(-1),
        };
        column[i] = code;
    }
    (column, codes.values)
}

/// Codes of iteration values, in the order they come.
#[derive(Default)]
struct Codes {
    code: rustc_hash::FxHashMap<i64, u32>,
    values: Vec<i64>,
    // rows of one step come in runs: the last value's code is reused without a lookup
    last: Option<(i64, u32)>,
}

impl Codes {
    fn of(&mut self, v: i64) -> u32 {
        match self.last {
            Some((lv, code)) if lv == v => code,
            _ => {
                let next = self.values.len() as u32;
                let code = *self.code.entry(v).or_insert(next);
                if code == next {
                    self.values.push(v);
                }
                self.last = Some((v, code));
                code
            }
        }
    }
}
