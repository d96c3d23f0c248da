//! The timeline chart: lanes (ranks, threads, streams) top to bottom over time, each drawn as runs
//! coloured by kind (the legend; a muted kind in grey, as context), with a hover region per run,
//! and arrows between lanes (the critical path's launches, gaps and synchronisations) with a
//! hover region at their head. Runs and arrows may carry labels (the events they are or join),
//! written in their hover text.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::draw::{axes, e2s, empty, header, value_label, x_label_area, y_label_area, Axis, Hover};
use super::plots::right_room;
use super::style::{color, number, unit_of, value_text, Style};

/// Most lane labels written on the axis.
const MAX_LANE_LABELS: usize = 24;

/// A run: `(lane, start, end, kind)`.
type Run = (u32, f64, f64, u8);
/// An arrow: `(from lane, from time, to lane, to time, kind)`.
type Arrow = (u32, f64, u32, f64, u8);

/// Radius of the hover region at an arrow's head, CSS pixels: larger than the dot drawn, so it
/// can be pointed at and clicked; it is picked before the runs under it (a run may be thinner).
const HEAD_HOVER: f64 = 6.0;

#[allow(clippy::too_many_arguments)]
pub(super) fn timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    (x_label, y_label): (&str, &str),
    (lanes, kinds, muted): (&[String], &[String], Option<u8>),
    (runs, run_labels): (&[Run], &[String]),
    (arrows, arrow_labels): (&[Arrow], &[String]),
) -> Result<(), String> {
    let ok = |r: &&Run| r.1.is_finite() && r.2.is_finite() && (r.0 as usize) < lanes.len();
    let (Some(x0), Some(x1)) = (runs.iter().filter(ok).map(|r| r.1).reduce(f64::min), runs.iter().filter(ok).map(|r| r.2).reduce(f64::max))
    else {
        return empty(area, st, title);
    };
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    // the muted kind (context) in grey, every other kind in its palette colour
    let paint = |k: u8| if muted == Some(k) { st.muted() } else { color(k as usize) };
    // the legend lists the kinds that appear, in their order
    let used: Vec<usize> =
        (0..kinds.len()).filter(|&k| runs.iter().any(|r| r.3 as usize == k) || arrows.iter().any(|a| a.4 as usize == k)).collect();
    let legend: Vec<(String, RGBColor)> = used.iter().map(|&k| (kinds[k].clone(), paint(k as u8))).collect();
    let plot = header(area, st, hover, title, &legend)?;
    // lane i (top first) is centred on y = n − i
    let n = lanes.len();
    // plotters puts the ticks (at most MAX_LANE_LABELS) on whole lanes; each names its lane
    let label = |y: &f64| -> String {
        let k = y.round();
        if (y - k).abs() > 1e-6 || k < 1.0 || k as usize > n {
            return String::new();
        }
        lanes[n - k as usize].clone()
    };
    let mut chart = axes(
        &plot,
        st,
        Axis { desc: x_label, range: x0..x1, labels: 8, fmt: &value_label, grid: true, size: x_label_area(&plot, st, x_label) },
        Axis {
            desc: y_label,
            range: 0.5..(n as f64 + 0.5),
            labels: n.min(MAX_LANE_LABELS),
            fmt: &label,
            grid: false,
            size: y_label_area(&plot, st, lanes, y_label),
        },
        right_room(&plot, st, x0..x1),
    )?;
    let h = if n > 64 { 0.5 } else { 0.42 };
    let y = |r: &Run| (n - r.0 as usize) as f64;
    // the runs as rectangles in the output's pixels (`pixel_runs`), drawn on the plot in pixels
    let px = |x: f64| chart.backend_coord(&(x, 0.0)).0;
    let lane_y = |lane: u32| {
        let yl = (n - lane as usize) as f64;
        (chart.backend_coord(&(x0, yl + h)).1, chart.backend_coord(&(x0, yl - h)).1)
    };
    let plotting = chart.plotting_area();
    let (bx, by) = plotting.get_base_pixel();
    let pixels = plotting.strip_coord_spec();
    for (p0, p1, lane, kind) in pixel_runs(runs.iter().filter(ok).map(|r| (px(r.1), px(r.2), r.0, r.3)), n) {
        let (top, bottom) = lane_y(lane);
        pixels.draw(&Rectangle::new([(p0 - bx, top - by), (p1 - bx, bottom - by)], paint(kind).filled())).map_err(e2s)?;
    }
    let unit = unit_of(x_label);
    let lane_ok = |l: u32| (l as usize) < n;
    let y_of = |l: u32| (n - l as usize) as f64;
    // arrow heads are small: their regions go first, so that the region limit never drops them
    for (i, a) in arrows.iter().enumerate().filter(|(_, a)| lane_ok(a.0) && lane_ok(a.2) && a.1.is_finite() && a.3.is_finite()) {
        let style = paint(a.4).stroke_width(st.upx(2.0).max(1));
        let (from, to) = ((a.1, y_of(a.0)), (a.3, y_of(a.2)));
        chart.draw_series(std::iter::once(PathElement::new(vec![from, to], style))).map_err(e2s)?;
        let head = chart.backend_coord(&to);
        chart.plotting_area().draw(&Circle::new(to, st.px(3.0), paint(a.4).filled())).map_err(e2s)?;
        if !hover.wants() {
            continue;
        }
        let what = kinds.get(a.4 as usize).map_or("", String::as_str);
        let joins = arrow_labels.get(i).filter(|l| !l.is_empty()).map_or_else(|| what.to_string(), |l| format!("{what}: {l}"));
        let text = format!(
            "{joins}\n{} at {} → {} at {} ({})",
            lanes[a.0 as usize],
            number(a.1),
            lanes[a.2 as usize],
            value_text("", a.3, unit),
            value_text("", a.3 - a.1, unit)
        );
        let r = st.px(HEAD_HOVER);
        hover.add_top((head.0 - r, head.1 - r), (head.0 + r, head.1 + r), text);
    }
    for (i, r) in runs.iter().enumerate().filter(|(_, r)| ok(r)) {
        if !hover.wants() {
            break;
        }
        let what = kinds.get(r.3 as usize).map_or("", String::as_str);
        let name = run_labels.get(i).filter(|l| !l.is_empty()).map_or_else(String::new, |l| format!("\n{l}"));
        let text = format!(
            "{y_label} {}: {what}{name}\n{} – {} ({})",
            lanes[r.0 as usize],
            number(r.1),
            value_text("", r.2, unit),
            value_text("", r.2 - r.1, unit)
        );
        hover.add(chart.backend_coord(&(r.1, y(r) - h)), chart.backend_coord(&(r.2, y(r) + h)), text);
    }
    Ok(())
}

