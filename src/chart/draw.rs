//! Draws an analysis' [`Chart`] with plotters on any backend: the page's canvas and the CLI's
//! SVG go through this one function, so both show the same picture of the same numbers.
//!
//! Every chart has the same frame: its title, a legend strip under it (never over the data), and
//! the plot with a few light grid lines and label areas sized to the measured labels. Drawing
//! returns hover [`Region`]s (what the page shows under the pointer); the CLI ignores them.
//! The chart kinds are drawn by `bars.rs` (categories), `flame.rs` (the flame graph) and `plots.rs`
//! (the others).

use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use super::style::{fit, middle_cut, number, text_size};
pub use super::style::{Style, PALETTE};
use crate::table::Chart;

/// Default size of one chart, CSS pixels.
pub const SIZE: (u32, u32) = (900, 480);

/// Hover regions one chart returns at most (a line chart of many points gets every k-th).
pub const MAX_REGIONS: usize = 3000;

/// A rectangle of the chart (CSS pixels from its top left corner) and what to show when the
/// pointer is over it: the full category name, then `series: value unit` lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Region {
    /// Left.
    pub x0: f64,
    /// Top.
    pub y0: f64,
    /// Right.
    pub x1: f64,
    /// Bottom.
    pub y1: f64,
    /// Lines of text.
    pub text: String,
    /// The index of the flame graph frame drawn here (`Chart::Flame`'s `frames`): the page zooms
    /// on it when clicked. Other charts leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<usize>,
    /// Drawn over the regions it overlaps (a timeline arrow's head over the runs): the page picks
    /// it before them, else the smallest region under the pointer. Other regions leave it out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub top: bool,
}

/// The hover regions of one chart as they are drawn, in device pixels of the whole area.
pub(super) struct Hover {
    base: (i32, i32),
    pub(super) regions: Vec<Region>,
    /// The regions are returned (the page's canvas), not dropped (an SVG or PNG file).
    wanted: bool,
}

impl Hover {
    fn new<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, wanted: bool) -> Hover {
        Hover { base: area.get_base_pixel(), regions: Vec::new(), wanted }
    }

    /// Whether a region added now is kept: regions are wanted and fewer than [`MAX_REGIONS`]
    /// so far. Charts of many elements make a region's text only then (a critical-path
    /// timeline's 12 k runs cost more in hover text than in drawing).
    pub(super) fn wants(&self) -> bool {
        self.wanted && self.regions.len() < MAX_REGIONS
    }

    /// A region between two corners in backend pixels (any order).
    pub(super) fn add(&mut self, a: (i32, i32), b: (i32, i32), text: String) {
        self.add_region(a, b, text, None, false);
    }

    /// A region of flame graph frame `frame`.
    pub(super) fn add_frame(&mut self, a: (i32, i32), b: (i32, i32), text: String, frame: usize) {
        self.add_region(a, b, text, Some(frame), false);
    }

    /// A region drawn over the others ([`Region::top`]).
    pub(super) fn add_top(&mut self, a: (i32, i32), b: (i32, i32), text: String) {
        self.add_region(a, b, text, None, true);
    }

    fn add_region(&mut self, a: (i32, i32), b: (i32, i32), text: String, frame: Option<usize>, top: bool) {
        if !self.wants() {
            return;
        }
        let (x0, x1) = (a.0.min(b.0) - self.base.0, a.0.max(b.0) - self.base.0);
        let (y0, y1) = (a.1.min(b.1) - self.base.1, a.1.max(b.1) - self.base.1);
        self.regions.push(Region { x0: x0 as f64, y0: y0 as f64, x1: x1.max(x0 + 1) as f64, y1: y1.max(y0 + 1) as f64, text, frame, top });
    }
}

/// Most categories/slices/lines drawn; the rest are summed into "other" (pies) or cut (bars).
pub(super) const MAX_ITEMS: usize = 40;

pub(super) fn e2s<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Draws `chart` on `area` in the light style at scale 1 (the CLI's SVG and PNG).
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), String> {
    draw_in(area, chart, &Style::LIGHT, false).map(|_| ())
}

/// Draws `chart` on `area` in `style`; returns its hover regions in CSS pixels (device pixels
/// divided by `style.scale`), at most [`MAX_REGIONS`].
pub fn draw_styled<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &Chart, style: &Style) -> Result<Vec<Region>, String> {
    draw_in(area, chart, style, true)
}

