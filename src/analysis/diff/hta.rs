//! HTA's `TraceDiff` (SPEC §3), the `--hta` mode of the diff: per operator name, counts and total durations of one iteration of one rank of each
//! side, compared.
//!
//! * A side is loaded the way `LabeledTrace` loads it: `parse_traces()` only, without alignment or
//!   the last-step filter ([`parse_rank`], for the compared rank only).
//! * `iterations`: the step numbers of the `ProfilerStep#N` names, ascending.
//! * `extract_ops`: the rows of the first rank whose `iteration` is the first iteration; CPU rows
//!   are those with stream −1, GPU rows the others.
//! * `ops_summary`: per (cat, name) the number of rows and the sum of `dur` (µs), with the short
//!   name (§1.12).
//! * `compare_traces`: both summaries grouped by name (or short name; categories merge), outer
//!   joined (missing = 0), `diff_* = test − control`, `counts_change_categories` `+`/`-`/`=`.
//! * `ops_diff`: names added (control 0, test > 0), deleted (control > 0, test 0), increased
//!   (control > 0, more calls), decreased (test > 0, fewer calls), unchanged (test > 0, same
//!   count).

use std::collections::BTreeMap;

use crate::analysis::api::{fail, AnalysisError};
use crate::analysis::hta_frame::{hta_step_number, parse_rank, HtaFrame};
use crate::analysis::names::{middle_cut, shorten_name};
use crate::analysis::units::{ms, us};
use crate::model::{RankTrace, Trace};
use crate::table::Report;
use crate::table::{Table, Unit, Values};

/// Which rows an operator comparison counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    /// Every row.
    All,
    /// Rows with stream −1.
    Cpu,
    /// Rows with a stream.
    Gpu,
}

impl Device {
    /// Every device selection, in the oracle's file order.
    pub const ALL: [Device; 3] = [Device::All, Device::Cpu, Device::Gpu];

    /// `all`, `cpu`, `gpu`.
    pub fn as_str(self) -> &'static str {
        match self {
            Device::All => "all",
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
        }
    }

    /// The selection spelled `s` (surrounding blanks ignored).
    pub fn parse(s: &str) -> Option<Device> {
        Device::ALL.into_iter().find(|d| d.as_str() == s.trim())
    }

    fn keeps(self, stream: i64) -> bool {
        match self {
            Device::All => true,
            Device::Cpu => stream == -1,
            Device::Gpu => stream != -1,
        }
    }
}

/// One side of a comparison, loaded as HTA's `LabeledTrace` loads it.
pub struct LabeledTrace<'a> {
    /// `control` or `test`.
    pub label: String,
    /// The trace.
    pub trace: &'a Trace,
    frame: HtaFrame,
    rank: &'a RankTrace,
}

