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
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let max = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let labels: Vec<String> = bars.iter().map(|b| b.0.to_string()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption("events per kind", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(140)
        .build_cartesian_2d(0u64..max + max / 10 + 1, (0..bars.len()).into_segmented())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_labels(bars.len().max(1))
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
            Rectangle::new([(0, SegmentValue::Exact(i)), (*v, SegmentValue::Exact(i + 1))], RGBColor(66, 110, 190).filled())
        }))
        .map_err(|e| e.to_string())?;
    area.present().map_err(|e| e.to_string())?;
    Ok(())
}
