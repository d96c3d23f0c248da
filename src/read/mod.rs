//! Reading trace files into the model.
//!
//! Data flow: bytes (any chunk size) → [`inflate`] if the content starts with the gzip magic →
//! content detection ([`detect`]) → the format's reader: Chrome-trace JSON ([`scan`] finds one
//! event at a time, [`chrome`] turns it into rows) or a rocprof CSV ([`rocprof`]) → one
//! [`RankTrace`]. [`assemble`] then gives every file its rank and computes the links.
//!
//! The same [`FileReader`] serves the CLI (which reads files in 1 MiB chunks, in parallel) and the
//! browser (which pushes `File.stream()` chunks from a Web Worker).
//!
//! Where things are:
//!
//! | format or step | files |
//! |---|---|
//! | a file's chunks through the steps below, one stage at a time | `mod.rs` (`FileReader`) |
//! | Kineto / Chrome trace JSON (object or bare array; `.json`, `.json.gz`) | `scan.rs` (tokenizer: the top-level keys, then one event object at a time), `json.rs` (one object's keys and values, no tree), `chrome/` (meaning: `mod.rs` an event's fields → a row, `B`/`E` pairing, tallies; `args.rs` the `args` kept; `meta.rs` the top-level keys besides `traceEvents`) |
//! | PaddlePaddle profiler JSON | as Kineto, in `chrome/`; what differs: `args."correlation id"` and `args.start_time`/`end_time` (exact ns) in `args.rs`, `[1.169 ms]` name suffixes kept apart, the trailing `{}` placeholder and `pid(Python)` string tids in `mod.rs`, the `ExtraInfo`/`span_index` keys in `meta.rs`; flavor from those and Paddle categories (`detect::chrome_flavor`) |
//! | rocprof v1 `--hip-trace` JSON | as Chrome JSON (comma-led lines in `scan.rs`, string `ts` and `args.BeginNs`/`EndNs` in `chrome/`), then `rocprof/v1.rs` (`classify_v1_json`: kinds from the section names, exact ns) |
//! | rocprof v1 `results.csv`, rocprofv3 CSV (`kernel_trace`, `memory_copy_trace`, `*_api_trace`) | `rocprof/` (`mod.rs` the table reader, `records.rs` CSV records, `v1.rs`, `v3.rs` columns → rows, `merge.rs` one rank per process, `error.rs` what a bad header or row says) |
//! | rocprofv3 JSON (`<pid>_results.json`) | `rocprof/v3_json.rs` (buffered, read at the end with `json.rs`) |
//! | gzip (one or more members) | `inflate.rs`, then the content's reader |
//! | detection (from the content, never the name) | `detect.rs` (gzip magic in `mod.rs`) |
//! | one file read by several workers in the page | `blocks/` (`split.rs` cuts blocks or range jobs, `parse.rs` a worker's parse, `merge.rs` results in file order, `wire.rs` their encodings) |
//! | several files → one trace: ranks and links | `rank.rs` (`assemble`) |
//! | partial files: the ranks of some files, stored to be merged elsewhere (`analyze --partial`, `merge`) | `partial/` (`encode.rs`, `decode.rs`, `join.rs`) |
//! | fatal errors and counted warnings | `crate::error` (`ReadError`, `WarningKind`); kinds of the messages: `rocprof/error.rs`, `blocks/wire.rs`, `blocks/parse.rs` |

mod blocks;
pub mod chrome;
pub mod crc32;
pub mod detect;
pub mod inflate;
pub mod json;
pub mod partial;
pub mod rank;
pub mod recorder;
pub mod rocprof;
pub mod scan;

use crate::error::{ReadError, WarningKind};
use crate::model::{Format, RankTrace, Trace};
use detect::Content;
use inflate::GzipInflater;
use scan::Scanner;

pub use blocks::{
    block_seq, block_size, job_range, job_to_end, parse_block, parse_range, BlockError, BlockParse, WireError, MAX_BLOCK,
    MAX_INFLATED_BLOCK, MIN_BLOCK, RANGE_JOB_BYTES,
};
pub use rank::assemble;

/// Bytes the detector may buffer before it must decide (CSV header lines are short).
const SNIFF_LIMIT: usize = 64 * 1024;

