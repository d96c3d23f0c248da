//! GPU kernel breakdown (HTA `get_gpu_kernel_breakdown`, SPEC §2.2): how much GPU time each kernel
//! type takes (and how long types run at the same time), and, per rank and type, the kernels
//! that take the most time, the rest folded into "others".
//!
//! 1. GPU events are the rows with a stream, typed by name (§1.10). Types analysed: COMPUTATION,
//!    COMMUNICATION and, with `include_memory_kernels`, MEMORY; synchronisation events (OTHER)
//!    are left out. HTA types `Stream Wait Event` as COMPUTATION; without `--hta` no `cuda_sync`
//!    event is a GPU event (SPEC §5.4).
//! 2. Kernel-type table: per rank each type's intervals are merged (§1.11); a sweep over their
//!    starts and ends gives the states (which types run), named by the running types in the
//!    order COMPUTATION, COMMUNICATION, MEMORY joined by `" overlapping "`; the time in each state
//!    is summed over ranks and given as a share of the total (rounded to 0.1 %).
//! 3. Kernel table: per rank and type, [`aggregate_by_name`] (HTA's `_aggr_gpu_kernel_time`).
//!
//! `--hta` reproduces HTA's arithmetic: state times are µs floats truncated to whole µs per
//! segment (`astype(int)`), a state that lasts zero time at tied timestamps shows up with sum 0,
//! and once kernels are folded every statistic is taken over per-kernel sums (SPEC §5.5).
//! Without `--hta`: exact ns, no zero-length states, true per-kernel statistics and a `count`
//! column.

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::intervals::merge_intervals;
use super::kernel_type::{hta_interval, typed_gpu_rows, KernelType};
use super::names::shorten_name;
use super::stats::{np_round, quantile_sorted, std};
use super::units::us;
use crate::table::{Chart, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "kernels",
    title: "GPU kernel breakdown",
    about: "GPU time per kernel type (and their overlaps) and the top kernels per type and rank",
    hta_api: "get_gpu_kernel_breakdown (SPEC §2.2)",
    group: Group::Kernels,
    options: &[
        Opt {
            name: "duration_ratio",
            kind: OptKind::Float,
            default: "0.8",
            help: "Fold kernels whose cumulative time lies past this quantile of the cumulative times into \"others\" (0..1)",
        },
        Opt {
            name: "num_kernels",
            kind: OptKind::Int,
            default: "10",
            help: "Keep at most this many kernels per type and rank; the rest become \"others\"",
        },
        Opt { name: "include_memory_kernels", kind: OptKind::Bool, default: "true", help: "Also analyse memcpy/memset" },
    ],
    run,
};

/// Kernels per type shown in the per-kernel bar charts (HTA draws one per kernel name).
const BAR_CHARTS_PER_TYPE: usize = 5;

/// Ranks that get a pie per kernel type (HTA draws every rank); the table has all of them.
pub(crate) const PIE_RANKS: usize = 16;

/// Options of [`gpu_kernel_breakdown`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct KernelOptions {
    /// Quantile of the cumulative kernel times past which kernels are folded. Default is 0.8.
    pub duration_ratio: f64,
    /// Kernels kept per type and rank before folding. Default is 10.
    pub num_kernels: i64,
    /// Analyse memory kernels too. Default is `true`.
    pub include_memory_kernels: bool,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions { duration_ratio: 0.8, num_kernels: 10, include_memory_kernels: true }
    }
}

/// Statistics of the events of one name on one rank, µs (one row of `_aggr_gpu_kernel_time`).
#[derive(Debug, Clone, PartialEq)]
pub struct NameStats {
    /// Name (full, not shortened), or `others`.
    pub name: String,
    /// Number of events (in HTA's folded statistics: of folded names).
    pub count: usize,
    /// Total duration.
    pub sum: f64,
    /// Longest.
    pub max: f64,
    /// Shortest.
    pub min: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for a single value, as HTA fills it).
    pub std: f64,
}

