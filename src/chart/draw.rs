//! Draws an analysis' [`Chart`] with plotters on any backend: the page's canvas and the CLI's
//! SVG go through this one function.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::report::Chart;

/// Default size of one chart, pixels.
pub const SIZE: (u32, u32) = (900, 480);

/// Draws `chart` on `area`.
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), String> {
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    area.titled(chart.title(), ("sans-serif", 18)).map_err(|e| e.to_string())?;
    Ok(())
}

/// All `charts` stacked vertically in one SVG document (what `--plot FILE.svg` writes).
pub fn charts_svg(charts: &[Chart]) -> Result<String, String> {
    let mut svg = String::new();
    {
        let h = SIZE.1 * charts.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (SIZE.0, h)).into_drawing_area();
        let parts = root.split_evenly((charts.len().max(1), 1));
        for (c, a) in charts.iter().zip(&parts) {
            draw(a, c)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
