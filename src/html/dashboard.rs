//! The Overview's dashboard: the `summary` analysis' report on one screen. Key figures on top, then
//! GPU time per rank (a stacked bar per rank with the percentages written, and the ranks × metric
//! columns with the outliers marked), step time, time by kernel type and the top GPU kernels and CPU
//! operators. Every card links to the panel whose analysis has the numbers behind it.

use super::{cell, escape, Slots};
use crate::analysis::registry;
use crate::table::{Report, Table, Values};

/// Where a card links: the href of analysis `name`'s panel (`None`: no link).
pub type Link<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The dashboard of the `summary` report `r` as HTML, and its charts (slots).
pub fn dashboard(r: &Report, link: Link<'_>) -> (String, Slots) {
    let mut slots = Slots::default();
    let t = |name: &str| r.tables.iter().find(|t| t.name == name);
    let mut h = String::from("<div class=\"dash\">");
    if let Some(head) = t("headline") {
        h.push_str(&figures(head, link));
    }
    for note in r.notes.iter().filter(|n| n.contains("has no GPU operations")) {
        h.push_str(&format!("<p class=\"dash-note\">{}</p>", escape(note)));
    }
    h.push_str("<div class=\"dash-grid\">");
    let io = t("io_files");
    if let Some(files) = io {
        if let Some(c) = r.charts.iter().find(|c| matches!(c, crate::table::Chart::Timeline { .. })) {
            let slot = slots.add(c);
            h.push_str(&card("io-timeline", "I/O timeline", "io", link, &slot));
        }
        h.push_str(&card(
            "io-files",
            "Busiest files",
            "io",
            link,
            &small_table(files, &["file", "ranks", "bytes_written", "bytes_read", "pattern"], None),
        ));
    }
    // a Recorder trace alone has no GPU work, steps or operators to show
    let gpu_work = ["top_gpu_kernels", "top_cpu_ops", "step_times"].iter().any(|n| t(n).is_some_and(|t| t.rows() > 0));
    if io.is_some() && !gpu_work {
        h.push_str("</div></div>");
        return (h, slots);
    }
    if let Some(gpu) = t("gpu_time_by_rank") {
        h.push_str(&card("ranks", "GPU time per rank", "temporal", link, &ranks(gpu, t("overlap_and_idle"), t("ranks"), t("step_times"))));
    }
    let steps = match r.charts.iter().find(|c| c.title() == "Step time") {
        Some(c) => slots.add(c),
        None => match t("step_times") {
            Some(s) if s.rows() > 0 => small_table(s, &["rank", "step", "duration_us"], None),
            _ => "<p class=\"empty\">No <code>ProfilerStep#N</code> annotations: the trace has no steps.</p>".to_string(),
        },
    };
    h.push_str(&card("steps", "Step time", "steps", link, &steps));
    if let Some(k) = t("time_by_kernel_type") {
        h.push_str(&card(
            "kernel-types",
            "Time by kernel type",
            "kernels",
            link,
            &small_table(k, &["kernel_type", "time_us"], Some("share_of_busy_pct")),
        ));
    }
    if let Some(k) = t("top_gpu_kernels") {
        h.push_str(&card(
            "top-kernels",
            "Top GPU kernels",
            "kernels",
            link,
            &small_table(k, &["name", "calls", "total_us"], Some("share_pct")),
        ));
    }
    if let Some(k) = t("top_cpu_ops") {
        h.push_str(&card(
            "top-cpu-ops",
            "Top CPU operators",
            "summary",
            link,
            &small_table(k, &["name", "calls", "total_us"], Some("share_pct")),
        ));
    }
    h.push_str("</div></div>");
    (h, slots)
}

/// A card: its heading links to the panel of `panel` (with the CLI command in the tooltip).
fn card(id: &str, title: &str, panel: &str, link: Link<'_>, body: &str) -> String {
    format!("<section class=\"card\" data-card=\"{id}\"><h3>{}</h3>{body}</section>", panel_link(title, panel, link))
}

/// `text` as a link to the panel of analysis `panel`, when there is one.
fn panel_link(text: &str, panel: &str, link: Link<'_>) -> String {
    let title = registry::find(panel).map_or(panel, |a| a.title);
    match link(panel) {
        Some(href) => format!(
            "<a href=\"{}\" data-panel=\"{panel}\" title=\"Open the panel &quot;{}&quot; · CLI: kinetoscope {panel} TRACE\">{}</a>",
            escape(&href),
            escape(title),
            escape(text)
        ),
        None => format!("<span title=\"CLI: kinetoscope {panel} TRACE\">{}</span>", escape(text)),
    }
}

