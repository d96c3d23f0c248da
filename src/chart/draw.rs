//! Draws an analysis' [`Chart`] with plotters on any backend: the page's canvas and the CLI's
//! SVG go through this one function, so both show the same picture of the same numbers.

use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordusize};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::table::{union_gaps, Chart, Line, Series};

/// Default size of one chart, pixels.
pub const SIZE: (u32, u32) = (900, 480);

/// Colours of series/slices, in order (a colour-blind-friendly qualitative palette, Tableau 10).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(89, 161, 79),
    RGBColor(237, 201, 72),
    RGBColor(176, 122, 161),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
];

/// Most categories/slices/lines drawn; the rest are summed into "other" (pies) or cut (bars).
const MAX_ITEMS: usize = 40;

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn e2s<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Cuts a label to `n` characters (kernel names can be kilobytes long).
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n.saturating_sub(1)).collect::<String>() + "…"
    }
}

/// Draws `chart` on `area`.
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), String> {
    ensure_font()?;
    area.fill(&WHITE).map_err(e2s)?;
    match chart {
        Chart::StackedBars { title, x_label, y_label, categories, series } => {
            stacked_bars(area, title, x_label, y_label, categories, series)
        }
        Chart::Bars { title, x_label, y_label, categories, values, errors } => {
            bars(area, title, x_label, y_label, categories, values, errors.as_deref())
        }
        Chart::Pie { title, slices } => pie(area, title, slices),
        Chart::Histogram { title, x_label, bins } => histogram(area, title, x_label, bins),
        Chart::Lines { title, x_label, y_label, lines, step } => lines_chart(area, title, x_label, y_label, lines, *step),
        Chart::Columns { title, x_label, y_label, series } => columns(area, title, x_label, y_label, series),
        Chart::GroupedBars { title, x_label, y_label, categories, series } => {
            grouped_bars(area, title, x_label, y_label, categories, series)
        }
        Chart::Waterfall { title, x_label, bars } => waterfall(area, title, x_label, bars),
    }
}

/// A message in the middle of the area (a chart with nothing to show).
fn empty<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    area.draw(&Text::new(format!("{title}: no data"), (w as i32 / 2 - 100, h as i32 / 2), ("sans-serif", 16))).map_err(e2s)
}

/// Upper end of a value axis: a little above the largest value (1 when there is nothing).
fn axis_max(max: f64) -> f64 {
    if max.is_finite() && max > 0.0 {
        max * 1.08
    } else {
        1.0
    }
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// Axes of a bar chart: one segment per category (labels cut to 14 characters), values `y` on
/// the vertical axis. `categories` must not be empty.
fn category_axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    y: std::ops::Range<f64>,
) -> Result<ChartContext<'a, DB, Cartesian2d<SegmentedCoord<RangedCoordusize>, RangedCoordf64>>, String> {
    let n = categories.len();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((0..n - 1).into_segmented(), y)
        .map_err(e2s)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(n.min(30))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => categories.get(*i).map(|c| short(c, 14)).unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(e2s)?;
    Ok(chart)
}

fn stacked_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
) -> Result<(), String> {
    let n = categories.len().min(MAX_ITEMS);
    if n == 0 || series.is_empty() {
        return empty(area, title);
    }
    let totals: Vec<f64> = (0..n).map(|i| series.iter().map(|s| finite(s.values.get(i).copied().unwrap_or(0.0)).max(0.0)).sum()).collect();
    let top = axis_max(totals.iter().copied().fold(0.0, f64::max));
    let mut chart = category_axes(area, title, x_label, y_label, &categories[..n], 0.0..top)?;
    let mut base = vec![0.0; n];
    for (k, s) in series.iter().enumerate() {
        let c = color(k);
        let vals: Vec<f64> = (0..n).map(|i| finite(s.values.get(i).copied().unwrap_or(0.0)).max(0.0)).collect();
        // one histogram per bar: see `bars`
        for i in 0..n {
            let below = base.clone();
            let anno = chart
                .draw_series(
                    Histogram::vertical(&chart)
                        .style(c.filled())
                        .margin(6)
                        .baseline_func(move |x: &SegmentValue<usize>| match x {
                            SegmentValue::Exact(i) | SegmentValue::CenterOf(i) => below.get(*i).copied().unwrap_or(0.0),
                            SegmentValue::Last => 0.0,
                        })
                        .data(std::iter::once((i, base[i] + vals[i]))),
                )
                .map_err(e2s)?;
            if i == 0 {
                anno.label(short(&s.name, 30)).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
            }
        }
        for (b, v) in base.iter_mut().zip(&vals) {
            *b += v;
        }
    }
    if series.len() > 1 {
        legend(&mut chart)?;
    }
    Ok(())
}

fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(chart: &mut ChartContext<'a, DB, CT>) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e2s)
}

#[allow(clippy::too_many_arguments)]
fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    values: &[f64],
    errors: Option<&[(f64, f64)]>,
) -> Result<(), String> {
    let n = categories.len().min(values.len()).min(MAX_ITEMS);
    if n == 0 {
        return empty(area, title);
    }
    let hi = (0..n).map(|i| finite(values[i]).max(errors.and_then(|e| e.get(i)).map_or(0.0, |e| finite(e.1)))).fold(0.0, f64::max);
    let lo = (0..n).map(|i| finite(values[i]).min(errors.and_then(|e| e.get(i)).map_or(0.0, |e| finite(e.0)))).fold(0.0, f64::min);
    let mut chart = category_axes(area, title, x_label, y_label, &categories[..n], (if lo < 0.0 { lo * 1.08 } else { 0.0 })..axis_max(hi))?;
    // plotters' Histogram sums its data per key in a HashMap and draws in that map's order, which
    // changes from run to run: one histogram per bar keeps the SVG the same every time
    for (i, &v) in values[..n].iter().enumerate() {
        chart
            .draw_series(Histogram::vertical(&chart).style(color(0).filled()).margin(6).data(std::iter::once((i, finite(v)))))
            .map_err(e2s)?;
    }
    if let Some(errors) = errors {
        chart
            .draw_series((0..n).filter_map(|i| {
                errors.get(i).map(|e| {
                    ErrorBar::new_vertical(SegmentValue::CenterOf(i), finite(e.0), finite(values[i]), finite(e.1), BLACK.stroke_width(1), 8)
                })
            }))
            .map_err(e2s)?;
    }
    Ok(())
}

fn pie<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, slices: &[(String, f64)]) -> Result<(), String> {
    let mut items: Vec<(String, f64)> = slices.iter().filter(|s| s.1.is_finite() && s.1 > 0.0).cloned().collect();
    if items.is_empty() {
        return empty(area, title);
    }
    if items.len() > 12 {
        let rest: f64 = items[11..].iter().map(|s| s.1).sum();
        items.truncate(11);
        items.push(("(other)".into(), rest));
    }
    let total: f64 = items.iter().map(|s| s.1).sum();
    let titled = area.titled(title, ("sans-serif", 18)).map_err(e2s)?;
    let (w, h) = titled.dim_in_pixel();
    let (left, right) = titled.split_horizontally((w as f64 * 0.45) as u32);
    let radius = (f64::from(w) * 0.45).min(f64::from(h)) * 0.42;
    let center = ((w as f64 * 0.225) as i32, (h / 2) as i32);
    let sizes: Vec<f64> = items.iter().map(|s| s.1).collect();
    let colors: Vec<RGBColor> = (0..items.len()).map(color).collect();
    let labels: Vec<String> = vec![String::new(); items.len()];
    let mut p = Pie::new(&center, &radius, &sizes, &colors, &labels);
    p.start_angle(-90.0);
    left.draw(&p).map_err(e2s)?;
    for (i, (name, v)) in items.iter().enumerate() {
        let y = 10 + i as i32 * 22;
        right.draw(&Rectangle::new([(0, y), (12, y + 12)], colors[i].filled())).map_err(e2s)?;
        right.draw(&Text::new(format!("{:.1}%  {}", 100.0 * v / total, short(name, 60)), (18, y), ("sans-serif", 13))).map_err(e2s)?;
    }
    Ok(())
}

