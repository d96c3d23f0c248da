//! The keyed comparisons (by operator, kernel, kernel type, annotation): each side's values per
//! key, the median over a side's ranks, the changes ranked by absolute change, their table and chart.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::hta::Device;
use super::side::{has_steps, scopes, Scope, Side};
use super::{By, DiffOptions};
use crate::analysis::api::AnalysisError;
use crate::analysis::kernel_type::kernel_type;
use crate::analysis::names::shorten_name;
use crate::analysis::stats::median;
use crate::analysis::stats::np_round;
use crate::analysis::units::us_f64;
use crate::model::{Kind, StrId};
use crate::table::{Chart, Series};
use crate::table::{Table, Unit, Values};

/// What row `i` is counted under in a comparison by `by` (`None`: not counted): its name id
/// and a class that, with the name, makes the key ([`key_text`]). Rows are grouped by this pair
/// first, so the texts are made once per distinct pair, not once per row.
pub(super) fn key(s: &Scope<'_>, i: usize, by: By, o: &DiffOptions) -> Option<(StrId, KeyClass)> {
    let (id, kind) = (s.f.name(s.r, i), s.kind(i));
    let gpu = s.f.stream(s.r, i) != -1 && kind != Kind::CudaSync;
    match by {
        By::Op => {
            let keep = match o.device {
                Device::All => true,
                Device::Cpu => s.f.stream(s.r, i) == -1,
                Device::Gpu => s.f.stream(s.r, i) != -1,
            };
            keep.then_some((id, KeyClass::Name))
        }
        By::Kernel => gpu.then_some((id, KeyClass::Name)),
        By::Type => gpu.then_some((id, KeyClass::Type(kind))),
        By::Annotation => match kind {
            Kind::UserAnnotation => Some((id, KeyClass::Annotation)),
            Kind::GpuUserAnnotation => Some((id, KeyClass::GpuAnnotation)),
            _ => None,
        },
        By::Step => None,
    }
}

/// How a name id becomes a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum KeyClass {
    /// The name (shortened with `--short-names`); every `ProfilerStep#N` is `ProfilerStep#*`.
    Name,
    /// The kernel type of a GPU event of this kind.
    Type(Kind),
    /// A user annotation (steps are not annotations here).
    Annotation,
    /// Its GPU-side copy: `NAME (GPU)`.
    GpuAnnotation,
}

/// The key of `(name, class)` (`None`: not counted after all).
pub(super) fn key_text(name: &str, class: KeyClass, o: &DiffOptions) -> Option<String> {
    let step = name.starts_with("ProfilerStep#");
    match class {
        KeyClass::Name if step => Some("ProfilerStep#*".to_string()),
        KeyClass::Name if o.short_names => Some(shorten_name(name)),
        KeyClass::Name => Some(name.to_string()),
        KeyClass::Type(kind) => Some(kernel_type(name, kind, false).as_str().to_string()),
        KeyClass::Annotation | KeyClass::GpuAnnotation if step => None,
        KeyClass::Annotation => Some(name.to_string()),
        KeyClass::GpuAnnotation => Some(format!("{name} (GPU)")),
    }
}

/// Per key: calls and time (ns) per step, of one side (medians over its ranks).
pub(super) fn side_values(
    side: &Side<'_>,
    by: By,
    o: &DiffOptions,
    iteration: Option<i64>,
    per_step: bool,
) -> Result<BTreeMap<String, (f64, f64)>, AnalysisError> {
    let scopes = scopes(side, iteration, per_step)?;
    let mut per_rank: Vec<BTreeMap<String, (f64, f64)>> = Vec::new();
    for s in &scopes {
        let mut by_id: FxHashMap<(StrId, KeyClass), (i64, i64)> = FxHashMap::default();
        for i in 0..s.f.len() {
            if !s.keeps(i) {
                continue;
            }
            if let Some(k) = key(s, i, by, o) {
                let v = by_id.entry(k).or_default();
                v.0 += 1;
                v.1 += s.f.dur_ns(s.r, i);
            }
        }
        let mut m: BTreeMap<String, (f64, f64)> = BTreeMap::new();
        for ((id, class), (n, ns)) in by_id {
            if let Some(k) = key_text(s.r.strings.get(id), class, o) {
                let v = m.entry(k).or_default();
                v.0 += n as f64 / s.per;
                v.1 += ns as f64 / s.per;
            }
        }
        per_rank.push(m);
    }
    Ok(median_by_key(&per_rank))
}