enum Stage {
    /// Waiting for enough decompressed bytes to tell the format.
    Sniff(Vec<u8>),
    /// A Chrome-trace JSON document.
    Json(Box<(Scanner, chrome::ChromeState)>),
    /// A Chrome-trace JSON document read in blocks parsed elsewhere ([`FileReader::new_split`]).
    JsonSplit(Box<(blocks::Splitter, chrome::ChromeState)>),
    /// A rocprof CSV table.
    Csv(Box<rocprof::CsvReader>),
    /// A rocprofv3 JSON document, buffered until the end (see [`rocprof::v3_json`]).
    RocprofV3Json(rocprof::v3_json::V3JsonReader),
}

/// Reads one file pushed in chunks.
pub struct FileReader {
    name: String,
    consumed: u64,
    gz: Option<GzipInflater>,
    /// Whether the gzip magic was checked; until then at most one byte waits in `raw_head`.
    gz_decided: bool,
    /// The file is gzip (`gz` is out of its place while it inflates).
    gzip: bool,
    raw_head: Vec<u8>,
    stage: Stage,
    rank: RankTrace,
    /// Block size of a split reader ([`FileReader::new_split`]).
    split: Option<usize>,
    /// A split reader that hands out range jobs for an uncompressed file ([`FileReader::new_ranges`]).
    ranges: bool,
    /// [`FileReader::end_input`] has run.
    input_ended: bool,
    /// Bytes the gzip content has inflated to so far.
    inflated: u64,
    /// The cap on `inflated` ([`FileReader::with_max_inflated`]).
    max_inflated: u64,
}

/// The default cap on the inflated size of one gzip file: 16 GiB, far above any trace that fits
/// in memory, far below what a gzip bomb inflates to (a 16 MB gzip of `{},` can make 16 GB).
pub const DEFAULT_MAX_INFLATED: u64 = 16 << 30;

/// Why [`parse_size`] did not read a size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// A unit it does not take.
    Unit,
    /// No positive number before the unit.
    Number,
}

/// A size as options take it: a positive number (fractions allowed) and a unit up to `largest`
/// (`'G'` or `'T'`): `B`, `K`, `M`, `G`, `T`, also spelled `KB`, `KiB`…, any case, powers of
/// 1024; no unit is bytes. `1.5G` is 1,610,612,736.
pub fn parse_size(text: &str, largest: char) -> Result<u64, SizeError> {
    let t = text.trim();
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = t[digits.len()..].to_ascii_uppercase();
    // `K`, `KB` and `KIB` all name K; `B` (or nothing) is bytes
    let letter = match unit.as_str() {
        "" | "B" => "B",
        u => match u.strip_suffix("IB").or_else(|| u.strip_suffix('B')).unwrap_or(u) {
            "B" => return Err(SizeError::Unit),
            one => one,
        },
    };
    const UNITS: [&str; 5] = ["B", "K", "M", "G", "T"];
    let largest = UNITS.iter().position(|u| u.starts_with(largest)).unwrap_or(0);
    let shift = match UNITS.iter().position(|&u| u == letter) {
        Some(i) if i <= largest => 10 * i as u32,
        _ => return Err(SizeError::Unit),
    };
    let n: f64 = digits.trim().parse().ok().filter(|n: &f64| n.is_finite() && *n > 0.0).ok_or(SizeError::Number)?;
    Ok((n * (1u64 << shift) as f64) as u64)
}

/// `bytes` as a size a person reads: `16 GiB`, `500 MiB`, `512 KiB` or `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.0} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.0} KiB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

/// The rows to reserve for `bytes` of JSON events. Kineto writes 240–340 bytes of JSON per
/// event; natively room for 200-byte events is reserved, since room never written costs no
/// memory (a page is made resident when first written) while growing the table copies it whole;
/// in wasm a reservation grows the module's memory, so it stays at 300.
pub(crate) fn rows_for(bytes: u64) -> usize {
    const PER_ROW: u64 = if cfg!(target_arch = "wasm32") { 300 } else { 200 };
    usize::try_from(bytes / PER_ROW).unwrap_or(usize::MAX).min(8_000_000)
}

