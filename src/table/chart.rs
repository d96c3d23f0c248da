//! Charts as data, not pictures: what to draw from an analysis' numbers. `chart::draw` renders
//! them with plotters on any backend (canvas in the page, SVG/PNG in the CLI), so the page and the
//! CLI draw the same chart from the same numbers.

use serde::{Deserialize, Serialize};

/// One named series of values (one value per category of the chart).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Values, one per category (or per point).
    pub values: Vec<f64>,
}

/// One line of a line chart: `(x, y)` points in x order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Legend label.
    pub name: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
}

/// One frame of a flame graph: a rectangle at `depth` (0: the roots) from `start` to `start +
/// total` on the value axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlameFrame {
    /// Frame name (a function, an operator, a kernel, a thread).
    pub name: String,
    /// Depth in the stack (0: a root).
    pub depth: u32,
    /// Where it starts on the value axis (its earlier siblings' and its ancestors' starts).
    pub start: f64,
    /// Its total (inclusive) value: its width.
    pub total: f64,
    /// Its own (exclusive) value.
    pub self_value: f64,
}

/// A chart to draw (what HTA draws with plotly; SPEC §6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Chart {
    /// Vertical bars per category, series stacked on each other (temporal breakdown per rank,
    /// idle time per stream). With one series it is a plain bar chart.
    StackedBars {
        /// Title.
        title: String,
        /// Label of the category axis.
        x_label: String,
        /// Label of the value axis (with unit).
        y_label: String,
        /// Category labels (bars).
        categories: Vec<String>,
        /// Stacked series, bottom first; each has one value per category.
        series: Vec<Series>,
    },
    /// One bar per category with an optional error range (mean with min/max whiskers).
    Bars {
        /// Title.
        title: String,
        /// Label of the category axis.
        x_label: String,
        /// Label of the value axis (with unit).
        y_label: String,
        /// Category labels.
        categories: Vec<String>,
        /// Bar heights.
        values: Vec<f64>,
        /// Whisker `(low, high)` per category, if any.
        errors: Option<Vec<(f64, f64)>>,
    },
    /// A pie of shares (labels with values; percentages are computed when drawing).
    Pie {
        /// Title.
        title: String,
        /// `(label, value)` slices, drawn in this order.
        slices: Vec<(String, f64)>,
    },
    /// A histogram from pre-computed bins.
    Histogram {
        /// Title.
        title: String,
        /// Label of the value axis (with unit).
        x_label: String,
        /// `(low, high, count)` bins in order.
        bins: Vec<(f64, f64, u64)>,
    },
    /// Lines over x (time series); `step` draws each value until the next point.
    Lines {
        /// Title.
        title: String,
        /// Label of the x axis (with unit).
        x_label: String,
        /// Label of the y axis (with unit).
        y_label: String,
        /// Lines.
        lines: Vec<Line>,
        /// Draw as a step function (a value holds until the next point).
        step: bool,
    },
    /// Columns at numeric x positions (one per point), one colour per series: step durations by
    /// step number, where there are far more columns than a category chart can label.
    Columns {
        /// Title.
        title: String,
        /// Label of the x axis.
        x_label: String,
        /// Label of the value axis (with unit).
        y_label: String,
        /// Series of `(x, height)` points.
        series: Vec<Line>,
    },
    /// Bars side by side per category, one per series (control, test, difference), on a value
    /// axis that may go below zero.
    GroupedBars {
        /// Title.
        title: String,
        /// Label of the category axis.
        x_label: String,
        /// Label of the value axis (with unit).
        y_label: String,
        /// Category labels.
        categories: Vec<String>,
        /// Series, drawn left to right within each category.
        series: Vec<Series>,
    },
    /// A flame graph drawn as an icicle (roots on top, callees below), from frames laid out by
    /// `crate::profile::flame_frames`. `zoom` (a frame index) draws that frame across the whole
    /// width with its ancestors above it; `search` highlights the frames whose name contains it.
    Flame {
        /// Title.
        title: String,
        /// What the values are, with unit (`CPU self time, µs`).
        unit: String,
        /// Frames in depth-first order (a frame's children after it).
        frames: Vec<FlameFrame>,
        /// The frame drawn across the whole width.
        #[serde(default)]
        zoom: Option<usize>,
        /// Highlight the frames whose name contains this text (case-insensitive).
        #[serde(default)]
        search: Option<String>,
    },
    /// A waterfall: one row per bar `(label, start, end)`, top to bottom, and above them a lane
    /// with the gaps of their union from 0 (bubbles) in red.
    Waterfall {
        /// Title.
        title: String,
        /// Label of the time axis (with unit).
        x_label: String,
        /// `(label, start, end)` per row.
        bars: Vec<(String, f64, f64)>,
    },
    /// Lanes (ranks, top to bottom) over time, each coloured in runs by what it was in: runs
    /// `(lane, start, end, kind)` with `kind` indexing `kinds` (the legend, one colour each).
    /// Hovering a run or an arrow's head shows what it is (with its label, when given).
    Timeline {
        /// Title.
        title: String,
        /// Label of the time axis (with unit).
        x_label: String,
        /// What a lane is (`rank`, `thread / stream`).
        y_label: String,
        /// Lane labels, top first.
        lanes: Vec<String>,
        /// Names of the kinds (legend).
        kinds: Vec<String>,
        /// `(lane, start, end, kind)`.
        runs: Vec<(u32, f64, f64, u8)>,
        /// Arrows drawn over the runs: `(from lane, from time, to lane, to time, kind)`.
        arrows: Vec<(u32, f64, u32, f64, u8)>,
        /// A kind drawn in a quiet grey instead of its colour: context, not data (the events
        /// off a critical path).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        muted: Option<u8>,
        /// What each run is (an event's name; empty: nothing to add), in its hover text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        run_labels: Vec<String>,
        /// What each arrow joins (`from event → to event`), in its hover text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        arrow_labels: Vec<String>,
    },
}

