//! Bar chart of events per kind (summed over ranks) for the overview.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::draw::{draw_styled, Region, Style};
use crate::analysis::overview::Overview;
use crate::table::Chart;

/// Kinds the chart shows, largest first.
const MAX_KINDS: usize = 12;

/// The number of events per kind, summed over ranks, largest first (at most 12 kinds), as a bar
/// chart (drawn horizontally when the kind names do not fit under their bars).
pub fn kinds_chart(ov: &Overview) -> Chart {
    let mut totals: std::collections::BTreeMap<&str, u64> = Default::default();
    for r in &ov.ranks {
        for (k, v) in &r.kinds {
            *totals.entry(k.as_str()).or_default() += v;
        }
    }
    let mut bars: Vec<(&str, u64)> = totals.into_iter().collect();
    bars.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    bars.truncate(MAX_KINDS);
    Chart::Bars {
        title: "events per kind".into(),
        x_label: String::new(),
        y_label: "events".into(),
        categories: bars.iter().map(|b| b.0.to_string()).collect(),
        values: bars.iter().map(|b| b.1 as f64).collect(),
        errors: None,
    }
}

/// Draws [`kinds_chart`] of `ov` on `area` in `style`; returns its hover regions (CSS pixels).
pub fn draw_kinds<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, ov: &Overview, style: &Style) -> Result<Vec<Region>, String> {
    draw_styled(area, &kinds_chart(ov), style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_kind_largest_first() {
        let json = br#"[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"pid":0,"tid":1},
            {"ph":"X","cat":"kernel","name":"k","ts":3,"dur":1,"pid":0,"tid":1},
            {"ph":"X","cat":"cpu_op","name":"op","ts":0,"dur":9,"pid":1,"tid":1}]"#;
        let trace = crate::read::read_all(&[("t.json", &json[..])]).expect("reads");
        let ov = crate::analysis::overview::overview(&trace);
        let mut svg = String::new();
        let regions = {
            let root = plotters::prelude::SVGBackend::with_string(&mut svg, (400, 300));
            draw_kinds(&root.into_drawing_area(), &ov, &Style::new(true, 1.0)).expect("draws")
        };
        let texts: Vec<&str> = regions.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["kernel\nevents: 2", "cpu_op\nevents: 1"]);
        // the kernel bar (2 events) is twice as long as the cpu_op bar (1 event), as wide
        let (a, b) = (&regions[0], &regions[1]);
        let ratios = [(a.x1 - a.x0) / (b.x1 - b.x0), (a.y1 - a.y0) / (b.y1 - b.y0)];
        assert!(ratios.iter().any(|r| (r - 2.0).abs() < 0.1) && ratios.iter().any(|r| (r - 1.0).abs() < 0.05), "{regions:?}");
        let text = |t: &str| svg.lines().any(|l| l.trim() == t || l.contains(&format!(">{t}<")));
        assert!(text("kernel") && text("cpu_op"), "{svg}");
    }
}
