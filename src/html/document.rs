//! The saved report: one self-contained HTML file (the page's stylesheet inlined, charts as SVG, no
//! script, no request) with the Overview's dashboard, every panel the user opened (or the CLI named)
//! with its options, notes, tables and charts, and the trace's facts and warnings. It holds the
//! analyses' results, never the trace's events.

use super::{escape, table, Slots, REPORT_ROWS};
use crate::analysis::overview::Overview;
use crate::analysis::registry;
use crate::table::Report;

/// One panel of the report: an analysis run with its options, or why it failed.
#[derive(Debug)]
pub struct Section {
    /// The analysis' registry name.
    pub analysis: String,
    /// Options given (name, value as text), those that differ from the defaults.
    pub params: Vec<(String, String)>,
    /// The ranks asked for (`0,2-5`; empty: all).
    pub ranks: String,
    /// HTA mode.
    pub hta: bool,
    /// Its report, or its error.
    pub result: Result<Report, String>,
}

impl Section {
    /// The command line that computes this panel (`TRACE` for the trace's path).
    pub fn command(&self) -> String {
        let mut c = format!("kinetoscope {} TRACE", self.analysis);
        for (k, v) in &self.params {
            c.push_str(&format!(" --{} {}", k.replace('_', "-"), shell_word(v)));
        }
        if !self.ranks.is_empty() {
            c.push_str(&format!(" --ranks {}", shell_word(&self.ranks)));
        }
        if self.hta {
            c.push_str(" --hta");
        }
        c
    }
}

/// `s` as one shell word.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,:/=+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The report's HTML with chart slots, and its charts: `fill_slots` (SVG) makes it the file.
/// `summary` is the `summary` analysis' report (the dashboard), `generated` a line saying when and by
/// what it was made.
pub fn document(ov: &Overview, summary: Option<&Report>, sections: &[Section], generated: &str) -> (String, Slots) {
    let mut slots = Slots::default();
    let files = ov.files.iter().map(|f| crate::model::base_name(f)).collect::<Vec<_>>();
    let title = match files.as_slice() {
        [one] => one.to_string(),
        [first, ..] => format!("{first} and {} more", files.len() - 1),
        [] => "trace".to_string(),
    };
    let mut h = String::from("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    // a report runs nothing and loads nothing: its style is inline, its charts are inline SVG
    h.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">");
    h.push_str(&format!("<title>kinetoscope report — {}</title><style>\n", escape(&title)));
    h.push_str(include_str!("../../www/style.css"));
    h.push_str("\n</style></head><body class=\"report-doc\"><main>");
    let named =
        if files.len() <= 3 { files.join(", ") } else { format!("{} files ({} … {})", files.len(), files[0], files[files.len() - 1]) };
    h.push_str(&format!(
        "<header class=\"report-head\"><h1>kinetoscope report</h1><p class=\"report-meta\">{} · {} event{} · {} rank{} · {}</p>",
        escape(&named),
        super::group(ov.events.min(i64::MAX as u64) as i64),
        if ov.events == 1 { "" } else { "s" },
        ov.ranks.len(),
        if ov.ranks.len() == 1 { "" } else { "s" },
        escape(generated)
    ));
    h.push_str("<p class=\"hint\">Analysis results only: the trace's events are not in this file. Each panel names the command line that computes it.</p>");
    // contents
    h.push_str("<nav class=\"toc\"><a href=\"#overview\">Where the time went</a>");
    for s in sections {
        h.push_str(&format!(" · <a href=\"#panel-{0}\">{1}</a>", escape(&s.analysis), escape(title_of(&s.analysis))));
    }
    h.push_str(" · <a href=\"#trace-details\">Trace details</a></nav></header>");

    if !ov.warnings.is_empty() {
        h.push_str(&format!("<section id=\"warnings-box\"><h3>Warnings</h3><ul id=\"warnings\">{}</ul></section>", warnings(ov)));
    }
    h.push_str("<section id=\"overview\" class=\"report-section\"><h2>Where the time went</h2>");
    match summary {
        Some(r) => {
            let included = |name: &str| sections.iter().any(|s| s.analysis == name).then(|| format!("#panel-{name}"));
            let (dash, dash_slots) = super::dashboard(r, &included);
            h.push_str("<div id=\"dashboard\" class=\"dashboard\" data-state=\"done\">");
            h.push_str(&shift_slots(&dash, slots.charts.len()));
            h.push_str("</div>");
            slots.charts.extend(dash_slots.charts);
        }
        None => h.push_str("<p class=\"empty\">The summary could not be computed.</p>"),
    }
    h.push_str("</section>");

    for s in sections {
        h.push_str(&format!(
            "<section id=\"panel-{}\" class=\"report-section panel\"><h2>{}</h2>",
            escape(&s.analysis),
            escape(title_of(&s.analysis))
        ));
        if let Some(a) = registry::find(&s.analysis) {
            h.push_str(&format!("<p class=\"about\">{}</p>", escape(a.about)));
        }
        h.push_str(&format!("<p class=\"command\"><code>{}</code></p>", escape(&s.command())));
        match &s.result {
            Err(e) => h.push_str(&format!("<div class=\"error\">{}</div>", escape(e))),
            Ok(r) => {
                if !r.notes.is_empty() {
                    h.push_str("<ul class=\"notes\">");
                    for n in &r.notes {
                        h.push_str(&format!("<li>{}</li>", escape(n)));
                    }
                    h.push_str("</ul>");
                }
                h.push_str("<div class=\"charts\">");
                for c in &r.charts {
                    h.push_str(&slots.add(c));
                }
                h.push_str("</div><div class=\"tables\">");
                for t in &r.tables {
                    h.push_str(&table(t, REPORT_ROWS));
                }
                h.push_str("</div>");
            }
        }
        h.push_str("</section>");
    }

    h.push_str("<details id=\"trace-details\" class=\"report-section\" open><summary>Trace details: files, versions, devices, events per kind</summary>");
    h.push_str(&facts(ov));
    h.push_str("</details></main></body></html>\n");
    (h, slots)
}