/// The key figures (the `headline` table) as tiles.
fn figures(head: &Table, link: Link<'_>) -> String {
    let col = |name: &str| head.column(name).map(|c| &c.values);
    let (Some(Values::Str(fig)), Some(value), Some(Values::Str(unit)), Some(Values::Str(detail)), Some(Values::Str(panel))) =
        (col("figure"), col("value"), col("unit"), col("detail"), col("panel"))
    else {
        return String::new();
    };
    let mut h = String::from("<div class=\"kpis\">");
    for i in 0..head.rows() {
        let body = format!(
            "<span class=\"kpi-value\">{}<small>{}</small></span><span class=\"kpi-name\">{}</span><span class=\"kpi-detail\">{}</span>",
            escape(&cell(value, i)).trim_end_matches(".0"),
            if unit[i].is_empty() { String::new() } else { format!(" {}", escape(&unit[i])) },
            escape(&fig[i]),
            escape(&detail[i])
        );
        let attrs = format!("class=\"kpi\" data-figure=\"{}\"", escape(&fig[i]));
        h.push_str(&match link(&panel[i]) {
            Some(href) => format!("<a {attrs} href=\"{}\" data-panel=\"{}\">{body}</a>", escape(&href), escape(&panel[i])),
            None => format!("<div {attrs}>{body}</div>"),
        });
    }
    h.push_str("</div>");
    h
}

/// The parts of a rank's GPU span, in stack order, with their `gpu_time_by_rank` column.
const PARTS: [(&str, &str); 5] = [
    ("compute", "compute_pct"),
    ("communication", "communication_pct"),
    ("memory", "memory_pct"),
    ("other", "other_pct"),
    ("idle", "idle_pct"),
];

/// One row per rank: its GPU time as a stacked bar with the percentages written, busy %, median
/// step, communication time and its share under compute, idle % and the share of host wait in it;
/// the outlier metrics (the `ranks` table) marked.
fn ranks(gpu: &Table, overlap: Option<&Table>, ranks: Option<&Table>, steps: Option<&Table>) -> String {
    let f = |t: Option<&Table>, name: &str| -> Vec<f64> {
        match t.and_then(|t| t.column(name)).map(|c| &c.values) {
            Some(Values::Float(v)) => v.clone(),
            Some(Values::Int(v)) => v.iter().map(|x| x as f64).collect(),
            _ => vec![f64::NAN; gpu.rows()],
        }
    };
    let rank = f(Some(gpu), "rank");
    let parts: Vec<Vec<f64>> = PARTS.iter().map(|(_, c)| f(Some(gpu), c)).collect();
    let busy = f(Some(gpu), "busy_pct");
    let comm = f(overlap, "communication_us");
    let under = f(overlap, "comm_overlapped_pct");
    let host = f(overlap, "idle_host_wait_us");
    let (kernel, other) = (f(overlap, "idle_kernel_wait_us"), f(overlap, "idle_other_us"));
    // the median step of each rank: the `ranks` table's, or with one rank the step table's median
    let median = match ranks {
        Some(_) => f(ranks, "median_step_us"),
        None => {
            let d: Vec<f64> = f(steps, "duration_us").into_iter().filter(|x| !x.is_nan()).collect();
            vec![crate::analysis::stats::median(d); gpu.rows()]
        }
    };
    let outlier_on: Vec<String> = match ranks.and_then(|t| t.column("outlier_on")).map(|c| &c.values) {
        Some(Values::Str(v)) => v.iter().map(str::to_string).collect(),
        _ => vec![String::new(); gpu.rows()],
    };
    let fixed = |v: f64, d: usize| if v.is_nan() { "—".to_string() } else { format!("{v:.d$}") };
    let mut h = String::from("<p class=\"legend\">");
    for (name, _) in PARTS {
        h.push_str(&format!("<span class=\"swatch part-{name}\"></span>{name} "));
    }
    h.push_str("<span class=\"muted\">· % of the rank's GPU span (first to last GPU operation)</span></p>");
    h.push_str("<div class=\"scroll\"><table class=\"dash-table\" data-table=\"ranks\"><thead><tr><th>rank</th><th class=\"bar-col\">GPU time</th>");
    for (head, tip) in [
        ("busy %", "GPU busy: some kernel, memcpy or memset runs (% of the GPU span)"),
        ("step ms", "the rank's median ProfilerStep duration, ms"),
        ("comm ms", "communication kernel time, ms"),
        ("overlap %", "share of the communication time during which a compute kernel runs"),
        ("idle %", "nothing runs on the GPU (% of the GPU span)"),
        ("host wait %", "share of the idle time between kernels spent waiting for the host (CPU) to launch kernels"),
    ] {
        h.push_str(&format!("<th class=\"num\" title=\"{tip}\">{head}</th>"));
    }
    h.push_str("</tr></thead><tbody>");
    for i in 0..gpu.rows() {
        let on = &outlier_on[i];
        let mark = |metric: &str| if on.split(", ").any(|m| m == metric) { " outlier" } else { "" };
        h.push_str(&format!(
            "<tr data-rank=\"{0}\"{1}><td>{0}{2}</td><td class=\"bar-col\"><div class=\"stack\">",
            rank[i],
            if on.is_empty() { String::new() } else { format!(" class=\"outlier-row\" title=\"outlier on {}\"", escape(on)) },
            if on.is_empty() { "" } else { " <span class=\"flag\">outlier</span>" }
        ));
        for (p, (name, _)) in parts.iter().zip(PARTS) {
            let v = p[i];
            if v > 0.0 {
                // the percentage is written where it fits
                let text = if v >= 9.0 { format!("{v:.0}%") } else { String::new() };
                h.push_str(&format!("<span class=\"seg part-{name}\" style=\"width: {v}%\" title=\"{name} {v} %\">{text}</span>"));
            }
        }
        let idle_total = host[i] + kernel[i] + other[i];
        let host_share = if idle_total > 0.0 { 100.0 * host[i] / idle_total } else { f64::NAN };
        h.push_str(&format!(
            "</div></td><td class=\"num{}\">{}</td><td class=\"num{}\">{}</td><td class=\"num{}\">{}</td><td class=\"num\">{}</td><td class=\"num{}\">{}</td><td class=\"num\">{}</td></tr>",
            mark("busy %"),
            fixed(busy[i], 1),
            mark("step time"),
            fixed(median[i] / 1e3, 3),
            mark("communication time"),
            fixed(comm[i] / 1e3, 3),
            fixed(under[i], 1),
            mark("idle %"),
            fixed(parts[4][i], 1),
            fixed(host_share, 1),
        ));
    }
    h.push_str("</tbody></table></div>");
    h
}

