//! Charts of categories: bars (with min/max whiskers), stacked bars and grouped bars, all drawn
//! by [`categories`]: vertical bars when every category label fits under its bar, else
//! horizontal bars with the labels in a wide area on the left (cut in the middle to its width;
//! the full name hovers).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::draw::{axes, axis_max, e2s, empty, finite, header, ticks, value_label, x_label_area, y_label_area, Axis, Hover, MAX_ITEMS};
use super::style::{color, fit, number, quantity_of, text_size, unit_of, value_text, Style};
use crate::table::Series;

/// Categories drawn by a grouped bar chart (each has one bar per series).
const MAX_GROUPS: usize = 20;

/// One bar or bar segment: its category, its place across the category (−0.4..0.4 is the whole
/// width), its value range, colour and hover text.
struct Segment {
    cat: usize,
    slot: (f64, f64),
    lo: f64,
    hi: f64,
    color: RGBColor,
    text: String,
}

/// A category chart to draw.
struct Cats<'c> {
    title: &'c str,
    cat_desc: &'c str,
    value_desc: &'c str,
    categories: &'c [String],
    segments: Vec<Segment>,
    /// `(category, low, high)` whiskers.
    whiskers: Vec<(usize, f64, f64)>,
    legend: Vec<(String, RGBColor)>,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn stacked_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
) -> Result<(), String> {
    let n = categories.len().min(MAX_ITEMS);
    if n == 0 || series.is_empty() {
        return empty(area, st, title);
    }
    let unit = unit_of(y_label);
    let mut segments = Vec::new();
    for (i, cat) in categories[..n].iter().enumerate() {
        let mut base = 0.0;
        for (k, s) in series.iter().enumerate() {
            let v = finite(s.values.get(i).copied().unwrap_or(0.0)).max(0.0);
            if v > 0.0 {
                let text = format!("{cat}\n{}", value_text(&s.name, v, unit));
                segments.push(Segment { cat: i, slot: (-0.4, 0.4), lo: base, hi: base + v, color: color(k), text });
            }
            base += v;
        }
    }
    let legend = if series.len() > 1 { series.iter().enumerate().map(|(k, s)| (s.name.clone(), color(k))).collect() } else { vec![] };
    let c = Cats { title, cat_desc: x_label, value_desc: y_label, categories: &categories[..n], segments, whiskers: vec![], legend };
    draw_categories(area, st, hover, &c)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    values: &[f64],
    errors: Option<&[(f64, f64)]>,
) -> Result<(), String> {
    let n = categories.len().min(values.len()).min(MAX_ITEMS);
    if n == 0 {
        return empty(area, st, title);
    }
    let (unit, quantity) = (unit_of(y_label), quantity_of(y_label));
    let mut segments = Vec::new();
    let mut whiskers = Vec::new();
    for (i, cat) in categories[..n].iter().enumerate() {
        let v = finite(values[i]);
        let mut text = format!("{cat}\n{}", value_text(quantity, v, unit));
        if let Some(&(lo, hi)) = errors.and_then(|e| e.get(i)) {
            let (lo, hi) = (finite(lo), finite(hi));
            text += &format!("\nmin {} – max {}", number(lo), value_text("", hi, unit));
            whiskers.push((i, lo, hi));
        }
        segments.push(Segment { cat: i, slot: (-0.4, 0.4), lo: v.min(0.0), hi: v.max(0.0), color: color(0), text });
    }
    let c = Cats { title, cat_desc: x_label, value_desc: y_label, categories: &categories[..n], segments, whiskers, legend: vec![] };
    draw_categories(area, st, hover, &c)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn grouped_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
) -> Result<(), String> {
    let n = categories.len().min(MAX_GROUPS);
    if n == 0 || series.is_empty() {
        return empty(area, st, title);
    }
    let unit = unit_of(y_label);
    let w = 0.8 / series.len() as f64;
    let mut segments = Vec::new();
    for (i, cat) in categories[..n].iter().enumerate() {
        for (k, s) in series.iter().enumerate() {
            let v = finite(s.values.get(i).copied().unwrap_or(0.0));
            let x = -0.4 + k as f64 * w;
            let text = format!("{cat}\n{}", value_text(&s.name, v, unit));
            segments.push(Segment { cat: i, slot: (x, x + w * 0.9), lo: v.min(0.0), hi: v.max(0.0), color: color(k), text });
        }
    }
    let legend = series.iter().enumerate().map(|(k, s)| (s.name.clone(), color(k))).collect();
    let c = Cats { title, cat_desc: x_label, value_desc: y_label, categories: &categories[..n], segments, whiskers: vec![], legend };
    draw_categories(area, st, hover, &c)
}

