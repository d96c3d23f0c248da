//! What a pattern detector returns for one device: the verdict, the number compared with the
//! threshold, the evidence, and a sentence for the user.

use crate::analysis::names::shorten_name;
use crate::analysis::units::duration_text;
use crate::model::{EventId, RankTrace};

/// The four patterns, in the order the tables list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pattern {
    /// The GPU idle while the host copies or synchronizes.
    SerializedExecution,
    /// Many short kernels with longer gaps between them.
    LaunchOverhead,
    /// Phases where copies keep the device busy and kernels do not.
    MemoryBound,
    /// Long gaps in the device's activity.
    LongGaps,
}

impl Pattern {
    /// Every pattern, in table order.
    pub const ALL: [Pattern; 4] = [Pattern::SerializedExecution, Pattern::LaunchOverhead, Pattern::MemoryBound, Pattern::LongGaps];

    /// Name in the tables and notes.
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::SerializedExecution => "serialized_execution",
            Pattern::LaunchOverhead => "launch_overhead",
            Pattern::MemoryBound => "memory_bound",
            Pattern::LongGaps => "long_gaps",
        }
    }

    /// What the measure counts (`measure_unit` column).
    pub fn measure_unit(self) -> &'static str {
        match self {
            Pattern::SerializedExecution => "% of GPU span",
            Pattern::LaunchOverhead => "% of kernels",
            Pattern::MemoryBound => "phases",
            Pattern::LongGaps => "gaps",
        }
    }
}

/// Whether a pattern fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The measure reached the threshold.
    Fired,
    /// It did not.
    NotFired,
    /// The trace lacks what the pattern needs (host calls, kernels).
    NotApplicable,
}

impl Verdict {
    /// `yes`, `no`, `n/a`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Fired => "yes",
            Verdict::NotFired => "no",
            Verdict::NotApplicable => "n/a",
        }
    }
}

/// One piece of evidence: a call, a run of kernels, a phase or a gap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Start, ns (trace clock).
    pub start: i64,
    /// End, ns.
    pub end: i64,
    /// What it is (`Detail::text`).
    pub detail: Detail,
    /// The time that counts, ns (GPU idle, gaps, copy busy time, gap length).
    pub value: i64,
}

/// What a piece of evidence is, kept as numbers and rows and written as text only for the rows
/// a table lists: a device can have thousands (runs of launch-bound kernels), and the summary's
/// figure lists none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// A blocking host call: its name.
    Call(EventId),
    /// A run of launch-bound kernels: how many, their time and the gaps after them, ns.
    Kernels { count: usize, busy: i64, gaps: i64 },
    /// A memory-bound phase: its copies, the bytes they moved when every size is known, the
    /// copies' and the kernels' busy time and the phase's length, ns.
    Phase { copies: usize, bytes: Option<i64>, busy: i64, kernel_busy: i64, dur: i64 },
    /// A gap: the operation before it, the one after, and the host call overlapping it the longest.
    Gap { before: EventId, after: EventId, host: Option<EventId> },
}

impl Detail {
    /// The text of the `detail` column: a call name; a kernel count and times; copies, bytes and
    /// GB/s, the kernels' busy %; the short names of the operations around a gap and the host call.
    pub fn text(&self, r: &RankTrace) -> String {
        match *self {
            Detail::Call(e) => r.name(e).to_string(),
            Detail::Kernels { count, busy, gaps } => {
                format!("{count} kernels, {} in kernels, {} of gaps", duration_text(busy), duration_text(gaps))
            }
            Detail::Phase { copies, bytes, busy, kernel_busy, dur } => {
                let moved = match bytes {
                    Some(b) if busy > 0 => format!("{b} bytes at {:.1} GB/s", b as f64 / busy as f64),
                    _ => "bytes unknown".to_string(),
                };
                let s = if copies == 1 { "y" } else { "ies" };
                format!("{copies} cop{s}, {moved}; kernels busy {:.1}%", percent(kernel_busy, dur))
            }
            Detail::Gap { before, after, host } => {
                let mut t = format!("{} → {}", shorten_name(r.name(before)), shorten_name(r.name(after)));
                if let Some(call) = host {
                    t.push_str(&format!("; host: {}", r.name(call)));
                }
                t
            }
        }
    }
}

/// One pattern on one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Fired, not fired, not applicable.
    pub verdict: Verdict,
    /// The number compared with the threshold (NaN when not applicable).
    pub measure: f64,
    /// The threshold.
    pub threshold: f64,
    /// Evidence, in time order.
    pub evidence: Vec<Evidence>,
    /// One sentence for the user.
    pub summary: String,
}

impl Finding {
    /// A finding that fired when `fired`.
    pub fn judged(fired: bool, measure: f64, threshold: f64, evidence: Vec<Evidence>, summary: String) -> Finding {
        let verdict = if fired { Verdict::Fired } else { Verdict::NotFired };
        Finding { verdict, measure, threshold, evidence, summary }
    }

    /// A pattern the trace cannot show, and why (`summary`).
    pub fn not_applicable(threshold: f64, summary: &str) -> Finding {
        Finding { verdict: Verdict::NotApplicable, measure: f64::NAN, threshold, evidence: Vec::new(), summary: summary.to_string() }
    }
}

/// `100 * part / whole`, 0 when `whole` is 0.
pub fn percent(part: i64, whole: i64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