impl FileReader {
    /// A reader for the file `name` of `total` bytes (if known; recorded as the input size and used to size
    /// the event table).
    pub fn new(name: &str, total: Option<u64>) -> FileReader {
        let mut rank = RankTrace { files: vec![name.to_string()], input_bytes: total.unwrap_or(0), ..Default::default() };
        if let Some(t) = total {
            // for gzip input this under-reserves and the table grows by a quarter at a time
            rank.events.reserve(rows_for(t));
        }
        FileReader {
            name: name.to_string(),
            consumed: 0,
            gz: None,
            gz_decided: false,
            gzip: false,
            raw_head: Vec::new(),
            stage: Stage::Sniff(Vec::new()),
            rank,
            split: None,
            ranges: false,
            input_ended: false,
            inflated: 0,
            max_inflated: DEFAULT_MAX_INFLATED,
        }
    }

    /// Sets the cap on the size a gzip file may inflate to (default [`DEFAULT_MAX_INFLATED`]):
    /// past it, reading stops with an error naming the cap.
    pub fn with_max_inflated(mut self, bytes: u64) -> FileReader {
        self.max_inflated = bytes;
        self
    }

    /// A reader that leaves the parsing of a Chrome-trace file's events to others (the page's
    /// workers; see `blocks`): after each [`FileReader::push`] and after
    /// [`FileReader::end_input`], [`FileReader::take_blocks`] gives blocks of about `block_bytes`
    /// of events to parse with [`parse_block`]; their results go to [`FileReader::add_partial`]
    /// (in any order), and [`FileReader::finish`] once all are in. The rank is the one
    /// [`FileReader::new`] reads. Other formats are read here as usual (no blocks).
    pub fn new_split(name: &str, total: Option<u64>, block_bytes: usize) -> FileReader {
        FileReader { split: Some(block_bytes), ..FileReader::new(name, total) }
    }

    /// A split reader ([`FileReader::new_split`]) that, when the file turns out to be an
    /// uncompressed Chrome-trace document, hands out *range jobs* instead of blocks of content
    /// (see [`FileReader::reads_ranges`]): the worker given a job reads the file's bytes from the
    /// job's [`job_range`] itself and parses them with [`parse_range`]. Only the first bytes need
    /// to be pushed (until `reads_ranges`); once it is true, the rest is not read here at all.
    /// `total` is the file's exact size.
    pub fn new_ranges(name: &str, total: u64, block_bytes: usize) -> FileReader {
        FileReader { ranges: true, ..FileReader::new_split(name, Some(total), block_bytes) }
    }

    /// Whether this reader hands out range jobs (decided once the content is detected: an
    /// uncompressed Chrome-trace document read by [`FileReader::new_ranges`]).
    pub fn reads_ranges(&self) -> bool {
        matches!(&self.stage, Stage::JsonSplit(js) if js.0.reads_ranges())
    }

    /// Blocks (or range jobs) ready to be parsed, in order (split readers only).
    pub fn take_blocks(&mut self) -> Vec<Vec<u8>> {
        match &mut self.stage {
            Stage::JsonSplit(js) => js.0.take_ready(),
            _ => Vec::new(),
        }
    }

    /// Content bytes this reader parsed itself, again, because a block's cut was a bad guess
    /// (split readers of content blocks; range jobs are parsed again by workers).
    pub fn bytes_reparsed(&self) -> u64 {
        match &self.stage {
            Stage::JsonSplit(js) => js.0.reparsed,
            _ => 0,
        }
    }

    /// Blocks handed out by [`FileReader::take_blocks`] whose result has not arrived.
    pub fn blocks_outstanding(&self) -> u32 {
        match &self.stage {
            Stage::JsonSplit(js) => js.0.outstanding(),
            _ => 0,
        }
    }

    /// Blocks handed out by [`FileReader::take_blocks`] and not merged yet: those whose result
    /// has not arrived and those whose result waits for an earlier block's (each holds its
    /// bytes and its result, so this bounds the memory a split reader takes).
    pub fn blocks_unmerged(&self) -> u32 {
        match &self.stage {
            Stage::JsonSplit(js) => js.0.unmerged(),
            _ => 0,
        }
    }

    /// Takes the result of [`parse_block`] for one of this reader's blocks, and the block (for a
    /// range job, the result of [`parse_range`] and no block). A range job whose block must be
    /// parsed again gives a new job to [`FileReader::take_blocks`].
    pub fn add_partial(&mut self, result: Vec<u8>, block: Option<Vec<u8>>) -> Result<(), ReadError> {
        let content = self.content_estimate();
        let Stage::JsonSplit(js) = &mut self.stage else {
            return Err(ReadError::new(0, "a file read in blocks", "the result of a block").in_file(&self.name));
        };
        let (splitter, state) = &mut **js;
        splitter.arrived(&mut self.rank, state, &self.name, result, block, content).map_err(|e| e.in_file(&self.name))
    }

