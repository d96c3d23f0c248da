//! The wasm-bindgen API of the page (compiled only for wasm32). Coarse calls, JSON results;
//! no DOM code here except handing a canvas to plotters. Errors become JS exceptions carrying
//! the same message the CLI prints; nothing here unwraps input-derived data.
//!
//! In the Web Worker: `check_fits(files_json, limit)` first (whether the drop fits in memory; see
//! there), `new Session()`, then per file `begin_file(name, size, at)`, `push(chunk)`…,
//! `end_file()` (`at`: the file's place among those dropped; the trace is assembled in that
//! order, whatever order the files end in), or a helper worker reads the file whole with a
//! `WholeFile` (`new WholeFile(name, size)`, `push(chunk)`…, `finish()` → the encoded rank) and
//! the reading worker takes its result with `add_rank(at, name, bytes)`; a Recorder trace
//! folder's files, as `plan_files(paths)` tells them: `add_folder_file(folder, name, bytes)`
//! each, then `end_folders()`; and `finish()` → the overview JSON (identical to `kinetoscope info --json`). The
//! session keeps the trace: `run_analysis(name, params_json, ranks_text, hta)` → the run's JSON
//! (`page.rs` documents it), `report_file(analysis, name)` → a file that run produced.
//! Large files are read by several workers (see `read::blocks`): `begin_file_split(name, size,
//! block_bytes, at)` instead of `begin_file`, then `push` the first bytes. If `reads_ranges()` is then
//! true (an uncompressed Chrome-trace file), stop pushing: `take_block()` gives range jobs, whose
//! `job_range(job)` = `[start, end]` tells which bytes a helper worker reads (from `start` to a
//! little past `end`) and passes to `parse_range(name, job, bytes, at_eof)` (`undefined`: read
//! further). Otherwise push the whole file, `end_input()`, and `take_block()` after each call
//! gives blocks of content that helpers parse with `parse_block(name, block)`. Each result goes
//! back with `add_partial(result, block)` (any order; no block for a range job), which may make
//! a new job for `take_block()` (a block to parse again); a job for which `job_to_end(job)` is
//! true is streamed through a `JobStream` instead (see there). Then `end_file()`. The page keeps
//! the blocks instead (by `block_seq(block)`) and passes no block: after each `add_partial`, it
//! hands back the one `wanted_block()` names with `add_block(block)` while there is one, and
//! drops those numbered below `blocks_merged()`.
//! Diff mode: one worker holds two sessions (control and test) and calls `diff(control, test,
//! params_json, control_ranks, test_ranks, hta)`; "rank N against the others" passes one session
//! as both. `diff_options()` lists the Diff form's options.
//! On the main thread: `analyses()` (the registry as JSON, for the tabs), `draw_chart(canvas_id,
//! chart_json, dark, scale)` and `draw_kinds_chart(canvas_id, overview_json, dark, scale)`, which
//! return the hover regions as JSON (plotters measures text through the DOM, so charts cannot be
//! drawn inside a worker).

use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;

use crate::analysis::overview::{overview, Overview};
use crate::chart::draw::Style;
use crate::page::pool::{InOrder, WholeFile as WholeFileReader, AFTER_FILES};
use crate::page::Workspace;
use crate::read::{assemble, FileReader};
use crate::table::Chart;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Formats the reader supports, as a JS array of strings.
#[wasm_bindgen]
pub fn formats() -> Result<JsValue, JsValue> {
    let f: Vec<&str> = crate::model::Format::ALL.iter().map(|f| f.as_str()).collect();
    serde_wasm_bindgen::to_value(&f).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Size of the wasm linear memory in bytes (for benchmarks).
#[wasm_bindgen]
pub fn wasm_memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) * 65536) as f64
}

/// A reading session in the worker: files are pushed chunk by chunk, then assembled.
#[wasm_bindgen]
#[derive(Default)]
pub struct Session {
    done: InOrder,
    folders: crate::page::folders::Folders,
    /// The file being read here, and its place among those dropped.
    current: Option<FileReader>,
    at: u32,
    workspace: Option<Workspace>,
    /// Blocks of the current split file not yet handed out by `take_block`.
    blocks: std::collections::VecDeque<Vec<u8>>,
}

