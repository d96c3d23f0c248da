//! Other analyses run on both sides of a diff and compared: the temporal breakdown and overlap per
//! rank, decode-step statistics, kernel sequences (module docs of `diff`).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::{DiffOptions, Side};
use crate::analysis::call_graph::{CallGraph, CallGraphOptions};
use crate::analysis::decode::{decode_stats, DecodeStats, OpStat};
use crate::analysis::hta_frame::HtaFrame;
use crate::analysis::names::shorten_name;
use crate::analysis::overlap::comm_comp_overlap;
use crate::analysis::stats::median;
use crate::analysis::temporal::temporal_breakdown;
use crate::analysis::units::{ms, us};
use crate::model::{Kind, RankTrace, StrId};
use crate::table::{Table, Unit, Values};

/// Appends `diff_temporal`, `diff_overlap`, `diff_decode` (when both sides have decode steps) and
/// `diff_kernel_sequences`; what could not be compared goes to `notes`.
pub(super) fn add_tables(control: &Side<'_>, test: &Side<'_>, o: &DiffOptions, tables: &mut Vec<Table>, notes: &mut Vec<String>) {
    tables.push(temporal_table(control, test));
    tables.push(overlap_table(control, test));
    match (decode(control, o), decode(test, o)) {
        (Ok(c), Ok(t)) => {
            let (cs, ts) = (mean_decode_step_ms(&c), mean_decode_step_ms(&t));
            notes.push(format!("decode step {cs:.3} → {ts:.3} ms ({:+.1} %)", 100.0 * (ts - cs) / cs));
            tables.push(decode_table(&c.ops, &t.ops, &control.label, &test.label));
        }
        (Ok(_), Err(e)) | (Err(e), Ok(_)) => notes.push(format!("decode steps not compared: {e}")),
        (Err(_), Err(_)) => {}
    }
    tables.push(sequences_table(control, test));
}

/// Rows pairing the ranks of two sides: rank by rank when both have the same ranks, else one row
/// `median` of each side's values.
fn paired<T: Copy>(control: &Side<'_>, test: &Side<'_>, c: &[(u32, T)], t: &[(u32, T)], med: impl Fn(&[T]) -> T) -> Vec<(String, T, T)> {
    if control.ranks() == test.ranks() {
        c.iter().zip(t).map(|(a, b)| (a.0.to_string(), a.1, b.1)).collect()
    } else {
        let vals = |v: &[(u32, T)]| v.iter().map(|x| x.1).collect::<Vec<T>>();
        let label = |v: &[(u32, T)]| match v {
            [one] => format!("rank {}", one.0),
            _ if v.len() > 8 => format!("median of {} ranks", v.len()),
            _ => format!("median of ranks {}", v.iter().map(|x| x.0.to_string()).collect::<Vec<_>>().join("/")),
        };
        vec![(format!("{} vs {}", label(c), label(t)), med(&vals(c)), med(&vals(t)))]
    }
}

/// Per rank of a side: (span, idle %, compute %, non-compute %) of the temporal breakdown.
fn temporal(side: &Side<'_>) -> Vec<(u32, [f64; 4])> {
    temporal_breakdown(&side.ctx)
        .into_iter()
        .map(|(rank, t)| {
            let v = t.map_or([f64::NAN; 4], |t| {
                let pct = |x: i64| 100.0 * x as f64 / t.kernel_time as f64;
                [us(t.kernel_time), pct(t.idle), pct(t.compute), pct(t.non_compute)]
            });
            (rank, v)
        })
        .collect()
}

fn median_arrays<const N: usize>(v: &[[f64; N]]) -> [f64; N] {
    std::array::from_fn(|j| median(v.iter().map(|a| a[j]).filter(|x| x.is_finite()).collect()))
}

/// Table `diff_temporal`.
fn temporal_table(control: &Side<'_>, test: &Side<'_>) -> Table {
    let rows = paired(control, test, &temporal(control), &temporal(test), median_arrays::<4>);
    let (cl, tl) = (&control.label, &test.label);
    let mut t = Table::new("diff_temporal").with("rank", Unit::None, Values::Str(rows.iter().map(|r| &r.0).collect()));
    for (j, (what, unit)) in
        [("gpu_span_us", Unit::Us), ("idle_pct", Unit::Percent), ("compute_pct", Unit::Percent), ("non_compute_pct", Unit::Percent)]
            .into_iter()
            .enumerate()
    {
        t = t.with(&format!("{cl}_{what}"), unit, Values::Float(rows.iter().map(|r| r.1[j]).collect())).with(
            &format!("{tl}_{what}"),
            unit,
            Values::Float(rows.iter().map(|r| r.2[j]).collect()),
        );
    }
    t
}