    /// A content block whose result came to [`FileReader::add_partial`] without it, and whose
    /// bytes the merge now needs ([`FileReader::wanted_block`]): the caller may keep the blocks
    /// and hand back only these (rare: a cut that was a bad guess, a gzip member that ends
    /// inside the block), instead of copying every block back.
    pub fn add_block(&mut self, block: Vec<u8>) -> Result<(), ReadError> {
        let content = self.content_estimate();
        let Stage::JsonSplit(js) = &mut self.stage else {
            return Err(ReadError::new(0, "a file read in blocks", "a block").in_file(&self.name));
        };
        let (splitter, state) = &mut **js;
        splitter.block_back(&mut self.rank, state, &self.name, block, content).map_err(|e| e.in_file(&self.name))
    }

    /// The block (by number) whose bytes the merge waits for, if any (see [`FileReader::add_block`]).
    pub fn wanted_block(&self) -> Option<u32> {
        match &self.stage {
            Stage::JsonSplit(js) => js.0.wanted(),
            _ => None,
        }
    }

    /// Blocks (or range jobs) merged so far, in order: a kept block numbered below is no longer needed.
    pub fn blocks_merged(&self) -> u32 {
        match &self.stage {
            Stage::JsonSplit(js) => js.0.merged(),
            _ => 0,
        }
    }

    /// How many bytes the content is expected to have: the file's size, or for a gzip file the
    /// size it inflates to at the ratio seen so far; 0 when not known.
    fn content_estimate(&self) -> u64 {
        let total = self.rank.input_bytes;
        match (&self.gz, self.consumed) {
            (Some(_), 0) => 0,
            (Some(_), consumed) => (u128::from(self.inflated) * u128::from(total) / u128::from(consumed)).try_into().unwrap_or(u64::MAX),
            (None, _) => total,
        }
    }

    /// Bytes of the file consumed so far.
    pub fn bytes_consumed(&self) -> u64 {
        self.consumed
    }

    /// Bytes a gzip file's content has inflated to so far (0 for other files).
    pub fn bytes_inflated(&self) -> u64 {
        self.inflated
    }

