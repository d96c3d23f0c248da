//! Options of an analysis, declared once ([`Opt`]) with HTA's default as text, and their checked
//! values ([`Params`]). Values arrive as text from the command line or the page and are checked
//! here, so every front end reports a bad value the same way.

use std::collections::BTreeMap;

use serde::Serialize;

use super::error::{fail, AnalysisError};

/// Type of an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OptKind {
    /// Integer.
    Int,
    /// Number.
    Float,
    /// `true`/`false`.
    Bool,
    /// Text.
    Str,
    /// Comma-separated integers (empty = all).
    IntList,
    /// A file the command line writes the analysis' produced trace to (empty: none). The page
    /// offers the trace as a download instead and does not show the option.
    OutFile,
}

/// One option of an analysis.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Opt {
    /// Name, snake_case as in HTA (`duration_ratio`); the CLI spells it `--duration-ratio`.
    pub name: &'static str,
    /// Value type.
    pub kind: OptKind,
    /// Default value as text (HTA's default).
    pub default: &'static str,
    /// One-line help.
    pub help: &'static str,
}

/// Checked option values of one run: every declared option has a value (given or default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    values: BTreeMap<&'static str, String>,
    /// Set for a run that keeps only the tables whose names start with it (a variant step of
    /// `analyze`'s plan): the analysis may skip building the others, and its charts.
    only: Option<&'static str>,
}

impl Params {
    /// Checks `given` (name → text) against `opts`: unknown names and unparsable values are
    /// errors; missing options take their default.
    pub fn new<'a>(opts: &[Opt], given: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Params, AnalysisError> {
        let mut values: BTreeMap<&'static str, String> = opts.iter().map(|o| (o.name, o.default.to_string())).collect();
        for (k, v) in given {
            let Some(o) = opts.iter().find(|o| o.name == k) else {
                let known: Vec<&str> = opts.iter().map(|o| o.name).collect();
                return fail(format!(
                    "unknown option '{k}' (options: {})",
                    if known.is_empty() { "none".into() } else { known.join(", ") }
                ));
            };
            check(o, v)?;
            values.insert(o.name, v.trim().to_string());
        }
        Ok(Params { values, only: None })
    }

    /// The defaults of `opts`.
    pub fn defaults(opts: &[Opt]) -> Params {
        Params { values: opts.iter().map(|o| (o.name, o.default.to_string())).collect(), only: None }
    }

    /// These values for a run that keeps only the tables named `prefix...` ([`Params::wants`]).
    pub fn keeping_only(self, prefix: &'static str) -> Params {
        Params { only: Some(prefix), ..self }
    }

    /// Whether the run keeps the table called `table` (always, unless [`Params::keeping_only`]).
    pub fn wants(&self, table: &str) -> bool {
        self.only.is_none_or(|p| table.starts_with(p))
    }

    /// Whether the run keeps charts (not when it keeps only some tables).
    pub fn wants_charts(&self) -> bool {
        self.only.is_none()
    }

    fn raw(&self, name: &str) -> &str {
        self.values.get(name).map(String::as_str).unwrap_or_else(|| panic!("option '{name}' is not declared"))
    }

    /// An integer option.
    pub fn int(&self, name: &str) -> i64 {
        parse_int(self.raw(name)).unwrap_or_default()
    }

    /// A number option.
    pub fn float(&self, name: &str) -> f64 {
        self.raw(name).parse().unwrap_or_default()
    }

    /// A boolean option.
    pub fn bool(&self, name: &str) -> bool {
        parse_bool(self.raw(name)).unwrap_or_default()
    }

    /// A text option.
    pub fn str(&self, name: &str) -> &str {
        self.raw(name)
    }

    /// An integer-list option (`None` when empty: "all").
    pub fn int_list(&self, name: &str) -> Option<Vec<i64>> {
        parse_int_list(self.raw(name)).ok().flatten()
    }

    /// The values as `(name, text)` pairs (for notes and JSON).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (*k, v.as_str()))
    }
}

/// Integers, also written `1e9` (a whole number in float notation).
fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    s.parse().ok().or_else(|| s.parse::<f64>().ok().filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18).map(|f| f as i64))
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// `"0,2-4"` → `[0, 2, 3, 4]`; `""`/`"all"` → `None`.
pub fn parse_int_list(s: &str) -> Result<Option<Vec<i64>>, AnalysisError> {
    let s = s.trim();
    if s.is_empty() || s == "all" {
        return Ok(None);
    }
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let range = part.split_once('-').filter(|(a, _)| !a.is_empty());
        match range {
            Some((a, b)) => {
                let (Some(a), Some(b)) = (parse_int(a), parse_int(b)) else {
                    return fail(format!("expected a number or a range like 2-5, found '{part}'"));
                };
                if b < a || b - a > 1_000_000 {
                    return fail(format!("bad range '{part}'"));
                }
                out.extend(a..=b);
            }
            None => out.push(parse_int(part).ok_or_else(|| AnalysisError(format!("expected a number, found '{part}'")))?),
        }
    }
    Ok(Some(out))
}

fn check(o: &Opt, v: &str) -> Result<(), AnalysisError> {
    let ok = match o.kind {
        OptKind::Int => parse_int(v).is_some(),
        OptKind::Float => v.trim().parse::<f64>().is_ok_and(f64::is_finite),
        OptKind::Bool => parse_bool(v).is_some(),
        OptKind::Str | OptKind::OutFile => true,
        OptKind::IntList => parse_int_list(v).is_ok(),
    };
    if ok {
        Ok(())
    } else {
        let what = match o.kind {
            OptKind::Int => "an integer",
            OptKind::Float => "a number",
            OptKind::Bool => "true or false",
            OptKind::Str | OptKind::OutFile => "text",
            OptKind::IntList => "comma-separated integers",
        };
        fail(format!("option '{}': expected {what}, found '{v}'", o.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTS: &[Opt] = &[
        Opt { name: "num_kernels", kind: OptKind::Int, default: "10", help: "" },
        Opt { name: "duration_ratio", kind: OptKind::Float, default: "0.8", help: "" },
        Opt { name: "streams", kind: OptKind::IntList, default: "", help: "" },
    ];

    #[test]
    fn params_take_defaults_and_check_values() {
        let p = Params::new(OPTS, [("num_kernels", "1e9")]).unwrap();
        assert_eq!(p.int("num_kernels"), 1_000_000_000);
        assert_eq!(p.float("duration_ratio"), 0.8);
        assert_eq!(p.int_list("streams"), None);
        let p = Params::new(OPTS, [("streams", "7, 20-22")]).unwrap();
        assert_eq!(p.int_list("streams"), Some(vec![7, 20, 21, 22]));
        assert_eq!(Params::new(OPTS, [("duration_ratio", "x")]).unwrap_err().0, "option 'duration_ratio': expected a number, found 'x'");
        assert!(Params::new(OPTS, [("bogus", "1")]).unwrap_err().0.starts_with("unknown option 'bogus'"));
    }
}