/// Per key, the median over the maps of each value (a map without the key counts 0).
pub(super) fn median_by_key(maps: &[BTreeMap<String, (f64, f64)>]) -> BTreeMap<String, (f64, f64)> {
    if let [one] = maps {
        return one.clone();
    }
    let mut keys: Vec<&String> = maps.iter().flat_map(|m| m.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let v: Vec<(f64, f64)> = maps.iter().map(|m| m.get(k).copied().unwrap_or_default()).collect();
            (k.clone(), (median(v.iter().map(|x| x.0).collect()), median(v.iter().map(|x| x.1).collect())))
        })
        .collect()
}

/// One key of a comparison: calls and time (ns) per step on each side.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Name, kernel type or annotation.
    pub key: String,
    /// Control calls.
    pub control_count: f64,
    /// Control time, ns.
    pub control_ns: f64,
    /// Test calls.
    pub test_count: f64,
    /// Test time, ns.
    pub test_ns: f64,
}

impl Change {
    /// test − control, ns.
    pub fn diff_ns(&self) -> f64 {
        self.test_ns - self.control_ns
    }

    /// Relative change of time, % rounded to 0.01 (NaN when control is 0).
    pub fn pct(&self) -> f64 {
        if self.control_ns > 0.0 {
            np_round(100.0 * self.diff_ns() / self.control_ns, 2)
        } else {
            f64::NAN
        }
    }

    /// `ops_diff`'s class by calls: added, deleted, increased, decreased, unchanged.
    pub fn class(&self) -> &'static str {
        let (c, t) = (self.control_count, self.test_count);
        if c == 0.0 {
            "added"
        } else if t == 0.0 {
            "deleted"
        } else if t > c {
            "increased"
        } else if t < c {
            "decreased"
        } else {
            "unchanged"
        }
    }
}

/// The comparison by `by` (not [`By::Step`]): every key of either side, ranked by the absolute
/// change of time (largest first, then by key).
pub fn changes(control: &Side<'_>, test: &Side<'_>, by: By, o: &DiffOptions) -> Result<Vec<Change>, AnalysisError> {
    let (ci, ti) = o.iterations();
    let per_step = has_steps(control) && has_steps(test);
    let (c, t) = (side_values(control, by, o, ci, per_step)?, side_values(test, by, o, ti, per_step)?);
    let mut keys: Vec<&String> = c.keys().chain(t.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut rows: Vec<Change> = keys
        .into_iter()
        .map(|k| {
            let (cc, cn) = c.get(k).copied().unwrap_or_default();
            let (tc, tn) = t.get(k).copied().unwrap_or_default();
            Change { key: k.clone(), control_count: cc, control_ns: cn, test_count: tc, test_ns: tn }
        })
        .collect();
    rows.sort_by(|a, b| b.diff_ns().abs().total_cmp(&a.diff_ns().abs()));
    Ok(rows)
}

pub(super) fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

/// Table `diff_by_<by>` of [`changes`].
pub fn changes_table(rows: &[Change], by: By, control: &str, test: &str) -> Table {
    let f = |g: &dyn Fn(&Change) -> f64| Values::Float(rows.iter().map(g).collect());
    Table::new(&format!("diff_by_{}", by.as_str()))
        .with(by.key_column(), Unit::None, Values::Str(rows.iter().map(|r| &r.key).collect()))
        .with(&format!("{control}_time_us"), Unit::Us, f(&|r| us_f64(r.control_ns)))
        .with(&format!("{test}_time_us"), Unit::Us, f(&|r| us_f64(r.test_ns)))
        .with("diff_time_us", Unit::Us, f(&|r| us_f64(r.diff_ns())))
        .with("change_pct", Unit::Percent, f(&Change::pct))
        .with(&format!("{control}_count"), Unit::Count, f(&|r| r.control_count))
        .with(&format!("{test}_count"), Unit::Count, f(&|r| r.test_count))
        .with(&format!("{control}_mean_us"), Unit::Us, f(&|r| us_f64(ratio(r.control_ns, r.control_count))))
        .with(&format!("{test}_mean_us"), Unit::Us, f(&|r| us_f64(ratio(r.test_ns, r.test_count))))
        .with("change", Unit::None, Values::Str(rows.iter().map(|r| r.class()).collect()))
}

/// Grouped bars (control, test, difference) of the `MAX` first rows.
pub(super) fn grouped(title: &str, x_label: &str, y_label: &str, labels: (&str, &str), keys: &[String], pairs: &[(f64, f64)]) -> Chart {
    const MAX: usize = 20;
    let n = keys.len().min(MAX);
    let s = |name: &str, g: &dyn Fn(&(f64, f64)) -> f64| Series { name: name.to_string(), values: pairs[..n].iter().map(g).collect() };
    Chart::GroupedBars {
        title: title.to_string(),
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        categories: keys[..n].to_vec(),
        series: vec![s(labels.0, &|p| p.0), s(labels.1, &|p| p.1), s("difference", &|p| p.1 - p.0)],
    }
}