    /// Feeds the next chunk of the file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        let r = self.push_inner(chunk);
        r.map_err(|e| e.in_file(&self.name))
    }

    fn push_inner(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.consumed += chunk.len() as u64;
        if !self.gz_decided {
            // The gzip magic is two bytes; a 1-byte first chunk waits for the next one.
            if self.raw_head.len() + chunk.len() < 2 {
                self.raw_head.extend_from_slice(chunk);
                return Ok(());
            }
            self.gz_decided = true;
            let magic: Vec<u8> = self.raw_head.iter().chain(chunk).take(2).copied().collect();
            if inflate::is_gzip(&magic) {
                self.gz = Some(GzipInflater::default());
                self.gzip = true;
                // the content's offsets are not the file's: blocks of content instead of ranges
                self.ranges = false;
            }
            let head = std::mem::take(&mut self.raw_head);
            if !head.is_empty() {
                self.route(&head)?;
            }
        }
        self.route(chunk)
    }

    /// Sends file bytes to the inflater or, for plain files, straight to the content reader.
    fn route(&mut self, data: &[u8]) -> Result<(), ReadError> {
        if self.gz.is_some() {
            self.feed_compressed(data)
        } else {
            self.content(data)
        }
    }

    fn feed_compressed(&mut self, data: &[u8]) -> Result<(), ReadError> {
        let mut gz = self.gz.take().unwrap_or_default();
        let at = self.consumed - data.len() as u64;
        let r = gz.push_to(data, &mut Inflated { r: self, at });
        let r = r.and_then(|()| self.crc_to_blocks(&mut gz));
        self.gz = Some(gz);
        r
    }

    /// `n` more bytes inflated from the compressed chunk at `at`: an error past the cap on
    /// inflated size.
    fn count_inflated(&mut self, n: usize, at: u64) -> Result<(), ReadError> {
        self.inflated += n as u64;
        if self.inflated > self.max_inflated {
            let cap = size_text(self.max_inflated);
            return Err(ReadError::new(
                at,
                format!(
                    "gzip content of at most {cap}, the cap on inflated size (--max-inflated SIZE sets another, e.g. --max-inflated 64G)"
                ),
                format!("more: the content reached {cap} within the {} read so far", size_text(self.consumed)),
            ));
        }
        Ok(())
    }

    /// A split reader of a gzip file checks its members' CRC-32s from the blocks' (computed by
    /// their parsers): once it reads JSON in blocks, the inflater hands over the member it is in
    /// and, from then on, each member's end.
    fn crc_to_blocks(&mut self, gz: &mut GzipInflater) -> Result<(), ReadError> {
        let Stage::JsonSplit(js) = &mut self.stage else { return Ok(()) };
        if js.0.checks_crc() && !gz.crc_deferred() {
            let start = gz.defer_crc();
            js.0.member_boundary(start, None)?;
        }
        for end in gz.take_ends() {
            js.0.member_boundary(end.end, Some(end))?;
        }
        Ok(())
    }

    /// Runs content detection on the bytes waiting in `Stage::Sniff`; once it decides, starts
    /// the format's reader and feeds it those bytes. `at_end`: no more bytes will come.
    fn sniff(&mut self, at_end: bool) -> Result<(), ReadError> {
        let Stage::Sniff(buf) = &mut self.stage else { return Ok(()) };
        let kind = match detect::detect(buf, at_end || buf.len() >= SNIFF_LIMIT) {
            detect::Detect::NeedMore => return Ok(()),
            detect::Detect::No(err) => return Err(err),
            detect::Detect::Yes(kind) => kind,
        };
        let pending = std::mem::take(buf);
        self.stage = match kind {
            Content::Json => match self.split {
                Some(target) => {
                    let mut splitter = match self.rank.input_bytes {
                        size if self.ranges && size > 0 => blocks::Splitter::new_ranges(target, size),
                        _ => blocks::Splitter::new(target),
                    };
                    if self.gzip {
                        splitter.check_crc();
                    }
                    Stage::JsonSplit(Box::new((splitter, Default::default())))
                }
                None => Stage::Json(Box::default()),
            },
            Content::Csv(k) => {
                self.rank.format = Some(k.format());
                Stage::Csv(Box::new(rocprof::CsvReader::new(k)))
            }
            Content::RocprofV3Json => {
                self.rank.format = Some(Format::RocprofV3Json);
                Stage::RocprofV3Json(Default::default())
            }
        };
        self.content(&pending)
    }

    /// Routes decompressed bytes to the format reader, detecting it first.
    fn content(&mut self, data: &[u8]) -> Result<(), ReadError> {
        if let Stage::Sniff(buf) = &mut self.stage {
            buf.extend_from_slice(data);
            return self.sniff(false);
        }
        match &mut self.stage {
            Stage::Json(js) => {
                let (scanner, state) = &mut **js;
                scanner.push(data, &mut chrome::ChromeSink { st: state, rank: &mut self.rank, file: &self.name })
            }
            Stage::JsonSplit(js) => {
                js.0.content(data);
                Ok(())
            }
            Stage::Csv(r) => r.push(data, &mut self.rank, &self.name),
            Stage::RocprofV3Json(r) => {
                r.push(data);
                Ok(())
            }
            Stage::Sniff(_) => unreachable_stage(),
        }
    }

    /// Ends the file and returns what was read.
    pub fn finish(mut self) -> Result<RankTrace, ReadError> {
        let name = self.name.clone();
        self.finish_inner().map_err(|e| e.in_file(&name))
    }

    /// Ends the input (no more [`FileReader::push`]); a split reader then hands out its last block.
    pub fn end_input(&mut self) -> Result<(), ReadError> {
        let r = self.end_input_inner();
        r.map_err(|e| e.in_file(&self.name))
    }

    fn end_input_inner(&mut self) -> Result<(), ReadError> {
        if self.input_ended {
            return Ok(());
        }
        self.input_ended = true;
        // warnings of the end of the input; a split reader's last block carries them, to keep
        // their place after its events' warnings
        let mut end_warnings = Vec::new();
        if let Some(gz) = &mut self.gz {
            let clean = gz.finish()?;
            // a member cut short still counts as one
            self.rank.meta.gzip_members = gz.members + u32::from(!clean);
            let garbage = gz.trailing_garbage_at;
            let consumed = gz.consumed();
            if let Some(at) = garbage {
                end_warnings.push((WarningKind::TrailingGarbageAfterGzip, at, format!("at compressed byte {at}")));
            }
            if !clean {
                end_warnings.push((WarningKind::TruncatedGzip, consumed, format!("at compressed byte {consumed}")));
            }
        }
        if self.consumed == 0 {
            return Err(ReadError::new(0, "a trace (JSON or rocprof CSV)", "end of input (the file is empty)"));
        }
        if !self.gz_decided {
            // a one-byte file: not gzip
            self.gz_decided = true;
            let head = std::mem::take(&mut self.raw_head);
            self.content(&head)?;
        }
        if !matches!(self.stage, Stage::JsonSplit(_)) {
            for (kind, at, detail) in end_warnings.drain(..) {
                self.rank.warnings.add(kind, &self.name, at, || detail);
            }
        }
        self.sniff(true)?;
        match &mut self.stage {
            Stage::Json(js) => {
                let (scanner, state) = &mut **js;
                scanner.finish(&mut chrome::ChromeSink { st: state, rank: &mut self.rank, file: &self.name })?;
            }
            Stage::JsonSplit(js) => js.0.end(&end_warnings),
            _ => {}
        }
        Ok(())
    }

    fn finish_inner(&mut self) -> Result<RankTrace, ReadError> {
        self.end_input_inner()?;
        let outstanding = self.blocks_outstanding();
        if outstanding > 0 {
            return Err(ReadError::new(self.consumed, "the results of every block of the file", format!("{outstanding} missing")));
        }
        if matches!(&self.stage, Stage::JsonSplit(js) if !js.0.crc_done()) {
            return Err(ReadError::new(self.consumed, "every gzip member's CRC-32 checked", "a member that ends past the blocks merged"));
        }
        let chrome = match &mut self.stage {
            Stage::Json(js) => Some((&mut js.1, js.0.shape())),
            Stage::JsonSplit(js) => Some((&mut js.1, js.0.shape)),
            _ => None,
        };
        if let Some((state, shape)) = chrome {
            state.finish(&mut self.rank, &self.name);
            let non_objects = self.rank.warnings.count(WarningKind::NonObjectEvent);
            if self.rank.counts.events == 0 && non_objects > 0 {
                return Err(ReadError::new(
                    0,
                    "an array of trace event objects",
                    format!("{non_objects} elements that are not objects (a PyTorch memory-timeline export or other non-trace JSON?)"),
                ));
            }
            self.rank.meta.bare_array = shape != Some(scan::Shape::Object);
            self.rank.format = Some(detect::chrome_flavor(&state.hints, shape));
            if self.rank.format == Some(Format::RocprofV1Json) {
                rocprof::classify_v1_json(&mut self.rank);
            }
        }
        match &mut self.stage {
            Stage::Json(_) | Stage::JsonSplit(_) => {}
            Stage::Csv(r) => r.finish(&mut self.rank, &self.name)?,
            Stage::RocprofV3Json(r) => r.finish(&mut self.rank, &self.name)?,
            // detection could not decide even with all the input
            Stage::Sniff(_) => return Err(ReadError::new(0, "a trace (JSON or rocprof CSV)", "end of input (the file is empty)")),
        }
        self.rank.warnings.set_file(&self.name);
        self.rank.events.shrink_to_fit();
        Ok(std::mem::take(&mut self.rank))
    }
}