/// Table `diff_overlap`: communication time and the share of it overlapped by computation.
fn overlap_table(control: &Side<'_>, test: &Side<'_>) -> Table {
    let of = |s: &Side<'_>| comm_comp_overlap(&s.ctx).into_iter().map(|o| (o.rank, [o.comm, o.pctg])).collect::<Vec<_>>();
    let rows = paired(control, test, &of(control), &of(test), median_arrays::<2>);
    let (cl, tl) = (&control.label, &test.label);
    Table::new("diff_overlap")
        .with("rank", Unit::None, Values::Str(rows.iter().map(|r| &r.0).collect()))
        .with(&format!("{cl}_comm_us"), Unit::Us, Values::Float(rows.iter().map(|r| r.1[0]).collect()))
        .with(&format!("{tl}_comm_us"), Unit::Us, Values::Float(rows.iter().map(|r| r.2[0]).collect()))
        .with(&format!("{cl}_overlap_pct"), Unit::Percent, Values::Float(rows.iter().map(|r| r.1[1]).collect()))
        .with(&format!("{tl}_overlap_pct"), Unit::Percent, Values::Float(rows.iter().map(|r| r.2[1]).collect()))
        .with("diff_overlap_pct_points", Unit::Percent, Values::Float(rows.iter().map(|r| r.2[1] - r.1[1]).collect()))
}

/// Decode statistics of a side (steps without the start kernel are skipped, so a training trace
/// has none unless the start kernel is `none`).
fn decode(side: &Side<'_>, o: &DiffOptions) -> Result<DecodeStats, String> {
    match decode_stats(side.ctx.trace, &side.ctx.selected, &o.decode) {
        Ok(s) if !s.ops.is_empty() => Ok(s),
        Ok(_) => Err(format!("{} has no GPU operation in its decode steps", side.label)),
        Err(e) => Err(format!("{}: {e}", side.label)),
    }
}

/// Mean duration of the decode steps used, ms.
fn mean_decode_step_ms(s: &DecodeStats) -> f64 {
    let d: Vec<f64> = s.steps.iter().filter(|x| x.kind == crate::analysis::decode::StepKind::Decode).map(|x| ms(x.end - x.start)).collect();
    d.iter().sum::<f64>() / d.len() as f64
}

/// Per (name, occurrence): (average start, average duration, bubble before it), µs.
fn decode_rows(ops: &[OpStat]) -> BTreeMap<(String, u32), (f64, f64, f64)> {
    let mut prev: Option<&OpStat> = None;
    let mut out = BTreeMap::new();
    for op in ops {
        out.insert((op.name.clone(), op.occurrence), (op.avg_start_us(), op.avg_duration_us(), op.bubble_after_us(prev)));
        prev = Some(op);
    }
    out
}

/// Table `diff_decode`: the average decode step operation by operation, in test's time order
/// (operations only in control after them).
fn decode_table(c: &[OpStat], t: &[OpStat], cl: &str, tl: &str) -> Table {
    let (cm, tm) = (decode_rows(c), decode_rows(t));
    let mut keys: Vec<(String, u32)> = t.iter().map(|o| (o.name.clone(), o.occurrence)).collect();
    keys.extend(c.iter().map(|o| (o.name.clone(), o.occurrence)).filter(|k| !tm.contains_key(k)));
    let get = |m: &BTreeMap<(String, u32), (f64, f64, f64)>, k: &(String, u32), j: usize| m.get(k).map_or(f64::NAN, |v| [v.0, v.1, v.2][j]);
    let col = |m, j| Values::Float(keys.iter().map(|k| get(m, k, j)).collect());
    let diff = |j| Values::Float(keys.iter().map(|k| get(&tm, k, j) - get(&cm, k, j)).collect());
    Table::new("diff_decode")
        .with("operation_name", Unit::None, Values::Str(keys.iter().map(|k| &k.0).collect()))
        .with("occurrence", Unit::Count, Values::Int(keys.iter().map(|k| i64::from(k.1)).collect()))
        .with(&format!("{cl}_avg_duration_us"), Unit::Us, col(&cm, 1))
        .with(&format!("{tl}_avg_duration_us"), Unit::Us, col(&tm, 1))
        .with("diff_duration_us", Unit::Us, diff(1))
        .with(&format!("{cl}_bubble_us"), Unit::Us, col(&cm, 2))
        .with(&format!("{tl}_bubble_us"), Unit::Us, col(&tm, 2))
        .with("diff_bubble_us", Unit::Us, diff(2))
        .with(&format!("{cl}_avg_start_us"), Unit::Us, col(&cm, 0))
        .with(&format!("{tl}_avg_start_us"), Unit::Us, col(&tm, 0))
}

