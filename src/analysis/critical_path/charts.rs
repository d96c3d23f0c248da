//! The critical path's charts: the window as a timeline with the path drawn on it, and the path's
//! time by what bounded it.

use rustc_hash::FxHashMap;

use super::graph::{self, EdgeKind};
use super::{bound_by, describe_window, fmt_us, CriticalPath, PathRow};
use crate::analysis::hta_frame::HtaFrame;
use crate::analysis::names::ShortNames;
use crate::model::{Kind, RankTrace};
use crate::table::Chart;

/// Lanes drawn at most in the timeline.
const MAX_LANES: usize = 48;

/// Off-path runs per lane at most in the timeline (shorter ones merge).
const RUN_CELLS: f64 = 1500.0;

/// Time on the path by what bounded it (the summary's categories), as bars, and the time between
/// its events no edge weighs ([`CriticalPath::untraced`]).
pub(super) fn bound_chart(cp: &CriticalPath, rows: &[PathRow]) -> Chart {
    const ORDER: [(&str, &str); 5] = [
        ("cpu_bound", "CPU"),
        ("gpu_kernel_launch_overhead", "launch delay"),
        ("gpu_compute_bound", "GPU compute"),
        ("gpu_communication_bound", "GPU communication"),
        ("gpu_kernel_kernel_overhead", "kernel-kernel gap"),
    ];
    let mut sums = [0i64; 5];
    for x in rows {
        if let Some(p) = ORDER.iter().position(|o| o.0 == x.bound_by) {
            sums[p] += x.weight;
        }
    }
    let values: Vec<i64> = sums.iter().copied().chain([cp.untraced()]).collect();
    // ms once a bar passes a second
    let (unit, scale) = if values.iter().any(|&v| v >= 1_000_000_000) { ("ms", 1e6) } else { ("µs", 1e3) };
    Chart::Bars {
        title: "time on the critical path by what bounded it".into(),
        x_label: String::new(),
        y_label: format!("time ({unit})"),
        categories: ORDER.iter().map(|o| o.1.to_string()).chain(["untraced gaps".to_string()]).collect(),
        values: values.iter().map(|&v| v as f64 / scale).collect(),
        errors: None,
    }
}

/// Kinds of the timeline's runs and arrows (legend order).
const RUN_KINDS: [&str; 9] = [
    "off the path",
    "CPU on the path",
    "launch/runtime on the path",
    "GPU compute on the path",
    "GPU communication on the path",
    "launch delay",
    "kernel-kernel gap",
    "sync",
    "dependency",
];