/// When [`aggregate_by_name`] folds names into `others`.
pub struct Folding<'a> {
    /// At most this many names stay (HTA's `num_kernels`).
    pub num_kernels: i64,
    /// Names whose cumulative sum lies past this quantile of the cumulative sums are folded
    /// (HTA's `duration_ratio`, 0..1).
    pub duration_ratio: f64,
    /// Names never folded (HTA's allowlist).
    pub keep: &'a dyn Fn(&str) -> bool,
}

/// HTA's `_aggr_gpu_kernel_time` (SPEC §2.2) over `(name, duration ns)` events: per name sum,
/// max, min, mean, sample std (0 for one value) and count, ordered by sum descending (ties by
/// name). With more than `num_kernels` names, the names (not allow-listed) at position
/// `>= num_kernels` or whose cumulative sum exceeds the `duration_ratio` quantile of the
/// cumulative sums (numpy's linear interpolation) become one `others` row.
///
/// `hta`: as HTA, the folded table's statistics are taken over the per-name *sums* (bug §5.5:
/// every kept name gets max = min = mean = sum and std 0; `others` the statistics of its names'
/// sums, `count` = its number of names). Otherwise each row keeps the statistics of its events
/// and `others` those of all events of the folded names.
pub fn aggregate_by_name(events: &[(&str, i64)], fold: &Folding<'_>, hta: bool) -> Vec<NameStats> {
    let mut by_name: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for &(name, dur) in events {
        by_name.entry(name).or_default().push(dur);
    }
    // groupby(name) (names ascending), then a sort by sum descending: stable here (HTA's
    // quicksort leaves ties in an implementation-defined order)
    let mut names: Vec<(&str, Vec<i64>)> = by_name.into_iter().collect();
    names.sort_by_cached_key(|(_, d)| std::cmp::Reverse(sum_ns(d)));
    if names.len() as i64 <= fold.num_kernels {
        return names.iter().map(|(n, d)| stats_of(n, d)).collect();
    }
    let sums: Vec<f64> = names.iter().map(|(_, d)| us(sum_ns(d))).collect();
    let mut cumsum = Vec::with_capacity(sums.len());
    let mut acc = 0.0;
    for s in &sums {
        acc += s;
        cumsum.push(acc);
    }
    let mut sorted = cumsum.clone();
    sorted.sort_by(f64::total_cmp);
    let q = quantile_sorted(&sorted, fold.duration_ratio);
    let folded = |i: usize| !(fold.keep)(names[i].0) && (cumsum[i] > q || i as i64 >= fold.num_kernels);
    let mut out: Vec<NameStats> = if hta {
        // second groupby(name)["sum"]: statistics over the per-name sums
        let mut groups: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (i, s) in sums.iter().enumerate() {
            groups.entry(if folded(i) { "others" } else { names[i].0 }).or_default().push(*s);
        }
        groups.into_iter().map(|(n, v)| float_stats(n, &v)).collect()
    } else {
        let mut groups: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
        for (i, (n, d)) in names.iter().enumerate() {
            groups.entry(if folded(i) { "others" } else { n }).or_default().extend_from_slice(d);
        }
        groups.into_iter().map(|(n, d)| stats_of(n, &d)).collect()
    };
    out.sort_by(|a, b| b.sum.total_cmp(&a.sum).then_with(|| (a.name == "others").cmp(&(b.name == "others"))));
    out
}

fn sum_ns(d: &[i64]) -> i64 {
    d.iter().sum()
}

/// Statistics of one name's events (durations ns).
fn stats_of(name: &str, d: &[i64]) -> NameStats {
    let v: Vec<f64> = d.iter().map(|&x| us(x)).collect();
    let sum = us(sum_ns(d));
    let mut s = float_stats(name, &v);
    s.sum = sum;
    s.mean = sum / d.len() as f64;
    s
}