/// Runs `(x0, x1, lane, kind)` in pixels as the rectangles to draw, in the runs' order, with the
/// pixels an SVG or a canvas paints for the runs themselves: a run narrower than a pixel is left
/// out (a rectangle of width 0 paints nothing there), and a run that touches or overlaps the last
/// rectangle of its lane, of the same kind, extends that rectangle (the same pixels in one; runs
/// need not come in time order). The 100 MB benchmark trace's critical path, 12,000 runs, most
/// under a pixel, is drawn with about 130 rectangles. `lanes` bounds the lanes.
fn pixel_runs(runs: impl Iterator<Item = (i32, i32, u32, u8)>, lanes: usize) -> Vec<(i32, i32, u32, u8)> {
    let mut rects: Vec<(i32, i32, u32, u8)> = Vec::new();
    // each lane's last rectangle
    let mut last = vec![usize::MAX; lanes];
    for (x0, x1, lane, kind) in runs.filter(|r| r.1 > r.0) {
        match rects.get_mut(last[lane as usize]) {
            Some(r) if r.3 == kind && x0 <= r.1 && x1 >= r.0 => (r.0, r.1) = (r.0.min(x0), r.1.max(x1)),
            _ => {
                last[lane as usize] = rects.len();
                rects.push((x0, x1, lane, kind));
            }
        }
    }
    rects
}

#[cfg(test)]
mod tests {
    use super::super::draw::{draw_styled, Region};
    use super::*;
    use crate::table::Chart;

    fn regions(chart: &Chart) -> (Vec<Region>, String) {
        let mut svg = String::new();
        let regions = {
            let root = SVGBackend::with_string(&mut svg, (600, 300));
            draw_styled(&root.into_drawing_area(), chart, &Style::LIGHT).expect("draws")
        };
        (regions, svg)
    }

