//! Table renderers: CSV (RFC 4180), JSON rows, aligned text for terminals.

use super::{Table, Values};

/// One cell as text (`NaN` → empty). Floats as Python's `repr` (`3.0`, `1e-05`), which is what
/// pandas writes, so CSVs compare with HTA's as text.
pub(crate) fn cell(v: &Values, row: usize) -> String {
    match v {
        Values::Str(s) => s[row].to_string(),
        Values::Int(i) => i.get(row).to_string(),
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
    /// CSV with a header line; `\n` line ends ([`Table::write_csv`] into a string).
    pub fn to_csv(&self) -> String {
        let mut out = Vec::with_capacity(64 + self.rows() * self.columns.len() * 8);
        self.write_csv(&mut out).expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("CSV of UTF-8 cells is UTF-8")
    }

    /// Writes the CSV of [`Table::to_csv`] to `w`, cell by cell through a 64 KiB buffer: a
    /// table of millions of cells is never whole in memory as text.
    pub fn write_csv(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        const FLUSH: usize = 1 << 16;
        let field = |out: &mut String, s: &str, text: bool| {
            if self.quote_text && text || s.contains([',', '"', '\n', '\r']) {
                out.push('"');
                for (i, part) in s.split('"').enumerate() {
                    if i > 0 {
                        out.push_str("\"\"");
                    }
                    out.push_str(part);
                }
                out.push('"');
            } else {
                out.push_str(s);
            }
        };
        // a text column of repeated values: each distinct value escaped once
        let escaped: Vec<Option<Vec<String>>> = self
            .columns
            .iter()
            .map(|c| match &c.values {
                Values::Str(t) if t.distinct() * 2 <= t.len() => Some(
                    t.words()
                        .iter()
                        .map(|w| {
                            let mut s = String::new();
                            field(&mut s, w, true);
                            s
                        })
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        let mut out = String::with_capacity(FLUSH + 4096);
        let mut itoa_buf = itoa::Buffer::new();
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            field(&mut out, &c.name, true);
        }
        out.push('\n');
        for row in 0..self.rows() {
            for (i, c) in self.columns.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match &c.values {
                    Values::Str(s) => match &escaped[i] {
                        Some(words) => out.push_str(&words[s.code(row)]),
                        None => field(&mut out, &s[row], true),
                    },
                    Values::Int(v) => out.push_str(itoa_buf.format(v.get(row))),
                    Values::Float(v) => super::pyfloat::push_python_float(&mut out, v[row]),
                }
            }
            out.push('\n');
            if out.len() >= FLUSH {
                w.write_all(out.as_bytes())?;
                out.clear();
            }
        }
        w.write_all(out.as_bytes())
    }

    /// JSON: an array of row objects keyed by column name (as a `serde_json::Value`; printing
    /// goes through [`Table::json_rows`], which writes the same text without this tree).
    pub fn to_json_rows(&self) -> serde_json::Value {
        serde_json::to_value(self.json_rows()).unwrap_or_default()
    }

    /// The rows as JSON objects, serialised as they are written: keys in `serde_json::Map`'s
    /// order (sorted; of two columns with one name the later one), `NaN` as `null`. A million
    /// rows as a `Value` tree took gigabytes.
    pub fn json_rows(&self) -> JsonRows<'_> {
        let mut keys: Vec<usize> = (0..self.columns.len()).collect();
        keys.sort_by(|&a, &b| self.columns[a].name.cmp(&self.columns[b].name).then(b.cmp(&a)));
        keys.dedup_by(|a, b| self.columns[*a].name == self.columns[*b].name);
        JsonRows { table: self, keys }
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

/// A table's rows for a `serde` serializer ([`Table::json_rows`]).
pub struct JsonRows<'a> {
    table: &'a Table,
    /// Columns in key order.
    keys: Vec<usize>,
}

/// One row of [`JsonRows`].
struct JsonRow<'a> {
    rows: &'a JsonRows<'a>,
    row: usize,
}

impl serde::Serialize for JsonRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.table.rows()))?;
        for row in 0..self.table.rows() {
            seq.serialize_element(&JsonRow { rows: self, row })?;
        }
        seq.end()
    }
}

impl serde::Serialize for JsonRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.rows.keys.len()))?;
        for &k in &self.rows.keys {
            let c = &self.rows.table.columns[k];
            match &c.values {
                Values::Str(v) => map.serialize_entry(&c.name, &v[self.row])?,
                Values::Int(v) => map.serialize_entry(&c.name, &v.get(self.row))?,
                Values::Float(v) => map.serialize_entry(&c.name, &Some(v[self.row]).filter(|x| x.is_finite()))?,
            }
        }
        map.end()
    }
}