/// The role of each path of `paths_json` (a JSON array of `/`-separated paths) as a JSON array:
/// `{"role": "trace"}` (read it with `begin_file`…), `{"role": "recorder", "folder", "name"}`
/// (a file of a Recorder folder: `add_folder_file`, then `end_folders`) or `{"role": "skip"}`.
#[wasm_bindgen]
pub fn plan_files(paths_json: &str) -> Result<String, JsValue> {
    let paths: Vec<String> = serde_json::from_str(paths_json).map_err(err)?;
    serde_json::to_string(&crate::page::folders::plan(&paths)).map_err(err)
}

/// Parses one block of the file `name` (from a split session's `take_block`) into the partial
/// rank that session's `add_partial` takes.
#[wasm_bindgen]
pub fn parse_block(name: &str, block: &[u8]) -> Result<Vec<u8>, JsValue> {
    crate::read::parse_block(name, block).map_err(|e| block_err(name, e))
}

/// Warms the compiled code of the reader before the first trace (`page::warm_up`): reads a
/// generated trace of about `bytes` bytes. Returns its number of events.
#[wasm_bindgen]
pub fn warm_up(bytes: u32) -> Result<f64, JsValue> {
    crate::page::warm_up(bytes as usize).map(|n| n as f64).map_err(err)
}

/// Warms the compiled code of every analysis before the first panel (`page::warm_analyses`):
/// runs each on a generated trace of about `bytes` bytes. Returns how many ran.
#[wasm_bindgen]
pub fn warm_analyses(bytes: u32) -> Result<f64, JsValue> {
    crate::page::warm_analyses(bytes as usize).map(|n| n as f64).map_err(err)
}

/// The size of the blocks (or range jobs) to cut a file of `content` bytes into when `helpers`
/// helper workers parse it, for `begin_file_split` (see `read::block_size`; `gzip`: the file is
/// gzip, `content` what it inflates to).
#[wasm_bindgen]
pub fn split_block_bytes(content: f64, helpers: u32, gzip: bool) -> u32 {
    crate::read::block_size(content as u64, helpers as usize, gzip) as u32
}

/// The bytes `[start, end]` of the file that a range job (from `take_block`) covers; `undefined`
/// for a block of content. The worker reads from `start` to a little past `end`. Only the job's
/// first bytes are copied into this instance (a block of content is megabytes).
#[wasm_bindgen]
pub fn job_range(job: &js_sys::Uint8Array) -> Option<Vec<f64>> {
    let head = job.subarray(0, job.length().min(crate::read::RANGE_JOB_BYTES as u32)).to_vec();
    crate::read::job_range(&head).map(|(a, b)| vec![a as f64, b as f64])
}

/// A content block's number (from `take_block`), to keep it by: its result goes to `add_partial`
/// without it, and `wanted_block()` says when the merge needs it back. Only its first bytes are
/// copied into this instance.
#[wasm_bindgen]
pub fn block_seq(block: &js_sys::Uint8Array) -> Option<u32> {
    crate::read::block_seq(&block.subarray(0, block.length().min(4)).to_vec())
}

/// Parses a range job of the file `name`: `bytes` are the file's from the job's start, to its end
/// if `at_eof`. Returns the partial rank for `add_partial`, or `undefined` when the block's end
/// lies further: read more bytes and call again.
#[wasm_bindgen]
pub fn parse_range(name: &str, job: &[u8], bytes: &[u8], at_eof: bool) -> Result<Option<Vec<u8>>, JsValue> {
    crate::read::parse_range(name, job, bytes, at_eof).map_err(|e| block_err(name, e))
}

/// A range job that reads from a known start to the end of the file (`job_to_end`): it parses
/// again a stretch whose cuts were bad guesses, perhaps long, so the worker streams its bytes
/// instead of reading them whole: `new JobStream(name, job)`, `push(chunk)`… (the file's bytes
/// from the job's start, in order), `finish()` → the partial rank for `add_partial`.
#[wasm_bindgen]
pub fn job_to_end(job: &[u8]) -> bool {
    crate::read::job_to_end(job)
}

/// The parse of a range job that runs to the end of the file, fed in pieces (see `job_to_end`).
#[wasm_bindgen]
pub struct JobStream {
    name: String,
    parse: crate::read::BlockParse,
}