impl Chart {
    /// The chart's title.
    pub fn title(&self) -> &str {
        match self {
            Chart::StackedBars { title, .. }
            | Chart::Bars { title, .. }
            | Chart::Pie { title, .. }
            | Chart::Histogram { title, .. }
            | Chart::Lines { title, .. }
            | Chart::Columns { title, .. }
            | Chart::GroupedBars { title, .. }
            | Chart::Waterfall { title, .. }
            | Chart::Timeline { title, .. }
            | Chart::Flame { title, .. } => title,
        }
    }

    /// Whether drawing the chart tells something its tables do not: it has data (a finite
    /// non-zero value), and it is not a single bar with whiskers (the kernel breakdown's
    /// min/mean/max of one rank: the table has the three numbers). The page and the CLI draw
    /// only these ([`super::Report::drop_uninformative_charts`]).
    pub fn is_informative(&self) -> bool {
        let some = |v: &f64| v.is_finite() && *v != 0.0;
        match self {
            Chart::StackedBars { categories, series, .. } | Chart::GroupedBars { categories, series, .. } => {
                let n = categories.len();
                series.iter().any(|s| s.values.iter().take(n).any(some))
            }
            Chart::Bars { categories, values, errors, .. } => {
                let n = categories.len().min(values.len());
                values[..n].iter().any(some) && (errors.is_none() || n >= 2)
            }
            Chart::Pie { slices, .. } => slices.iter().any(|s| s.1.is_finite() && s.1 > 0.0),
            Chart::Histogram { bins, .. } => bins.iter().any(|b| b.2 > 0),
            Chart::Lines { lines: l, .. } | Chart::Columns { series: l, .. } => {
                l.iter().flat_map(|l| &l.points).any(|p| p.0.is_finite() && p.1.is_finite())
            }
            Chart::Waterfall { bars, .. } => bars.iter().any(|b| b.1.is_finite() && b.2.is_finite()),
            Chart::Timeline { runs, .. } => runs.iter().any(|r| r.2 > r.1),
            Chart::Flame { frames, .. } => frames.iter().any(|f| some(&f.total)),
        }
    }
}

/// The gaps of the union of `bars` (`(label, start, end)`) from 0 (or from the earliest start,
/// if negative) to the last end: the idle intervals of a waterfall, in time order.
pub fn union_gaps(bars: &[(String, f64, f64)]) -> Vec<(f64, f64)> {
    let mut iv: Vec<(f64, f64)> = bars.iter().filter(|b| b.1.is_finite() && b.2.is_finite()).map(|b| (b.1, b.2)).collect();
    iv.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut gaps = Vec::new();
    let mut reached = iv.first().map_or(0.0, |f| f.0.min(0.0));
    for (s, e) in iv {
        if s > reached {
            gaps.push((reached, s));
        }
        reached = reached.max(e);
    }
    gaps
}