/// The window as a timeline: one lane per CPU thread and GPU stream that has events of the
/// graph, the path's events coloured by what they are, the others grey (merged when shorter than
/// a cell), and the path's launch, gap, sync and dependency edges as arrows between lanes. A path
/// event's run and an arrow's ends are labelled with their events as the breakdown names them
/// (`s_name (#event_idx)`). Times in µs, in ms for a window of a second or more.
pub(super) fn timeline_chart(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace) -> Chart {
    let g = &cp.graph;
    let on_path: rustc_hash::FxHashSet<u32> = cp.events().into_iter().collect();
    // lanes: (is GPU, pid, tid or stream) keys of the graph's events
    type Id = (u8, i64, String);
    type Lane = (bool, Id, Id);
    let lane_key = |row: usize| -> Lane {
        if f.stream(r, row) == -1 {
            (false, graph::id_key(r, f.pid(r, row)), graph::id_key(r, f.tid(r, row)))
        } else {
            (true, graph::id_key(r, f.pid(r, row)), (0, f.stream(r, row), String::new()))
        }
    };
    // a lane's key made once per lane, not per event: events go by the raw ids of theirs
    let raw_key = |row: usize| -> (bool, u32, i64) {
        match f.stream(r, row) {
            -1 => (false, f.pid(r, row), i64::from(f.tid(r, row))),
            stream => (true, f.pid(r, row), stream),
        }
    };
    let event_rows: Vec<usize> = (0..g.nodes.len() / 2).map(|k| g.nodes[2 * k].row as usize).collect();
    let mut raw_lanes: FxHashMap<(bool, u32, i64), usize> = FxHashMap::default();
    // (lane, time on it, on the path) per raw key, in the order first seen
    let mut seen: Vec<(Lane, i64, bool)> = Vec::new();
    for &row in &event_rows {
        let k = *raw_lanes.entry(raw_key(row)).or_insert_with(|| {
            seen.push((lane_key(row), 0, false));
            seen.len() - 1
        });
        seen[k].1 += f.dur_ns(r, row);
        seen[k].2 |= on_path.contains(&(row as u32));
    }
    let mut time_on_lane: FxHashMap<Lane, (i64, bool)> = FxHashMap::default();
    for (lane, time, path) in &seen {
        let e = time_on_lane.entry(lane.clone()).or_default();
        e.0 += time;
        e.1 |= path;
    }
    let mut keys: Vec<_> = time_on_lane.keys().cloned().collect();
    // lanes on the path first kept, then the busiest; shown CPU lanes first, then GPU, by id
    keys.sort_by(|a, b| time_on_lane[b].1.cmp(&time_on_lane[a].1).then(time_on_lane[b].0.cmp(&time_on_lane[a].0)));
    keys.truncate(MAX_LANES);
    keys.sort();
    let lane_index: FxHashMap<_, u32> = keys.iter().enumerate().map(|(i, k)| (k.clone(), i as u32)).collect();
    // the shown lane of each raw key, and of an event (by its raw key)
    let raw_lane: FxHashMap<(bool, u32, i64), u32> =
        raw_lanes.iter().filter_map(|(raw, &k)| lane_index.get(&seen[k].0).map(|&l| (*raw, l))).collect();
    let lane_of = |row: usize| raw_lane.get(&raw_key(row));
    let lanes: Vec<String> = keys
        .iter()
        .map(|k| {
            let id = |x: &Id| if x.0 == 0 { x.1.to_string() } else { x.2.clone() };
            if k.0 {
                format!("GPU {} stream {}", id(&k.1), k.2 .1)
            } else {
                format!("CPU {} / {}", id(&k.1), id(&k.2))
            }
        })
        .collect();
    let (t0, t1) =
        (cp.window.start, event_rows.iter().map(|&i| f.ts_ns(r, i) + f.dur_ns(r, i)).max().unwrap_or(cp.window.start).min(cp.window.end));
    let cell = ((t1 - t0).max(1) as f64 / RUN_CELLS).max(1.0);
    // times in µs, or in ms for a window of a second or more (an axis of 8-digit µs reads badly)
    let (per_unit, unit) = if t1 - t0 >= 1_000_000_000 { (1e6, "ms") } else { (1e3, "µs") };
    let at = |ns: i64| ns as f64 / per_unit;
    let mut runs: Vec<(u32, f64, f64, u8)> = Vec::new();
    // off-path events merged per lane when closer than a cell
    let mut off: Vec<(u32, i64, i64)> = event_rows
        .iter()
        .filter(|&&row| !on_path.contains(&(row as u32)))
        .filter_map(|&row| lane_of(row).map(|&l| (l, f.ts_ns(r, row), f.ts_ns(r, row) + f.dur_ns(r, row))))
        .collect();
    off.sort_unstable();
    let mut cur: Option<(u32, i64, i64)> = None;
    for (l, s, e) in off {
        match &mut cur {
            Some(c) if c.0 == l && (s as f64) <= c.2 as f64 + cell => c.2 = c.2.max(e),
            _ => {
                if let Some(c) = cur.take() {
                    runs.push((c.0, at(c.1 - t0), at(c.2 - t0), 0));
                }
                cur = Some((l, s, e));
            }
        }
    }
    if let Some(c) = cur {
        runs.push((c.0, at(c.1 - t0), at(c.2 - t0), 0));
    }
    // each path event's run and each arrow end names its event as the breakdown does: s_name (#event_idx)
    // one cache of short names for the runs' kinds and every label
    let mut short = ShortNames::default();
    let event_name = |short: &mut ShortNames, row: usize| format!("{} (#{})", short.get(r, f.name(r, row)), f.index(r, row));
    let mut run_labels = vec![String::new(); runs.len()];
    for &row in on_path.iter().map(|&r| r as usize).collect::<std::collections::BTreeSet<_>>().iter() {
        let Some(&l) = lane_of(row) else { continue };
        let kind = r.events.kind[f.row[row] as usize];
        let k = if f.stream(r, row) == -1 {
            if matches!(kind, Kind::Runtime | Kind::Driver | Kind::MtiaRuntime) {
                2
            } else {
                1
            }
        } else if bound_by(EdgeKind::Operator, Some(f.stream(r, row)), short.get(r, f.name(r, row))) == "gpu_communication_bound" {
            4
        } else {
            3
        };
        runs.push((l, at(f.ts_ns(r, row) - t0), at(f.ts_ns(r, row) + f.dur_ns(r, row) - t0), k));
        run_labels.push(event_name(&mut short, row));
    }
    let mut arrows = Vec::new();
    let mut arrow_labels = Vec::new();
    for &e in &cp.path {
        let edge = &g.edges[e as usize];
        let k = match edge.kind {
            EdgeKind::LaunchDelay => 5,
            EdgeKind::KernelKernelDelay => 6,
            EdgeKind::Sync => 7,
            EdgeKind::Dependency => 8,
            EdgeKind::Operator => continue,
        };
        let (a, b) = (g.nodes[edge.src as usize], g.nodes[edge.dst as usize]);
        if let (Some(&la), Some(&lb)) = (lane_of(a.row as usize), lane_of(b.row as usize)) {
            arrows.push((la, at(a.ts - t0), lb, at(b.ts - t0), k));
            let mut end =
                |n: graph::Node| format!("{} of {}", if n.start { "start" } else { "end" }, event_name(&mut short, n.row as usize));
            let (from, to) = (end(a), end(b));
            arrow_labels.push(format!("{from} → {to}"));
        }
    }
    Chart::Timeline {
        title: format!(
            "critical path of rank {} ({}): {} {unit}",
            cp.rank,
            describe_window(&cp.annotation, cp.instances),
            if unit == "ms" { format!("{:.0}", at(cp.length())) } else { fmt_us(cp.length()) }
        ),
        x_label: format!("time since window start ({unit})"),
        y_label: "thread / stream".into(),
        lanes,
        kinds: RUN_KINDS.iter().map(|s| s.to_string()).collect(),
        runs,
        arrows,
        muted: Some(0),
        run_labels,
        arrow_labels,
    }
}
