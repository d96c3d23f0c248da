//! The wasm-bindgen API of the page (compiled only for wasm32). Coarse calls, JSON results;
//! no DOM code here except handing a canvas to plotters. Errors become JS exceptions carrying
//! the same message the CLI prints; nothing here unwraps input-derived data.
//!
//! In the Web Worker: `new Session()`, then per file `begin_file(name, size)`, `push(chunk)`…,
//! `end_file()`, and finally `finish()` → the overview JSON (identical to `kinetoscope info
//! --json`). On the main thread: `draw_kinds_chart(canvas_id, overview_json)` (plotters measures
//! text through the DOM, so charts cannot be drawn inside a worker).

use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;

use crate::analysis::overview::{overview, Overview};
use crate::model::RankTrace;
use crate::read::{assemble, FileReader};

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
    done: Vec<RankTrace>,
    current: Option<FileReader>,
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

    /// Starts the next file (`size` in bytes, for progress and table sizing).
    pub fn begin_file(&mut self, name: &str, size: f64) -> Result<(), JsValue> {
        if self.current.is_some() {
            return Err(err("begin_file called twice without end_file"));
        }
        let size = (size.is_finite() && size >= 0.0).then_some(size as u64);
        self.current = Some(FileReader::new(name, size));
        Ok(())
    }

    /// Feeds the next chunk of the current file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        match &mut self.current {
            Some(r) => r.push(chunk).map_err(err),
            None => Err(err("push called before begin_file")),
        }
    }

    /// Ends the current file.
    pub fn end_file(&mut self) -> Result<(), JsValue> {
        let r = self.current.take().ok_or_else(|| err("end_file called before begin_file"))?;
        self.done.push(r.finish().map_err(err)?);
        Ok(())
    }

    /// Bytes of the current file consumed so far.
    pub fn bytes_consumed(&self) -> f64 {
        self.current.as_ref().map(|r| r.bytes_consumed() as f64).unwrap_or(0.0)
    }

    /// Assembles the files read so far into one trace and returns its overview as JSON.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let trace = assemble(std::mem::take(&mut self.done));
        let ov = overview(&trace);
        serde_json::to_string(&ov).map_err(err)
    }
}

/// Draws the events-per-kind chart of an overview (JSON from `Session.finish`) on a canvas.
#[wasm_bindgen]
pub fn draw_kinds_chart(canvas_id: &str, overview_json: &str) -> Result<(), JsValue> {
    let ov: Overview = serde_json::from_str(overview_json).map_err(err)?;
    let backend = CanvasBackend::new(canvas_id).ok_or_else(|| err(format!("no canvas with id '{canvas_id}'")))?;
    crate::chart::kinds::draw_kinds(&backend.into_drawing_area(), &ov).map_err(err)
}