impl<'a> LabeledTrace<'a> {
    /// The first rank of `trace` (HTA's default), or rank `rank`. `None` when the trace has no
    /// such rank. `exact`: kinetoscope's corrected frames (exact ns, SPEC §5.3) instead of HTA's.
    pub fn new(label: &str, trace: &'a Trace, rank: Option<u32>, exact: bool) -> Option<LabeledTrace<'a>> {
        let pos = match rank {
            Some(n) => trace.ranks.iter().position(|r| r.rank == n)?,
            None => (!trace.ranks.is_empty()).then_some(0)?,
        };
        let rank = &trace.ranks[pos];
        Some(LabeledTrace { label: label.to_string(), trace, frame: parse_rank(rank, exact), rank })
    }

    /// The rank compared.
    pub fn rank(&self) -> u32 {
        self.rank.rank
    }

    /// `iterations()`: step numbers of the `ProfilerStep#N` rows, ascending, once each.
    pub fn iterations(&self) -> Vec<i64> {
        let mut it: Vec<i64> = self.frame.row.iter().filter_map(|&e| hta_step_number(self.rank.name(e))).collect();
        it.sort_unstable();
        it.dedup();
        it
    }

    /// `extract_ops(iteration)` then `get_ops_summary`: per (cat, name), rows and Σ`dur` (µs),
    /// sorted by (cat, name). `iteration` `None` is the first one.
    pub fn ops_summary(&self, iteration: Option<i64>, device: Device) -> Vec<OpSummary> {
        let Some(iteration) = iteration.or_else(|| self.iterations().first().copied()) else { return Vec::new() };
        let (f, r) = (&self.frame, self.rank);
        let mut groups: BTreeMap<(&str, &str), (i64, i64)> = BTreeMap::new();
        for i in 0..f.len() {
            if f.iteration(i) != Some(iteration) || !device.keeps(f.stream(r, i)) {
                continue;
            }
            let g = groups.entry((self.rank.strings.get(f.cat(r, i)), self.rank.strings.get(f.name(r, i)))).or_insert((0, 0));
            g.0 += 1;
            g.1 += f.dur_ns(r, i);
        }
        groups
            .into_iter()
            .map(|((cat, name), (counts, ns))| OpSummary {
                cat: cat.to_string(),
                name: name.to_string(),
                short_name: shorten_name(name),
                counts,
                total_duration: us(ns),
            })
            .collect()
    }
}

/// One row of `get_ops_summary`.
#[derive(Debug, Clone, PartialEq)]
pub struct OpSummary {
    /// Category.
    pub cat: String,
    /// Name.
    pub name: String,
    /// `shorten_name(name)` (§1.12).
    pub short_name: String,
    /// Rows.
    pub counts: i64,
    /// Σ `dur`, µs (an exact sum of ns, divided once).
    pub total_duration: f64,
}

/// One row of `compare_traces`.
#[derive(Debug, Clone, PartialEq)]
pub struct OpChange {
    /// Name (or short name).
    pub name: String,
    /// Control rows.
    pub control_counts: f64,
    /// Control Σ dur, µs.
    pub control_total_duration: f64,
    /// Test rows.
    pub test_counts: f64,
    /// Test Σ dur, µs.
    pub test_total_duration: f64,
}

impl OpChange {
    /// test − control, calls.
    pub fn diff_counts(&self) -> f64 {
        self.test_counts - self.control_counts
    }
    /// test − control, µs.
    pub fn diff_duration(&self) -> f64 {
        self.test_total_duration - self.control_total_duration
    }
    /// `+`, `-` or `=` by the change in calls.
    pub fn category(&self) -> &'static str {
        let d = self.diff_counts();
        if d > 0.0 {
            "+"
        } else if d < 0.0 {
            "-"
        } else {
            "="
        }
    }
    /// `ops_diff`'s class of the name (`None`: in neither side, which cannot happen).
    pub fn change(&self) -> Option<&'static str> {
        let (c, t, d) = (self.control_counts, self.test_counts, self.diff_counts());
        if c == 0.0 && t > 0.0 {
            Some("added")
        } else if c > 0.0 && t == 0.0 {
            Some("deleted")
        } else if c > 0.0 && d > 0.0 {
            Some("increased")
        } else if t > 0.0 && d < 0.0 {
            Some("decreased")
        } else if t > 0.0 && d == 0.0 {
            Some("unchanged")
        } else {
            None
        }
    }
}

/// `compare_traces`: the two summaries by name (`short`: by short name), outer joined, sorted by
/// name.
pub fn compare(control: &[OpSummary], test: &[OpSummary], short: bool) -> Vec<OpChange> {
    let mut by: BTreeMap<&str, OpChange> = BTreeMap::new();
    for (side, rows) in [(0, control), (1, test)] {
        for r in rows {
            let key = if short { r.short_name.as_str() } else { r.name.as_str() };
            let c = by.entry(key).or_insert_with(|| OpChange {
                name: key.to_string(),
                control_counts: 0.0,
                control_total_duration: 0.0,
                test_counts: 0.0,
                test_total_duration: 0.0,
            });
            if side == 0 {
                c.control_counts += r.counts as f64;
                c.control_total_duration += r.total_duration;
            } else {
                c.test_counts += r.counts as f64;
                c.test_total_duration += r.total_duration;
            }
        }
    }
    by.into_values().collect()
}

