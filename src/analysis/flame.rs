//! Flame graph: CPU self time by call stack, or GPU time by the stack that launched it, from the
//! stacks `crate::profile` rebuilds out of the time nesting of CPU events (its module docs say
//! how overlaps and unclosed events are handled). No HTA counterpart.
//!
//! Table `functions`: per frame name, its self time, its total time (the time of the stacks it
//! is in, counted once where it calls itself), its self time's share of the whole and how many
//! distinct stacks it is in, by self time. Chart: the flame graph (frames under 0.05 % of the whole
//! left out). The same stacks export as pprof, folded stacks, speedscope (`kinetoscope export`).

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::gpu_ops::parse_range;
use crate::profile::{self, Measure, Options};
use crate::table::{Chart, Report, Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "flame",
    title: "Flame graph",
    about: "CPU self time by call stack (rebuilt from the nesting of CPU events), or GPU time by the stack that launched it; exports as pprof, folded stacks, speedscope",
    hta_api: "",
    group: Group::LaunchCpu,
    options: &[
        Opt { name: "measure", kind: OptKind::Str, default: "cpu", help: "cpu: CPU self time by stack; gpu: GPU time by launching stack" },
        Opt { name: "range", kind: OptKind::Str, default: "", help: "START,END in µs on the trace's clock: only the time inside it; empty: the whole trace" },
    ],
    run,
};

/// Frames narrower than this share of the whole are left out of the chart.
pub const MIN_SHARE: f64 = 0.0005;

/// The measure option's value.
pub fn measure(text: &str) -> Result<Measure, AnalysisError> {
    match text.trim() {
        "cpu" => Ok(Measure::Cpu),
        "gpu" => Ok(Measure::Gpu),
        other => fail(format!("option 'measure': expected cpu or gpu, found '{other}'")),
    }
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    if ctx.hta {
        return fail("flame has no HTA 0.5.0 counterpart: run it without --hta");
    }
    let m = measure(params.str("measure"))?;
    let text = params.str("range").trim();
    let range = if text.is_empty() { None } else { Some(parse_range(text)?) };
    let p = profile::build(ctx.trace, &Options { ranks: ctx.selected.clone(), range, timelines: false });
    let mut report = Report::default();
    let whole = match m {
        Measure::Cpu => p.cpu_ns(),
        Measure::Gpu => p.gpu_ns(),
    };
    if whole == 0 {
        report.notes.push(match m {
            Measure::Cpu => "no CPU spans (python functions, operators, annotations, runtime calls) to build stacks from: nothing to show; measure gpu shows the GPU time".to_string(),
            Measure::Gpu => "no GPU operations (kernels, memcpys, memsets): no GPU time to show".to_string(),
        });
    }
    let r = p.repairs;
    if r.partial_overlaps + r.unclosed + r.unlaunched_gpu > 0 {
        report.notes.push(format!(
            "repaired: {} span(s) that ended after the frame they started in (cut there, the rest nested on its own), {} 'B' event(s) never closed (closed at their thread's last end), {} GPU operation(s) with no launching CPU call (under '(no launching CPU call)')",
            r.partial_overlaps, r.unclosed, r.unlaunched_gpu
        ));
    }
    report.tables.push(functions(&profile::flame_frames(&p, m, 0.0), whole));
    let frames = profile::flame_frames(&p, m, MIN_SHARE);
    report.charts.push(Chart::Flame {
        title: match m {
            Measure::Cpu => "CPU self time by call stack".into(),
            Measure::Gpu => "GPU time by launching call stack".into(),
        },
        unit: "µs".into(),
        frames,
        zoom: None,
        search: None,
    });
    Ok(report)
}

/// Per frame name: self, total (once per stack), share of `whole` (ns) and stacks, by self time.
fn functions(frames: &[crate::table::FlameFrame], whole: i64) -> Table {
    // the names on the path to each frame (depth-first order: a frame's ancestors come before it)
    let mut path: Vec<&str> = Vec::new();
    let mut by: FxHashMap<&str, (f64, f64, i64)> = FxHashMap::default();
    for f in frames {
        path.truncate(f.depth as usize);
        path.push(&f.name);
        let e = by.entry(&f.name).or_default();
        e.0 += f.self_value;
        e.2 += 1;
        // the frame's total counts for its name unless an ancestor has the same name (recursion)
        if !path[..path.len() - 1].contains(&f.name.as_str()) {
            e.1 += f.total;
        }
    }
    let mut rows: Vec<(&str, (f64, f64, i64))> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0).then(a.0.cmp(b.0)));
    let us_whole = whole as f64 / 1e3;
    let share = |v: f64| if us_whole > 0.0 { super::stats::np_round(100.0 * v / us_whole, 2) } else { f64::NAN };
    Table::new("functions")
        .with("name", Unit::None, Values::Str(rows.iter().map(|r| r.0).collect()))
        .with("self_us", Unit::Us, Values::Float(rows.iter().map(|r| r.1 .0).collect()))
        .with("total_us", Unit::Us, Values::Float(rows.iter().map(|r| r.1 .1).collect()))
        .with("self_pct", Unit::Percent, Values::Float(rows.iter().map(|r| share(r.1 .0)).collect()))
        .with("stacks", Unit::Count, Values::Int(rows.iter().map(|r| r.1 .2).collect()))
}