/// Equal-width bins over `values` (`n` bins from min to max; the last bin includes the max).
/// NaN values are skipped. No values → no bins.
pub fn histogram_bins(values: &[f64], n: usize) -> Vec<(f64, f64, u64)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let (Some(lo), Some(hi)) = (finite.iter().copied().reduce(f64::min), finite.iter().copied().reduce(f64::max)) else {
        return Vec::new();
    };
    let n = n.max(1);
    let width = if hi > lo { (hi - lo) / n as f64 } else { 1.0 };
    let mut counts = vec![0u64; n];
    for v in finite {
        let i = (((v - lo) / width) as usize).min(n - 1);
        counts[i] += 1;
    }
    counts.into_iter().enumerate().map(|(i, c)| (lo + i as f64 * width, lo + (i + 1) as f64 * width, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_min_to_max() {
        let b = histogram_bins(&[0.0, 1.0, 2.0, 10.0, f64::NAN], 5);
        assert_eq!(b.len(), 5);
        assert_eq!(b[0], (0.0, 2.0, 2));
        assert_eq!(b[1], (2.0, 4.0, 1));
        assert_eq!(b[4], (8.0, 10.0, 1));
        assert!(histogram_bins(&[], 3).is_empty());
        assert_eq!(histogram_bins(&[5.0, 5.0], 3)[0], (5.0, 6.0, 2));
    }

    #[test]
    fn union_gaps_start_at_zero() {
        let b = |s: f64, e: f64| ("k".to_string(), s, e);
        assert_eq!(union_gaps(&[b(2.0, 5.0), b(4.0, 6.0), b(8.0, 9.0)]), vec![(0.0, 2.0), (6.0, 8.0)]);
        assert_eq!(union_gaps(&[b(0.0, 1.0), b(1.0, 2.0)]), vec![]);
        assert!(union_gaps(&[]).is_empty());
    }

    #[test]
    fn informative_charts_have_data_and_whiskers_over_two_bars() {
        let bars = |n: usize, errors: bool| Chart::Bars {
            title: "t".into(),
            x_label: "rank".into(),
            y_label: "µs".into(),
            categories: (0..n).map(|i| i.to_string()).collect(),
            values: vec![2.0; n],
            errors: errors.then(|| vec![(1.0, 3.0); n]),
        };
        assert!(!bars(1, true).is_informative(), "one bar with whiskers: the table says it");
        assert!(bars(2, true).is_informative() && bars(1, false).is_informative());
        assert!(!bars(0, false).is_informative());
        let stacked = |values: Vec<f64>| Chart::StackedBars {
            title: "t".into(),
            x_label: "s".into(),
            y_label: "%".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![Series { name: "idle".into(), values }],
        };
        assert!(stacked(vec![0.0, 1.0]).is_informative());
        assert!(!stacked(vec![0.0, f64::NAN]).is_informative());
        assert!(!Chart::Pie { title: "t".into(), slices: vec![("a".into(), 0.0)] }.is_informative());
        assert!(!Chart::Histogram { title: "t".into(), x_label: "x".into(), bins: vec![] }.is_informative());
        let line = |points: Vec<(f64, f64)>| Chart::Lines {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            lines: vec![Line { name: "l".into(), points }],
            step: false,
        };
        assert!(line(vec![(0.0, 0.0)]).is_informative() && !line(vec![]).is_informative());
        assert!(!Chart::Waterfall { title: "t".into(), x_label: "x".into(), bars: vec![] }.is_informative());
    }

    #[test]
    fn charts_round_trip_through_json() {
        let c = Chart::Pie { title: "t".into(), slices: vec![("a".into(), 1.0)] };
        let s = serde_json::to_string(&c).unwrap();
        assert!(s.starts_with("{\"type\":\"pie\""), "{s}");
        assert_eq!(serde_json::from_str::<Chart>(&s).unwrap(), c);
    }
}