/// Columns `cols` of `t` (times in ms), and `share` (a percent column) as an inline bar.
fn small_table(t: &Table, cols: &[&str], share: Option<&str>) -> String {
    let mut h = format!("<div class=\"scroll\"><table class=\"dash-table\" data-table=\"{}\"><thead><tr>", escape(&t.name));
    let shown: Vec<_> = cols.iter().filter_map(|c| t.column(c)).collect();
    for c in &shown {
        let head = match c.name.strip_suffix("_us") {
            Some(stem) => format!("{} ms", stem.replace('_', " ")),
            None => c.name.replace('_', " "),
        };
        let numeric = !matches!(c.values, Values::Str(_));
        h.push_str(&format!("<th{}>{}</th>", if numeric { " class=\"num\"" } else { "" }, escape(&head)));
    }
    let share = share.and_then(|s| t.column(s));
    if share.is_some() {
        h.push_str("<th class=\"num\">share %</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for r in 0..t.rows() {
        h.push_str("<tr>");
        for c in &shown {
            match &c.values {
                Values::Str(v) => h.push_str(&format!("<td class=\"text\" title=\"{0}\">{0}</td>", escape(&v[r]))),
                Values::Float(v) if c.name.ends_with("_us") => h.push_str(&format!("<td class=\"num\">{:.3}</td>", v[r] / 1e3)),
                v => h.push_str(&format!("<td class=\"num\">{}</td>", cell(v, r))),
            }
        }
        if let Some(Values::Float(v)) = share.map(|c| &c.values) {
            let x = v[r];
            let bar = if (0.0..=100.0).contains(&x) { format!(" style=\"--pct: {x}%\"") } else { String::new() };
            h.push_str(&format!("<td class=\"num pct\"{bar}>{}</td>", if x.is_nan() { "—".into() } else { format!("{x:.1}") }));
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Unit;

    fn summary() -> Report {
        let mut r = Report::default();
        r.tables.push(
            Table::new("headline")
                .with("figure", Unit::None, Values::Str(["GPU busy"].into()))
                .with("value", Unit::None, Values::Float(vec![47.7]))
                .with("unit", Unit::None, Values::Str(["%"].into()))
                .with("detail", Unit::None, Values::Str(["compute <b>"].into()))
                .with("panel", Unit::None, Values::Str(["temporal"].into())),
        );
        r.tables.push(
            Table::new("top_gpu_kernels")
                .with("name", Unit::None, Values::Str(["<img src=x onerror=alert(1)>"].into()))
                .with("calls", Unit::Count, Values::Int(vec![3].into()))
                .with("total_us", Unit::Us, Values::Float(vec![1500.0]))
                .with("share_pct", Unit::Percent, Values::Float(vec![65.89])),
        );
        r
    }

    #[test]
    fn figures_and_cards_link_to_their_panels_and_names_stay_text() {
        let (h, slots) = dashboard(&summary(), &|p| Some(format!("#tab={p}")));
        assert!(h.contains("<a class=\"kpi\" data-figure=\"GPU busy\" href=\"#tab=temporal\" data-panel=\"temporal\"><span class=\"kpi-value\">47.7<small> %</small>"), "{h}");
        assert!(h.contains("compute &lt;b&gt;"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;") && !h.contains("<img"), "{h}");
        assert!(h.contains("data-panel=\"kernels\""), "{h}");
        assert!(h.contains("<td class=\"num\">1.500</td>"), "µs shown as ms: {h}");
        assert!(h.contains("style=\"--pct: 65.89%\">65.9</td>"), "{h}");
        assert!(h.contains("the trace has no steps"), "{h}");
        assert!(slots.charts.is_empty());
        // no links: the heading is text
        let (h, _) = dashboard(&summary(), &|_| None);
        assert!(!h.contains("<a "), "{h}");
    }
}