/// Statistics of float values (µs), pandas style: sum in order, mean = sum / n, std NaN → 0.
fn float_stats(name: &str, v: &[f64]) -> NameStats {
    let sum: f64 = v.iter().sum();
    let sd = std(v);
    NameStats {
        name: name.to_string(),
        count: v.len(),
        sum,
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        mean: sum / v.len() as f64,
        std: if sd.is_nan() { 0.0 } else { sd },
    }
}

/// Result of [`gpu_kernel_breakdown`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelBreakdown {
    /// Time per state (`COMPUTATION`, `COMPUTATION overlapping COMMUNICATION`, ...) summed over
    /// the ranks, µs, in sum-descending order. With `--hta` whole µs (HTA truncates each
    /// segment) and zero-length states included.
    pub kernel_types: Vec<(String, f64)>,
    /// Per analysed type and rank (types in HTA's order, ranks ascending): the aggregated kernels.
    pub kernels: Vec<(KernelType, u32, Vec<NameStats>)>,
}

/// The kernel breakdown of the selected ranks (module docs).
pub fn gpu_kernel_breakdown(ctx: &Context<'_>, opts: &KernelOptions) -> KernelBreakdown {
    let mut types = vec![KernelType::Computation, KernelType::Communication];
    if opts.include_memory_kernels {
        types.push(KernelType::Memory);
    }
    let mut state_time: BTreeMap<String, f64> = BTreeMap::new();
    let mut kernels = Vec::new();
    let no_keep = |_: &str| false;
    let fold = Folding { num_kernels: opts.num_kernels, duration_ratio: opts.duration_ratio, keep: &no_keep };
    let mut per_type: Vec<Vec<(KernelType, u32, Vec<NameStats>)>> = vec![Vec::new(); types.len()];
    for (f, r) in ctx.ranks() {
        let typed = typed_gpu_rows(f, r, ctx.hta);
        let rows_of = |t: KernelType| typed.iter().filter(move |(_, k)| *k == t).map(|(i, _)| *i);
        let states = if ctx.hta {
            // HTA's floats: ts (whole µs) + dur; each segment truncated to whole µs
            let iv: Vec<Vec<(f64, f64)>> =
                types.iter().map(|&t| merge_intervals(rows_of(t).map(|i| hta_interval(f, r, i)).collect())).collect();
            sweep_states(&types, &iv, |a, b| (b - a) as i64 as f64, true)
        } else {
            let iv: Vec<Vec<(i64, i64)>> = types
                .iter()
                .map(|&t| merge_intervals(rows_of(t).map(|i| (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i))).collect()))
                .collect();
            sweep_states(&types, &iv, |a, b| us(b - a), false)
        };
        for (label, t) in states {
            *state_time.entry(label).or_default() += t;
        }
        for (k, &t) in types.iter().enumerate() {
            let events: Vec<(&str, i64)> = rows_of(t).map(|i| (r.strings.get(f.name(r, i)), f.dur_ns(r, i))).collect();
            if !events.is_empty() {
                per_type[k].push((t, f.rank, aggregate_by_name(&events, &fold, ctx.hta)));
            }
        }
    }
    for v in per_type {
        kernels.extend(v);
    }
    let mut kernel_types: Vec<(String, f64)> = state_time.into_iter().collect();
    kernel_types.sort_by(|a, b| b.1.total_cmp(&a.1));
    KernelBreakdown { kernel_types, kernels }
}

/// HTA's bit of type `t`: `1 << its position in the analysed types` (COMPUTATION 1,
/// COMMUNICATION 2, MEMORY 4).
fn type_bit(types: &[KernelType], t: KernelType) -> i64 {
    types.iter().position(|&x| x == t).map_or(0, |p| 1 << p)
}

/// The label of a running state: the names of its set bits in type order, joined by
/// `" overlapping "` (HTA's `running_mapping`; no bit set → `""`).
fn state_label(types: &[KernelType], running: i64) -> String {
    let names: Vec<&str> = types.iter().filter(|&&t| running & type_bit(types, t) != 0).map(|t| t.as_str()).collect();
    names.join(" overlapping ")
}