fn histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    bins: &[(f64, f64, u64)],
) -> Result<(), String> {
    let (Some(first), Some(last)) = (bins.first(), bins.last()) else { return empty(area, title) };
    let top = axis_max(bins.iter().map(|b| b.2 as f64).fold(0.0, f64::max));
    let (x0, x1) = (first.0, if last.1 > first.0 { last.1 } else { first.0 + 1.0 });
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, 0.0..top)
        .map_err(e2s)?;
    chart.configure_mesh().disable_x_mesh().x_desc(x_label).y_desc("count").draw().map_err(e2s)?;
    chart.draw_series(bins.iter().map(|b| Rectangle::new([(b.0, 0.0), (b.1, b.2 as f64)], color(0).filled()))).map_err(e2s)?;
    Ok(())
}

/// Points of a step function: each value holds until the next x.
fn step_points(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

fn lines_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    step: bool,
) -> Result<(), String> {
    let pts = || lines.iter().take(MAX_ITEMS).flat_map(|l| l.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (Some(x0), Some(x1)) = (pts().map(|p| p.0).reduce(f64::min), pts().map(|p| p.0).reduce(f64::max)) else {
        return empty(area, title);
    };
    let y1 = axis_max(pts().map(|p| p.1).fold(0.0, f64::max));
    let y0 = pts().map(|p| p.1).fold(0.0, f64::min);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..if x1 > x0 { x1 } else { x0 + 1.0 }, y0..y1)
        .map_err(e2s)?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw().map_err(e2s)?;
    for (k, l) in lines.iter().take(MAX_ITEMS).enumerate() {
        let c = color(k);
        let p: Vec<(f64, f64)> = l.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        let p = if step { step_points(&p) } else { p };
        chart
            .draw_series(LineSeries::new(p, c.stroke_width(2)))
            .map_err(e2s)?
            .label(short(&l.name, 30))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], c.stroke_width(2)));
    }
    if lines.len() > 1 {
        legend(&mut chart)?;
    }
    Ok(())
}

fn columns<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Line],
) -> Result<(), String> {
    let pts = || series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (Some(x0), Some(x1)) = (pts().map(|p| p.0).reduce(f64::min), pts().map(|p| p.0).reduce(f64::max)) else {
        return empty(area, title);
    };
    let top = axis_max(pts().map(|p| p.1).fold(0.0, f64::max));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 - 0.5)..(x1 + 0.5), 0.0..top)
        .map_err(e2s)?;
    // x positions are whole numbers (step numbers): no ticks between them
    let whole = |x: &f64| if x.fract() == 0.0 { format!("{x}") } else { String::new() };
    chart.configure_mesh().disable_x_mesh().x_desc(x_label).y_desc(y_label).x_label_formatter(&whole).draw().map_err(e2s)?;
    for (k, s) in series.iter().enumerate() {
        let c = color(k);
        let rects = s
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .map(move |&(x, y)| Rectangle::new([(x - 0.4, 0.0), (x + 0.4, y.max(0.0))], c.filled()));
        chart
            .draw_series(rects)
            .map_err(e2s)?
            .label(short(&s.name, 30))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
    }
    if series.len() > 1 {
        legend(&mut chart)?;
    }
    Ok(())
}

/// Categories drawn by a grouped bar chart (each has one bar per series).
const MAX_GROUPS: usize = 20;

fn grouped_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
) -> Result<(), String> {
    let n = categories.len().min(MAX_GROUPS);
    if n == 0 || series.is_empty() {
        return empty(area, title);
    }
    let vals = || series.iter().flat_map(|s| s.values.iter().take(n)).map(|&v| finite(v));
    let (lo, hi) = (vals().fold(0.0, f64::min), vals().fold(0.0, f64::max));
    let lo = if lo < 0.0 { lo * 1.08 } else { 0.0 };
    // category i is centred on x = i: whole-number ticks carry the labels
    // labels fit their category's width (about 7 px per character)
    let fit = ((area.dim_in_pixel().0 as usize).saturating_sub(100) / n / 7).clamp(4, 14);
    let label = |x: &f64| {
        if x.fract() == 0.0 && *x >= 0.0 {
            categories.get(*x as usize).map(|c| short(c, fit)).unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), lo..axis_max(hi))
        .map_err(e2s)?;
    chart.configure_mesh().disable_x_mesh().x_desc(x_label).y_desc(y_label).x_labels(n).x_label_formatter(&label).draw().map_err(e2s)?;
    let w = 0.8 / series.len() as f64;
    for (k, s) in series.iter().enumerate() {
        let c = color(k);
        let rects = (0..n).map(move |i| {
            let (x, v) = (i as f64 - 0.4 + k as f64 * w, finite(s.values.get(i).copied().unwrap_or(0.0)));
            Rectangle::new([(x, 0.0_f64.min(v)), (x + w * 0.9, 0.0_f64.max(v))], c.filled())
        });
        chart
            .draw_series(rects)
            .map_err(e2s)?
            .label(short(&s.name, 30))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
    }
    if lo < 0.0 {
        chart.draw_series(std::iter::once(PathElement::new([(-0.5, 0.0), (n as f64 - 0.5, 0.0)], BLACK.mix(0.6)))).map_err(e2s)?;
    }
    legend(&mut chart)
}

