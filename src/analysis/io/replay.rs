//! Each rank's calls replayed in order, as recorder-viz's `build_offset_intervals` does: the
//! position in every file it uses (opens, seeks, reads and writes move it), so that every read and
//! write gets its byte range; the file's sessions (open to close); per-file counts, bytes, times
//! and access pattern; the bytes MPI-IO reads and writes asked for (handles followed from their
//! `MPI_File_open`); per-rank totals; and the timeline's cells.
//!
//! Choices (docs/analyses.md#io):
//! * A rank's position and known size of a file are its own: one position per file and rank
//!   (Recorder names files, not descriptors), a size from its own writes and truncates (an
//!   `O_APPEND` open or `SEEK_END` starts there).
//! * Access pattern, per rank and file, reads and writes apart (as Darshan counts them): each op
//!   after the first is *consecutive* when it starts where the previous one ended, *sequential*
//!   when it starts after that, *random* when before.
//! * A session is a rank's file open from its open's start to its close's end (nested opens
//!   extend it); reads and writes outside any open (a file opened before tracing, `stdout`) make
//!   one session per rank and file from the first to the last such call; a session still open at
//!   the rank's last call ends there.

use rustc_hash::FxHashMap as HashMap;

use super::mpiio::{mpiio_op, MpiIo};
use super::posix::{file_op, Op};
use super::timeline::{Grid, Kind};
use crate::model::strings::StrId;
use crate::model::{Phase, RankTrace};

/// A read or write with its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataOp {
    /// Index into [`Replay::names`].
    pub file: u32,
    /// The rank.
    pub rank: u32,
    /// Index into [`Replay::sessions`].
    pub session: u32,
    /// Call start, ns.
    pub start: i64,
    /// First byte.
    pub offset: i64,
    /// Bytes.
    pub bytes: i64,
    /// A write (else a read).
    pub write: bool,
}

/// A rank's file open, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Session {
    /// Index into [`Replay::names`].
    pub file: u32,
    /// The rank.
    pub rank: u32,
    /// Start.
    pub start: i64,
    /// End.
    pub end: i64,
}

/// What one file saw, over every rank.
#[derive(Debug, Default, Clone)]
pub struct FileStats {
    /// Ranks that used it.
    pub ranks: i64,
    /// Reads and writes.
    pub data_ops: i64,
    /// Every other call on it (open, close, seek, stat, sync, …).
    pub meta_ops: i64,
    /// Bytes read.
    pub bytes_read: i64,
    /// Bytes written.
    pub bytes_written: i64,
    /// Time in reads, ns.
    pub read_ns: i64,
    /// Time in writes, ns.
    pub write_ns: i64,
    /// Time in the other calls, ns.
    pub meta_ns: i64,
    /// Access pattern counts: consecutive, sequential, random.
    pub pattern: [i64; 3],
    /// MPI-IO reads and writes.
    pub mpiio_ops: i64,
    /// Bytes MPI-IO reads asked for (those of a predefined datatype).
    pub mpiio_bytes_read: i64,
    /// Bytes MPI-IO writes asked for.
    pub mpiio_bytes_written: i64,
    last_rank: Option<u32>,
}

/// Which access pattern count an op starting at `offset` adds after one that ended at `prev`:
/// 0 consecutive, 1 sequential, 2 random.
fn pattern_of(offset: i64, prev: i64) -> usize {
    match offset.cmp(&prev) {
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Less => 2,
    }
}

/// Appends `s` to `sessions`; its index.
fn push_session(sessions: &mut Vec<Session>, s: Session) -> u32 {
    sessions.push(s);
    sessions.len() as u32 - 1
}

impl FileStats {
    /// Counts `rank` among the file's ranks (and the file among the rank's) on its first use.
    fn touch(&mut self, rank: u32, totals: &mut RankIo) {
        if self.last_rank != Some(rank) {
            self.last_rank = Some(rank);
            self.ranks += 1;
            totals.files += 1;
        }
    }
}

/// One rank's totals.
#[derive(Debug, Default, Clone, Copy)]
pub struct RankIo {
    /// Files it used.
    pub files: i64,
    /// Bytes read.
    pub bytes_read: i64,
    /// Bytes written.
    pub bytes_written: i64,
}

/// The replay of the selected ranks.
#[derive(Debug, Default)]
pub struct Replay<'a> {
    /// File paths, in order of first use.
    pub names: Vec<&'a str>,
    /// Per file (same order).
    pub files: Vec<FileStats>,
    /// Every read and write, rank by rank, in call order.
    pub ops: Vec<DataOp>,
    /// Every session.
    pub sessions: Vec<Session>,
    /// Per selected rank (same order).
    pub ranks: Vec<RankIo>,
    index: HashMap<&'a str, u32>,
}

/// A rank's state of one file.
#[derive(Debug, Default)]
struct Cursor {
    pos: i64,
    size: i64,
    depth: u32,
    session: Option<u32>,
    loose: Option<u32>,
    last_end: [Option<i64>; 2],
}

/// What a call is, worked out once per distinct (category, name, arguments).
#[derive(Debug, Clone, Copy)]
struct Call<'a> {
    kind: Kind,
    file: Option<(u32, Op)>,
    mpiio: Option<MpiIo<'a>>,
}