#[cold]
fn unreachable_stage() -> ! {
    // The stage machine only moves forward; reaching this is a bug, reported as an internal error.
    panic!("kinetoscope internal error: reader stage out of order")
}

/// Reads a whole byte slice (convenience for tests and small inputs).
pub fn read_bytes(name: &str, bytes: &[u8], chunk: usize) -> Result<RankTrace, ReadError> {
    let mut r = FileReader::new(name, Some(bytes.len() as u64));
    for c in bytes.chunks(chunk.max(1)) {
        r.push(c)?;
    }
    r.finish()
}

/// Reads several in-memory files as one trace.
pub fn read_all(files: &[(&str, &[u8])]) -> Result<Trace, ReadError> {
    let mut ranks = Vec::new();
    for (name, bytes) in files {
        ranks.push(read_bytes(name, bytes, 1 << 20)?);
    }
    Ok(assemble(ranks))
}

/// The content reader of a gzip file as the inflater's [`inflate::Sink`]: a split reader of JSON
/// has the content inflated straight into its pending block (a copy of every byte less: 4.4 %
/// fewer instructions for `info` of a `.json.gz` natively, 60 ms of the page's reading worker per
/// GB; docs/performance.md, twenty-eighth round), every other reader gets it in chunks.
struct Inflated<'a> {
    r: &'a mut FileReader,
    /// The compressed chunk's offset, for the error of the cap on inflated size.
    at: u64,
}

