//! How a chart looks: light or dark colours and the pixel scale (the page draws at
//! `devicePixelRatio` for crisp canvases), and the text helpers every chart kind shares: labels
//! shortened to a measured width, values with a few significant digits and the axis' unit.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::TextStyle;

/// Colours of series/slices, in order (a colour-blind-friendly qualitative palette, Tableau 10;
/// it reads on the light and on the dark background).
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

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Light or dark colours, and how many device pixels one CSS pixel is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Dark background, light text.
    pub dark: bool,
    /// Every size (fonts, margins, label areas, strokes) is multiplied by it.
    pub scale: f64,
}

impl Default for Style {
    fn default() -> Style {
        Style::LIGHT
    }
}

impl Style {
    /// Light, one device pixel per pixel: the CLI's SVG and PNG.
    pub const LIGHT: Style = Style { dark: false, scale: 1.0 };

    /// The style for a canvas: `scale` is clamped to [0.5, 4] (1 if not a number).
    pub fn new(dark: bool, scale: f64) -> Style {
        Style { dark, scale: if scale.is_finite() { scale.clamp(0.5, 4.0) } else { 1.0 } }
    }

    /// `v` CSS pixels in device pixels.
    pub fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    /// `v` CSS pixels in device pixels, unsigned.
    pub fn upx(&self, v: f64) -> u32 {
        self.px(v).max(0) as u32
    }

    /// Background.
    pub fn background(&self) -> RGBColor {
        if self.dark {
            RGBColor(0x16, 0x1a, 0x22)
        } else {
            WHITE
        }
    }

    /// Titles, labels, legends.
    pub fn text(&self) -> RGBColor {
        if self.dark {
            RGBColor(0xd8, 0xdd, 0xe8)
        } else {
            RGBColor(0x22, 0x22, 0x22)
        }
    }

    /// Axis lines, tick marks, whiskers.
    pub fn axis(&self) -> RGBColor {
        if self.dark {
            RGBColor(0x8a, 0x93, 0xa6)
        } else {
            RGBColor(0x55, 0x55, 0x55)
        }
    }

    /// The few grid lines.
    pub fn grid(&self) -> RGBColor {
        if self.dark {
            RGBColor(0x2c, 0x33, 0x40)
        } else {
            RGBColor(0xe4, 0xe4, 0xe4)
        }
    }

    /// A quiet band (the bubble lane of a waterfall).
    pub fn band(&self) -> RGBColor {
        if self.dark {
            RGBColor(0x26, 0x2c, 0x38)
        } else {
            RGBColor(0xdc, 0xdc, 0xdc)
        }
    }

    /// Context drawn under the data (a timeline's muted kind: events off a critical path): a
    /// grey that reads as "there" but not as a series.
    pub fn muted(&self) -> RGBColor {
        if self.dark {
            RGBColor(0x4b, 0x53, 0x61)
        } else {
            RGBColor(0xc4, 0xc4, 0xc4)
        }
    }

    /// Text of `size` CSS pixels in the text colour.
    pub fn font(&self, size: f64) -> TextStyle<'static> {
        ("sans-serif", size * self.scale).into_font().color(&self.text())
    }

    /// Title text.
    pub fn title_font(&self) -> TextStyle<'static> {
        self.font(17.0)
    }

    /// Labels, legend and axis descriptions.
    pub fn label_font(&self) -> TextStyle<'static> {
        self.font(12.0)
    }
}

/// Width and height of `text` in `font` on `area` (a guess from the font size if the backend
/// cannot measure).
pub fn text_size<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, text: &str, font: &TextStyle) -> (u32, u32) {
    area.estimate_text_size(text, font).unwrap_or_else(|_| {
        let size = font.font.get_size();
        ((text.chars().count() as f64 * size * 0.6) as u32, size as u32)
    })
}

pub use crate::analysis::names::middle_cut;

/// `s`, cut in the middle ([`middle_cut`]) until it is at most `width` pixels wide in `font`.
pub fn fit<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: &str, font: &TextStyle, width: u32) -> String {
    if text_size(area, s, font).0 <= width {
        return s.to_string();
    }
    // the most characters that fit, by bisection
    let (mut lo, mut hi) = (1, s.chars().count());
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if text_size(area, &middle_cut(s, mid), font).0 <= width {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    middle_cut(s, lo)
}

/// `v` with about four significant digits (no exponent between 1e-3 and 1e9).
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e9).contains(&a) {
        return format!("{v:.3e}");
    }
    let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The unit of an axis label: what its parentheses hold up to `;` (`mean duration (µs; …)` → `µs`),
/// `%` for a label that starts with it (`% of the stream's idle time`), or the label itself when
/// it is a bare unit (`ms`); empty if none.
pub fn unit_of(label: &str) -> &str {
    if label.starts_with('%') {
        return "%";
    }
    if let (Some(a), Some(b)) = (label.find('('), label.rfind(')')) {
        if a < b {
            let inner = &label[a + 1..b];
            return inner.split([';', ',']).next().unwrap_or("").trim();
        }
    }
    if label.chars().count() <= 3 {
        label.trim()
    } else {
        ""
    }
}

/// An axis label without its parenthesised unit (`mean duration (µs)` → `mean duration`).
pub fn quantity_of(label: &str) -> &str {
    label.split('(').next().unwrap_or(label).trim()
}

/// `name: value unit` for a hover text.
pub fn value_text(name: &str, v: f64, unit: &str) -> String {
    let sep = if unit == "%" || unit.is_empty() { "" } else { " " };
    if name.is_empty() {
        format!("{}{sep}{unit}", number(v))
    } else {
        format!("{name}: {}{sep}{unit}", number(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_cut_keeps_both_ends() {
        assert_eq!(middle_cut("rank 0 stream 20", 9), "ran…am 20");
        assert_eq!(middle_cut("short", 9), "short");
    }

    #[test]
    fn numbers_have_four_significant_digits() {
        assert_eq!(number(1234.5678), "1235");
        assert_eq!(number(12.345678), "12.35");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(2.0), "2");
        assert_eq!(number(123456.0), "123456");
        assert_eq!(number(1e-6), "1.000e-6");
    }

    #[test]
    fn units_come_from_parentheses() {
        assert_eq!(unit_of("mean duration (µs; HTA: of per-kernel sums when folded)"), "µs");
        assert_eq!(unit_of("idle time (µs)"), "µs");
        assert_eq!(unit_of("%"), "%");
        assert_eq!(unit_of("% of the stream's idle time"), "%");
        assert_eq!(unit_of("normalized start time"), "");
        assert_eq!(quantity_of("idle time (µs)"), "idle time");
        assert_eq!(value_text("idle", 12.5, "µs"), "idle: 12.5 µs");
        assert_eq!(value_text("idle", 12.5, "%"), "idle: 12.5%");
    }
}