/// Rows of a waterfall that get a name on the axis; with more, the rows are only drawn.
const MAX_WATERFALL_LABELS: usize = 40;

fn waterfall<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    bars: &[(String, f64, f64)],
) -> Result<(), String> {
    let ok = |b: &&(String, f64, f64)| b.1.is_finite() && b.2.is_finite();
    let (Some(x0), Some(x1)) = (bars.iter().filter(ok).map(|b| b.1).reduce(f64::min), bars.iter().filter(ok).map(|b| b.2).reduce(f64::max))
    else {
        return empty(area, title);
    };
    let (x0, x1) = (x0.min(0.0), if x1 > x0.min(0.0) { x1 } else { x0.min(0.0) + 1.0 });
    // row i (top first) is centred on y = n − i; the bubble lane on y = n + 1
    let n = bars.len();
    let labelled = n <= MAX_WATERFALL_LABELS;
    let label = |y: &f64| -> String {
        let k = y.round();
        if (y - k).abs() > 1e-6 || k < 1.0 {
            return String::new();
        }
        let k = k as usize;
        match k.cmp(&n) {
            std::cmp::Ordering::Greater if k == n + 1 => "bubbles".into(),
            std::cmp::Ordering::Greater => String::new(),
            _ => short(&bars[n - k].0, 26),
        }
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(if labelled { 190 } else { 70 })
        .margin_right(36) // room for the last x label
        .build_cartesian_2d(x0..x1, 0.5..(n as f64 + 1.6))
        .map_err(e2s)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(x_label)
        .y_labels(if labelled { n + 2 } else { 2 })
        .y_label_formatter(&|y| if labelled || y.round() as usize == n + 1 { label(y) } else { String::new() })
        .draw()
        .map_err(e2s)?;
    let lane = n as f64 + 1.0;
    chart
        .draw_series(std::iter::once(Rectangle::new([(x0, lane - 0.4), (x1, lane + 0.4)], RGBColor(220, 220, 220).filled())))
        .map_err(e2s)?;
    let red = color(2);
    chart
        .draw_series(union_gaps(bars).into_iter().map(|(s, e)| Rectangle::new([(s, lane - 0.4), (e, lane + 0.4)], red.filled())))
        .map_err(e2s)?
        .label("bubble (no GPU operation running)")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], red.filled()));
    let blue = color(0);
    let h = if n > 200 { 0.5 } else { 0.4 };
    chart
        .draw_series(bars.iter().enumerate().filter(|(_, b)| ok(b)).map(|(i, b)| {
            let y = (n - i) as f64;
            Rectangle::new([(b.1, y - h), (b.2.max(b.1), y + h)], blue.filled())
        }))
        .map_err(e2s)?
        .label("GPU operation (average start to average end)")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], blue.filled()));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::LowerLeft)
        .draw()
        .map_err(e2s)
}

/// Registers the chart font (call before drawing natively; cheap after the first call).
/// Natively, plotters measures and rasterises text with ab_glyph and needs a registered font;
/// we bundle a subset of DejaVu Sans (`assets/fonts`, Bitstream Vera licence). In the page the
/// browser measures text.
#[cfg(not(target_arch = "wasm32"))]
pub fn ensure_font() -> Result<(), String> {
    static FONT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    FONT.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf"))
            .map_err(|_| "the bundled chart font is invalid".to_string())
    })
    .clone()
}

/// Nothing to do in the browser.
#[cfg(target_arch = "wasm32")]
pub fn ensure_font() -> Result<(), String> {
    Ok(())
}

