//! Recorder (github.com/uiuc-hpc/Recorder) HPC I/O traces: per-rank POSIX, MPI, MPI-IO and HDF5
//! calls with their arguments, decoded from a trace folder's files into records, and printed as
//! Recorder's own `recorder2text` prints them, and into the model ([`model`]: one rank per
//! Recorder rank; the CLI reads a folder holding `recorder.mt` this way). Not yet read by the
//! page's [`crate::read::FileReader`] (a Recorder trace is a folder, not a file).
//!
//! Supported folders (Recorder 2.3, 2.4 and 2.5: `VERSION` `2.3.*`–`2.5.*`; 2.3 has a shorter
//! `recorder.mt` header and per-rank tables without ranks and counts; layouts in
//! `docs/recorder.md`):
//!
//! | layout | files | read by |
//! |---|---|---|
//! | all | `VERSION`, `recorder.mt` (header + function names) | `meta.rs` |
//! | pilgrim, per rank | `<r>.cst`, `<r>.cfg`, `<r>.ts` (uncompressed) | `cst.rs`, `grammar.rs`, `layout.rs` |
//! | pilgrim, interprocess compression | merged `0.cst`, `ug.mt`, `<ug>.cfg` per unique grammar, `<r>.ts` | the same |
//! | gotcha | zlib blocks (`zlib.rs`): `recorder.cst` + `ug.mt` + `ug.cfg`, or `<r>.cst` + `<r>.cfg`; `recorder.ts` for all ranks | the same |
//! | pre-2.0 text (`0.mt` + `0.itf`) | refused with [`ErrorKind::LegacyText`] | — |
//!
//! The layout is told by the files: the gotcha writer always leaves `recorder.ts`, the pilgrim
//! writer never does. A rank's calls are its grammar's expansion (`grammar.rs`) looked up in the
//! call-signature table, with times from the timestamp pairs (`record.rs`); `text.rs` prints them.
//!
//! Sources: Recorder branch `pilgrim` @ c1c3dcb and branch `gotcha` @ a62d702: `tools/reader.c`,
//! `tools/reader-cst-cfg.c`, `tools/recorder2text.c`, `lib/recorder-logger.c`,
//! `lib/recorder-cst-cfg.c`, `lib/recorder-sequitur-logger.c`, `lib/recorder-timestamps.c`,
//! `lib/recorder-utils.c`, `include/recorder-logger.h`.

mod bytes;
pub mod cst;
pub mod error;
pub mod grammar;
pub mod layout;
pub mod meta;
pub mod model;
pub mod record;
pub mod text;
pub mod zlib;

pub use error::{ErrorKind, RecorderError};
pub use meta::{Flags, Layout, Metadata};
pub use record::{Call, Layer, RankRecords, Record};
pub use text::to_text;

use grammar::terminal_sequence;
use layout::{read_parts, Folder};
use record::{build_records, Calls, LayerBounds};

/// A decoded trace: the run's metadata and every rank's records.
#[derive(Debug, Clone, PartialEq)]
pub struct RecorderTrace {
    /// `VERSION` and `recorder.mt`.
    pub meta: Metadata,
    /// Rank 0 first.
    pub ranks: Vec<RankRecords>,
}

impl RecorderTrace {
    /// The latest end over all ranks, in ticks since the run's start (0 without records).
    pub fn end_ticks(&self) -> u64 {
        self.ranks.iter().flat_map(|r| r.records.iter().map(|c| c.end)).max().unwrap_or(0)
    }

    /// The run's end in seconds since the epoch: the start plus the latest end.
    pub fn end_ts(&self) -> f64 {
        self.meta.start_ts + self.end_ticks() as f64 * self.meta.time_resolution
    }
}

/// Whether a file named `name` can be part of a Recorder trace folder (`VERSION`, `*.mt`,
/// `*.cst`, `*.cfg`, `*.ts`, and the pre-2.0 `*.itf`, refused with a clear message); readers pass
/// only these to [`decode`].
pub fn is_part(name: &str) -> bool {
    name == "VERSION" || [".mt", ".cst", ".cfg", ".ts", ".itf"].iter().any(|x| name.ends_with(x))
}

/// Whether a file named `name` makes its folder a Recorder trace folder: `recorder.mt`,
/// `VERSION`, a call-signature table or grammar (`*.cst`, `*.cfg`), or the pre-2.0 `*.itf` (a
/// folder with some of them but not all is then refused with what is missing).
pub fn marks_folder(name: &str) -> bool {
    name == "recorder.mt" || name == "VERSION" || [".cst", ".cfg", ".itf"].iter().any(|x| name.ends_with(x))
}

/// Decodes a Recorder trace folder from its files, given by name relative to the folder
/// (`recorder.mt`, `0.cst`, …; names with a `/`, such as `_text/0.txt`, are ignored).
pub fn decode(files: &[(&str, &[u8])]) -> Result<RecorderTrace, RecorderError> {
    let mut ranks = Vec::new();
    let meta = decode_each(files, |_, r| {
        ranks.push(r);
        Ok(())
    })?;
    Ok(RecorderTrace { meta, ranks })
}

/// Decodes a Recorder trace folder as [`decode`] does, handing each rank's records to `each` as
/// soon as they are decoded (rank 0 first), so that a caller converting them holds one rank's
/// records at a time; returns the metadata.
pub fn decode_each(
    files: &[(&str, &[u8])],
    mut each: impl FnMut(&Metadata, RankRecords) -> Result<(), RecorderError>,
) -> Result<Metadata, RecorderError> {
    let folder = Folder::new(files);
    let Ok(mt) = folder.get("recorder.mt", "") else {
        let kind = if folder.has("0.itf") || folder.has("0.mt") { ErrorKind::LegacyText } else { ErrorKind::NotRecorder(folder.names()) };
        return Err(RecorderError::in_file("", kind));
    };
    let version = meta::check_version(folder.get("VERSION", "the Recorder version, written beside recorder.mt")?)?;
    let layout = if folder.has("recorder.ts") { Layout::Gotcha } else { Layout::Pilgrim };
    let meta = meta::parse_metadata(mt, layout, version)?;
    let parts = read_parts(&folder, &meta)?;
    let bounds = LayerBounds::of(&meta.func_names);
    let mut calls: Vec<Calls> = parts.csts.into_iter().map(Calls::new).collect();
    // a table's calls are dropped after the last rank that uses it (with its records)
    let mut last_use = vec![0; calls.len()];
    for (rank, &c) in parts.cst_of.iter().enumerate() {
        last_use[c] = rank;
    }
    for rank in 0..meta.ranks as usize {
        let table = parts.cst_of[rank];
        let (file, grammar) = &parts.grammars[parts.grammar_of[rank]];
        let ticks = &parts.ticks[rank];
        let terminals = terminal_sequence(file, grammar, calls[table].len(), ticks.len())?;
        let (records, unused_timestamps) = build_records(file, &terminals, &mut calls[table], ticks, &meta.func_names, bounds)?;
        each(&meta, RankRecords { rank: rank as u32, time_resolution: meta.time_resolution, records, unused_timestamps })?;
        if last_use[table] == rank {
            calls[table] = Calls::new(Vec::new());
        }
    }
    Ok(meta)
}
