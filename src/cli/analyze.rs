//! `kinetoscope analyze PATH... --out DIR [--hta]`: every analysis, each table as `DIR/<name>.csv`
//! and each analysis' charts as `DIR/<analysis>.svg`. With `--hta` the files are HTA 0.5.0's, named
//! and laid out as in `../shared/hta-oracle/out/<set>/` so they compare one to one; an analysis
//! HTA would fail on is listed in `DIR/_status.csv` instead of written. With `--partial FILE`
//! it writes the parsed files instead, for `kinetoscope merge` (`merge.rs`).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use kinetoscope::analysis::api::{parse_int_list, AnalysisError, Context};
use kinetoscope::analysis::registry::{hta_plan, run_step, uses_call_graph, uses_queue_points};

/// Options of `analyze`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files or folders of per-rank traces.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Folder to write into (created if missing). Required unless --partial is given.
    #[arg(long, value_name = "DIR", required_unless_present = "partial", conflicts_with = "partial")]
    out: Option<PathBuf>,
    /// Instead of analysing, write the parsed files to FILE, a partial for `kinetoscope merge`
    /// (docs/cluster.md).
    #[arg(long, value_name = "FILE")]
    partial: Option<PathBuf>,
    /// With --partial: only part K (from 0) of N contiguous parts of the inputs, in the order
    /// they are read (Recorder folders first, folders expanded into their sorted files).
    #[arg(long, value_name = "K/N", requires = "partial", conflicts_with = "out")]
    chunk: Option<super::input::Chunk>,
    #[command(flatten)]
    how: HowArgs,
}

/// The analyses' options, shared by `analyze` and `merge`.
#[derive(clap::Args)]
pub struct HowArgs {
    /// Reproduce HTA 0.5.0 exactly, including its documented bugs, with the oracle's file names.
    #[arg(long)]
    hta: bool,
    /// Ranks to analyse, e.g. 0,2-5 (default: all).
    #[arg(long, value_name = "LIST")]
    ranks: Option<String>,
    /// Do not write SVG charts.
    #[arg(long)]
    no_charts: bool,
    /// Also write the traces analyses produce (the rank with counter tracks, with the critical
    /// path or the kernel sequences marked: each a gzip copy of a rank); always with `--hta`.
    #[arg(long)]
    traces: bool,
    /// An analysis' option, e.g. `critical_path.annotation=ProfilerStep` (repeatable).
    #[arg(long = "option", value_name = "ANALYSIS.NAME=VALUE")]
    options: Vec<String>,
}

impl HowArgs {
    /// The options as [`write_analyses`] takes them.
    pub fn how(self) -> How {
        How { hta: self.hta, ranks: self.ranks, no_charts: self.no_charts, options: self.options, traces: self.traces }
    }