/// [`draw_styled`]; the hover regions are made only if `regions` (else the result is empty).
fn draw_in<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &Chart, style: &Style, regions: bool) -> Result<Vec<Region>, String> {
    use super::{bars, flame, plots, timeline};
    ensure_font()?;
    area.fill(&style.background()).map_err(e2s)?;
    let mut h = Hover::new(area, regions);
    let st = style;
    match chart {
        Chart::StackedBars { title, x_label, y_label, categories, series } => {
            bars::stacked_bars(area, st, &mut h, title, x_label, y_label, categories, series)
        }
        Chart::Bars { title, x_label, y_label, categories, values, errors } => {
            bars::bars(area, st, &mut h, title, x_label, y_label, categories, values, errors.as_deref())
        }
        Chart::GroupedBars { title, x_label, y_label, categories, series } => {
            bars::grouped_bars(area, st, &mut h, title, x_label, y_label, categories, series)
        }
        Chart::Pie { title, slices } => plots::pie(area, st, &mut h, title, slices),
        Chart::Histogram { title, x_label, bins } => plots::histogram(area, st, &mut h, title, x_label, bins),
        Chart::Lines { title, x_label, y_label, lines, step } => plots::lines(area, st, &mut h, title, x_label, y_label, lines, *step),
        Chart::Columns { title, x_label, y_label, series } => plots::columns(area, st, &mut h, title, x_label, y_label, series),
        Chart::Waterfall { title, x_label, bars } => plots::waterfall(area, st, &mut h, title, x_label, bars),
        Chart::Timeline { title, x_label, y_label, lanes, kinds, runs, arrows, muted, run_labels, arrow_labels } => timeline::timeline(
            area,
            st,
            &mut h,
            title,
            (x_label, y_label),
            (lanes, kinds, *muted),
            (runs, run_labels),
            (arrows, arrow_labels),
        ),
        Chart::Flame { title, unit, frames, zoom, search } => flame::flame(area, st, &mut h, title, unit, frames, *zoom, search.as_deref()),
    }?;
    Ok(css_pixels(h.regions, style.scale))
}

/// `regions` (device pixels) in CSS pixels, rounded to a tenth, at most [`MAX_REGIONS`].
pub(super) fn css_pixels(mut regions: Vec<Region>, scale: f64) -> Vec<Region> {
    regions.truncate(MAX_REGIONS);
    let css = |v: f64| (v / scale * 10.0).round() / 10.0;
    for r in &mut regions {
        (r.x0, r.y0, r.x1, r.y1) = (css(r.x0), css(r.y0), css(r.x1), css(r.y1));
    }
    regions
}

/// A message in the middle of the area (a chart with nothing to show).
pub(super) fn empty<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, st: &Style, title: &str) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    let font = st.font(16.0);
    let text = fit(area, &format!("{title}: no data"), &font, w.saturating_sub(st.upx(24.0)));
    let (tw, th) = text_size(area, &text, &font);
    area.draw(&Text::new(text, ((w.saturating_sub(tw) / 2) as i32, (h.saturating_sub(th) / 2) as i32), font)).map_err(e2s)
}

/// Upper end of a value axis: a little above the largest value (1 when there is nothing).
pub(super) fn axis_max(max: f64) -> f64 {
    if max.is_finite() && max > 0.0 {
        max * 1.08
    } else {
        1.0
    }
}

pub(super) fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// Draws the title (cut in the middle to the width; the full title hovers) and, if `legend` has
/// entries, a legend strip under it, entries flowing left to right in rows. Returns the area
/// left for the plot, below both: the legend never covers data.
pub(super) fn header<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    legend: &[(String, RGBColor)],
) -> Result<DrawingArea<DB, Shift>, String> {
    let (w, _) = area.dim_in_pixel();
    let margin = st.upx(12.0);
    let tf = st.title_font();
    let shown = fit(area, title, &tf, w.saturating_sub(2 * margin));
    let (tw, th) = text_size(area, &shown, &tf);
    let top = st.px(8.0);
    let (base_x, base_y) = area.get_base_pixel();
    let tx = (w.saturating_sub(tw) / 2) as i32;
    area.draw(&Text::new(shown.clone(), (tx, top), tf)).map_err(e2s)?;
    if shown != title {
        hover.add((base_x + tx, base_y + top), (base_x + tx + tw as i32, base_y + top + th as i32), title.to_string());
    }
    let mut y = top + th as i32 + st.px(8.0);
    if !legend.is_empty() {
        let lf = st.label_font();
        let (sw, gap, spacing) = (st.px(10.0), st.px(6.0), st.px(18.0));
        let lh = text_size(area, "Ag", &lf).1 as i32;
        let mut x = margin as i32 + st.px(4.0);
        for (name, c) in legend {
            let name = middle_cut(name, 48);
            let nw = text_size(area, &name, &lf).0 as i32;
            let entry = sw + gap + nw;
            if x + entry > w as i32 - margin as i32 && x > margin as i32 + st.px(4.0) {
                x = margin as i32 + st.px(4.0);
                y += lh + st.px(6.0);
            }
            let sy = y + (lh - sw) / 2;
            area.draw(&Rectangle::new([(x, sy), (x + sw, sy + sw)], c.filled())).map_err(e2s)?;
            area.draw(&Text::new(name, (x + sw + gap, y), lf.clone())).map_err(e2s)?;
            x += entry + spacing;
        }
        y += lh + st.px(8.0);
    }
    Ok(area.split_vertically(y.max(0) as u32).1)
}