#[wasm_bindgen]
impl JobStream {
    /// For the job `job` of the file `name`; an error for any other kind of job.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, job: &[u8]) -> Result<JobStream, JsValue> {
        let parse = crate::read::BlockParse::for_job(job).map_err(|e| block_err(name, e))?;
        Ok(JobStream { name: name.to_string(), parse })
    }

    /// The next bytes of the file, from the job's start on.
    pub fn push(&mut self, chunk: &[u8]) {
        self.parse.push(&self.name, chunk);
    }

    /// After the file's last byte: the partial rank for `add_partial`.
    pub fn finish(self) -> Vec<u8> {
        self.parse.finish(&self.name)
    }
}

/// A whole file read by a helper worker for the reading worker's `Session.add_rank`:
/// `new WholeFile(name, size)`, `push(chunk)`… (the file's bytes in order), `finish()` → the
/// encoded rank. Errors are those of a `Session` reading the file.
#[wasm_bindgen]
pub struct WholeFile {
    reader: WholeFileReader,
}

#[wasm_bindgen]
impl WholeFile {
    /// For the file `name` of `size` bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, size: f64) -> WholeFile {
        let size = (size.is_finite() && size >= 0.0).then_some(size as u64);
        WholeFile { reader: WholeFileReader::new(name, size) }
    }

    /// The next chunk of the file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        self.reader.push(chunk).map_err(err)
    }

    /// Bytes of the file consumed so far.
    pub fn bytes_consumed(&self) -> f64 {
        self.reader.bytes_consumed() as f64
    }

    /// After the last chunk: the encoded rank for `Session.add_rank`.
    pub fn finish(self) -> Result<Vec<u8>, JsValue> {
        self.reader.finish().map_err(err)
    }
}

/// Whether the files of a drop fit in this instance's memory (`page::budget`), before any is
/// read: `files_json` is `[{path, size, head, tail}]` (head: the first 2 bytes, tail: the last
/// 4, as arrays of numbers), `limit` a size such as `64M` that replaces the 4 GiB limit (the
/// page's `?memory-limit=`, for tests), empty for none. Returns the estimate as JSON: `{files,
/// input_bytes, content_bytes, content_sizes, gzip, gzip_files, in_use_bytes, need_bytes,
/// limit_bytes, fits, message}` (`message`: the refusal to show when it does not fit;
/// `content_sizes`: each file's content at least, a gzip file's inflated size, in the order
/// given; `gzip`: whether each is gzip).
#[wasm_bindgen]
pub fn check_fits(files_json: &str, limit: &str) -> Result<String, JsValue> {
    use crate::page::budget::{estimate, parse_size, Dropped, WASM32_MEMORY};
    let files: Vec<Dropped> = serde_json::from_str(files_json).map_err(err)?;
    let set = match limit.trim() {
        "" => None,
        text => Some(
            parse_size(text).ok_or_else(|| err(format!("?memory-limit={text}: expected a size such as 64M, 1.5G or 1000000 (bytes)")))?,
        ),
    };
    let in_use = core::arch::wasm32::memory_size(0) as u64 * 65536;
    let e = estimate(&files, in_use, set.unwrap_or(WASM32_MEMORY).min(WASM32_MEMORY), set.is_some());
    serde_json::to_string(&e).map_err(err)
}

/// The error of a block or job of the file `name` that could not be parsed.
fn block_err(name: &str, e: impl std::fmt::Display) -> JsValue {
    err(format!("{name}: could not parse a block of events: {e}"))
}

fn err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