/// Draws a category chart: vertical bars if every label fits under its bar, else horizontal bars
/// (first category on top) with the labels cut to at most 40% of the width.
fn draw_categories<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, st: &Style, hover: &mut Hover, c: &Cats<'_>) -> Result<(), String> {
    let plot = header(area, st, hover, c.title, &c.legend)?;
    let n = c.categories.len();
    let lows = c.segments.iter().map(|s| s.lo).chain(c.whiskers.iter().map(|w| w.1));
    let highs = c.segments.iter().map(|s| s.hi).chain(c.whiskers.iter().map(|w| w.2));
    let (lo, hi) = (lows.fold(0.0, f64::min), highs.fold(0.0, f64::max));
    let values = (if lo < 0.0 { lo * 1.08 } else { 0.0 })..axis_max(hi);
    let tick_labels: Vec<String> = ticks(values.clone(), 6).iter().map(value_label).collect();
    let lf = st.label_font();
    let (w, h) = plot.dim_in_pixel();
    let margin = st.upx(12.0);
    let value_area = y_label_area(&plot, st, &tick_labels, c.value_desc);
    let widest = c.categories.iter().map(|s| text_size(&plot, s, &lf).0).max().unwrap_or(0);
    let slot = f64::from(w.saturating_sub(value_area + 2 * margin)) / n as f64;
    let vertical = f64::from(widest) <= slot * 0.9;
    let cats = -0.5..(n as f64 - 0.5);
    let labels: Vec<String> =
        if vertical { c.categories.to_vec() } else { c.categories.iter().map(|s| fit(&plot, s, &lf, w * 2 / 5)).collect() };
    // horizontal rows too low for a label each: every k-th row is labelled
    let line = text_size(&plot, "Ag", &lf).1 as f64;
    let rows = f64::from(h.saturating_sub(x_label_area(&plot, st, c.value_desc) + 2 * margin)) / n as f64;
    let every = if vertical { 1 } else { ((line * 1.15) / rows.max(1.0)).ceil().max(1.0) as usize };
    let cat_label = |p: &f64| -> String {
        let i = p.round();
        if (p - i).abs() > 1e-6 || i < 0.0 || i as usize >= n {
            return String::new();
        }
        let i = if vertical { i as usize } else { n - 1 - i as usize };
        if i % every == 0 {
            labels[i].clone()
        } else {
            String::new()
        }
    };
    let value_axis = |size| Axis { desc: c.value_desc, range: values.clone(), labels: 6, fmt: &value_label, grid: true, size };
    let cat_axis = |size| Axis { desc: c.cat_desc, range: cats.clone(), labels: n, fmt: &cat_label, grid: false, size };
    let chart = if vertical {
        axes(&plot, st, cat_axis(x_label_area(&plot, st, c.cat_desc)), value_axis(value_area), 0)?
    } else {
        // the last value label is centred on the axis' end: room for its half
        let right = tick_labels.last().map_or(0, |l| text_size(&plot, l, &lf).0 / 2 + st.upx(4.0));
        axes(&plot, st, value_axis(x_label_area(&plot, st, c.value_desc)), cat_axis(y_label_area(&plot, st, &labels, c.cat_desc)), right)?
    };
    // (category, offset across it, value) → chart coordinates
    let at = |cat: usize, s: f64, v: f64| if vertical { (cat as f64 + s, v) } else { (v, (n - 1 - cat) as f64 - s) };
    let mut chart = chart;
    chart
        .draw_series(c.segments.iter().map(|s| Rectangle::new([at(s.cat, s.slot.0, s.lo), at(s.cat, s.slot.1, s.hi)], s.color.filled())))
        .map_err(e2s)?;
    for s in &c.segments {
        if !hover.wants() {
            break;
        }
        hover.add(chart.backend_coord(&at(s.cat, s.slot.0, s.lo)), chart.backend_coord(&at(s.cat, s.slot.1, s.hi)), s.text.clone());
    }
    let ink = st.axis().stroke_width(st.upx(1.5).max(1));
    for &(i, a, b) in &c.whiskers {
        for path in [[at(i, 0.0, a), at(i, 0.0, b)], [at(i, -0.12, a), at(i, 0.12, a)], [at(i, -0.12, b), at(i, 0.12, b)]] {
            chart.draw_series(std::iter::once(PathElement::new(path, ink))).map_err(e2s)?;
        }
    }
    if lo < 0.0 {
        chart.draw_series(std::iter::once(PathElement::new([at(0, -0.5, 0.0), at(n - 1, 0.5, 0.0)], ink))).map_err(e2s)?;
    }
    Ok(())
}