    /// The first option given, as spelled on the command line.
    fn first_given(&self) -> Option<&'static str> {
        [
            (self.hta, "--hta"),
            (self.ranks.is_some(), "--ranks"),
            (self.no_charts, "--no-charts"),
            (self.traces, "--traces"),
            (!self.options.is_empty(), "--option"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
}

/// `--option ANALYSIS.NAME=VALUE` values: (analysis, option name, value), each checked against the
/// registry.
fn parse_options(given: &[String]) -> Result<Vec<(&'static str, &'static str, String)>> {
    given
        .iter()
        .map(|o| {
            let (key, value) = o.split_once('=').with_context(|| format!("--option {o}: expected ANALYSIS.NAME=VALUE"))?;
            let (analysis, name) = key.split_once('.').with_context(|| format!("--option {o}: expected ANALYSIS.NAME=VALUE"))?;
            let a =
                kinetoscope::analysis::registry::find(analysis).with_context(|| format!("--option {o}: no analysis called {analysis}"))?;
            let opt = a.options.iter().find(|x| x.name == name.replace('-', "_")).with_context(|| {
                let names: Vec<&str> = a.options.iter().map(|x| x.name).collect();
                format!("--option {o}: {} has no option {name} (options: {})", a.name, names.join(", "))
            })?;
            Ok((a.name, opt.name, value.to_string()))
        })
        .collect()
}

/// Runs `analyze`.
pub fn run(a: Args) -> Result<()> {
    if let Some(file) = &a.partial {
        if let Some(option) = a.how.first_given() {
            anyhow::bail!(
                "{option} is an option of `kinetoscope merge`, not of `analyze --partial`: a partial holds the parsed files, and the \
                 analyses run when the partials are merged"
            );
        }
        return super::merge::write_partial(&a.paths, a.chunk, file);
    }
    let out = a.out.context("--out DIR is required")?;
    let clock = std::time::Instant::now();
    let trace = super::input::read_trace(&a.paths)?;
    if timings() {
        eprintln!("timing\tread\t{:.3}{}", clock.elapsed().as_secs_f64(), memory());
    }
    write_analyses(&trace, &out, &a.how.how())
}

/// What to analyse and how, as `analyze`'s options say.
pub struct How {
    /// `--hta`.
    pub hta: bool,
    /// `--ranks`.
    pub ranks: Option<String>,
    /// `--no-charts`.
    pub no_charts: bool,
    /// `--option` values.
    pub options: Vec<String>,
    /// `--traces` (implied by `--hta`).
    pub traces: bool,
}

/// ` rss=…MiB peak=…MiB` of this process (Linux; empty elsewhere), for the timing lines.
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        status.lines().find_map(|l| l.strip_prefix(k)).map(|v| v.trim().trim_end_matches(" kB").parse::<u64>().unwrap_or(0) / 1024)
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(peak)) => format!("\trss={rss}MiB\tpeak={peak}MiB"),
        _ => String::new(),
    }
}

/// Minor page faults and CPU seconds (user and system) of the calling thread so far (Linux;
/// zeros elsewhere), for the timing lines: a step's faults are the fresh memory it touched, and
/// its CPU time below its wall time is what it waited (for a build another step had begun).
fn thread_usage() -> (i64, f64) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: getrusage writes only into the struct it is given
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) } == 0 {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
            return (u.ru_minflt, secs(u.ru_utime) + secs(u.ru_stime));
        }
    }
    (0, 0.0)
}

/// Whether `KINETOSCOPE_TIMINGS` asks for a line per step on stderr (`timing<TAB>step<TAB>s`).
pub(super) fn timings() -> bool {
    std::env::var_os("KINETOSCOPE_TIMINGS").is_some()
}