#[wasm_bindgen]
impl Session {
    /// A new, empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session::default()
    }

    /// Starts the file at place `at` among those dropped (`size` in bytes, for progress and
    /// table sizing).
    pub fn begin_file(&mut self, name: &str, size: f64, at: u32) -> Result<(), JsValue> {
        self.open_reader(name, size, None, at)
    }

    /// Starts the file at place `at`, to be read by several workers in blocks of about
    /// `block_bytes` (range jobs if it is an uncompressed Chrome-trace file: see `reads_ranges`).
    pub fn begin_file_split(&mut self, name: &str, size: f64, block_bytes: u32, at: u32) -> Result<(), JsValue> {
        self.open_reader(name, size, Some(block_bytes as usize), at)
    }

    /// The rank of the file `name` at place `at`, read whole by a helper worker (`WholeFile`'s
    /// `finish`). Any order; the trace is assembled in file order.
    pub fn add_rank(&mut self, at: u32, name: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.done.put_encoded(at, name, bytes).map_err(err)
    }

    /// Whether the current split file is read as range jobs: then pushing more is not needed.
    pub fn reads_ranges(&self) -> bool {
        self.current.as_ref().is_some_and(FileReader::reads_ranges)
    }

    /// The next block of the current split file to parse (`parse_block`), if one is ready.
    pub fn take_block(&mut self) -> Option<Vec<u8>> {
        self.ready_blocks().pop_front()
    }

    /// `take_block`, copied into the start of `into` instead of a new array (the page reuses the
    /// arrays the helpers give back, which spares it allocating and zeroing each block's memory):
    /// the block's length; 0 if no block is ready; minus its length, and the block left for the
    /// next call, if it is longer than `into`.
    pub fn take_block_into(&mut self, into: &js_sys::Uint8Array) -> f64 {
        let Some(block) = self.ready_blocks().front() else { return 0.0 };
        let n = block.len() as u32;
        if n > into.length() {
            return -f64::from(n);
        }
        into.subarray(0, n).copy_from(block);
        self.blocks.pop_front();
        f64::from(n)
    }

    /// Hands back the result of `parse_block` for a block of the current file, and the block (for
    /// a range job: the result of `parse_range`, no block).
    pub fn add_partial(&mut self, result: Vec<u8>, block: Option<Vec<u8>>) -> Result<(), JsValue> {
        match &mut self.current {
            Some(r) => r.add_partial(result, block).map_err(err),
            None => Err(err("add_partial called before begin_file_split")),
        }
    }

    /// Hands back a block that `wanted_block()` names (its result came to `add_partial` without
    /// it), and merges on.
    pub fn add_block(&mut self, block: Vec<u8>) -> Result<(), JsValue> {
        match &mut self.current {
            Some(r) => r.add_block(block).map_err(err),
            None => Err(err("add_block called before begin_file_split")),
        }
    }

    /// The number of the block whose bytes the merge of the current split file waits for
    /// (`add_block`), if any.
    pub fn wanted_block(&self) -> Option<u32> {
        self.current.as_ref().and_then(FileReader::wanted_block)
    }

    /// How many blocks of the current split file are merged: the kept blocks numbered below are
    /// no longer needed.
    pub fn blocks_merged(&self) -> u32 {
        self.current.as_ref().map_or(0, FileReader::blocks_merged)
    }

    /// Ends the input of the current file (a split file then has its last blocks ready).
    pub fn end_input(&mut self) -> Result<(), JsValue> {
        match &mut self.current {
            Some(r) => r.end_input().map_err(err),
            None => Err(err("end_input called before begin_file")),
        }
    }

    /// Feeds the next chunk of the current file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        match &mut self.current {
            Some(r) => r.push(chunk).map_err(err),
            None => Err(err("push called before begin_file")),
        }
    }

    /// Leaves the current file out (it could not be read): the next one can begin.
    pub fn drop_file(&mut self) {
        self.current = None;
    }

    /// Ends the current file.
    pub fn end_file(&mut self) -> Result<(), JsValue> {
        let r = self.current.take().ok_or_else(|| err("end_file called before begin_file"))?;
        self.done.put(self.at, r.finish().map_err(err)?);
        Ok(())
    }

    /// Bytes of the current file consumed so far.
    pub fn bytes_consumed(&self) -> f64 {
        self.current.as_ref().map(|r| r.bytes_consumed() as f64).unwrap_or(0.0)
    }

    /// A file of a trace folder (a Recorder trace: `plan_files` says which), read whole.
    pub fn add_folder_file(&mut self, folder: &str, name: &str, bytes: Vec<u8>) {
        self.folders.add(folder, name, bytes);
    }

    /// Decodes the folders given by `add_folder_file` into ranks; returns those that could not
    /// be read as JSON `[{"file": folder, "message": text}]`.
    pub fn end_folders(&mut self) -> String {
        let (ranks, failed) = std::mem::take(&mut self.folders).finish();
        self.done.extend_after_files(ranks);
        let failed: Vec<serde_json::Value> = failed.into_iter().map(|(f, m)| serde_json::json!({ "file": f, "message": m })).collect();
        serde_json::Value::from(failed).to_string()
    }

    /// Assembles the files read so far into one trace, keeps it for `run_analysis` and returns
    /// its overview as JSON.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let trace = assemble(std::mem::take(&mut self.done).into_ranks());
        let json = serde_json::to_string(&overview(&trace)).map_err(err)?;
        self.workspace = Some(Workspace::new(trace));
        Ok(json)
    }

    /// Runs analysis `name` on the finished trace: options as a JSON object (name → value; missing
    /// = default), ranks as text (`0,2-5`; empty = all), HTA mode or not. Returns the run's JSON.
    pub fn run_analysis(&mut self, name: &str, params_json: &str, ranks_text: &str, hta: bool) -> Result<String, JsValue> {
        let w = self.workspace.as_mut().ok_or_else(|| err("run_analysis called before finish"))?;
        w.run_json(name, params_json, ranks_text, hta).map_err(err)
    }

    /// The Overview's dashboard on the finished trace: `{"html", "charts"}` (`Workspace::dashboard_json`).
    pub fn dashboard(&mut self) -> Result<String, JsValue> {
        let w = self.workspace.as_mut().ok_or_else(|| err("dashboard called before finish"))?;
        w.dashboard_json().map_err(err)
    }

    /// The saved report of the Overview and the panels `views_json` (`Workspace::report_json`):
    /// `{"html", "charts"}`; `fill_chart_slots` on the main thread makes it the file.
    pub fn report(&mut self, views_json: &str, generated: &str) -> Result<String, JsValue> {
        let w = self.workspace.as_mut().ok_or_else(|| err("report called before finish"))?;
        w.report_json(views_json, generated).map_err(err)
    }

    /// An export of the finished trace (`Workspace::export`): `{name, bytes: Uint8Array}`.
    pub fn export(&self, format: &str, params_json: &str, ranks_text: &str) -> Result<JsValue, JsValue> {
        let w = self.workspace.as_ref().ok_or_else(|| err("export called before finish"))?;
        let f = w.export(format, params_json, ranks_text).map_err(err)?;
        let out = js_sys::Object::new();
        js_sys::Reflect::set(&out, &"name".into(), &f.name.into())?;
        js_sys::Reflect::set(&out, &"bytes".into(), &js_sys::Uint8Array::from(f.bytes.as_slice()).into())?;
        Ok(out.into())
    }

    /// The bytes of file `name` produced by the last run of `analysis` (a produced trace is written
    /// now), or the CSV `TABLE.csv` of a table of that run that came without it (a `Uint8Array`;
    /// `Workspace::file`).
    pub fn report_file(&self, analysis: &str, name: &str) -> Result<Vec<u8>, JsValue> {
        let w = self.workspace.as_ref().ok_or_else(|| err("report_file called before finish"))?;
        w.file(analysis, name)
            .map_err(err)?
            .map(std::borrow::Cow::into_owned)
            .ok_or_else(|| err(format!("{analysis} produced no file '{name}' in its last run")))
    }
}

