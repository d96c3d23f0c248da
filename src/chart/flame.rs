//! The flame graph (an icicle): the roots (threads) on top, each callee in the row below its
//! caller, one row per depth, x = the value axis scaled to the plot's width. Each frame is a
//! rectangle in a warm colour from a hash of its name (the same name has the same colour in every
//! drawing), its name written inside when about three characters fit.
//!
//! `zoom` draws one frame across the whole width, its callees under it and its callers above it
//! (dimmed, full width); `search` keeps the colour of the frames whose name contains the text and
//! greys the others, and the title line counts them. Every drawn frame hovers with its full name
//! and values and carries its index ([`Region::frame`](super::draw::Region)) so the page can
//! zoom on a click.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::draw::{e2s, empty, header, Hover};
use super::style::{fit, number, text_size, Style};
use crate::table::FlameFrame;

/// Height of one row, CSS pixels.
const ROW: f64 = 18.0;

/// The fewest characters a name cut in the middle keeps (ellipsis included) to be written.
const MIN_CUT: usize = 6;

/// How much darker the frame colours are on the dark background (less glare, text still dark).
const DARKER: f64 = 0.1;

/// The frames of the view: `zoom`'s callers (drawn dimmed) and the frames inside it.
struct View {
    /// Value range across the width.
    from: f64,
    to: f64,
    /// Indexes of the frames drawn full width above the zoomed one (its callers).
    callers: Vec<usize>,
    /// Indexes of the frames in the range (the zoomed one and its callees; every frame unzoomed).
    inside: Vec<usize>,
}

impl View {
    fn new(frames: &[FlameFrame], zoom: Option<usize>) -> View {
        let Some(z) = zoom.filter(|&z| z < frames.len()) else {
            let roots = frames.iter().filter(|f| f.depth == 0 && f.total.is_finite() && f.start.is_finite());
            let from = roots.clone().map(|f| f.start).fold(f64::INFINITY, f64::min);
            let to = roots.map(|f| f.start + f.total).fold(f64::NEG_INFINITY, f64::max);
            return View { from, to, callers: vec![], inside: (0..frames.len()).collect() };
        };
        let d = frames[z].depth;
        // callers: walking back, each frame shallower than the last one found
        let mut callers = Vec::new();
        let mut depth = d;
        for j in (0..z).rev() {
            if depth == 0 {
                break;
            }
            if frames[j].depth < depth {
                callers.push(j);
                depth = frames[j].depth;
            }
        }
        callers.reverse();
        // callees: the frames after it that are deeper (depth-first order)
        let end = frames[z + 1..].iter().position(|f| f.depth <= d).map_or(frames.len(), |k| z + 1 + k);
        View { from: frames[z].start, to: frames[z].start + frames[z].total, callers, inside: (z..end).collect() }
    }

    /// The value across the whole width.
    fn total(&self) -> f64 {
        self.to - self.from
    }
}

/// How many frames of `inside` match `needle` (lower case), and their value, a frame counted once
/// even when a caller matches too.
fn matches(frames: &[FlameFrame], inside: &[usize], needle: &str) -> (usize, f64) {
    let (mut count, mut value) = (0, 0.0);
    let mut counted: Option<u32> = None; // depth of the matching frame whose callees are counted already
    for &i in inside {
        let f = &frames[i];
        if counted.is_some_and(|d| f.depth <= d) {
            counted = None;
        }
        if f.name.to_lowercase().contains(needle) {
            count += 1;
            if counted.is_none() {
                value += f.total;
                counted = Some(f.depth);
            }
        }
    }
    (count, value)
}

/// The warm colour of a frame name: red to yellow, from an FNV-1a hash of the name (stable across
/// runs and platforms), three independent parts so that two names rarely look alike.
pub(super) fn warm(name: &str) -> RGBColor {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let part = |shift: u32| ((h >> shift) & 0xff) as f64 / 255.0;
    RGBColor((205.0 + 50.0 * part(0)) as u8, (110.0 + 120.0 * part(8)) as u8, (20.0 + 70.0 * part(16)) as u8)
}