    #[test]
    fn labels_name_runs_and_arrow_ends_and_heads_are_on_top() {
        let chart = Chart::Timeline {
            title: "t".into(),
            x_label: "time (µs)".into(),
            y_label: "thread / stream".into(),
            lanes: vec!["CPU 1 / 1".into(), "GPU 0 stream 7".into()],
            kinds: vec!["off the path".into(), "CPU on the path".into(), "launch delay".into()],
            runs: vec![(0, 0.0, 100.0, 0), (0, 10.0, 40.0, 1), (1, 60.0, 90.0, 1)],
            arrows: vec![(0, 10.0, 1, 60.0, 2)],
            muted: Some(0),
            run_labels: vec![String::new(), "cudaLaunchKernel (#3)".into(), "gemm (#4)".into()],
            arrow_labels: vec!["start of cudaLaunchKernel (#3) → start of gemm (#4)".into()],
        };
        let (r, svg) = regions(&chart);
        let texts: Vec<&str> = r.iter().map(|x| x.text.as_str()).collect();
        let head = r.iter().position(|x| x.top).expect("the arrow head has a region on top");
        assert_eq!(
            texts[head],
            "launch delay: start of cudaLaunchKernel (#3) → start of gemm (#4)\nCPU 1 / 1 at 10 → GPU 0 stream 7 at 60 µs (50 µs)"
        );
        assert!(texts.contains(&"thread / stream CPU 1 / 1: CPU on the path\ncudaLaunchKernel (#3)\n10 – 40 µs (30 µs)"), "{texts:?}");
        assert!(texts.contains(&"thread / stream CPU 1 / 1: off the path\n0 – 100 µs (100 µs)"), "{texts:?}");
        assert_eq!(r.iter().filter(|x| x.top).count(), 1);
        // the muted kind is grey, the others their palette colour (kind 1: orange)
        assert!(svg.contains("#C4C4C4") && svg.contains("#F28E2B"), "{svg}");
        assert!(!svg.contains("#4E79A7"), "kind 0 is muted, not blue");
    }

    #[test]
    fn regions_stop_at_the_limit_and_files_get_none_but_draw_the_same() {
        use super::super::draw::{charts_svg, MAX_REGIONS};
        let n = MAX_REGIONS + 500;
        let chart = Chart::Timeline {
            title: "t".into(),
            x_label: "time (µs)".into(),
            y_label: "thread / stream".into(),
            lanes: vec!["CPU 1 / 1".into()],
            kinds: vec!["CPU on the path".into()],
            runs: (0..n).map(|i| (0, i as f64, i as f64 + 1.0, 0)).collect(),
            arrows: vec![],
            muted: None,
            run_labels: vec![],
            arrow_labels: vec![],
        };
        let (r, svg) = regions(&chart);
        assert_eq!(r.len(), MAX_REGIONS);
        assert_eq!(
            r[MAX_REGIONS - 1].text,
            format!("thread / stream CPU 1 / 1: CPU on the path\n{} – {} µs (1 µs)", MAX_REGIONS - 1, MAX_REGIONS)
        );
        // the file (no hover regions) draws the same runs: touching, of one kind, one rectangle
        // (with the background's and the legend's)
        let file = charts_svg(std::slice::from_ref(&chart)).unwrap();
        let rects = |s: &str| s.matches("<rect").count();
        assert_eq!(rects(&svg), 3, "{svg}");
        assert_eq!(rects(&file), rects(&svg));
    }

    /// Runs become the rectangles an SVG or a canvas paints for them: under a pixel, none; touching
    /// or overlapping the last of their lane and kind, that one made longer (on either side); the
    /// order is kept.
    #[test]
    fn runs_in_pixels_merge_where_they_touch_and_vanish_under_a_pixel() {
        let runs = [
            (10, 20, 0, 1),
            // touches: the same rectangle, made longer
            (20, 25, 0, 1),
            // inside it
            (12, 14, 0, 1),
            // under a pixel: nothing, and no break between the others
            (30, 30, 0, 2),
            (24, 31, 0, 1),
            // another lane
            (0, 5, 1, 1),
            // another kind, then the first kind again: three rectangles (the order is kept)
            (31, 40, 0, 2),
            (40, 50, 0, 1),
            // a gap of a pixel: a new rectangle
            (6, 8, 1, 1),
            // earlier, touching it: that one, made longer to the left
            (2, 6, 1, 1),
            // earlier, not touching: a new one
            (0, 1, 1, 1),
        ];
        assert_eq!(
            pixel_runs(runs.into_iter(), 2),
            vec![(10, 31, 0, 1), (0, 5, 1, 1), (31, 40, 0, 2), (40, 50, 0, 1), (2, 8, 1, 1), (0, 1, 1, 1)]
        );
    }
}