impl<'a> Replay<'a> {
    /// Replays `ranks` (Recorder ranks; other events are passed over), filling `grid`.
    pub fn run(ranks: &[&'a RankTrace], grid: &mut Grid) -> Replay<'a> {
        let mut out = Replay::default();
        for (lane_rank, r) in ranks.iter().enumerate() {
            let totals = out.rank(r, lane_rank, grid);
            out.ranks.push(totals);
        }
        out
    }

    /// The index of file `path`.
    fn file(&mut self, path: &'a str) -> u32 {
        if let Some(&i) = self.index.get(path) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(path);
        self.files.push(FileStats::default());
        self.index.insert(path, i);
        i
    }

    /// Replays one rank (`position`: its place among the selected ranks).
    fn rank(&mut self, r: &'a RankTrace, position: usize, grid: &mut Grid) -> RankIo {
        let ev = &r.events;
        let mut calls: HashMap<(StrId, StrId, Option<StrId>), Call<'a>> = HashMap::default();
        let mut cursors: HashMap<u32, Cursor> = HashMap::default();
        let mut handles: HashMap<&'a str, u32> = HashMap::default();
        let mut totals = RankIo::default();
        let mut last_end = i64::MIN;
        for e in 0..ev.len() {
            if ev.phase[e] != Phase::Complete {
                continue;
            }
            let id = e as u32;
            let (start, dur) = (ev.ts[e], ev.dur.get(e));
            let end = start + dur;
            last_end = last_end.max(end);
            let key = (ev.cat.get(e), ev.name.get(e), ev.call_args(id));
            let call = match calls.get(&key) {
                Some(c) => *c,
                None => {
                    let c = self.classify(r, id);
                    calls.insert(key, c);
                    c
                }
            };
            grid.add(position, start, end, call.kind);
            match call.mpiio {
                Some(MpiIo::Open { file, fh }) => {
                    let file = self.file(file);
                    handles.insert(fh, file);
                    self.files[file as usize].touch(r.rank, &mut totals);
                }
                Some(MpiIo::Data { fh, write, bytes }) => {
                    if let Some(&file) = handles.get(fh) {
                        let stats = &mut self.files[file as usize];
                        stats.mpiio_ops += 1;
                        let b = bytes.unwrap_or(0);
                        if write {
                            stats.mpiio_bytes_written += b;
                        } else {
                            stats.mpiio_bytes_read += b;
                        }
                    }
                }
                None => {}
            }
            let Some((file, op)) = call.file else { continue };
            let stats = &mut self.files[file as usize];
            stats.touch(r.rank, &mut totals);
            let cur = cursors.entry(file).or_default();
            match op {
                Op::Data { write, bytes, at } => {
                    let offset = at.unwrap_or(cur.pos);
                    if at.is_none() {
                        cur.pos += bytes;
                    }
                    if write {
                        cur.size = cur.size.max(offset + bytes);
                        (stats.bytes_written, stats.write_ns) = (stats.bytes_written + bytes, stats.write_ns + dur);
                        totals.bytes_written += bytes;
                    } else {
                        (stats.bytes_read, stats.read_ns) = (stats.bytes_read + bytes, stats.read_ns + dur);
                        totals.bytes_read += bytes;
                    }
                    stats.data_ops += 1;
                    if let Some(prev) = cur.last_end[write as usize] {
                        stats.pattern[pattern_of(offset, prev)] += 1;
                    }
                    cur.last_end[write as usize] = Some(offset + bytes);
                    let session = match cur.session.or(cur.loose) {
                        Some(s) => s,
                        None => *cur.loose.insert(push_session(&mut self.sessions, Session { file, rank: r.rank, start, end })),
                    };
                    let s = &mut self.sessions[session as usize];
                    s.end = s.end.max(end);
                    self.ops.push(DataOp { file, rank: r.rank, session, start, offset, bytes, write });
                }
                _ => {
                    (stats.meta_ops, stats.meta_ns) = (stats.meta_ops + 1, stats.meta_ns + dur);
                    match op {
                        Op::Open { append, truncate } => {
                            if truncate {
                                cur.size = 0;
                            }
                            cur.pos = if append { cur.size } else { 0 };
                            if cur.depth == 0 {
                                cur.session = Some(push_session(&mut self.sessions, Session { file, rank: r.rank, start, end }));
                            }
                            cur.depth += 1;
                        }
                        Op::Close if cur.depth > 0 => {
                            cur.depth -= 1;
                            if cur.depth == 0 {
                                if let Some(s) = cur.session.take() {
                                    self.sessions[s as usize].end = end;
                                }
                            }
                        }
                        Op::Seek { offset, whence } => {
                            cur.pos = match whence {
                                0 => offset,
                                1 => cur.pos + offset,
                                2 => cur.size + offset,
                                _ => cur.pos,
                            }
                        }
                        Op::Truncate { len } => cur.size = len,
                        _ => {}
                    }
                }
            }
        }
        // sessions still open end at the rank's last call
        for cur in cursors.values() {
            if let Some(s) = cur.session {
                let s = &mut self.sessions[s as usize];
                s.end = s.end.max(last_end);
            }
        }
        totals
    }

    /// What event `e` of `r` is.
    fn classify(&mut self, r: &'a RankTrace, e: u32) -> Call<'a> {
        let cat = r.cat(e);
        let kind = match cat {
            "POSIX" => Kind::Metadata,
            "MPIIO" => Kind::MpiIo,
            "MPI" => Kind::Mpi,
            "HDF5" => Kind::Hdf5,
            _ => Kind::Other,
        };
        let args: Vec<&'a str> = r.call_args(e).collect();
        if kind == Kind::MpiIo {
            return Call { kind, file: None, mpiio: mpiio_op(r.name(e), &args) };
        }
        if kind != Kind::Metadata {
            return Call { kind, file: None, mpiio: None };
        }
        match file_op(r.name(e), &args) {
            Some(f) => {
                let kind = match f.op {
                    Op::Data { write: true, .. } => Kind::Write,
                    Op::Data { write: false, .. } => Kind::Read,
                    _ => Kind::Metadata,
                };
                Call { kind, file: Some((self.file(f.file), f.op)), mpiio: None }
            }
            None => Call { kind, file: None, mpiio: None },
        }
    }
}