/// `c` mixed with `with`, `t` of the way.
fn mix(c: RGBColor, with: RGBColor, t: f64) -> RGBColor {
    let m = |a: u8, b: u8| (f64::from(a) * (1.0 - t) + f64::from(b) * t).round() as u8;
    RGBColor(m(c.0, with.0), m(c.1, with.1), m(c.2, with.2))
}

/// Relative luminance (WCAG), 0 to 1.
fn luminance(c: RGBColor) -> f64 {
    let lin = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
}

/// Text on a `fill` rectangle: dark or light, whichever contrasts more (the two contrast ratios
/// are equal at a luminance of about 0.18).
fn ink(fill: RGBColor) -> RGBColor {
    if luminance(fill) > 0.18 {
        RGBColor(0x1a, 0x1a, 0x1a)
    } else {
        RGBColor(0xf2, 0xf2, 0xf2)
    }
}

/// The fill of a frame that does not match the search.
fn grey(st: &Style) -> RGBColor {
    if st.dark {
        RGBColor(0x3a, 0x40, 0x4c)
    } else {
        RGBColor(0xdc, 0xdc, 0xdc)
    }
}

/// Draws the flame graph; see the module docs.
#[allow(clippy::too_many_arguments)]
pub(super) fn flame<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    st: &Style,
    hover: &mut Hover,
    title: &str,
    unit: &str,
    frames: &[FlameFrame],
    zoom: Option<usize>,
    search: Option<&str>,
) -> Result<(), String> {
    let view = View::new(frames, zoom);
    if view.inside.is_empty() || !view.total().is_finite() || view.total() <= 0.0 {
        return empty(area, st, title);
    }
    let needle = search.map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty());
    let heading = match &needle {
        Some(n) => {
            let (count, value) = matches(frames, &view.inside, n);
            let s = if count == 1 { "" } else { "s" };
            let text = search.unwrap_or_default().trim();
            format!("{title} · {count} frame{s} match “{text}”: {} % of the view", number(100.0 * value / view.total()))
        }
        None => title.to_string(),
    };
    let plot = header(area, st, hover, &heading, &[])?;
    if needle.is_some() {
        // the count of matches hovers too (the page's tests read it there)
        let (ax, ay) = area.get_base_pixel();
        hover.add((ax, ay), (ax + area.dim_in_pixel().0 as i32, plot.get_base_pixel().1), heading.clone());
    }
    let (w, h) = plot.dim_in_pixel();
    let margin = st.px(12.0);
    let (left, width) = (margin, (w as i32 - 2 * margin).max(1));
    let row = st.px(ROW).max(2);
    let gap = st.px(1.0).max(1);
    let lf = st.label_font();
    let note_h = text_size(&plot, "Ag", &lf).1 as i32 + st.px(8.0);
    let deepest = view.inside.iter().map(|&i| frames[i].depth).max().unwrap_or(0) as i32;
    let zoom_depth = view.inside.first().map_or(0, |&i| frames[i].depth) as i32;
    let fits = |room: i32| (room / row).max(1);
    let mut rows = fits(h as i32 - st.px(4.0));
    // a zoom on a deep frame: callers above the top half are left out, so its callees have room
    let mut top = 0;
    if deepest + 1 > rows {
        rows = fits(h as i32 - st.px(4.0) - note_h);
        top = (zoom_depth - rows / 2).max(0).min(zoom_depth);
    }
    let cut_below = (deepest + 1 - top - rows).max(0);
    let (base_x, base_y) = plot.get_base_pixel();
    let x = |v: f64| left as f64 + (v - view.from) / view.total() * width as f64;
    let y = |depth: u32| (depth as i32 - top) * row;
    let three = text_size(&plot, "abc", &lf).0 as i32;
    let pad = st.px(4.0);

    // callers first (full width, dimmed), then the frames inside the view
    let shown = view.callers.iter().map(|&i| (i, true)).chain(view.inside.iter().map(|&i| (i, false)));
    for (i, caller) in shown {
        let f = &frames[i];
        let d = f.depth as i32;
        if d < top || d >= top + rows || !(f.total.is_finite() && f.start.is_finite()) {
            continue;
        }
        let (a, b) = if caller { (x(view.from), x(view.to)) } else { (x(f.start), x(f.start + f.total)) };
        if b - a < 0.5 {
            continue;
        }
        let x0 = a.round() as i32;
        // the gap only between frames wide enough to keep a pixel
        let x1 = ((b.round() as i32) - gap).max(x0 + 1);
        let (y0, y1) = (y(f.depth), y(f.depth) + row - gap);
        let hit = needle.as_ref().is_none_or(|n| f.name.to_lowercase().contains(n.as_str()));
        let mut fill = if hit { warm(&f.name) } else { grey(st) };
        if st.dark && hit {
            fill = mix(fill, RGBColor(0, 0, 0), DARKER);
        }
        if caller {
            fill = mix(fill, st.background(), 0.45);
        }
        plot.draw(&Rectangle::new([(x0, y0), (x1, y1)], fill.filled())).map_err(e2s)?;
        let inner = x1 - x0 - 2 * pad;
        if inner >= three {
            let font = ("sans-serif", 12.0 * st.scale).into_font().color(&ink(fill)).pos(Pos::new(HPos::Left, VPos::Center));
            let label = fit(&plot, &f.name, &font, inner as u32);
            // a name cut to a few characters (`a…2d`) says nothing: none then
            if label == f.name || label.chars().count() >= MIN_CUT {
                plot.draw(&Text::new(label, (x0 + pad, y0 + (row - gap) / 2), font)).map_err(e2s)?;
            }
        }
        if hover.wants() {
            let share = 100.0 * f.total / view.total();
            let text = format!(
                "{}\ntotal {} {unit} ({} % of the view)\nself {} {unit}",
                f.name,
                number(f.total),
                number(share),
                number(f.self_value)
            );
            hover.add_frame((base_x + x0, base_y + y0), (base_x + x1, base_y + y1), text, i);
        }
    }
    let mut note = Vec::new();
    if top > 0 {
        note.push(format!("{top} caller level{} above not shown", if top == 1 { "" } else { "s" }));
    }
    if cut_below > 0 {
        note.push(format!("{cut_below} deeper level{} not shown: zoom on a frame to see them", if cut_below == 1 { "" } else { "s" }));
    }
    if !note.is_empty() {
        let text = fit(&plot, &note.join("; "), &lf, width as u32);
        plot.draw(&Text::new(text, (left, rows * row + st.px(6.0)), lf.clone())).map_err(e2s)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::draw::tests::{fill, has_text, styled};
    use crate::chart::draw::{Region, SIZE};
    use crate::table::Chart;

    fn frame(name: &str, depth: u32, start: f64, total: f64, self_value: f64) -> FlameFrame {
        FlameFrame { name: name.into(), depth, start, total, self_value }
    }

    /// root 0..100 > run 0..100 > (alpha 0..60 > alpha_inner 0..30), (beta 60..100 > alpha 60..70)
    fn frames() -> Vec<FlameFrame> {
        vec![
            frame("root", 0, 0.0, 100.0, 0.0),
            frame("run", 1, 0.0, 100.0, 0.0),
            frame("alpha", 2, 0.0, 60.0, 30.0),
            frame("alpha_inner", 3, 0.0, 30.0, 30.0),
            frame("beta", 2, 60.0, 40.0, 30.0),
            frame("alpha", 3, 60.0, 10.0, 10.0),
        ]
    }

    fn chart(frames: Vec<FlameFrame>, zoom: Option<usize>, search: Option<&str>) -> Chart {
        Chart::Flame { title: "T".into(), unit: "µs".into(), frames, zoom, search: search.map(String::from) }
    }

    /// The region of frame `i`.
    fn of(r: &[Region], i: usize) -> &Region {
        r.iter().find(|r| r.frame == Some(i)).unwrap_or_else(|| panic!("no region of frame {i}: {r:?}"))
    }

    #[test]
    fn one_rectangle_per_frame_at_its_depth_and_value() {
        let (s, r) = styled(&chart(frames(), None, None), &Style::LIGHT);
        assert_eq!(r.iter().filter(|r| r.frame.is_some()).count(), 6, "{r:?}");
        let (root, run, alpha, inner, beta) = (of(&r, 0), of(&r, 1), of(&r, 2), of(&r, 3), of(&r, 4));
        // rows of 18 px (17 drawn, 1 px gap), roots on top
        assert_eq!(run.y0 - root.y0, 18.0);
        assert_eq!(alpha.y0 - run.y0, 18.0);
        assert_eq!(inner.y0 - alpha.y0, 18.0);
        assert_eq!(alpha.y1 - alpha.y0, 17.0);
        // x: the value scaled to the width, a 1 px gap between neighbours
        let width = root.x1 + 1.0 - root.x0;
        assert!(width > 800.0, "{root:?}");
        assert!(((alpha.x1 + 1.0 - alpha.x0) - 0.6 * width).abs() <= 1.0, "{alpha:?} {width}");
        assert!(((inner.x1 + 1.0 - inner.x0) - 0.3 * width).abs() <= 1.0, "{inner:?}");
        assert_eq!(beta.x0, alpha.x1 + 1.0);
        assert_eq!(beta.x1, root.x1);
        // filled with each name's colour; the same name has the same colour
        assert_eq!(s.matches(&fill(warm("alpha"))).count(), 2, "{s}");
        assert_eq!(s.matches(&fill(warm("beta"))).count(), 1);
        assert!(has_text(&s, "alpha_inner") && has_text(&s, "root"), "{s}");
    }

    #[test]
    fn regions_carry_the_full_name_values_and_index() {
        let (_, r) = styled(&chart(frames(), None, None), &Style::LIGHT);
        assert_eq!(of(&r, 2).text, "alpha\ntotal 60 µs (60 % of the view)\nself 30 µs");
        assert_eq!(of(&r, 5).text, "alpha\ntotal 10 µs (10 % of the view)\nself 10 µs");
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains(r#""text":"beta\ntotal 40 µs (40 % of the view)\nself 30 µs","frame":4}"#), "{json}");
        // other charts' regions have no `frame`
        let bars = Chart::Bars {
            title: "B".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: vec!["a".into()],
            values: vec![1.0],
            errors: None,
        };
        let (_, r) = styled(&bars, &Style::LIGHT);
        assert!(!serde_json::to_string(&r).unwrap().contains("frame"));
    }

    #[test]
    fn zoom_widens_the_frame_and_dims_its_callers() {
        let (s, r) = styled(&chart(frames(), Some(2), None), &Style::LIGHT);
        let (root, run, alpha, inner) = (of(&r, 0), of(&r, 1), of(&r, 2), of(&r, 3));
        // alpha across the whole width, its callers above it as wide, its callee half of it
        assert_eq!((alpha.x0, alpha.x1), (root.x0, root.x1));
        assert_eq!((run.x0, run.x1), (root.x0, root.x1));
        assert!(((inner.x1 + 1.0 - inner.x0) - 0.5 * (alpha.x1 + 1.0 - alpha.x0)).abs() <= 1.0, "{inner:?}");
        assert_eq!(alpha.y0 - root.y0, 36.0);
        // outside its range: not drawn
        assert!(r.iter().all(|r| r.frame != Some(4) && r.frame != Some(5)), "{r:?}");
        assert!(s.contains(&fill(mix(warm("root"), WHITE, 0.45))), "callers dimmed: {s}");
        assert!(!s.contains(&fill(warm("root"))));
        assert_eq!(of(&r, 3).text, "alpha_inner\ntotal 30 µs (50 % of the view)\nself 30 µs");
        // an index out of range: the whole graph
        let (_, r) = styled(&chart(frames(), Some(99), None), &Style::LIGHT);
        assert_eq!(r.iter().filter(|r| r.frame.is_some()).count(), 6);
    }

    #[test]
    fn search_greys_the_other_frames_and_counts_the_matches() {
        let (s, r) = styled(&chart(frames(), None, Some("ALPHA")), &Style::LIGHT);
        // alpha, alpha_inner and the alpha under beta match; alpha's 60 and the other alpha's 10 count
        assert!(has_text(&s, "T · 3 frames match “ALPHA”: 70 % of the view"), "{s}");
        assert!(r.iter().any(|r| r.frame.is_none() && r.text == "T · 3 frames match “ALPHA”: 70 % of the view" && r.y0 == 0.0), "{r:?}");
        assert_eq!(s.matches(&fill(grey(&Style::LIGHT))).count(), 3, "root, run, beta: {s}");
        assert_eq!(s.matches(&fill(warm("alpha"))).count(), 2);
        assert!(!s.contains(&fill(warm("beta"))));
        assert_eq!(r.iter().filter(|r| r.frame.is_some()).count(), 6);
        // within a zoom, only its frames count
        let (s, _) = styled(&chart(frames(), Some(4), Some("alpha")), &Style::LIGHT);
        assert!(has_text(&s, "T · 1 frame match “alpha”: 25 % of the view"), "{s}");
        let (s, _) = styled(&chart(frames(), None, Some("nothing")), &Style::new(true, 1.0));
        assert!(has_text(&s, "T · 0 frames match “nothing”: 0 % of the view"), "{s}");
        assert_eq!(s.matches(&fill(grey(&Style::new(true, 1.0)))).count(), 6);
    }

    #[test]
    fn long_names_are_cut_in_the_middle_and_narrow_frames_have_none() {
        let long = format!("void at::native::elementwise_kernel<{}>_end", "x".repeat(400));
        let f = vec![
            frame("root", 0, 0.0, 100.0, 0.0),
            frame(&long, 1, 0.0, 30.0, 30.0),
            frame("tiny_but_named", 1, 30.0, 0.2, 0.2),
            frame("aten::cudnn_convolution", 1, 40.0, 4.0, 4.0),
            frame("relu", 1, 50.0, 4.0, 4.0),
        ];
        let (s, r) = styled(&chart(f, None, None), &Style::LIGHT);
        assert!(s.contains('…') && s.contains("_end\n</text>"), "{s}");
        assert!(!s.contains(&"x".repeat(100)));
        assert!(!s.contains("tiny"), "a 2 px frame has no label: {s}");
        // 35 px: a short name whole, a long one not cut to a few characters
        assert!(has_text(&s, "relu"), "{s}");
        assert!(!s.contains("aten") && !s.contains("on\n</text>"), "{s}");
        assert!(of(&r, 1).text.starts_with(&format!("{long}\n")));
        assert_eq!(of(&r, 2).x1 - of(&r, 2).x0, 1.0, "one pixel at least");
    }

    #[test]
    fn depth_beyond_the_height_is_cut_and_said() {
        let f: Vec<FlameFrame> = (0..40).map(|d| frame(&format!("f{d}"), d, 0.0, 10.0, if d == 39 { 10.0 } else { 0.0 })).collect();
        let (s, r) = styled(&chart(f.clone(), None, None), &Style::LIGHT);
        let drawn = r.iter().filter(|r| r.frame.is_some()).count();
        assert!((15..40).contains(&drawn), "{drawn}");
        assert!(r.iter().all(|r| r.y1 <= SIZE.1 as f64));
        assert!(has_text(&s, &format!("{} deeper levels not shown: zoom on a frame to see them", 40 - drawn)), "{s}");
        // zoomed on a deep frame: its callees get the lower half
        let (s, r) = styled(&chart(f, Some(30), None), &Style::LIGHT);
        assert!(r.iter().any(|r| r.frame == Some(39)), "{r:?}");
        assert!(s.contains("caller levels above not shown"), "{s}");
    }

    #[test]
    fn colours_are_warm_stable_and_differ_between_names() {
        let names = ["aten::conv2d", "aten::addmm", "aten::relu", "cudaLaunchKernel", "aten::linear", "forward", "backward"];
        let colours: Vec<RGBColor> = names.iter().map(|n| warm(n)).collect();
        assert_eq!(colours, names.iter().map(|n| warm(n)).collect::<Vec<_>>());
        for (i, a) in colours.iter().enumerate() {
            assert!(a.0 >= 205 && a.1 >= 110 && a.2 < 100, "red to yellow: {a:?}");
            // dark text on every light-theme colour, and on the dark theme's
            assert_eq!(ink(*a), RGBColor(0x1a, 0x1a, 0x1a));
            assert_eq!(ink(mix(*a, RGBColor(0, 0, 0), DARKER)), RGBColor(0x1a, 0x1a, 0x1a));
            for b in &colours[i + 1..] {
                let d = (i32::from(a.0) - i32::from(b.0)).abs()
                    + (i32::from(a.1) - i32::from(b.1)).abs()
                    + (i32::from(a.2) - i32::from(b.2)).abs();
                assert!(d > 12, "{a:?} {b:?}");
            }
        }
    }
}
