//! Push-based CSV record splitter (RFC 4180 via `csv-core`) that knows where each record
//! starts in the byte stream.
//!
//! Bytes arrive in chunks of any size, down to one byte. Only the record being read is kept
//! (as unescaped field bytes), never the raw input. Quoted fields may hold commas, doubled
//! quotes and line breaks. Line ends may be `\n`, `\r\n` or `\r`; blank lines are skipped; a
//! UTF-8 byte-order mark at the start is skipped; the last record needs no line end.

use csv_core::{ReadRecordResult, Reader};

use crate::error::ReadError;

/// A record longer than this is taken as damage (an unbalanced quote swallowing the file)
/// rather than buffered without bound.
const MAX_RECORD_BYTES: usize = 64 << 20;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// One CSV record: its unescaped fields and where it started.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// Byte offset of the record's first byte in the (decompressed) stream.
    pub offset: u64,
    bytes: &'a [u8],
    ends: &'a [usize],
}

impl<'a> Record<'a> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the record has no fields (never produced by [`Splitter`]).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Field `i`, unescaped (`""` inside quotes is one `"`), or `None` past the last field.
    pub fn field(&self, i: usize) -> Option<&'a [u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.bytes.get(start..end)
    }
}

/// Splits pushed bytes into [`Record`]s.
pub struct Splitter {
    rdr: Reader,
    out: Vec<u8>,
    out_len: usize,
    ends: Vec<usize>,
    ends_len: usize,
    /// Between records: line breaks here are skipped, and the next byte starts a record.
    at_start: bool,
    /// No record has been produced yet (leading whitespace before the header is skipped too).
    first: bool,
    /// Whether the BOM check at the start of the stream was done.
    bom_checked: bool,
    /// Bytes of a BOM matched so far (held back until the BOM is complete or ruled out).
    bom_seen: usize,
    /// Bytes consumed so far.
    offset: u64,
    /// Offset of the record being read.
    row_start: u64,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter {
            rdr: Reader::new(),
            out: vec![0; 4096],
            out_len: 0,
            ends: vec![0; 64],
            ends_len: 0,
            at_start: true,
            first: true,
            bom_checked: false,
            bom_seen: 0,
            offset: 0,
            row_start: 0,
        }
    }
}

impl Splitter {
    /// Feeds bytes; calls `f` for every record completed by them.
    pub fn push(&mut self, mut data: &[u8], f: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>) -> Result<(), ReadError> {
        while !self.bom_checked && !data.is_empty() {
            if data[0] == BOM[self.bom_seen] {
                data = &data[1..];
                self.offset += 1;
                self.bom_seen += 1;
                self.bom_checked = self.bom_seen == BOM.len();
            } else {
                self.not_a_bom(f)?;
            }
        }
        self.feed(data, f)
    }

    /// The bytes held back as a possible BOM were not one: they are data.
    fn not_a_bom(&mut self, f: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>) -> Result<(), ReadError> {
        self.bom_checked = true;
        let held = &BOM[..self.bom_seen];
        self.offset -= held.len() as u64;
        self.feed(held, f)
    }

    fn feed(&mut self, mut data: &[u8], f: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>) -> Result<(), ReadError> {
        loop {
            if self.at_start {
                let first = self.first;
                let skip =
                    data.iter().position(|&c| !(c == b'\n' || c == b'\r' || (first && c.is_ascii_whitespace()))).unwrap_or(data.len());
                self.offset += skip as u64;
                data = &data[skip..];
                if data.is_empty() {
                    return Ok(());
                }
                self.at_start = false;
                self.row_start = self.offset;
            }
            if data.is_empty() {
                // an empty input means end of data to csv-core; wait for more instead
                return Ok(());
            }
            let (res, nin, nout, nend) = self.rdr.read_record(data, &mut self.out[self.out_len..], &mut self.ends[self.ends_len..]);
            self.offset += nin as u64;
            data = &data[nin..];
            self.out_len += nout;
            self.ends_len += nend;
            match res {
                ReadRecordResult::InputEmpty | ReadRecordResult::End => return Ok(()),
                ReadRecordResult::OutputFull => self.grow_out()?,
                ReadRecordResult::OutputEndsFull => self.grow_ends(),
                ReadRecordResult::Record => self.emit(f)?,
            }
        }
    }

