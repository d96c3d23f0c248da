//! Which part of a rank the critical path covers (HTA's `critical_path_analysis` preamble): the
//! time window of an annotation's instances, and the frame rows inside it.
//!
//! * `annotation == ""`: the whole rank. HTA: from the earliest `ts` to the largest stale `end`
//!   (absolute, SPEC §1.7, so everything after the start); else to the latest end.
//! * otherwise the rows whose name contains `annotation`, instances `a..=b`: from the earliest
//!   start to the latest end of those instances. HTA takes instances in frame row order, GPU
//!   rows first (so a `gpu_user_annotation` copy of a step can be instance 0, SPEC §5.13);
//!   without `--hta`, CPU rows in time order.
//!
//! Rows in the window: CPU rows (`stream == -1`) starting inside it with a positive duration, and
//! GPU rows whose launch call is such a row (HTA: the CPU row whose `index_correlation` names
//! the GPU row; it also keeps every `Stream Wait Event`). In frame `index` order.

use rustc_hash::FxHashSet;

use super::super::api::{fail, AnalysisError};
use super::super::hta_frame::HtaFrame;
use super::super::launches::Launchers;
use crate::model::RankTrace;

/// Instances of the annotation: `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instances {
    /// First instance (0-based).
    pub first: usize,
    /// Last instance, inclusive.
    pub last: usize,
}

impl Instances {
    /// Parses `1` or a range `0-3` / `0:3` (HTA's `instance_id` int or tuple).
    pub fn parse(s: &str) -> Result<Instances, AnalysisError> {
        let s = s.trim();
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .or_else(|_| fail(format!("option 'instance': expected an instance number such as 1 or a range such as 0-3, found '{s}'")))
        };
        let (first, last) = match s.split_once(['-', ':']) {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(s)?, num(s)?),
        };
        if last < first {
            return fail(format!("option 'instance': range {s} ends before it starts"));
        }
        Ok(Instances { first, last })
    }
}

impl std::fmt::Display for Instances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}

/// The window: `[start, end]`, ns on the frame clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Start.
    pub start: i64,
    /// End (inclusive).
    pub end: i64,
}

/// The window of `annotation` instances `inst` on frame `f`. An annotation that names no row,
/// or instances past the last, is an error listing what the rank has.
pub fn window(f: &HtaFrame, r: &RankTrace, annotation: &str, inst: Instances, hta: bool) -> Result<Window, AnalysisError> {
    if f.is_empty() {
        return fail(format!("rank {} has no events", f.rank));
    }
    if annotation.is_empty() {
        let start = (0..f.len()).map(|i| f.ts_ns(r, i)).min().unwrap_or(0);
        let end = if hta { i64::MAX } else { (0..f.len()).map(|i| f.ts_ns(r, i) + f.dur_ns(r, i)).max().unwrap_or(start) };
        return Ok(Window { start, end });
    }
    // each string tested once, not once per row
    let named: Vec<bool> = r.strings.iter().map(|s| s.contains(annotation)).collect();
    let mut rows: Vec<usize> = (0..f.len()).filter(|&i| named[f.name(r, i).0 as usize]).collect();
    if !hta {
        rows.retain(|&i| f.stream(r, i) == -1);
        rows.sort_by_key(|&i| (f.ts_ns(r, i), f.index(r, i)));
    }
    if rows.is_empty() {
        return fail(format!("annotation '{annotation}' is not in rank {}; it has {}", f.rank, annotation_list(f, r)));
    }
    if inst.first >= rows.len() {
        return fail(format!(
            "instance {inst} of annotation '{annotation}': rank {} has {} instance{} (0 to {})",
            f.rank,
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            rows.len() - 1
        ));
    }
    let chosen = &rows[inst.first..=inst.last.min(rows.len() - 1)];
    let start = chosen.iter().map(|&i| f.ts_ns(r, i)).min().unwrap_or(0);
    let end = chosen.iter().map(|&i| f.ts_ns(r, i) + f.dur_ns(r, i)).max().unwrap_or(start);
    Ok(Window { start, end })
}

/// What a user can pass as an annotation: the rank's annotation names (user annotations and
/// steps, `#N` suffixes folded), with their instance counts.
pub fn annotation_list(f: &HtaFrame, r: &RankTrace) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for i in (0..f.len()).filter(|&i| f.stream(r, i) == -1) {
        let kind = r.events.kind[f.row[i] as usize];
        let name = r.strings.get(f.name(r, i));
        if kind == crate::model::Kind::UserAnnotation || name.starts_with("ProfilerStep#") {
            let base = name.split_once('#').map_or(name, |(b, _)| b);
            *counts.entry(base.to_string()).or_default() += 1;
        }
    }
    if counts.is_empty() {
        return "no user annotations (pass --annotation '' for the whole trace)".into();
    }
    let mut list: Vec<(String, usize)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let more = list.len().saturating_sub(20);
    let mut text: Vec<String> = list.iter().take(20).map(|(n, c)| format!("'{n}' ({c})")).collect();
    if more > 0 {
        text.push(format!("and {more} more"));
    }
    format!("these annotations (instances): {}; or '' for the whole trace", text.join(", "))
}

/// Frame rows in window `w` (module docs), in `index` order. `launcher`: each row's launching
/// call (default mode; empty with `hta`).
pub fn rows_in(f: &HtaFrame, r: &RankTrace, w: Window, hta: bool, launcher: &Launchers) -> Vec<usize> {
    let inside = |i: usize| f.stream(r, i) == -1 && w.start <= f.ts_ns(r, i) && f.ts_ns(r, i) <= w.end && f.dur_ns(r, i) > 0;
    let mut keep: Vec<usize> = (0..f.len()).filter(|&i| inside(i)).collect();
    if hta {
        let launched: FxHashSet<i64> = keep.iter().map(|&i| f.index_correlation(r, i)).collect();
        keep.extend((0..f.len()).filter(|&i| {
            f.stream(r, i) != -1 && (launched.contains(&i64::from(f.index(r, i))) || r.strings.get(f.name(r, i)) == "Stream Wait Event")
        }));
    } else {
        keep.extend((0..f.len()).filter(|&i| f.stream(r, i) != -1 && launcher.get(i).is_some_and(inside)));
    }
    // (stable: the rows come in runs already in order, which it merges)
    keep.sort_by_key(|&i| (f.index(r, i), i));
    keep
}