/// HTA's tables of one comparison: `iterations__<label>`, `ops_summary__<label>`,
/// `compare_traces__<device>[__short]` and `ops_diff__<device>`, in the oracle's layouts.
/// `iterations`: the control's and the test's iteration (`None`: each side's first).
pub fn hta_tables(control: &LabeledTrace<'_>, test: &LabeledTrace<'_>, iterations: (Option<i64>, Option<i64>)) -> Vec<Table> {
    let mut tables = Vec::new();
    for (side, it) in [(control, iterations.0), (test, iterations.1)] {
        tables.push(Table::new(&format!("iterations__{}", side.label)).with(
            "iteration",
            Unit::None,
            Values::Int(side.iterations().into()),
        ));
        tables.push(summary_table(&format!("ops_summary__{}", side.label), &side.ops_summary(it, Device::All)));
    }
    for device in Device::ALL {
        let (c, t) = (control.ops_summary(iterations.0, device), test.ops_summary(iterations.1, device));
        for short in [false, true] {
            let name = format!("compare_traces__{}{}", device.as_str(), if short { "__short" } else { "" });
            tables.push(compare_table(&name, &compare(&c, &t, short), short, &control.label, &test.label));
        }
        let rows = compare(&c, &t, false);
        let mut changes: Vec<(&str, &str)> = rows.iter().filter_map(|r| r.change().map(|k| (k, r.name.as_str()))).collect();
        changes.sort_unstable();
        tables.push(
            Table::new(&format!("ops_diff__{}", device.as_str()))
                .with("change", Unit::None, Values::Str(changes.iter().map(|c| c.0).collect()))
                .with("name", Unit::None, Values::Str(changes.iter().map(|c| c.1).collect())),
        );
    }
    tables
}

fn summary_table(name: &str, rows: &[OpSummary]) -> Table {
    Table::new(name)
        .with("cat", Unit::None, Values::Str(rows.iter().map(|r| &r.cat).collect()))
        .with("name", Unit::None, Values::Str(rows.iter().map(|r| &r.name).collect()))
        .with("short_name", Unit::None, Values::Str(rows.iter().map(|r| &r.short_name).collect()))
        .with("counts", Unit::Count, Values::Int(rows.iter().map(|r| r.counts).collect()))
        .with("total_duration", Unit::Us, Values::Float(rows.iter().map(|r| r.total_duration).collect()))
}

fn compare_table(name: &str, rows: &[OpChange], short: bool, control: &str, test: &str) -> Table {
    let f = |g: &dyn Fn(&OpChange) -> f64| Values::Float(rows.iter().map(g).collect());
    Table::new(name)
        .with(if short { "short_name" } else { "name" }, Unit::None, Values::Str(rows.iter().map(|r| &r.name).collect()))
        .with(&format!("{control}_counts"), Unit::Count, f(&|r| r.control_counts))
        .with(&format!("{control}_total_duration"), Unit::Us, f(&|r| r.control_total_duration))
        .with(&format!("{test}_counts"), Unit::Count, f(&|r| r.test_counts))
        .with(&format!("{test}_total_duration"), Unit::Us, f(&|r| r.test_total_duration))
        .with("diff_counts", Unit::Count, f(&OpChange::diff_counts))
        .with("diff_duration", Unit::Us, f(&OpChange::diff_duration))
        .with("counts_change_categories", Unit::None, Values::Str(rows.iter().map(|r| r.category()).collect()))
}
/// HTA mode's summary: the step time of the compared iterations and the biggest gain and loss
/// of `compare_traces`.
pub fn hta_summary(control: &LabeledTrace<'_>, test: &LabeledTrace<'_>, iterations: (Option<i64>, Option<i64>)) -> String {
    let step = |s: &LabeledTrace<'_>, it: Option<i64>| -> Option<(i64, f64)> {
        let it = it.or_else(|| s.iterations().first().copied())?;
        let (f, r) = (&s.frame, s.rank);
        (0..f.len()).find(|&i| hta_step_number(s.rank.strings.get(f.name(r, i))) == Some(it)).map(|i| (it, ms(f.dur_ns(r, i))))
    };
    let mut line = match (step(control, iterations.0), step(test, iterations.1)) {
        (Some((ci, c)), Some((ti, t))) => format!(
            "step time {c:.3} → {t:.3} ms ({:+.1} %; {} iteration {ci} rank {} vs {} iteration {ti} rank {})",
            100.0 * (t - c) / c,
            control.label,
            control.rank(),
            test.label,
            test.rank()
        ),
        _ => "no ProfilerStep in one of the traces: nothing to compare".to_string(),
    };
    let rows = compare(&control.ops_summary(iterations.0, Device::All), &test.ops_summary(iterations.1, Device::All), false);
    let ops = |r: &OpChange| format!("{} {:+.1} µs", middle_cut(&r.name, super::SUMMARY_NAME), r.diff_duration());
    if let Some(g) = rows
        .iter()
        .filter(|r| r.diff_duration() < 0.0 && !r.name.starts_with("ProfilerStep"))
        .min_by(|a, b| a.diff_duration().total_cmp(&b.diff_duration()))
    {
        line += &format!("; biggest gain: {}", ops(g));
    }
    if let Some(l) = rows
        .iter()
        .filter(|r| r.diff_duration() > 0.0 && !r.name.starts_with("ProfilerStep"))
        .max_by(|a, b| a.diff_duration().total_cmp(&b.diff_duration()))
    {
        line += &format!("; biggest loss: {}", ops(l));
    }
    line
}