/// One axis of [`axes`]: description, range, how many labels, their text, whether its grid
/// lines are drawn, and the size of its label area.
pub(super) struct Axis<'f> {
    pub desc: &'f str,
    pub range: Range<f64>,
    pub labels: usize,
    pub fmt: &'f dyn Fn(&f64) -> String,
    pub grid: bool,
    pub size: u32,
}

/// Values of about `n` ticks plotters puts on `range`.
pub(super) fn ticks(range: Range<f64>, n: usize) -> Vec<f64> {
    let r: RangedCoordf64 = range.into();
    r.key_points(n)
}

/// Height of a horizontal axis' label area: one line of labels, and its description if any.
pub(super) fn x_label_area<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, st: &Style, desc: &str) -> u32 {
    let h = text_size(area, "Ag", &st.label_font()).1;
    h + st.upx(10.0) + if desc.is_empty() { 0 } else { h + st.upx(6.0) }
}

/// Width of a vertical axis' label area: its widest label, and its (turned) description if any.
pub(super) fn y_label_area<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, st: &Style, labels: &[String], desc: &str) -> u32 {
    let lf = st.label_font();
    let w = labels.iter().map(|l| text_size(area, l, &lf).0).max().unwrap_or(0);
    w + st.upx(12.0) + if desc.is_empty() { 0 } else { text_size(area, "Ag", &lf).1 + st.upx(8.0) }
}

/// The plot: axes with their labels and descriptions in the style's colours, a few light grid
/// lines (no minor ones). `right` is the room on the right for the last x label.
pub(super) fn axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    st: &Style,
    x: Axis<'_>,
    y: Axis<'_>,
    right: u32,
) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>, String> {
    let margin = st.upx(12.0);
    let mut chart = ChartBuilder::on(area)
        .margin(margin)
        .margin_top(st.upx(4.0))
        .margin_right(right.max(margin))
        .x_label_area_size(x.size)
        .y_label_area_size(y.size)
        .build_cartesian_2d(x.range, y.range)
        .map_err(e2s)?;
    let stroke = st.upx(1.0).max(1);
    let mut mesh = chart.configure_mesh();
    mesh.max_light_lines(0)
        .light_line_style(TRANSPARENT)
        .bold_line_style(st.grid().stroke_width(stroke))
        .axis_style(st.axis().stroke_width(stroke))
        .label_style(st.label_font())
        .axis_desc_style(st.label_font())
        .set_all_tick_mark_size(st.px(4.0))
        .x_labels(x.labels)
        .y_labels(y.labels)
        .x_label_formatter(x.fmt)
        .y_label_formatter(y.fmt);
    if !x.grid {
        mesh.disable_x_mesh();
    }
    if !y.grid {
        mesh.disable_y_mesh();
    }
    if !x.desc.is_empty() {
        mesh.x_desc(x.desc);
    }
    if !y.desc.is_empty() {
        mesh.y_desc(y.desc);
    }
    mesh.draw().map_err(e2s)?;
    Ok(chart)
}