/// The title of analysis `name` (its name when unknown).
fn title_of(name: &str) -> &str {
    registry::find(name).map_or(name, |a| a.title)
}

/// `html`'s chart slots renumbered from `first` on.
fn shift_slots(html: &str, first: usize) -> String {
    if first == 0 {
        return html.to_string();
    }
    let key = "data-slot=\"";
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = &rest[at + key.len()..];
        let end = rest.find('"').unwrap_or(0);
        let n: usize = rest[..end].parse().unwrap_or(0);
        out.push_str(&(n + first).to_string());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The warnings, one item each.
fn warnings(ov: &Overview) -> String {
    let v = serde_json::to_value(&ov.warnings).unwrap_or_default();
    let mut h = String::new();
    for w in v.as_array().into_iter().flatten() {
        let text = |k: &str| w.get(k).map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string));
        h.push_str(&format!(
            "<li>{}<code>{}</code> {}{}</li>",
            text("count").map_or(String::new(), |c| format!("<span class=\"count\">{}× </span>", escape(&c))),
            escape(&text("kind").unwrap_or_default()),
            escape(&text("message").unwrap_or_default()),
            text("file").map_or(String::new(), |f| format!(
                " <span class=\"where\">({}{})</span>",
                escape(&f),
                text("offset").map_or(String::new(), |o| format!(" @ byte {}", escape(&o)))
            ))
        ));
    }
    h
}

/// The overview's facts as key/value tables: the trace's, then one per rank.
fn facts(ov: &Overview) -> String {
    let v = serde_json::to_value(ov).unwrap_or_default();
    let mut h = String::from("<table class=\"kv\"><tbody>");
    for (k, x) in v.as_object().into_iter().flatten().filter(|(k, _)| !matches!(k.as_str(), "ranks" | "warnings")) {
        rows(&mut h, k, x, 0);
    }
    h.push_str("</tbody></table><div id=\"ranks\">");
    for r in v.get("ranks").and_then(|r| r.as_array()).into_iter().flatten() {
        h.push_str(&format!(
            "<table class=\"rank\"><caption>Rank {}</caption><tbody>",
            escape(&r.get("rank").map(|x| x.to_string()).unwrap_or_default())
        ));
        for (k, x) in r.as_object().into_iter().flatten() {
            rows(&mut h, k, x, 0);
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</div>");
    h
}

/// One row per scalar (a list of scalars on one row); an object or a list of objects as a heading
/// row and its members indented.
fn rows(h: &mut String, key: &str, v: &serde_json::Value, depth: usize) {
    use serde_json::Value;
    let scalar = |x: &Value| !x.is_object() && !x.is_array();
    let text = |x: &Value| x.as_str().map_or_else(|| if x.is_null() { "—".to_string() } else { x.to_string() }, str::to_string);
    let pad = if depth > 0 { format!(" style=\"padding-left:{}rem\"", 0.5 + depth as f64) } else { String::new() };
    match v {
        x if scalar(x) => h.push_str(&format!("<tr><td class=\"key\"{pad}>{}</td><td>{}</td></tr>", escape(key), escape(&text(x)))),
        Value::Array(a) if a.iter().all(scalar) => h.push_str(&format!(
            "<tr><td class=\"key\"{pad}>{}</td><td>{}</td></tr>",
            escape(key),
            escape(&if a.is_empty() { "—".to_string() } else { a.iter().map(text).collect::<Vec<_>>().join(", ") })
        )),
        Value::Array(a) => {
            h.push_str(&format!("<tr class=\"group\"><th colspan=\"2\"{pad}>{}</th></tr>", escape(key)));
            for (i, x) in a.iter().enumerate() {
                rows(h, &i.to_string(), x, depth + 1);
            }
        }
        Value::Object(m) => {
            h.push_str(&format!("<tr class=\"group\"><th colspan=\"2\"{pad}>{}</th></tr>", escape(key)));
            for (k, x) in m {
                rows(h, k, x, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_quote_what_the_shell_would_split() {
        let s = Section {
            analysis: "kernels".into(),
            params: vec![("num_kernels".into(), "5".into())],
            ranks: "0-3".into(),
            hta: true,
            result: Err("x".into()),
        };
        assert_eq!(s.command(), "kinetoscope kernels TRACE --num-kernels 5 --ranks 0-3 --hta");
        assert_eq!(shell_word("a b'c"), "'a b'\\''c'");
    }

    #[test]
    fn slots_are_renumbered() {
        assert_eq!(
            shift_slots("<figure data-slot=\"0\"></figure><figure data-slot=\"1\">", 3),
            "<figure data-slot=\"3\"></figure><figure data-slot=\"4\">"
        );
    }
}
