//! The chart kinds that are not bars of categories: pies, histograms, lines, columns at numeric x
//! positions and waterfalls. Each draws in the frame of `draw.rs` and adds its hover regions.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::draw::{
    axes, axis_max, e2s, empty, header, ticks, value_label, x_label_area, y_label_area, Axis, Hover, MAX_ITEMS, MAX_REGIONS,
};
use super::style::{color, fit, number, quantity_of, text_size, unit_of, value_text, Style};
use crate::table::{union_gaps, Line};

/// Slices a pie shows; the rest are summed into "(other)".
const MAX_SLICES: usize = 12;

pub(super) fn pie<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    slices: &[(String, f64)],
) -> Result<(), String> {
    let mut items: Vec<(String, f64)> = slices.iter().filter(|s| s.1.is_finite() && s.1 > 0.0).cloned().collect();
    if items.is_empty() {
        return empty(area, st, title);
    }
    if items.len() > MAX_SLICES {
        let rest: f64 = items[MAX_SLICES - 1..].iter().map(|s| s.1).sum();
        items.truncate(MAX_SLICES - 1);
        items.push(("(other)".into(), rest));
    }
    let total: f64 = items.iter().map(|s| s.1).sum();
    let plot = header(area, st, hover, title, &[])?;
    let (w, h) = plot.dim_in_pixel();
    let (left, right) = plot.split_horizontally((f64::from(w) * 0.45) as u32);
    let radius = (f64::from(w) * 0.45).min(f64::from(h)) * 0.42;
    let center = ((f64::from(w) * 0.225) as i32, (h / 2) as i32);
    let sizes: Vec<f64> = items.iter().map(|s| s.1).collect();
    let colors: Vec<RGBColor> = (0..items.len()).map(color).collect();
    let labels: Vec<String> = vec![String::new(); items.len()];
    let mut p = Pie::new(&center, &radius, &sizes, &colors, &labels);
    p.start_angle(-90.0);
    left.draw(&p).map_err(e2s)?;
    let share = |v: f64| format!("{:.1}%", 100.0 * v / total);
    // each slice's bounding box (plotters draws clockwise from the top)
    let (bx, by) = left.get_base_pixel();
    let mut a0 = -std::f64::consts::FRAC_PI_2;
    for (name, v) in &items {
        let a1 = a0 + v / total * std::f64::consts::TAU;
        let pts = (0..=24).map(|k| a0 + (a1 - a0) * f64::from(k) / 24.0).map(|a| (radius * a.cos(), radius * a.sin()));
        let (mut x0, mut y0, mut x1, mut y1) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
        for (x, y) in pts {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let (cx, cy) = (bx + center.0, by + center.1);
        hover.add((cx + x0 as i32, cy + y0 as i32), (cx + x1 as i32, cy + y1 as i32), format!("{name}\n{} ({})", share(*v), number(*v)));
        a0 = a1;
    }
    let lf = st.label_font();
    let (rw, _) = right.dim_in_pixel();
    let (rx, ry) = right.get_base_pixel();
    let (sw, row) = (st.px(12.0), st.px(22.0));
    for (i, (name, v)) in items.iter().enumerate() {
        let y = st.px(10.0) + i as i32 * row;
        right.draw(&Rectangle::new([(0, y), (sw, y + sw)], colors[i].filled())).map_err(e2s)?;
        let text = fit(&right, &format!("{}  {name}", share(*v)), &lf, rw.saturating_sub(st.upx(30.0)));
        let tw = text_size(&right, &text, &lf).0 as i32;
        right.draw(&Text::new(text, (sw + st.px(6.0), y), lf.clone())).map_err(e2s)?;
        hover.add((rx, ry + y), (rx + sw + st.px(6.0) + tw, ry + y + sw + st.px(2.0)), format!("{name}\n{} ({})", share(*v), number(*v)));
    }
    Ok(())
}

pub(super) fn histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    bins: &[(f64, f64, u64)],
) -> Result<(), String> {
    let (Some(first), Some(last)) = (bins.first(), bins.last()) else { return empty(area, st, title) };
    let top = axis_max(bins.iter().map(|b| b.2 as f64).fold(0.0, f64::max));
    let (x0, x1) = (first.0, if last.1 > first.0 { last.1 } else { first.0 + 1.0 });
    let plot = header(area, st, hover, title, &[])?;
    let counts: Vec<String> = ticks(0.0..top, 6).iter().map(value_label).collect();
    let right = right_room(&plot, st, x0..x1);
    let mut chart = axes(
        &plot,
        st,
        Axis { desc: x_label, range: x0..x1, labels: 8, fmt: &value_label, grid: false, size: x_label_area(&plot, st, x_label) },
        Axis { desc: "count", range: 0.0..top, labels: 6, fmt: &value_label, grid: true, size: y_label_area(&plot, st, &counts, "count") },
        right,
    )?;
    chart.draw_series(bins.iter().map(|b| Rectangle::new([(b.0, 0.0), (b.1, b.2 as f64)], color(0).filled()))).map_err(e2s)?;
    let unit = unit_of(x_label);
    for b in bins.iter().filter(|b| b.2 > 0) {
        if !hover.wants() {
            break;
        }
        let text = format!("{} – {}\ncount: {}", number(b.0), value_text("", b.1, unit), b.2);
        hover.add(chart.backend_coord(&(b.0, 0.0)), chart.backend_coord(&(b.1, b.2 as f64)), text);
    }
    Ok(())
}