/// Runs every analysis of [`hta_plan`] on `trace` and writes its tables, produced files and
/// charts into `out`, with `_status.csv`: what `analyze --out DIR` writes.
///
/// Analyses run on up to [`ANALYSIS_THREADS`] threads while this one writes their results, in
/// the plan's order (so the files and `_status.csv` do not depend on the threads).
pub fn write_analyses(trace: &kinetoscope::Trace, out: &std::path::Path, how: &How) -> Result<()> {
    let timings = timings();
    let begun = std::time::Instant::now();
    let ranks = how.ranks.as_deref().map(parse_int_list).transpose()?.flatten();
    let options = parse_options(&how.options)?;
    let traces = how.traces || how.hta;
    let mut ctx = Context::new(trace, how.hta, ranks.as_deref())?;
    ctx.traces = traces;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, ANALYSIS_THREADS);
    crate::give_back_freed_memory();
    if threads > 1 && !ctx.hta {
        // what nearly every analysis needs first, built at once: the link columns (for the
        // launching calls; HTA's mode has its own) on one thread, the frames (which the plan
        // reads too) on this one
        std::thread::scope(|s| {
            s.spawn(|| {
                for &p in &ctx.selected {
                    trace.ranks[p].compute_links();
                }
            });
            ctx.frames();
        });
    }
    if timings {
        eprintln!("timing\tframes and links\t{:.3}{}", begun.elapsed().as_secs_f64(), memory());
    }
    let mut plan = hta_plan(&ctx);
    // a variant (a step with its own options) does not redraw the analysis' charts
    let variant: Vec<bool> = plan.iter().map(|step| !step.params.is_empty()).collect();
    for step in &mut plan {
        for (_, key, value) in options.iter().filter(|o| o.0 == step.analysis.name) {
            step.params.retain(|p| p.0 != *key);
            step.params.push((key, value.clone()));
        }
    }
    // a step equal to an earlier one (the user's options made both `sequences` runs the same)
    // would write the same files again, at the same time: it is left out
    let mut seen = std::collections::HashSet::new();
    let (plan, variant): (Vec<_>, Vec<bool>) = plan
        .into_iter()
        .zip(variant)
        .filter(|(step, _)| {
            let mut params = step.params.clone();
            params.sort();
            seen.insert((step.analysis.name, params, step.rename))
        })
        .unzip();
    ctx.expect_call_graph_uses(plan.iter().filter(|step| uses_call_graph(step, ctx.hta)).count());
    ctx.expect_queue_uses(plan.iter().filter(|step| uses_queue_points(step)).count());
    // each file name belongs to one step: a second step writing it gets an error (two analyses
    // naming a table alike), never two threads one file
    let claimed: std::sync::Mutex<std::collections::HashMap<String, usize>> = Default::default();
    let mut status = String::from("analysis,status,tables,message\n");
    let (mut written, mut failed, mut traces_left) = (0, 0, 0);
    // results wait for those before them only for their produced traces (written in plan
    // order: the two `sequences` runs write a trace of the same name), so without traces a
    // step never waits
    let written_so_far = Progress { ahead: if traces { AHEAD } else { usize::MAX }, ..Progress::default() };
    // the order the threads take the steps in: `critical_path` (the largest transient memory)
    // first, beside the small steps at the start, instead of beside `aten_ops` or `queue` as in
    // the plan; the results are still recorded in plan order. Not with produced traces (a step
    // waits until those more than AHEAD before it in the plan are written) or one thread. The
    // steps that read the queue-length series run one after another where the last of them is
    // (the variant `queue` run, at the plan's end), so that the series is held briefly: beside
    // `aten_ops`, `queue` and `counters` had raised the peak
    let mut order: Vec<usize> = (0..plan.len()).collect();
    if !traces && threads > 1 {
        let last_queue = plan.iter().rposition(uses_queue_points).unwrap_or(0);
        order.sort_by_key(|&i| {
            if plan[i].analysis.name == kinetoscope::analysis::critical_path::ANALYSIS.name {
                0
            } else if uses_queue_points(&plan[i]) {
                last_queue + 1
            } else {
                i + 1
            }
        });
    }
    let queue = StepQueue::new(order);
    let clock = std::time::Instant::now();
    std::thread::scope(|s| -> Result<()> {
        // however the writing below ends, the threads stop waiting for it
        let _release = Release(&written_so_far);
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let (tx, queue, plan, ctx, written_so_far, variant, claimed) =
                (tx.clone(), &queue, &plan, &ctx, &written_so_far, &variant, &claimed);
            // a step that reads the call graph or the queue-length series would wait while
            // another thread builds it (`sequences` right after `aten_ops`): it is put off for
            // the steps after it
            let busy =
                |i: usize| uses_call_graph(&plan[i], ctx.hta) && ctx.call_graph_busy() || uses_queue_points(&plan[i]) && ctx.queue_busy();
            s.spawn(move || {
                while let Some(i) = queue.take(busy) {
                    let step = &plan[i];
                    if !written_so_far.wait_below(i) {
                        break;
                    }
                    let started = std::time::Instant::now();
                    let at = (started - clock).as_secs_f64();
                    let (faults, cpu) = thread_usage();
                    let result = run_step(ctx, step);
                    let ran = started.elapsed().as_secs_f64();
                    let cpu = thread_usage().1 - cpu;
                    // the process' peak as this step ends: which steps (or pairs of steps) raise it
                    let peak = if timings { memory() } else { String::new() };
                    // each analysis' tables and charts are written by the thread that ran it
                    let result = result
                        .and_then(|report| claim(claimed, i, &report).map(|()| report))
                        .map(|report| write_step(out, step.analysis.name, report, how.no_charts || variant[i], traces));
                    let faults = thread_usage().0 - faults;
                    if tx.send((i, result, (at, ran, cpu, peak), started.elapsed().as_secs_f64() - ran, faults)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // results arrive in any order; each is recorded (and its traces written) when those
        // before it are
        let mut waiting = std::collections::BTreeMap::new();
        for (i, step) in plan.iter().enumerate() {
            let (result, (at, ran, cpu, peak), wrote, faults) = loop {
                if let Some(r) = waiting.remove(&i) {
                    break r;
                }
                let (j, r, t, w, f) = rx.recv().context("an analysis thread stopped")?;
                waiting.insert(j, (r, t, w, f));
            };
            let name = step.analysis.name;
            let started = std::time::Instant::now();
            match result {
                Ok(step) => {
                    let step = step?;
                    written += step.files;
                    traces_left += step.traces_left;
                    if traces {
                        written += super::output::write_traces(out, trace, &step.report)?;
                    }
                    let _ = writeln!(status, "{name},ok,{},{}", step.tables, csv_text(&step.report.notes.join("; ")));
                }
                Err(e) => {
                    failed += 1;
                    let _ = writeln!(status, "{name},error,0,{}", csv_text(&e.0));
                }
            }
            if timings {
                let traced = started.elapsed().as_secs_f64();
                eprintln!(
                    "timing\t{name}\t{ran:.3}\twrite\t{:.3}{}\tfaults={faults}\tat={at:.3}\tcpu={cpu:.3}\tat_end:{}",
                    wrote + traced,
                    memory(),
                    peak.trim_start()
                );
            }
            written_so_far.set(i + 1);
        }
        Ok(())
    })?;
    std::fs::write(out.join("_status.csv"), status)?;
    if timings {
        eprintln!("timing\tanalyses\t{:.3}{}", begun.elapsed().as_secs_f64(), memory());
    }
    eprintln!("wrote {written} files to {} ({failed} analyses not applicable, see _status.csv)", out.display());
    if traces_left > 0 {
        eprintln!("{traces_left} produced traces (copies of a rank with an analysis' marks or counters) not written: --traces writes them");
    }
    Ok(())
}

/// Claims the file names of step `i`'s tables for it; `Err` naming the step that claimed one
/// first.
fn claim(
    claimed: &std::sync::Mutex<std::collections::HashMap<String, usize>>,
    i: usize,
    report: &kinetoscope::table::Report,
) -> Result<(), AnalysisError> {
    let mut claimed = claimed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for name in report.tables.iter().map(|t| format!("{}.csv", t.name)).chain(report.files.iter().map(|f| f.name.clone())) {
        if let Some(&other) = claimed.get(&name).filter(|&&o| o != i) {
            return Err(AnalysisError(format!("{name} is written by step {} of the plan too (two tables of one name: a bug)", other + 1)));
        }
        claimed.insert(name, i);
    }
    Ok(())
}

/// A step's report once its tables and charts are written: what is left for the plan-order
/// part of [`write_analyses`].
struct StepWritten {
    /// The report without its tables, charts and files (its notes and produced traces).
    report: kinetoscope::table::Report,
    /// Tables the step made.
    tables: usize,
    /// Files written (tables and ready-made files; not charts).
    files: usize,
    /// Produced traces dropped because traces are not written.
    traces_left: usize,
}

/// Writes the tables of step `name`'s `report` into `out`, and its charts unless `no_charts`;
/// drops its produced traces unless `traces`.
fn write_step(
    out: &std::path::Path,
    name: &str,
    mut report: kinetoscope::table::Report,
    no_charts: bool,
    traces: bool,
) -> Result<StepWritten> {
    let files = super::output::write_tables(out, &report)?;
    if !no_charts && !report.charts.is_empty() {
        let svg = kinetoscope::chart::draw::charts_svg(&report.charts).map_err(anyhow::Error::msg)?;
        let p = out.join(format!("{name}.svg"));
        std::fs::write(&p, svg).with_context(|| format!("writing {}", p.display()))?;
    }
    let tables = report.tables.len();
    let traces_left = if traces { 0 } else { std::mem::take(&mut report.traces).len() };
    (report.tables, report.charts, report.files) = Default::default();
    Ok(StepWritten { report, tables, files, traces_left })
}

/// The steps of a plan in the order the analysis threads take them ([`StepQueue::take`]).
struct StepQueue(std::sync::Mutex<(std::collections::VecDeque<usize>, Vec<usize>)>);

impl StepQueue {
    fn new(order: Vec<usize>) -> StepQueue {
        StepQueue(std::sync::Mutex::new((order.into(), Vec::new())))
    }

    /// The next step to run: the first put-off one no longer `busy`, else the next in order
    /// (each `busy` one on the way is put off), else the first put-off one (nothing else is
    /// left, so it may wait); `None` once all are taken.
    fn take(&self, busy: impl Fn(usize) -> bool) -> Option<usize> {
        let mut q = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (order, put_off) = &mut *q;
        if let Some(k) = put_off.iter().position(|&i| !busy(i)) {
            return Some(put_off.remove(k));
        }
        while let Some(i) = order.pop_front() {
            if !busy(i) {
                return Some(i);
            }
            put_off.push(i);
        }
        (!put_off.is_empty()).then(|| put_off.remove(0))
    }
}

/// Analyses run at once by [`write_analyses`] (at most the machine's cores).
const ANALYSIS_THREADS: usize = 2;

/// How far past the last written step an analysis may start when results carry produced
/// traces: they wait in memory until those before them are written, so a slow step must not let
/// the others pile up results.
const AHEAD: usize = 8;

/// Steps written so far (`usize::MAX` once the writer stopped), for the analysis threads.
#[derive(Default)]
struct Progress {
    written: std::sync::Mutex<usize>,
    changed: std::sync::Condvar,
    /// How far past the last written step a step may start.
    ahead: usize,
}

impl Progress {
    /// Waits until step `i` may start (within `ahead` of the writer); `false` if the writer
    /// stopped.
    fn wait_below(&self, i: usize) -> bool {
        let mut w = self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *w != usize::MAX && i >= w.saturating_add(self.ahead) {
            w = self.changed.wait(w).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *w != usize::MAX
    }

    fn set(&self, written: usize) {
        *self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = written;
        self.changed.notify_all();
    }
}

/// Marks the writer stopped when dropped (also on an error or a panic of the writer).
struct Release<'a>(&'a Progress);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.set(usize::MAX);
    }
}

fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::StepQueue;

    /// Busy steps are put off for the next ones and taken as soon as they are no longer busy,
    /// or when nothing else is left.
    #[test]
    fn step_queue_puts_busy_steps_off() {
        let q = StepQueue::new(vec![3, 0, 1, 2, 4]);
        let busy = std::cell::Cell::new(true);
        let take = || q.take(|i| busy.get() && (i == 1 || i == 2));
        assert_eq!((take(), take(), take()), (Some(3), Some(0), Some(4)));
        // nothing but put-off steps is left: the first of them, busy or not
        assert_eq!(take(), Some(1));
        busy.set(false);
        assert_eq!((take(), take()), (Some(2), None));
        let q = StepQueue::new(vec![0, 1, 2]);
        assert_eq!(q.take(|i| i == 0), Some(1));
        // 0 is no longer busy: it comes before 2
        assert_eq!((q.take(|_| false), q.take(|_| false), q.take(|_| false)), (Some(0), Some(2), None));
    }
}