/// `kinetoscope diff --hta` (and the page's HTA mode): HTA's TraceDiff tables of one rank per side
/// (`cr`/`tr`: one rank, or `None` for the first), the `compare_traces` table of `device` and
/// `short` first, and [`hta_summary`]'s line. Also returns the two ranks compared.
/// `iterations`: the control's and the test's iteration (`None`: the first; one a side lacks is an
/// error naming the ones it has).
#[allow(clippy::too_many_arguments)]
pub fn hta_report(
    control: &Trace,
    test: &Trace,
    cr: Option<&[i64]>,
    tr: Option<&[i64]>,
    iterations: (Option<i64>, Option<i64>),
    device: Device,
    short: bool,
) -> Result<(Report, u32, u32), AnalysisError> {
    let one = |r: Option<&[i64]>, what: &str| -> Result<Option<u32>, AnalysisError> {
        match r {
            None => Ok(None),
            Some([n]) => u32::try_from(*n).map(Some).map_err(|_| AnalysisError(format!("{what}: no rank {n}"))),
            Some(_) => fail(format!("{what}: HTA's TraceDiff compares one rank per side; give one rank (or leave HTA mode)")),
        }
    };
    let side = |label: &str, t, rank: Option<u32>| {
        LabeledTrace::new(label, t, rank, false).ok_or_else(|| match rank {
            Some(r) => AnalysisError(format!("{label}: no rank {r}")),
            None => AnalysisError(format!("{label}: no rank with events")),
        })
    };
    let control = side("control", control, one(cr, "control ranks")?)?;
    let test = side("test", test, one(tr, "test ranks")?)?;
    for (side, it) in [(&control, iterations.0), (&test, iterations.1)] {
        let have = side.iterations();
        if let Some(n) = it.filter(|n| !have.contains(n)) {
            let have: Vec<String> = have.iter().map(i64::to_string).collect();
            return fail(format!(
                "{}: rank {} has no iteration {n} (iterations: {})",
                side.label,
                side.rank(),
                if have.is_empty() { "none".into() } else { have.join(", ") }
            ));
        }
    }
    let mut tables = hta_tables(&control, &test, iterations);
    let want = format!("compare_traces__{}{}", device.as_str(), if short { "__short" } else { "" });
    if let Some(p) = tables.iter().position(|t| t.name == want) {
        let t = tables.remove(p);
        tables.insert(0, t);
    }
    let report = Report { tables, notes: vec![hta_summary(&control, &test, iterations)], ..Report::default() };
    Ok((report, control.rank(), test.rank()))
}