/// HTA's `_get_gpu_kernel_type_time` over merged intervals per type: starts (+bit) and ends
/// (−bit) sorted by time (ties: earlier type first, within a type starts first — the order of a
/// stable sort of HTA's concatenation), running sum, and for each event with running > 0 the
/// time to the next event added to the running state's label (`seg(from, to)`, µs). Without
/// `keep_zero`, states that last no time are not reported.
fn sweep_states<T: Copy + PartialOrd>(
    types: &[KernelType],
    iv: &[Vec<(T, T)>],
    seg: impl Fn(T, T) -> f64,
    keep_zero: bool,
) -> Vec<(String, f64)> {
    // (time, type, is end): 16 bytes an event with 8-byte times, allocated at its size
    let bits: Vec<i64> = (0..iv.len()).map(|k| type_bit(types, types[k])).collect();
    let mut events: Vec<(T, u32, bool)> = Vec::with_capacity(2 * iv.iter().map(Vec::len).sum::<usize>());
    for (k, merged) in iv.iter().enumerate() {
        events.extend(merged.iter().map(|&(s, _)| (s, k as u32, false)));
        events.extend(merged.iter().map(|&(_, e)| (e, k as u32, true)));
    }
    events.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut out: BTreeMap<i64, f64> = BTreeMap::new();
    let mut running = 0;
    for (j, ev) in events.iter().enumerate() {
        let bit = bits[ev.1 as usize];
        running += if ev.2 { -bit } else { bit };
        if running > 0 {
            if let Some(next) = events.get(j + 1) {
                *out.entry(running).or_default() += seg(ev.0, next.0);
            }
        }
    }
    let mut labelled: BTreeMap<String, f64> = BTreeMap::new();
    for (running, t) in out {
        *labelled.entry(state_label(types, running)).or_default() += t;
    }
    labelled.into_iter().filter(|(_, t)| keep_zero || *t != 0.0).collect()
}

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    let opts = KernelOptions {
        duration_ratio: p.float("duration_ratio"),
        num_kernels: p.int("num_kernels"),
        include_memory_kernels: p.bool("include_memory_kernels"),
    };
    if !(0.0..=1.0).contains(&opts.duration_ratio) {
        return fail(format!("duration_ratio must lie in [0, 1], found {} (HTA 0.5.0 raises ValueError)", opts.duration_ratio));
    }
    let b = gpu_kernel_breakdown(ctx, &opts);
    let mut report = Report::default();
    if b.kernels.is_empty() && !ctx.hta {
        report.notes.push("no GPU kernels in the selected ranks".into());
    }
    report.tables.push(kernel_type_table(&b, ctx.hta));
    report.tables.push(kernel_table(&b, ctx.hta));
    report.charts = charts(ctx, &b);
    if ctx.selected.len() > PIE_RANKS {
        report.notes.push(format!("kernel pies are drawn for the first {PIE_RANKS} ranks only"));
    }
    Ok(report)
}

/// `gpu_kernel_breakdown__kernel_type`: `kernel_type, sum, percentage`.
fn kernel_type_table(b: &KernelBreakdown, hta: bool) -> Table {
    let total: f64 = b.kernel_types.iter().map(|(_, s)| s).sum();
    // HTA: round((sum / total) * 100, 1)
    let pct: Vec<f64> = b.kernel_types.iter().map(|(_, s)| np_round(s / total * 100.0, 1)).collect();
    let sums = if hta {
        Values::Int(b.kernel_types.iter().map(|(_, s)| *s as i64).collect())
    } else {
        Values::Float(b.kernel_types.iter().map(|(_, s)| *s).collect())
    };
    let mut t = Table::new("gpu_kernel_breakdown__kernel_type")
        .with("kernel_type", Unit::None, Values::Str(b.kernel_types.iter().map(|(l, _)| l).collect()))
        .with("sum", Unit::Us, sums)
        .with("percentage", Unit::Percent, Values::Float(pct));
    if hta {
        t.sort_canonical(&["kernel_type"]);
    }
    t
}