impl Session {
    /// The blocks of the current split file ready to hand out, the reader's newest among them.
    fn ready_blocks(&mut self) -> &mut std::collections::VecDeque<Vec<u8>> {
        if let Some(r) = &mut self.current {
            self.blocks.extend(r.take_blocks());
        }
        &mut self.blocks
    }

    /// The reader of the next file (one reader only: it reserves the event table for `size`).
    fn open_reader(&mut self, name: &str, size: f64, block_bytes: Option<usize>, at: u32) -> Result<(), JsValue> {
        if self.current.is_some() {
            return Err(err("begin_file called twice without end_file"));
        }
        if at == AFTER_FILES {
            return Err(err(format!("begin_file: place {at} is out of range")));
        }
        self.at = at;
        let size = (size.is_finite() && size >= 0.0).then_some(size as u64);
        self.current = Some(match block_bytes {
            Some(b) => match size {
                Some(total) => FileReader::new_ranges(name, total, b),
                None => FileReader::new_split(name, size, b),
            },
            None => FileReader::new(name, size),
        });
        Ok(())
    }
}

/// Compares two finished sessions as `kinetoscope diff` does (`page::diff_json`): options as a
/// JSON object (`diff_options()`; missing = default), ranks as text (`0,2-5`; empty = all). The
/// same session on both sides compares its `test_ranks` with `control_ranks` (empty: every other
/// rank). Returns the comparison's JSON.
#[wasm_bindgen]
pub fn diff(
    control: &Session,
    test: &Session,
    params_json: &str,
    control_ranks: &str,
    test_ranks: &str,
    hta: bool,
) -> Result<String, JsValue> {
    crate::page::diff_json(finished(control, "control")?, finished(test, "test")?, params_json, control_ranks, test_ranks, hta).map_err(err)
}

