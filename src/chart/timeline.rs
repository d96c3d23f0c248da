//! The timeline chart: lanes (ranks, threads, streams) top to bottom over time, each drawn as runs
//! coloured by kind (the legend), with a hover region per run, and arrows between lanes (the
//! critical path's launches, gaps and synchronisations) with a hover region at their head.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::draw::{axes, e2s, empty, header, value_label, x_label_area, y_label_area, Axis, Hover};
use super::plots::right_room;
use super::style::{color, number, unit_of, value_text, Style};

/// Most lane labels written on the axis.
const MAX_LANE_LABELS: usize = 24;

#[allow(clippy::too_many_arguments)]
pub(super) fn timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    (x_label, y_label): (&str, &str),
    lanes: &[String],
    kinds: &[String],
    runs: &[(u32, f64, f64, u8)],
    arrows: &[(u32, f64, u32, f64, u8)],
) -> Result<(), String> {
    let ok = |r: &&(u32, f64, f64, u8)| r.1.is_finite() && r.2.is_finite() && (r.0 as usize) < lanes.len();
    let (Some(x0), Some(x1)) = (runs.iter().filter(ok).map(|r| r.1).reduce(f64::min), runs.iter().filter(ok).map(|r| r.2).reduce(f64::max))
    else {
        return empty(area, st, title);
    };
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    // the legend lists the kinds that appear, in their order
    let used: Vec<usize> =
        (0..kinds.len()).filter(|&k| runs.iter().any(|r| r.3 as usize == k) || arrows.iter().any(|a| a.4 as usize == k)).collect();
    let legend: Vec<(String, RGBColor)> = used.iter().map(|&k| (kinds[k].clone(), color(k))).collect();
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
    let y = |r: &(u32, f64, f64, u8)| (n - r.0 as usize) as f64;
    chart
        .draw_series(runs.iter().filter(ok).map(|r| Rectangle::new([(r.1, y(r) - h), (r.2, y(r) + h)], color(r.3 as usize).filled())))
        .map_err(e2s)?;
    let unit = unit_of(x_label);
    for r in runs.iter().filter(ok) {
        let what = kinds.get(r.3 as usize).map_or("", String::as_str);
        let text = format!(
            "{y_label} {}: {what}\n{} – {} ({})",
            lanes[r.0 as usize],
            number(r.1),
            value_text("", r.2, unit),
            value_text("", r.2 - r.1, unit)
        );
        hover.add(chart.backend_coord(&(r.1, y(r) - h)), chart.backend_coord(&(r.2, y(r) + h)), text);
    }
    let lane_ok = |l: u32| (l as usize) < n;
    let y_of = |l: u32| (n - l as usize) as f64;
    for a in arrows.iter().filter(|a| lane_ok(a.0) && lane_ok(a.2) && a.1.is_finite() && a.3.is_finite()) {
        let style = color(a.4 as usize).stroke_width(st.upx(2.0).max(1));
        let (from, to) = ((a.1, y_of(a.0)), (a.3, y_of(a.2)));
        chart.draw_series(std::iter::once(PathElement::new(vec![from, to], style))).map_err(e2s)?;
        let head = chart.backend_coord(&to);
        let r = st.px(3.0);
        chart.plotting_area().draw(&Circle::new(to, r, color(a.4 as usize).filled())).map_err(e2s)?;
        let what = kinds.get(a.4 as usize).map_or("", String::as_str);
        let text = format!(
            "{what}: {} {} → {} {}\n{}",
            lanes[a.0 as usize],
            number(a.1),
            lanes[a.2 as usize],
            number(a.3),
            value_text("", a.3 - a.1, unit)
        );
        hover.add((head.0 - r, head.1 - r), (head.0 + r, head.1 + r), text);
    }
    Ok(())
}