/// `(a(), b())`, natively in two threads (the page's wasm has one).
fn both<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::scope(|s| {
            let h = s.spawn(b);
            let a = a();
            (a, h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        (a(), b())
    }
}

/// Per CPU operator name: how often each kernel sequence (short kernel names in start order)
/// follows a call, over every rank of the side. A kernel belongs to the innermost CPU operator
/// above its launch.
fn op_sequences(ranks: &[(&HtaFrame, &RankTrace)]) -> BTreeMap<String, BTreeMap<Vec<String>, u64>> {
    let mut out: BTreeMap<String, BTreeMap<Vec<String>, u64>> = BTreeMap::new();
    for &(f, r) in ranks {
        let Ok(graph) = CallGraph::build(f, r, CallGraphOptions::new(false)) else { continue };
        let kind = |i: usize| r.events.kind[f.row[i] as usize];
        let mut calls: BTreeMap<usize, Vec<(i64, usize)>> = BTreeMap::new();
        for k in (0..f.len()).filter(|&k| graph.is_kernel(k)) {
            let mut p = graph.parent(k);
            while let Some(x) = p {
                if kind(x) == Kind::CpuOp {
                    break;
                }
                p = graph.parent(x);
            }
            if let Some(op) = p {
                calls.entry(op).or_default().push((f.ts_ns(r, k), k));
            }
        }
        let mut short: FxHashMap<StrId, String> = FxHashMap::default();
        for (op, mut kernels) in calls {
            kernels.sort_unstable();
            let seq: Vec<String> = kernels
                .iter()
                .map(|&(_, k)| short.entry(f.name(r, k)).or_insert_with(|| shorten_name(r.strings.get(f.name(r, k)))).clone())
                .collect();
            *out.entry(r.strings.get(f.name(r, op)).to_string()).or_default().entry(seq).or_default() += 1;
        }
    }
    out
}

/// The most frequent sequence (ties: the first in order) and the number of calls.
fn top(seqs: &BTreeMap<Vec<String>, u64>) -> (String, u64) {
    let best = seqs.iter().fold(None::<(&Vec<String>, u64)>, |b, (s, &n)| if b.is_none_or(|b| n > b.1) { Some((s, n)) } else { b });
    (best.map(|b| b.0.join(" | ")).unwrap_or_default(), seqs.values().sum())
}

/// Table `diff_kernel_sequences`: operators whose most frequent kernel sequence differs, that
/// launch kernels only in test (`new`) or only in control (`gone`).
fn sequences_table(control: &Side<'_>, test: &Side<'_>) -> Table {
    let (cr, tr): (Vec<_>, Vec<_>) = (control.ctx.ranks().collect(), test.ctx.ranks().collect());
    let (c, t) = both(|| op_sequences(&cr), || op_sequences(&tr));
    let mut names: Vec<&String> = c.keys().chain(t.keys()).collect();
    names.sort_unstable();
    names.dedup();
    // (operator, change, control (kernels, calls), test (kernels, calls))
    type Row<'s> = (&'s str, &'static str, (String, u64), (String, u64));
    let mut rows: Vec<Row<'_>> = Vec::new();
    for n in names {
        let (a, b) = (c.get(n).map(top), t.get(n).map(top));
        let change = match (&a, &b) {
            (Some(x), Some(y)) if x.0 != y.0 => "different kernels",
            (None, Some(_)) => "new",
            (Some(_), None) => "gone",
            _ => continue,
        };
        rows.push((n, change, a.unwrap_or_default(), b.unwrap_or_default()));
    }
    rows.sort_by(|x, y| x.1.cmp(y.1).then(x.0.cmp(y.0)));
    let (cl, tl) = (&control.label, &test.label);
    Table::new("diff_kernel_sequences")
        .with("operator", Unit::None, Values::Str(rows.iter().map(|r| r.0).collect()))
        .with("change", Unit::None, Values::Str(rows.iter().map(|r| r.1).collect()))
        .with(&format!("{cl}_kernels"), Unit::None, Values::Str(rows.iter().map(|r| &r.2 .0).collect()))
        .with(&format!("{tl}_kernels"), Unit::None, Values::Str(rows.iter().map(|r| &r.3 .0).collect()))
        .with(&format!("{cl}_calls"), Unit::Count, Values::Int(rows.iter().map(|r| r.2 .1 as i64).collect()))
        .with(&format!("{tl}_calls"), Unit::Count, Values::Int(rows.iter().map(|r| r.3 .1 as i64).collect()))
}
