//! What an analysis is, as the CLI, the page and `analyze` see it: an [`Analysis`] (name, title,
//! options, run function), the [`Context`] it runs in (the trace, its frames built once, the
//! selected ranks, the mode). Its error ([`AnalysisError`], in [`super::error`]) and its options
//! ([`super::params`]) are re-exported here. The list of analyses is
//! [`super::registry`].

use super::call_graph::{CallGraph, CallGraphError, CallGraphOptions};
use super::hta_frame::{hta_frames, HtaFrame, HtaFrameOptions, HtaFrames};
use super::launches::Launchers;
use super::queue::QueuePoint;
use crate::model::{RankTrace, Trace};
use crate::table::Report;

pub use super::error::{fail, AnalysisError};
pub use super::params::{parse_int_list, Opt, OptKind, Params};

/// The questions the page groups its panels by, in the page's order (the registry lists the
/// analyses of a group together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Where did the GPU's time go?
    GpuTime,
    /// Which kernels, and what launched them?
    Kernels,
    /// Is the CPU keeping the GPU fed?
    LaunchCpu,
    /// Does communication overlap compute, and which rank is late?
    Communication,
    /// How fast are copies?
    Memory,
    /// Steps, and LLM decode steps operation by operation.
    Steps,
    /// HPC I/O calls (Recorder traces).
    Io,
    /// Traces to open in Perfetto.
    Export,
}

impl Group {
    /// The label of the group on the page.
    pub fn title(self) -> &'static str {
        match self {
            Group::GpuTime => "GPU time",
            Group::Kernels => "Kernels",
            Group::LaunchCpu => "Launch & CPU",
            Group::Communication => "Communication",
            Group::Memory => "Memory",
            Group::Steps => "Steps & LLM decode",
            Group::Io => "I/O",
            Group::Export => "Export",
        }
    }
}

/// One analysis.
#[derive(Clone, Copy)]
pub struct Analysis {
    /// CLI subcommand and page panel id (`temporal`).
    pub name: &'static str,
    /// Title (`Temporal breakdown`).
    pub title: &'static str,
    /// One-line description (CLI help).
    pub about: &'static str,
    /// The HTA API it matches (`get_temporal_breakdown`, SPEC §2.1).
    pub hta_api: &'static str,
    /// The question it answers: the page groups its panels by it.
    pub group: Group,
    /// Options with HTA's defaults.
    pub options: &'static [Opt],
    /// Runs it.
    pub run: fn(&Context<'_>, &Params) -> Result<Report, AnalysisError>,
}

impl Analysis {
    /// Runs it for output: its report without the charts that show nothing the tables do not
    /// ([`Report::drop_uninformative_charts`]), with a note for what a rocprof trace lacks
    /// ([`super::rocprof_notes`]). The page, the CLI and `analyze` call this; `run`
    /// itself gives every chart the analysis made.
    pub fn report(&self, ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
        let mut report = (self.run)(ctx, params)?;
        report.drop_uninformative_charts();
        report.notes.extend(super::rocprof_notes::notes(self.name, ctx));
        Ok(report)
    }
}

impl std::fmt::Debug for Analysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analysis").field("name", &self.name).finish_non_exhaustive()
    }
}

/// A rank's call graph as the context shares it ([`Context::call_graph`]).
pub type SharedCallGraph = std::sync::Arc<Result<CallGraph, CallGraphError>>;

/// A rank's queue-length series as the context shares it ([`Context::queue_points`]).
pub type SharedQueue = Result<std::sync::Arc<Vec<QueuePoint>>, AnalysisError>;

/// A value per rank built on first use and kept for the next analysis that asks, with the
/// number of times it was asked for; once the uses announced ([`Shared::uses`]) are reached,
/// the last asker's copy is the only one left.
struct Shared<T> {
    slots: Vec<std::sync::Mutex<(Option<T>, usize)>>,
    /// How many times each rank's value will be asked for, when known.
    uses: Option<usize>,
}

impl<T: Clone> Shared<T> {
    fn new(ranks: usize) -> Shared<T> {
        Shared { slots: (0..ranks).map(|_| Default::default()).collect(), uses: None }
    }