/// The trace of a finished session.
fn finished<'s>(s: &'s Session, what: &str) -> Result<&'s crate::model::Trace, JsValue> {
    s.workspace.as_ref().map(Workspace::trace).ok_or_else(|| err(format!("diff: the {what} trace is not read yet")))
}

/// The options of the Diff mode, as JSON: `[{name, kind, default, help, choices}]`.
#[wasm_bindgen]
pub fn diff_options() -> String {
    crate::page::diff_options_json()
}

/// Every analysis the page offers, as JSON: `[{name, title, about, hta_api, options: [{name,
/// kind, default, help}]}]`.
#[wasm_bindgen]
pub fn analyses() -> String {
    crate::page::analyses_json()
}

/// Width and height in pixels of one chart canvas (`[w, h]`).
#[wasm_bindgen]
pub fn chart_size() -> Vec<u32> {
    vec![crate::chart::draw::SIZE.0, crate::chart::draw::SIZE.1]
}

/// Draws one chart of a run's JSON (`charts[i]`, as JSON text) on the canvas `canvas_id`, in the
/// dark or light style, at `scale` device pixels per CSS pixel (the page sizes the canvas at
/// `chart_size() * devicePixelRatio` and passes `devicePixelRatio`). Returns the hover regions as
/// JSON, in CSS pixels from the canvas' top left corner: `[{"x0", "y0", "x1", "y1", "text"}]`,
/// `text` = the full category name, then `series: value unit` lines.
/// `null` inside an array is `NaN` (serde_json writes `NaN` as `null`); `null` as a field
/// value is an absent `Option`.
#[wasm_bindgen]
pub fn draw_chart(canvas_id: &str, chart_json: &str, dark: bool, scale: f64) -> Result<String, JsValue> {
    let value: serde_json::Value = serde_json::from_str(chart_json).map_err(err)?;
    let chart: Chart = serde_wasm_bindgen::from_value(js_value(&value, false)).map_err(err)?;
    let backend = CanvasBackend::new(canvas_id).ok_or_else(|| err(format!("no canvas with id '{canvas_id}'")))?;
    let area = backend.into_drawing_area();
    let regions = crate::chart::draw::draw_styled(&area, &chart, &Style::new(dark, scale)).map_err(err)?;
    area.present().map_err(err)?;
    serde_json::to_string(&regions).map_err(err)
}

/// `html` with its chart slots filled with SVG (`crate::html::fill_slots`), `charts_json` the charts
/// of its slots as JSON (what `Session.report` returned with it). On the main thread: plotters
/// measures text with the DOM.
#[wasm_bindgen]
pub fn fill_chart_slots(html: &str, charts_json: &str) -> Result<String, JsValue> {
    let value: serde_json::Value = serde_json::from_str(charts_json).map_err(err)?;
    let charts: Vec<Chart> = serde_wasm_bindgen::from_value(js_value(&value, false)).map_err(err)?;
    Ok(crate::html::fill_slots(html, &charts))
}

/// `value` as a JS value, with `null` array elements as `NaN`.
fn js_value(value: &serde_json::Value, in_array: bool) -> JsValue {
    use serde_json::Value;
    match value {
        Value::Null if in_array => JsValue::from_f64(f64::NAN),
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => items.iter().map(|v| js_value(v, true)).collect::<js_sys::Array>().into(),
        Value::Object(map) => {
            let obj = js_sys::Object::new();
            for (k, v) in map {
                // cannot fail: obj is a plain extensible object
                let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(k), &js_value(v, false));
            }
            obj.into()
        }
    }
}

/// Draws the events-per-kind chart of an overview (JSON from `Session.finish`) on a canvas, as
/// `draw_chart` does (same style arguments); returns its hover regions as JSON.
#[wasm_bindgen]
pub fn draw_kinds_chart(canvas_id: &str, overview_json: &str, dark: bool, scale: f64) -> Result<String, JsValue> {
    let ov: Overview = serde_json::from_str(overview_json).map_err(err)?;
    let backend = CanvasBackend::new(canvas_id).ok_or_else(|| err(format!("no canvas with id '{canvas_id}'")))?;
    let area = backend.into_drawing_area();
    let regions = crate::chart::kinds::draw_kinds(&area, &ov, &Style::new(dark, scale)).map_err(err)?;
    area.present().map_err(err)?;
    serde_json::to_string(&regions).map_err(err)
}