/// Room on the right of a plot for the last label of the numeric x axis `range`, centred on its end.
pub(super) fn right_room<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, st: &Style, range: std::ops::Range<f64>) -> u32 {
    ticks(range, 8).last().map_or(0, |v| text_size(area, &value_label(v), &st.label_font()).0 / 2 + st.upx(4.0))
}

/// Points of a step function: each value holds until the next x.
pub(super) fn step_points(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

#[allow(clippy::too_many_arguments)]
pub(super) fn lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    step: bool,
) -> Result<(), String> {
    let lines = &lines[..lines.len().min(MAX_ITEMS)];
    let pts = || lines.iter().flat_map(|l| l.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (Some(x0), Some(x1)) = (pts().map(|p| p.0).reduce(f64::min), pts().map(|p| p.0).reduce(f64::max)) else {
        return empty(area, st, title);
    };
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let (y0, y1) = (pts().map(|p| p.1).fold(0.0, f64::min), axis_max(pts().map(|p| p.1).fold(0.0, f64::max)));
    let legend: Vec<(String, RGBColor)> =
        if lines.len() > 1 { lines.iter().enumerate().map(|(k, l)| (l.name.clone(), color(k))).collect() } else { vec![] };
    let plot = header(area, st, hover, title, &legend)?;
    let ys: Vec<String> = ticks(y0..y1, 6).iter().map(value_label).collect();
    let right = right_room(&plot, st, x0..x1);
    // whole x values (step numbers) get whole labels only: no `4.2` between steps 4 and 5
    let whole_x = pts().all(|p| p.0.fract() == 0.0);
    let whole = |x: &f64| if x.fract() == 0.0 { value_label(x) } else { String::new() };
    let (x_fmt, x_labels): (&dyn Fn(&f64) -> String, usize) =
        if whole_x { (&whole, ((x1 - x0) as usize + 1).clamp(2, 8)) } else { (&value_label, 8) };
    let mut chart = axes(
        &plot,
        st,
        Axis { desc: x_label, range: x0..x1, labels: x_labels, fmt: x_fmt, grid: true, size: x_label_area(&plot, st, x_label) },
        Axis { desc: y_label, range: y0..y1, labels: 6, fmt: &value_label, grid: true, size: y_label_area(&plot, st, &ys, y_label) },
        right,
    )?;
    let total = pts().count();
    let every = total.div_ceil(MAX_REGIONS).max(1);
    let (xq, xu, yq, yu) = (quantity_of(x_label), unit_of(x_label), quantity_of(y_label), unit_of(y_label));
    let r = st.px(4.0);
    let mut k = 0;
    for (li, l) in lines.iter().enumerate() {
        let p: Vec<(f64, f64)> = l.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        for &(x, y) in &p {
            if k % every == 0 && hover.wants() {
                let (px, py) = chart.backend_coord(&(x, y));
                hover.add((px - r, py - r), (px + r, py + r), format!("{}\n{}\n{}", l.name, value_text(xq, x, xu), value_text(yq, y, yu)));
            }
            k += 1;
        }
        let p = if step { step_points(&p) } else { p };
        chart.draw_series(LineSeries::new(p, color(li).stroke_width(st.upx(2.0).max(1)))).map_err(e2s)?;
    }
    Ok(())
}

pub(super) fn columns<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Line],
) -> Result<(), String> {
    let pts = || series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (Some(x0), Some(x1)) = (pts().map(|p| p.0).reduce(f64::min), pts().map(|p| p.0).reduce(f64::max)) else {
        return empty(area, st, title);
    };
    let top = axis_max(pts().map(|p| p.1).fold(0.0, f64::max));
    let legend: Vec<(String, RGBColor)> =
        if series.len() > 1 { series.iter().enumerate().map(|(k, s)| (s.name.clone(), color(k))).collect() } else { vec![] };
    let plot = header(area, st, hover, title, &legend)?;
    let ys: Vec<String> = ticks(0.0..top, 6).iter().map(value_label).collect();
    // x positions are whole numbers (step numbers): no ticks between them
    let whole = |x: &f64| if x.fract() == 0.0 { format!("{x}") } else { String::new() };
    let xr = (x0 - 0.5)..(x1 + 0.5);
    let right = right_room(&plot, st, xr.clone());
    let mut chart = axes(
        &plot,
        st,
        Axis { desc: x_label, range: xr, labels: 10, fmt: &whole, grid: false, size: x_label_area(&plot, st, x_label) },
        Axis { desc: y_label, range: 0.0..top, labels: 6, fmt: &value_label, grid: true, size: y_label_area(&plot, st, &ys, y_label) },
        right,
    )?;
    let (yq, yu) = (quantity_of(y_label), unit_of(y_label));
    for (k, s) in series.iter().enumerate() {
        let c = color(k);
        let p: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        chart.draw_series(p.iter().map(|&(x, y)| Rectangle::new([(x - 0.4, 0.0), (x + 0.4, y.max(0.0))], c.filled()))).map_err(e2s)?;
        for &(x, y) in p.iter().take(MAX_REGIONS) {
            if !hover.wants() {
                break;
            }
            let name = if series.len() > 1 { format!("{}\n", s.name) } else { String::new() };
            let text = format!("{x_label} {}\n{name}{}", number(x), value_text(yq, y, yu));
            hover.add(chart.backend_coord(&(x - 0.4, 0.0)), chart.backend_coord(&(x + 0.4, y.max(0.0))), text);
        }
    }
    Ok(())
}

