//! HTML made by Rust: the Overview's dashboard (the page shows it as the worker returns it) and the
//! saved report (`kinetoscope report`, the page's Save report button). Every text from a trace goes
//! through [`escape`]; charts are left as numbered slots ([`Slots`]) that the page fills with canvases
//! and the saved report with SVG drawn by the same chart code ([`fill_slots`]).

mod dashboard;
mod document;

pub use dashboard::dashboard;
pub use document::{document, Section};

use crate::table::{Chart, Table, Unit, Values};

/// `s` with the characters that mean something in HTML (text or an attribute value) escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The charts of a piece of HTML, in slot order: slot `i` is `<figure class="chart" data-slot="i">`.
#[derive(Debug, Default)]
pub struct Slots {
    /// The charts, in slot order.
    pub charts: Vec<Chart>,
}

impl Slots {
    /// The HTML of a slot for `chart`.
    pub fn add(&mut self, chart: &Chart) -> String {
        self.charts.push(chart.clone());
        format!("<figure class=\"chart\" data-slot=\"{}\" aria-label=\"{}\"></figure>", self.charts.len() - 1, escape(chart.title()))
    }
}

/// `html` with every chart slot holding its chart as SVG (`charts[i]` in slot `i`), what the saved
/// report shows. A slot without a chart, or whose chart cannot be drawn, says so.
pub fn fill_slots(html: &str, charts: &[Chart]) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("<figure class=\"chart\" data-slot=\"") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let Some(end) = tail.find("</figure>") else { break };
        let slot: Option<usize> = tail["<figure class=\"chart\" data-slot=\"".len()..].split('"').next().and_then(|n| n.parse().ok());
        let inner = match slot.and_then(|i| charts.get(i)) {
            Some(c) => crate::chart::draw::charts_svg(std::slice::from_ref(c))
                .unwrap_or_else(|e| format!("<p class=\"inline-error\">could not draw this chart: {}</p>", escape(&e))),
            None => "<p class=\"inline-error\">chart missing</p>".to_string(),
        };
        out.push_str(&tail[..tail.find('>').map_or(0, |i| i + 1)]);
        out.push_str(&inner);
        out.push_str("</figure>");
        rest = &tail[end + "</figure>".len()..];
    }
    out.push_str(rest);
    out
}

/// A cell as text: CSV's text (floats as Python's repr; NaN empty).
fn cell(v: &Values, row: usize) -> String {
    crate::table::render::cell(v, row)
}

/// The short symbol of a unit, for table headers (empty: none).
pub fn unit_symbol(u: Unit) -> &'static str {
    match u {
        Unit::None | Unit::Count => "",
        Unit::Ns => "ns",
        Unit::Us => "µs",
        Unit::Bytes => "B",
        Unit::Percent => "%",
        Unit::Ratio => "ratio",
        Unit::GbPerS => "GB/s",
    }
}

/// Most rows of a table written into a saved report; the CLI writes them all as CSV.
pub const REPORT_ROWS: usize = 1000;

/// `t` as an HTML table (class `report`), its first `max_rows` rows; percent cells get the page's
/// inline bar.
pub fn table(t: &Table, max_rows: usize) -> String {
    let mut h = String::new();
    let rows = t.rows();
    h.push_str(&format!("<div class=\"table-view\" data-table=\"{0}\"><h3>{0}</h3>", escape(&t.name)));
    h.push_str(&format!("<p class=\"rows\">{} row{}", group(rows as i64), if rows == 1 { "" } else { "s" }));
    if rows > max_rows {
        h.push_str(&format!(" (the first {} here; <code>--out DIR</code> writes them all as CSV)", group(max_rows as i64)));
    }
    h.push_str("</p><div class=\"scroll\"><table class=\"report\"><thead><tr>");
    for c in &t.columns {
        let numeric = !matches!(c.values, Values::Str(_));
        let unit = unit_symbol(c.unit);
        h.push_str(&format!(
            "<th data-col=\"{0}\"{1}>{0}{2}</th>",
            escape(&c.name),
            if numeric { " class=\"num\"" } else { "" },
            if unit.is_empty() || header_has_unit(&c.name) { String::new() } else { format!("<span class=\"unit\">{unit}</span>") }
        ));
    }
    h.push_str("</tr></thead><tbody>");
    for r in 0..rows.min(max_rows) {
        h.push_str("<tr>");
        for c in &t.columns {
            let text = cell(&c.values, r);
            match &c.values {
                Values::Str(_) => h.push_str(&format!("<td class=\"text\" title=\"{0}\">{0}</td>", escape(&text))),
                Values::Float(v) if c.unit == Unit::Percent && (0.0..=100.0).contains(&v[r]) => {
                    h.push_str(&format!("<td class=\"num pct\" style=\"--pct: {text}%\">{text}</td>"))
                }
                _ => h.push_str(&format!("<td class=\"num\">{text}</td>")),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div></div>");
    h
}

/// Whether a column name already says its unit (`total_us`, `share_pct`).
pub fn header_has_unit(name: &str) -> bool {
    ["_us", "_ns", "_ms", "_pct", "_bytes", "(us)", "(ns)", "(%)", "pctg"].iter().any(|s| name.ends_with(s))
}

/// `n` with thousands separators (`1,234,567`).
pub fn group(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_a_trace_stay_text() {
        assert_eq!(
            escape("<img src=x onerror=alert(1)> & \"q\" 'a'"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot; &#39;a&#39;"
        );
        let t = Table::new("t<x>").with("name", Unit::None, Values::Str(["<script>alert(1)</script>"].into()));
        let h = table(&t, 10);
        assert!(!h.contains("<script>") && !h.contains("<x>"), "{h}");
        assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn tables_show_units_bars_and_at_most_max_rows() {
        let t = Table::new("k").with("time", Unit::Us, Values::Float(vec![1.5, 2.0, 3.0])).with(
            "share_pct",
            Unit::Percent,
            Values::Float(vec![10.0, 20.0, f64::NAN]),
        );
        let h = table(&t, 2);
        assert!(h.contains("<th data-col=\"time\" class=\"num\">time<span class=\"unit\">µs</span></th>"), "{h}");
        assert!(h.contains("<th data-col=\"share_pct\" class=\"num\">share_pct</th>"), "{h}");
        assert!(h.contains("style=\"--pct: 20.0%\">20.0</td>"), "{h}");
        assert_eq!(h.matches("<tr>").count(), 3, "header + 2 rows: {h}");
        assert!(h.contains("3 rows (the first 2 here"), "{h}");
        assert_eq!(group(1234567), "1,234,567");
        assert_eq!(group(-999), "-999");
    }

    #[test]
    fn slots_are_filled_with_svg() {
        let mut s = Slots::default();
        let c = Chart::Pie { title: "P<".into(), slices: vec![("a".into(), 1.0)] };
        let html = format!("<p>x</p>{}<p>y</p>", s.add(&c));
        assert!(html.contains("data-slot=\"0\" aria-label=\"P&lt;\""), "{html}");
        let filled = fill_slots(&html, &s.charts);
        assert!(filled.starts_with("<p>x</p><figure class=\"chart\" data-slot=\"0\""), "{filled}");
        assert!(filled.contains("<svg") && filled.ends_with("</figure><p>y</p>"), "{filled}");
        assert!(fill_slots(&html, &[]).contains("chart missing"));
    }
}