/// All `charts` stacked vertically in one PNG image (what `--plot FILE.png` writes).
#[cfg(not(target_arch = "wasm32"))]
pub fn charts_png(charts: &[Chart]) -> Result<Vec<u8>, String> {
    ensure_font()?;
    let (w, h) = (SIZE.0, SIZE.1 * charts.len().max(1) as u32);
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        let parts = root.split_evenly((charts.len().max(1), 1));
        for (c, a) in charts.iter().zip(&parts) {
            draw(a, c)?;
        }
        root.present().map_err(e2s)?;
    }
    Ok(super::png::encode_rgb(w, h, &rgb))
}

/// All `charts` stacked vertically in one SVG document (what `--plot FILE.svg` writes).
pub fn charts_svg(charts: &[Chart]) -> Result<String, String> {
    ensure_font()?;
    let mut svg = String::new();
    {
        let h = SIZE.1 * charts.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (SIZE.0, h)).into_drawing_area();
        let parts = root.split_evenly((charts.len().max(1), 1));
        for (c, a) in charts.iter().zip(&parts) {
            draw(a, c)?;
        }
        root.present().map_err(e2s)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(c: &Chart) -> String {
        charts_svg(std::slice::from_ref(c)).unwrap()
    }

    /// Whether the SVG has a text element reading `t`.
    fn has_text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n</text>"))
    }

    #[test]
    fn stacked_bars_draw_one_rect_per_segment() {
        let c = Chart::StackedBars {
            title: "T".into(),
            x_label: "rank".into(),
            y_label: "%".into(),
            categories: vec!["0".into(), "1".into()],
            series: vec![
                Series { name: "idle".into(), values: vec![50.0, 25.0] },
                Series { name: "compute".into(), values: vec![50.0, 75.0] },
            ],
        };
        let s = svg(&c);
        // 4 bar segments in the two series colours (plus legend swatches)
        let first = format!("fill=\"#{:02X}{:02X}{:02X}\"", PALETTE[0].0, PALETTE[0].1, PALETTE[0].2);
        assert!(s.matches(&first).count() >= 2, "{s}");
        assert!(has_text(&s, "T") && has_text(&s, "idle") && has_text(&s, "compute"), "{s}");
    }

    #[test]
    fn every_kind_draws_and_empty_data_says_so() {
        let charts = [
            Chart::Bars {
                title: "B".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                categories: vec!["a".into()],
                values: vec![3.0],
                errors: Some(vec![(1.0, 4.0)]),
            },
            Chart::Pie { title: "P".into(), slices: vec![("a".into(), 3.0), ("b".into(), 1.0)] },
            Chart::Histogram { title: "H".into(), x_label: "us".into(), bins: vec![(0.0, 1.0, 3), (1.0, 2.0, 5)] },
            Chart::Lines {
                title: "L".into(),
                x_label: "t".into(),
                y_label: "q".into(),
                lines: vec![Line { name: "s7".into(), points: vec![(0.0, 1.0), (2.0, 0.0)] }],
                step: true,
            },
        ];
        for c in &charts {
            let s = svg(c);
            assert!(has_text(&s, c.title()), "{s}");
            assert!(!s.contains("no data"), "{s}");
        }
        assert!(has_text(&svg(&Chart::Pie { title: "P".into(), slices: vec![] }), "P: no data"));
        assert!(has_text(&svg(&charts[1]), "75.0%  a"));
    }

    #[test]
    fn png_has_the_chart_pixels() {
        let c = Chart::Bars {
            title: "B".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: vec!["a".into()],
            values: vec![3.0],
            errors: None,
        };
        let png = charts_png(&[c]).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let rgb = super::super::png::decode_rgb_for_tests(&png);
        let bar = PALETTE[0];
        let bar_pixels = rgb.chunks(3).filter(|p| p[0] == bar.0 && p[1] == bar.1 && p[2] == bar.2).count();
        let dark = rgb.chunks(3).filter(|p| p.iter().all(|&v| v < 80)).count();
        assert!(bar_pixels > 10_000, "{bar_pixels} bar pixels");
        assert!(dark > 200, "{dark} dark (text/axis) pixels");
    }

    #[test]
    fn step_points_hold_values() {
        assert_eq!(step_points(&[(0.0, 1.0), (2.0, 3.0)]), vec![(0.0, 1.0), (2.0, 1.0), (2.0, 3.0)]);
    }
}