/// `gpu_kernel_breakdown__kernels`: `name, sum (us), max (us), min (us), stddev, mean (us),
/// kernel_type, rank` (+ `count` without `--hta`).
fn kernel_table(b: &KernelBreakdown, hta: bool) -> Table {
    let rows: Vec<(KernelType, u32, &NameStats)> = b.kernels.iter().flat_map(|(t, r, v)| v.iter().map(move |s| (*t, *r, s))).collect();
    let col = |f: fn(&NameStats) -> f64| Values::Float(rows.iter().map(|(_, _, s)| f(s)).collect());
    let mut t = Table::new("gpu_kernel_breakdown__kernels")
        .with("name", Unit::None, Values::Str(rows.iter().map(|(_, _, s)| &s.name).collect()))
        .with("sum (us)", Unit::Us, col(|s| s.sum))
        .with("max (us)", Unit::Us, col(|s| s.max))
        .with("min (us)", Unit::Us, col(|s| s.min))
        .with("stddev", Unit::Us, col(|s| s.std))
        .with("mean (us)", Unit::Us, col(|s| s.mean))
        .with("kernel_type", Unit::None, Values::Str(rows.iter().map(|(k, _, _)| k.as_str()).collect()))
        .with("rank", Unit::None, Values::Int(rows.iter().map(|(_, r, _)| i64::from(*r)).collect()));
    if hta {
        t.sort_canonical(&["kernel_type", "name", "rank"]);
    } else {
        t = t.with("count", Unit::Count, Values::Int(rows.iter().map(|(_, _, s)| s.count as i64).collect()));
    }
    t
}