/// Tick labels of a value axis.
pub(super) fn value_label(v: &f64) -> String {
    number(*v)
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
pub(super) mod tests {
    use super::*;
    use crate::table::{Line, Series};

    fn svg(c: &Chart) -> String {
        charts_svg(std::slice::from_ref(c)).unwrap()
    }

    /// The SVG of `c` in `style`, and its regions.
    pub(in crate::chart) fn styled(c: &Chart, style: &Style) -> (String, Vec<Region>) {
        let mut svg = String::new();
        let regions = {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            let r = draw_styled(&root, c, style).unwrap();
            root.present().unwrap();
            r
        };
        (svg, regions)
    }

    /// Whether the SVG has a text element reading `t`.
    pub(in crate::chart) fn has_text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n</text>"))
    }

    /// The SVG fill attribute of colour `c`.
    pub(in crate::chart) fn fill(c: RGBColor) -> String {
        format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)
    }

    fn idle(n: usize) -> Chart {
        Chart::StackedBars {
            title: "Idle time breakdown per stream".into(),
            x_label: "stream".into(),
            y_label: "idle time (µs)".into(),
            categories: (0..n).map(|i| format!("rank {} stream {}", i / 4, [7, 20, 21, 22][i % 4])).collect(),
            series: ["host wait", "kernel wait", "other"]
                .iter()
                .map(|s| Series { name: s.to_string(), values: (0..n).map(|i| 10.0 + i as f64).collect() })
                .collect(),
        }
    }

    /// `(x, y, width, height)` of every `<rect>` of the SVG filled with `c`.
    fn rects(svg: &str, c: RGBColor) -> Vec<(f64, f64, f64, f64)> {
        let attr = |l: &str, a: &str| -> f64 {
            let s = &l[l.find(&format!(" {a}=\"")).expect("attr") + a.len() + 3..];
            s[..s.find('"').expect("quote")].parse().expect("number")
        };
        svg.lines()
            .filter(|l| l.contains("<rect") && l.contains(&fill(c)))
            .map(|l| (attr(l, "x"), attr(l, "y"), attr(l, "width"), attr(l, "height")))
            .collect()
    }

    #[test]
    fn whole_x_values_get_whole_labels_only() {
        let c = Chart::Lines {
            title: "Step time".into(),
            x_label: "step".into(),
            y_label: "ms".into(),
            lines: vec![Line { name: "rank 0".into(), points: vec![(4.0, 220.0), (5.0, 221.0)] }],
            step: false,
        };
        let s = svg(&c);
        assert!(has_text(&s, "4") && has_text(&s, "5"), "{s}");
        assert!(!has_text(&s, "4.2") && !has_text(&s, "4.5"), "no labels between steps: {s}");
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
        assert!(s.matches(&fill(PALETTE[0])).count() >= 2, "{s}");
        assert!(has_text(&s, "T") && has_text(&s, "idle") && has_text(&s, "compute"), "{s}");
    }

    #[test]
    fn regions_one_per_segment_with_the_full_name_and_value() {
        let (_, r) = styled(&idle(8), &Style::LIGHT);
        assert_eq!(r.len(), 8 * 3, "{r:?}");
        assert!(r.iter().any(|r| r.text == "rank 1 stream 22\nkernel wait: 17 µs"), "{r:?}");
        for r in &r {
            assert!(r.x0 < r.x1 && r.y0 < r.y1 && r.x1 <= SIZE.0 as f64 && r.y1 <= SIZE.1 as f64, "{r:?}");
        }
        // at scale 2 the picture is twice as large, the regions (CSS pixels) about the same
        let mut big = String::new();
        let r2 = {
            let root = SVGBackend::with_string(&mut big, (SIZE.0 * 2, SIZE.1 * 2)).into_drawing_area();
            draw_styled(&root, &idle(8), &Style::new(false, 2.0)).unwrap()
        };
        assert_eq!(r2.len(), r.len());
        assert!(r.iter().zip(&r2).all(|(a, b)| (a.x0 - b.x0).abs() < 3.0 && (a.y1 - b.y1).abs() < 3.0), "{r:?} {r2:?}");
    }

    #[test]
    fn idle_labels_keep_the_stream_number() {
        for n in [2, 8, 32] {
            let (s, r) = styled(&idle(n), &Style::LIGHT);
            let texts: Vec<&str> =
                s.split("<text").skip(1).map(|t| t.split('>').nth(1).unwrap_or("").trim()).map(|t| t.trim_end_matches("</text")).collect();
            let labels: Vec<&str> = texts.iter().map(|t| t.trim()).filter(|t| t.starts_with("rank") || t.starts_with("ra")).collect();
            // every shown label ends with its stream number, and no two are the same
            assert!(!labels.is_empty(), "{n}: {texts:?}");
            for l in &labels {
                assert!(
                    ["7", "20", "21", "22"].iter().any(|e| l.ends_with(&format!(" {e}")) || l.ends_with(&format!("m {e}"))),
                    "{n}: {l}"
                );
            }
            let mut unique = labels.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), labels.len(), "{n}: {labels:?}");
            assert!(r.iter().any(|r| r.text.starts_with("rank 0 stream 20\n")));
        }
    }

    #[test]
    fn dark_style_has_a_dark_background_and_light_text() {
        let c = idle(2);
        let (light, _) = styled(&c, &Style::LIGHT);
        let (dark, _) = styled(&c, &Style::new(true, 1.0));
        assert!(light.contains(&fill(WHITE)) && !light.contains("#161A22"));
        assert!(dark.contains(&fill(RGBColor(0x16, 0x1a, 0x22))), "{dark}");
        assert!(dark.contains("#D8DDE8") && !dark.contains(&fill(WHITE)), "{dark}");
    }

    #[test]
    fn no_minor_grid_lines() {
        let c = Chart::Lines {
            title: "L".into(),
            x_label: "t".into(),
            y_label: "q".into(),
            lines: vec![Line { name: "s7".into(), points: vec![(0.0, 1.0), (1000.0, 7.0)] }],
            step: false,
        };
        let s = svg(&c);
        let grid = format!("stroke=\"#{:02X}{:02X}{:02X}\"", 0xe4, 0xe4, 0xe4);
        let lines = s.matches(&grid).count();
        // about 6 lines per axis, not plotters' 10 light lines between every two of them
        assert!((2..=20).contains(&lines), "{lines} grid lines\n{s}");
        assert!(s.matches("<line").count() + s.matches("<polyline").count() < 60, "{s}");
    }

    #[test]
    fn legend_is_above_the_plot() {
        let (s, r) = styled(&idle(4), &Style::LIGHT);
        // the legend swatches of the three series lie above every bar
        let top_of_bars = r.iter().map(|r| r.y0).fold(f64::INFINITY, f64::min);
        for (k, c) in PALETTE[..3].iter().enumerate() {
            let rs = rects(&s, *c);
            let swatch = rs.iter().map(|r| r.1 + r.3).fold(f64::INFINITY, f64::min);
            assert!(swatch <= top_of_bars, "series {k}: swatch ends at {swatch}, bars start at {top_of_bars}");
        }
        // and no rect of the plot starts above the legend's bottom but the swatches
        assert!(has_text(&s, "host wait") && has_text(&s, "kernel wait"));
    }

    #[test]
    fn long_kernel_names_are_cut_in_the_middle_and_hover_whole() {
        let name = format!("void cutlass::Kernel<{}>::run_{}", "x".repeat(3000), "end");
        let c = Chart::Bars {
            title: "B".into(),
            x_label: "kernel".into(),
            y_label: "time (µs)".into(),
            categories: vec![name.clone(), "short".into()],
            values: vec![3.0, 1.0],
            errors: None,
        };
        let (s, r) = styled(&c, &Style::LIGHT);
        assert!(!s.contains(&"x".repeat(200)), "kilobyte label drawn");
        assert!(s.contains("…") && s.contains("run_end"), "the end is kept");
        assert_eq!(r[0].text, format!("{name}\ntime: 3 µs"));
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
            Chart::Columns {
                title: "C".into(),
                x_label: "step".into(),
                y_label: "ms".into(),
                series: vec![Line { name: "d".into(), points: vec![(1.0, 2.0)] }],
            },
            Chart::GroupedBars {
                title: "G".into(),
                x_label: "k".into(),
                y_label: "µs".into(),
                categories: vec!["a".into()],
                series: vec![Series { name: "control".into(), values: vec![1.0] }, Series { name: "diff".into(), values: vec![-1.0] }],
            },
            Chart::Waterfall {
                title: "W".into(), x_label: "time (µs)".into(), bars: vec![("k".into(), 1.0, 2.0), ("j".into(), 3.0, 4.0)]
            },
        ];
        for c in &charts {
            let (s, r) = styled(c, &Style::LIGHT);
            assert!(has_text(&s, c.title()), "{s}");
            assert!(!s.contains("no data"), "{s}");
            assert!(!r.is_empty(), "{}: no regions", c.title());
        }
        assert!(has_text(&svg(&Chart::Pie { title: "P".into(), slices: vec![] }), "P: no data"));
        assert!(has_text(&svg(&charts[1]), "75.0%  a"));
        let (_, pie) = styled(&charts[1], &Style::LIGHT);
        assert_eq!(pie[0].text, "a\n75.0% (3)");
        let (_, w) = styled(&charts[6], &Style::LIGHT);
        assert!(w.iter().any(|r| r.text == "bubble\n2 – 3 µs (1 µs)"), "{w:?}");
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
        let dark = rgb.chunks(3).filter(|p| p.iter().all(|&v| v < 100)).count();
        assert!(bar_pixels > 10_000, "{bar_pixels} bar pixels");
        assert!(dark > 200, "{dark} dark (text/axis) pixels");
    }

    #[test]
    fn step_points_hold_values() {
        assert_eq!(super::super::plots::step_points(&[(0.0, 1.0), (2.0, 3.0)]), vec![(0.0, 1.0), (2.0, 1.0), (2.0, 3.0)]);
    }
}