    /// The value of the rank at `pos`, built now (by `build`) if no one asked before; two
    /// askers at once wait for one build.
    fn get(&self, pos: usize, build: impl FnOnce() -> T) -> T {
        let mut slot = self.slots[pos].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let value = slot.0.get_or_insert_with(build).clone();
        slot.1 += 1;
        if self.uses.is_some_and(|n| slot.1 >= n) {
            slot.0 = None;
        }
        value
    }

    /// Whether another thread holds the slot of one of `ranks` now (it is building the value):
    /// [`Shared::get`] would wait.
    fn busy(&self, ranks: &[usize]) -> bool {
        ranks.iter().any(|&p| matches!(self.slots[p].try_lock(), Err(std::sync::TryLockError::WouldBlock)))
    }
}

/// What every analysis reads: the trace, its frames (built once) and the selected ranks.
pub struct Context<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// The per-rank frames (HTA's or the corrected ones, see [`Context::hta`]), built on first
    /// use ([`Context::frames`]): analyses of the raw events (decode steps) never pay for them.
    frames: std::sync::OnceLock<HtaFrames>,
    /// Each rank's call graph (in the context's mode), shared by the analyses that walk it
    /// ([`Context::call_graph`]).
    graphs: Shared<SharedCallGraph>,
    /// Each rank's queue-length series, shared by the analyses that read it
    /// ([`Context::queue_points`]).
    queues: Shared<SharedQueue>,
    /// Each rank's launching calls, built on first use ([`Context::launchers`]).
    launchers: Vec<std::sync::OnceLock<Launchers>>,
    /// Reproduce HTA 0.5.0 exactly, bugs included (`--hta`); else fix SPEC §5's bugs.
    pub hta: bool,
    /// Positions (in `trace.ranks` and `frames.ranks`) of the ranks to analyse, in rank order.
    pub selected: Vec<usize>,
    /// Whether the caller writes the traces analyses produce ([`crate::table::TraceOut`]);
    /// default `true`. With `false` (`analyze` without `--traces`, which drops them), an
    /// analysis may leave out what a produced trace adds when that costs memory: the trace is
    /// still listed, by name, so the caller can say what it did not write.
    pub traces: bool,
}

