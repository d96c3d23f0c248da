//! Typed tables: what analyses return and every renderer (CSV, JSON, terminal, the page, charts)
//! reads. Columns have a name, a type and a unit; values are never formatted before rendering.

mod chart;
mod pyfloat;
pub(crate) mod render;
mod report;
mod texts;
mod trace_out;

pub use chart::{histogram_bins, union_gaps, Chart, FlameFrame, Line, Series};
pub use pyfloat::python_float_repr;
pub use render::JsonRows;
pub use report::{Report, ReportFile};
pub use texts::Texts;
pub use trace_out::{CompactNames, CounterSample, FlowEvent, Marks, TraceOut};

use crate::model::IntColumn;
use serde::Serialize;

/// Unit of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// No unit (names, ids, labels).
    None,
    /// A count of things.
    Count,
    /// Nanoseconds.
    Ns,
    /// Microseconds (HTA's unit).
    Us,
    /// Bytes.
    Bytes,
    /// Percent (0–100).
    Percent,
    /// A ratio (0–1).
    Ratio,
    /// Gigabytes (10^9 bytes) per second.
    GbPerS,
}

/// The values of one column.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Values {
    /// Text (each distinct value stored once).
    Str(Texts),
    /// Integers, 4 bytes a row when they fit an `i32` ([`IntColumn`]: read with `get`).
    Int(IntColumn),
    /// Floats (`NaN` renders as an empty cell / `null`).
    Float(Vec<f64>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Str(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    /// Name (CSV header).
    pub name: String,
    /// Unit of the values.
    pub unit: Unit,
    /// The values.
    pub values: Values,
}

/// A named table of equally long columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// Name (file stem when written to disk).
    pub name: String,
    /// Columns, in display order.
    pub columns: Vec<Column>,
    /// CSV: quote the header and every text cell, as rocprof's `stats.csv` does (default: only
    /// what needs it).
    #[serde(skip)]
    pub quote_text: bool,
}

impl Table {
    /// An empty table.
    pub fn new(name: &str) -> Table {
        Table { name: name.to_string(), columns: Vec::new(), quote_text: false }
    }

    /// Adds a column (builder style). All columns must have the same length.
    pub fn with(mut self, name: &str, unit: Unit, values: Values) -> Table {
        debug_assert!(self.columns.first().is_none_or(|c| c.values.len() == values.len()), "column {name} has a different length");
        self.columns.push(Column { name: name.to_string(), unit, values });
        self
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map(|c| c.values.len()).unwrap_or(0)
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Reorders rows: by the `keys` columns, then by every column left to right (the oracle's
    /// canonical order). Numbers compare numerically with NaN last, text by code point.
    pub fn sort_canonical(&mut self, keys: &[&str]) {
        let mut order: Vec<usize> = keys.iter().filter_map(|k| self.columns.iter().position(|c| c.name == *k)).collect();
        let rest: Vec<usize> = (0..self.columns.len()).filter(|i| !order.contains(i)).collect();
        order.extend(rest);
        let cmp_in = |c: &Column, a: usize, b: usize| match &c.values {
            Values::Str(v) => v[a].cmp(&v[b]),
            Values::Int(v) => v.get(a).cmp(&v.get(b)),
            Values::Float(v) => match (v[a].is_nan(), v[b].is_nan()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                _ => v[a].total_cmp(&v[b]),
            },
        };
        let mut rows: Vec<usize> = (0..self.rows()).collect();
        rows.sort_by(|&a, &b| {
            order.iter().map(|&i| cmp_in(&self.columns[i], a, b)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
        });
        // text keeps its distinct values; only the codes move
        for c in &mut self.columns {
            c.values = match &mut c.values {
                Values::Str(v) => Values::Str(std::mem::take(v).select(&rows)),
                Values::Int(v) => Values::Int(rows.iter().map(|&r| v.get(r)).collect()),
                Values::Float(v) => Values::Float(rows.iter().map(|&r| v[r]).collect()),
            };
        }
    }

    /// Keeps rows `rows`, in that order.
    pub fn select_rows(&mut self, rows: &[usize]) {
        for c in &mut self.columns {
            c.values = match &mut c.values {
                Values::Str(v) => Values::Str(std::mem::take(v).select(rows)),
                Values::Int(v) => Values::Int(rows.iter().map(|&r| v.get(r)).collect()),
                Values::Float(v) => Values::Float(rows.iter().map(|&r| v[r]).collect()),
            };
        }
    }
}

#[cfg(test)]
mod tests;