/// SPEC §6: a pie of the state shares; per type one pie per rank of its kernels; per type bars of
/// the mean per rank (min/max whiskers) for its top kernels.
fn charts(ctx: &Context<'_>, b: &KernelBreakdown) -> Vec<Chart> {
    let total: f64 = b.kernel_types.iter().map(|(_, s)| s).sum();
    let mut charts = vec![Chart::Pie {
        title: "Kernel type percentage across all ranks".into(),
        slices: b.kernel_types.iter().filter(|(_, s)| *s > 0.0).map(|(l, s)| (l.clone(), 100.0 * s / total)).collect(),
    }];
    let mut types: Vec<KernelType> = b.kernels.iter().map(|(t, _, _)| *t).collect();
    types.dedup();
    for ty in types {
        let of_type: Vec<&(KernelType, u32, Vec<NameStats>)> = b.kernels.iter().filter(|(t, _, _)| *t == ty).collect();
        for (_, rank, stats) in of_type.iter().take(PIE_RANKS) {
            charts.push(Chart::Pie {
                title: format!("Kernel type \"{}\" - kernel distribution on rank {rank}", ty.as_str()),
                slices: stats.iter().map(|s| (shorten_name(&s.name), s.sum)).collect(),
            });
        }
        // the type's top kernels by time over all ranks
        let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
        for (_, _, stats) in &of_type {
            for s in stats.iter().filter(|s| s.name != "others") {
                *totals.entry(&s.name).or_default() += s.sum;
            }
        }
        let mut top: Vec<(&str, f64)> = totals.into_iter().collect();
        top.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (name, _) in top.into_iter().take(BAR_CHARTS_PER_TYPE) {
            let per_rank: Vec<(u32, &NameStats)> =
                of_type.iter().filter_map(|(_, r, v)| v.iter().find(|s| s.name == name).map(|s| (*r, s))).collect();
            charts.push(Chart::Bars {
                title: format!("Kernel type \"{}\" - {}", ty.as_str(), shorten_name(name)),
                x_label: "rank".into(),
                y_label: if ctx.hta {
                    "mean duration (µs; HTA: of per-kernel sums when folded)".into()
                } else {
                    "mean duration (µs)".into()
                },
                categories: per_rank.iter().map(|(r, _)| r.to_string()).collect(),
                values: per_rank.iter().map(|(_, s)| s.mean).collect(),
                errors: Some(per_rank.iter().map(|(_, s)| (s.min, s.max)).collect()),
            });
        }
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[NameStats]) -> Vec<&str> {
        v.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn folding_keeps_top_names_and_true_stats() {
        // sums (µs): a 10 (4+6), b 6, c 3, d 2 → cumsums 10, 16, 19, 21; 0.5 quantile = 17.5
        let ev: Vec<(&str, i64)> = vec![("a", 4000), ("b", 6000), ("a", 6000), ("c", 3000), ("d", 1000), ("d", 1000)];
        let none = |_: &str| false;
        let fold = Folding { num_kernels: 3, duration_ratio: 0.5, keep: &none };
        let exact = aggregate_by_name(&ev, &fold, false);
        assert_eq!(names(&exact), ["a", "b", "others"]);
        assert_eq!((exact[0].sum, exact[0].max, exact[0].min, exact[0].mean, exact[0].count), (10.0, 6.0, 4.0, 5.0, 2));
        assert!((exact[0].std - 2f64.sqrt()).abs() < 1e-12);
        // others = c (3) and d (1, 1)
        assert_eq!((exact[2].sum, exact[2].max, exact[2].min, exact[2].count), (5.0, 3.0, 1.0, 3));
        // HTA: statistics over per-name sums (3 and 2)
        let hta = aggregate_by_name(&ev, &fold, true);
        assert_eq!(names(&hta), ["a", "b", "others"]);
        assert_eq!((hta[0].max, hta[0].min, hta[0].mean, hta[0].std), (10.0, 10.0, 10.0, 0.0));
        assert_eq!((hta[2].sum, hta[2].max, hta[2].min, hta[2].mean, hta[2].count), (5.0, 3.0, 2.0, 2.5, 2));
        // allow-listed names stay
        let keep_d = |n: &str| n == "d";
        let fold = Folding { num_kernels: 3, duration_ratio: 0.5, keep: &keep_d };
        assert_eq!(names(&aggregate_by_name(&ev, &fold, false)), ["a", "b", "others", "d"]);
        // no folding at or below num_kernels
        let fold = Folding { num_kernels: 4, duration_ratio: 0.0, keep: &none };
        assert_eq!(names(&aggregate_by_name(&ev, &fold, true)), ["a", "b", "c", "d"]);
    }

    #[test]
    fn states_are_labelled_by_running_types() {
        let types = [KernelType::Computation, KernelType::Communication, KernelType::Memory];
        assert_eq!(state_label(&types, 5), "COMPUTATION overlapping MEMORY");
        assert_eq!(state_label(&types, 2), "COMMUNICATION");
        // comp [0,10), comm [5,20), mem [10,12): comp 5, comp+comm 5, comm+mem 2, comm 8;
        // at 10 comp ends and mem starts: HTA's order puts comp's end first (earlier type)
        let iv = vec![vec![(0i64, 10i64)], vec![(5, 20)], vec![(10, 12)]];
        let got = sweep_states(&types, &iv, |a, b| (b - a) as f64, true);
        assert_eq!(
            got,
            [
                ("COMMUNICATION".to_string(), 8.0),
                ("COMMUNICATION overlapping MEMORY".into(), 2.0),
                ("COMPUTATION".into(), 5.0),
                ("COMPUTATION overlapping COMMUNICATION".into(), 5.0)
            ]
        );
        // mem starting where comp ends, mem listed first: a zero-length "both" state
        let types2 = [KernelType::Memory, KernelType::Computation];
        let iv2 = vec![vec![(10i64, 12i64)], vec![(0, 10)]];
        assert_eq!(sweep_states(&types2, &iv2, |a, b| (b - a) as f64, true).len(), 3);
        assert_eq!(sweep_states(&types2, &iv2, |a, b| (b - a) as f64, false).len(), 2);
    }
}