impl<'a> Context<'a> {
    /// Frames of `trace`; `ranks` selects rank numbers (`None`: all). Unknown ranks are errors.
    pub fn new(trace: &'a Trace, hta: bool, ranks: Option<&[i64]>) -> Result<Context<'a>, AnalysisError> {
        let selected = select_ranks(trace, ranks)?;
        Ok(Context::with_frames(trace, None, hta, selected))
    }

    /// A context over already-selected rank positions, reusing `frames` when given (they must
    /// be of the same mode: exact frames for the default mode, HTA's for `hta`).
    pub fn with_frames(trace: &'a Trace, frames: Option<HtaFrames>, hta: bool, selected: Vec<usize>) -> Context<'a> {
        let cell = std::sync::OnceLock::new();
        if let Some(f) = frames {
            debug_assert_eq!(f.exact, !hta, "frames of the other mode");
            let _ = cell.set(f);
        }
        let (graphs, queues) = (Shared::new(trace.ranks.len()), Shared::new(trace.ranks.len()));
        let launchers = trace.ranks.iter().map(|_| std::sync::OnceLock::new()).collect();
        Context { trace, frames: cell, graphs, queues, launchers, hta, selected, traces: true }
    }

    /// The frames, built now if no analysis needed them before.
    pub fn frames(&self) -> &HtaFrames {
        self.frames.get_or_init(|| hta_frames(self.trace, &HtaFrameOptions { exact: !self.hta, ..Default::default() }))
    }

    /// The call graph of the rank at position `pos` (in the context's mode), built now if no
    /// analysis needed it before; two analyses asking at once wait for one build. The context
    /// keeps it for the next analysis, unless this was the last of the uses
    /// [`Context::expect_call_graph_uses`] announced (the caller's copy then is the last).
    pub fn call_graph(&self, pos: usize) -> SharedCallGraph {
        self.graphs.get(pos, || {
            std::sync::Arc::new(CallGraph::build(&self.frames().ranks[pos], &self.trace.ranks[pos], CallGraphOptions::new(self.hta)))
        })
    }

    /// Whether another thread is building a call graph of the selected ranks now, so that
    /// [`Context::call_graph`] would wait for it: a scheduler may run a step that does not need
    /// it meanwhile.
    pub fn call_graph_busy(&self) -> bool {
        self.graphs.busy(&self.selected)
    }

    /// Announces that each rank's call graph will be asked for `n` times (by the analyses of a
    /// plan, in turn), so that it is freed after the last (about 25 bytes per frame row). A
    /// further use builds it again.
    pub fn expect_call_graph_uses(&mut self, n: usize) {
        self.graphs.uses = Some(n);
    }

    /// The queue-length series of the rank at position `pos` ([`super::queue::queue_points`]),
    /// built now if no analysis needed it before, and kept like the call graph (for
    /// [`Context::expect_queue_uses`] uses): the queue length and its counter track read it.
    pub fn queue_points(&self, pos: usize) -> SharedQueue {
        self.queues.get(pos, || super::queue::queue_points(self, pos).map(std::sync::Arc::new))
    }

    /// Whether another thread is building a queue-length series of the selected ranks now (see
    /// [`Context::call_graph_busy`]).
    pub fn queue_busy(&self) -> bool {
        self.queues.busy(&self.selected)
    }

    /// Announces that each rank's queue-length series will be asked for `n` times (see
    /// [`Context::expect_call_graph_uses`]; 32 bytes per launch and per GPU operation).
    pub fn expect_queue_uses(&mut self, n: usize) {
        self.queues.uses = Some(n);
    }

    /// The launching call of each frame row of the rank at position `pos`, built now if no
    /// analysis needed it before (the idle time, queue, counters and critical path share it).
    pub fn launchers(&self, pos: usize) -> &Launchers {
        self.launchers[pos].get_or_init(|| Launchers::new(&self.frames().ranks[pos], &self.trace.ranks[pos]))
    }

    /// The frames if they were built (to keep them for the next run).
    pub fn into_frames(self) -> Option<HtaFrames> {
        self.frames.into_inner()
    }

    /// `(frame, rank trace)` of each selected rank, in rank order.
    pub fn ranks(&self) -> impl Iterator<Item = (&HtaFrame, &'a RankTrace)> + '_ {
        self.selected.iter().map(|&p| (&self.frames().ranks[p], &self.trace.ranks[p]))
    }
}

/// Positions (in `trace.ranks`) of the rank numbers `ranks` (`None`: all), in rank order,
/// without duplicates. A rank the trace does not have is an error naming the ones it has.
pub fn select_ranks(trace: &Trace, ranks: Option<&[i64]>) -> Result<Vec<usize>, AnalysisError> {
    let Some(want) = ranks else { return Ok((0..trace.ranks.len()).collect()) };
    let mut sel = Vec::new();
    for &w in want {
        match trace.ranks.iter().position(|r| i64::from(r.rank) == w) {
            Some(p) if !sel.contains(&p) => sel.push(p),
            Some(_) => {}
            None => {
                let have: Vec<String> = trace.ranks.iter().map(|r| r.rank.to_string()).collect();
                return fail(format!("rank {w} is not in the trace (ranks: {})", have.join(", ")));
            }
        }
    }
    sel.sort_unstable();
    Ok(sel)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call graph is busy exactly while its lock is held (as during its build).
    #[test]
    fn call_graph_busy_while_its_lock_is_held() {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/analysis/sequences.json")).expect("testdata");
        let trace = crate::read::read_all(&[("sequences.json", &bytes)]).expect("reads");
        let ctx = Context::new(&trace, false, None).expect("context");
        assert!(!ctx.call_graph_busy());
        let held = ctx.graphs.slots[ctx.selected[0]].lock().expect("lock");
        assert!(ctx.call_graph_busy());
        drop(held);
        assert!(!ctx.call_graph_busy());
        assert!(ctx.call_graph(ctx.selected[0]).is_ok());
        assert!(!ctx.call_graph_busy());
    }
}