impl inflate::Sink for Inflated<'_> {
    fn buffer(&mut self, min: usize) -> Option<&mut Vec<u8>> {
        match &mut self.r.stage {
            Stage::JsonSplit(js) => js.0.buffer(min),
            _ => None,
        }
    }

    fn appended(&mut self, n: usize) -> Result<(), ReadError> {
        self.r.count_inflated(n, self.at)?;
        if let Stage::JsonSplit(js) = &mut self.r.stage {
            js.0.appended();
        }
        Ok(())
    }

    fn content(&mut self, data: &[u8]) -> Result<(), ReadError> {
        self.r.count_inflated(data.len(), self.at)?;
        self.r.content(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_up_to_a_largest_unit() {
        assert_eq!(parse_size("16G", 'T'), Ok(16 << 30));
        assert_eq!(parse_size("2 TiB", 'T'), Ok(2 << 40));
        assert_eq!(parse_size("2tb", 'G'), Err(SizeError::Unit));
        assert_eq!(parse_size("512kb", 'G'), Ok(512 << 10));
        assert_eq!(parse_size("7B", 'G'), Ok(7));
        for bad in ["BB", "5IB", "3X", "4KIBB", "lots", "NaN"] {
            assert_eq!(parse_size(bad, 'T'), Err(SizeError::Unit), "{bad}");
        }
        for bad in ["", "0", "-5G", "G"] {
            assert_eq!(parse_size(bad, 'T'), Err(SizeError::Number), "{bad}");
        }
    }

    /// A split reader, which has the content inflated straight into its pending block, stops at
    /// the cap on inflated size with the one-pass reader's error, and reads the same content under
    /// the cap.
    #[test]
    fn the_cap_on_inflated_size_stops_a_split_read_as_a_one_pass_one() {
        let mut json = b"{\"traceEvents\": [".to_vec();
        for i in 0..40_000 {
            json.extend_from_slice(format!("{{\"ph\": \"X\", \"name\": \"k{}\", \"ts\": {i}, \"dur\": 1}},", i % 7).as_bytes());
        }
        json.extend_from_slice(b"{}]}");
        let gz = crate::export::gzip(&json);
        let read = |split: bool, cap: u64| {
            let r = if split {
                FileReader::new_split("t.json.gz", Some(gz.len() as u64), 64 << 10)
            } else {
                FileReader::new("t.json.gz", Some(gz.len() as u64))
            };
            let mut r = r.with_max_inflated(cap);
            let mut blocks = 0;
            let mut parse = |r: &mut FileReader| {
                for b in r.take_blocks() {
                    blocks += 1;
                    let result = parse_block("t.json.gz", &b).map_err(|e| e.to_string())?;
                    r.add_partial(result, Some(b)).map_err(|e| e.to_string())?;
                }
                Ok::<_, String>(())
            };
            for chunk in gz.chunks(4096) {
                r.push(chunk).map_err(|e| e.to_string())?;
                parse(&mut r)?;
            }
            r.end_input().map_err(|e| e.to_string())?;
            parse(&mut r)?;
            Ok::<_, String>((r.finish().map_err(|e| e.to_string())?.events.len(), blocks))
        };
        let capped = read(false, 1 << 20).unwrap_err();
        assert!(capped.contains("the cap on inflated size"), "{capped}");
        assert_eq!(read(true, 1 << 20).unwrap_err(), capped);
        let (events, blocks) = read(true, 16 << 20).unwrap();
        assert_eq!((events, read(false, 16 << 20).unwrap().0), (40_000, 40_000));
        assert!(blocks > 10, "{blocks} blocks");
    }
}
