//! Bar chart of events per kind (stacked over ranks) for the overview.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::overview::Overview;

/// Draws the number of events per kind, summed over ranks, largest first (at most 12 kinds).
pub fn draw_kinds<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, ov: &Overview) -> Result<(), String> {
    let mut totals: std::collections::BTreeMap<&str, u64> = Default::default();
    for r in &ov.ranks {
        for (k, v) in &r.kinds {
            *totals.entry(k.as_str()).or_default() += v;
        }
    }
    let mut bars: Vec<(&str, u64)> = totals.into_iter().collect();
    bars.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    bars.truncate(12);
    super::draw::ensure_font()?;
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let max = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let labels: Vec<String> = bars.iter().map(|b| b.0.to_string()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption("events per kind", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(140)
        .build_cartesian_2d(0u64..max + max / 10 + 1, (0..bars.len().saturating_sub(1)).into_segmented())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_x_mesh()
        .x_labels(6)
        .y_label_formatter(&|v| match v {
            // largest kind at the top: segment i shows bar n-1-i
            SegmentValue::CenterOf(i) => labels.get(bars.len().wrapping_sub(1).wrapping_sub(*i)).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_labels(bars.len().max(1))
        .draw()
        .map_err(|e| e.to_string())?;
    let n = bars.len();
    // one histogram per bar, so the SVG's order is the data's (plotters' Histogram draws in a
    // HashMap's order)
    for (i, (_, v)) in bars.iter().enumerate() {
        chart
            .draw_series(
                Histogram::horizontal(&chart).style(RGBColor(66, 110, 190).filled()).margin(3).data(std::iter::once((n - 1 - i, *v))),
            )
            .map_err(|e| e.to_string())?;
    }
    area.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_kind_largest_on_top() {
        let json = br#"[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"pid":0,"tid":1},
            {"ph":"X","cat":"kernel","name":"k","ts":3,"dur":1,"pid":0,"tid":1},
            {"ph":"X","cat":"cpu_op","name":"op","ts":0,"dur":9,"pid":1,"tid":1}]"#;
        let trace = crate::read::read_all(&[("t.json", &json[..])]).expect("reads");
        let ov = crate::analysis::overview::overview(&trace);
        let mut svg = String::new();
        {
            let root = plotters::prelude::SVGBackend::with_string(&mut svg, (400, 300));
            draw_kinds(&root.into_drawing_area(), &ov).expect("draws");
        }
        let bars: Vec<&str> = svg.lines().filter(|l| l.contains("<rect") && l.contains("#426EBE")).collect();
        assert_eq!(bars.len(), 2, "{svg}");
        // the kernel bar (2 events) is twice as long as the cpu_op bar (1 event) and drawn higher
        let attr = |l: &str, a: &str| -> f64 {
            let s = &l[l.find(&format!(" {a}=\"")).expect("attr") + a.len() + 3..];
            s[..s.find('"').expect("quote")].parse().expect("number")
        };
        let mut by_width = bars.clone();
        by_width.sort_by(|a, b| attr(a, "width").total_cmp(&attr(b, "width")));
        let (short, long) = (by_width[0], by_width[1]);
        assert!((attr(long, "width") / attr(short, "width") - 2.0).abs() < 0.1);
        assert!(attr(long, "y") < attr(short, "y"));
        let text = |t: &str| svg.lines().any(|l| l.trim() == t || l.contains(&format!(">{t}<")));
        assert!(text("kernel") && text("cpu_op"), "{svg}");
    }
}
