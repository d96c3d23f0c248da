//! Table renderers: CSV (RFC 4180), JSON rows, aligned text for terminals.

use super::{Table, Values};

/// One cell as text (`NaN` → empty). Floats as Python's `repr` (`3.0`, `1e-05`), which is what
/// pandas writes, so CSVs compare with HTA's as text.
pub(crate) fn cell(v: &Values, row: usize) -> String {
    match v {
        Values::Str(s) => s[row].clone(),
        Values::Int(i) => i[row].to_string(),
        Values::Float(f) => super::python_float_repr(f[row]),
    }
}

/// Quotes a CSV field when it holds a comma, quote or line break (RFC 4180; the same rule as
/// Python's `csv` module with `QUOTE_MINIMAL`, which the HTA layouts need).
pub(crate) fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

impl Table {
    /// CSV with a header line; `\n` line ends.
    pub fn to_csv(&self) -> String {
        let field = |s: &str, text: bool| -> String {
            if self.quote_text && text {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                csv_field(s).into_owned()
            }
        };
        let mut out = self.columns.iter().map(|c| field(&c.name, true)).collect::<Vec<_>>().join(",");
        out.push('\n');
        for row in 0..self.rows() {
            let line: Vec<String> = self.columns.iter().map(|c| field(&cell(&c.values, row), matches!(c.values, Values::Str(_)))).collect();
            out.push_str(&line.join(","));
            out.push('\n');
        }
        out
    }

    /// JSON: an array of row objects keyed by column name.
    pub fn to_json_rows(&self) -> serde_json::Value {
        let rows = (0..self.rows())
            .map(|row| {
                let obj = self.columns.iter().map(|c| {
                    let v = match &c.values {
                        Values::Str(s) => serde_json::Value::from(s[row].clone()),
                        Values::Int(i) => serde_json::Value::from(i[row]),
                        Values::Float(f) => {
                            serde_json::Number::from_f64(f[row]).map(serde_json::Value::Number).unwrap_or(serde_json::Value::Null)
                        }
                    };
                    (c.name.clone(), v)
                });
                serde_json::Value::Object(obj.collect())
            })
            .collect();
        serde_json::Value::Array(rows)
    }

    /// Aligned text: text columns left-aligned, numbers right-aligned, a rule under the header.
    pub fn to_text(&self) -> String {
        let cells: Vec<Vec<String>> = self.columns.iter().map(|c| (0..self.rows()).map(|r| clip(cell(&c.values, r))).collect()).collect();
        let widths: Vec<usize> = self
            .columns
            .iter()
            .zip(&cells)
            .map(|(c, v)| v.iter().map(|s| s.chars().count()).chain([c.name.chars().count()]).max().unwrap_or(0))
            .collect();
        let numeric = |i: usize| !matches!(self.columns[i].values, Values::Str(_));
        let pad = |i: usize, s: &str| {
            let fill = " ".repeat(widths[i] - s.chars().count());
            if numeric(i) {
                format!("{fill}{s}")
            } else {
                format!("{s}{fill}")
            }
        };
        let mut out = String::new();
        let line = |parts: Vec<String>| parts.join("  ").trim_end().to_string() + "\n";
        out.push_str(&line(self.columns.iter().enumerate().map(|(i, c)| pad(i, &c.name)).collect()));
        out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect()));
        for row in 0..self.rows() {
            out.push_str(&line(cells.iter().enumerate().map(|(i, col)| pad(i, &col[row])).collect()));
        }
        out
    }
}

/// Longest cell of a text table, characters (kernel names run to kilobytes; CSV and JSON keep
/// them whole).
const TEXT_CELL_MAX: usize = 80;

/// `s` cut to [`TEXT_CELL_MAX`] characters by leaving out its middle, marked with `…` (kernel
/// names often differ only in their template arguments at the end).
fn clip(s: String) -> String {
    let n = s.chars().count();
    if n <= TEXT_CELL_MAX {
        return s;
    }
    let head = TEXT_CELL_MAX * 2 / 3;
    let tail = TEXT_CELL_MAX - head - 1;
    s.chars().take(head).chain(['…']).chain(s.chars().skip(n - tail)).collect()
}