    /// Ends the input: a last record without a line end is completed and passed to `f`.
    pub fn finish(&mut self, f: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>) -> Result<(), ReadError> {
        if !self.bom_checked {
            self.not_a_bom(f)?;
        }
        if self.at_start {
            return Ok(());
        }
        loop {
            let (res, _, nout, nend) = self.rdr.read_record(&[], &mut self.out[self.out_len..], &mut self.ends[self.ends_len..]);
            self.out_len += nout;
            self.ends_len += nend;
            match res {
                ReadRecordResult::OutputFull => self.grow_out()?,
                ReadRecordResult::OutputEndsFull => self.grow_ends(),
                ReadRecordResult::Record => return self.emit(f),
                ReadRecordResult::InputEmpty | ReadRecordResult::End => return Ok(()),
            }
        }
    }

    fn emit(&mut self, f: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>) -> Result<(), ReadError> {
        let rec = Record { offset: self.row_start, bytes: &self.out[..self.out_len], ends: &self.ends[..self.ends_len] };
        let r = f(rec);
        self.out_len = 0;
        self.ends_len = 0;
        self.at_start = true;
        self.first = false;
        r
    }

    fn grow_out(&mut self) -> Result<(), ReadError> {
        if self.out.len() >= MAX_RECORD_BYTES {
            return Err(ReadError::new(
                self.row_start,
                format!("a CSV row shorter than {} MiB", MAX_RECORD_BYTES >> 20),
                "a longer one (an unbalanced '\"' makes the rest of the file one field)",
            ));
        }
        let n = self.out.len() * 2;
        self.out.resize(n, 0);
        Ok(())
    }

    fn grow_ends(&mut self) {
        let n = self.ends.len() * 2;
        self.ends.resize(n, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(data: &[u8], chunk: usize) -> Vec<(u64, Vec<String>)> {
        let mut s = Splitter::default();
        let mut out = Vec::new();
        let mut f = |r: Record<'_>| {
            let fields = (0..r.len()).map(|i| String::from_utf8_lossy(r.field(i).unwrap_or_default()).into_owned()).collect();
            out.push((r.offset, fields));
            Ok(())
        };
        for c in data.chunks(chunk) {
            s.push(c, &mut f).unwrap();
        }
        s.finish(&mut f).unwrap();
        out
    }

    #[test]
    fn quotes_line_ends_and_offsets() {
        let data = b"\xef\xbb\xbf\"a\",b\r\n\r\n\"x, \"\"y\"\"\",2\r\n3,\"multi\nline\"";
        for chunk in [1, 2, 3, 7, 4096] {
            let got = split(data, chunk);
            assert_eq!(
                got,
                vec![
                    (3, vec!["a".to_string(), "b".to_string()]),
                    (12, vec!["x, \"y\"".to_string(), "2".to_string()]),
                    (26, vec!["3".to_string(), "multi\nline".to_string()]),
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn a_partial_bom_is_data() {
        for chunk in [1, 2, 4096] {
            assert_eq!(split(b"\xef\xbbx,y\n", chunk), vec![(0, vec!["\u{fffd}x".to_string(), "y".to_string()])]);
        }
    }

    #[test]
    fn unbalanced_quote_runs_to_the_end() {
        let got = split(b"a,b\n\"c,d\ne,f", 1);
        assert_eq!(got, vec![(0, vec!["a".to_string(), "b".to_string()]), (4, vec!["c,d\ne,f".to_string()])]);
    }

    #[test]
    fn leading_whitespace_before_the_header_only() {
        let got = split(b"  \n h,i\n\n j,k\n", 1);
        assert_eq!(got, vec![(4, vec!["h".to_string(), "i".to_string()]), (9, vec![" j".to_string(), "k".to_string()])]);
    }
}