/// Rows of a waterfall that get a name on the axis; with more, the rows are only drawn.
const MAX_WATERFALL_LABELS: usize = 40;

pub(super) fn waterfall<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    bars: &[(String, f64, f64)],
) -> Result<(), String> {
    let ok = |b: &&(String, f64, f64)| b.1.is_finite() && b.2.is_finite();
    let (Some(x0), Some(x1)) = (bars.iter().filter(ok).map(|b| b.1).reduce(f64::min), bars.iter().filter(ok).map(|b| b.2).reduce(f64::max))
    else {
        return empty(area, st, title);
    };
    let (x0, x1) = (x0.min(0.0), if x1 > x0.min(0.0) { x1 } else { x0.min(0.0) + 1.0 });
    let (red, blue) = (color(2), color(0));
    let legend =
        [("bubble (no GPU operation running)".to_string(), red), ("GPU operation (average start to average end)".to_string(), blue)];
    let plot = header(area, st, hover, title, &legend)?;
    // row i (top first) is centred on y = n − i; the bubble lane on y = n + 1
    let n = bars.len();
    let labelled = n <= MAX_WATERFALL_LABELS;
    let lf = st.label_font();
    let (w, _) = plot.dim_in_pixel();
    let names: Vec<String> = if labelled { bars.iter().map(|b| fit(&plot, &b.0, &lf, w * 7 / 20)).collect() } else { vec![] };
    let label = |y: &f64| -> String {
        let k = y.round();
        if (y - k).abs() > 1e-6 || k < 1.0 {
            return String::new();
        }
        let k = k as usize;
        if k == n + 1 {
            "bubbles".into()
        } else if labelled && k <= n {
            names[n - k].clone()
        } else {
            String::new()
        }
    };
    let shown: Vec<String> = names.iter().cloned().chain(["bubbles".to_string()]).collect();
    let right = right_room(&plot, st, x0..x1);
    let mut chart = axes(
        &plot,
        st,
        Axis { desc: x_label, range: x0..x1, labels: 8, fmt: &value_label, grid: true, size: x_label_area(&plot, st, x_label) },
        Axis { desc: "", range: 0.5..(n as f64 + 1.6), labels: n + 2, fmt: &label, grid: false, size: y_label_area(&plot, st, &shown, "") },
        right,
    )?;
    let lane = n as f64 + 1.0;
    chart.draw_series(std::iter::once(Rectangle::new([(x0, lane - 0.4), (x1, lane + 0.4)], st.band().filled()))).map_err(e2s)?;
    let gaps = union_gaps(bars);
    chart.draw_series(gaps.iter().map(|&(s, e)| Rectangle::new([(s, lane - 0.4), (e, lane + 0.4)], red.filled()))).map_err(e2s)?;
    let h = if n > 200 { 0.5 } else { 0.4 };
    let rows = || bars.iter().enumerate().filter(|(_, b)| ok(b)).map(|(i, b)| ((n - i) as f64, b));
    chart.draw_series(rows().map(|(y, b)| Rectangle::new([(b.1, y - h), (b.2.max(b.1), y + h)], blue.filled()))).map_err(e2s)?;
    let unit = unit_of(x_label);
    for &(s, e) in &gaps {
        if !hover.wants() {
            break;
        }
        let text = format!("bubble\n{} – {} ({})", number(s), value_text("", e, unit), value_text("", e - s, unit));
        hover.add(chart.backend_coord(&(s, lane - 0.4)), chart.backend_coord(&(e, lane + 0.4)), text);
    }
    for (y, b) in rows() {
        if !hover.wants() {
            break;
        }
        let text = format!("{}\n{} – {} ({})", b.0, number(b.1), value_text("", b.2, unit), value_text("", b.2 - b.1, unit));
        hover.add(chart.backend_coord(&(b.1, y - h)), chart.backend_coord(&(b.2.max(b.1), y + h)), text);
    }
    Ok(())
}
