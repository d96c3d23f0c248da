//! Turning PATH arguments into a read trace (or into the per-file ranks a partial file stores,
//! [`read_ranks`]): folders expand to the files directly inside them,
//! files are read in 1 MiB chunks (several files in parallel), with a progress line on stderr
//! for long reads when stderr is a terminal. A Recorder trace folder ([`is_recorder_folder`]) is
//! one trace of many files, decoded as a whole (`kinetoscope::read::recorder`).

use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use kinetoscope::read::{assemble, FileReader, SizeError};
use kinetoscope::{RankTrace, Trace};

const CHUNK: usize = 1 << 20;

/// One input file and whether the user named it (errors are fatal) or it came from a folder.
struct Input {
    path: PathBuf,
    named: bool,
}

fn expand(paths: &[PathBuf]) -> Result<Vec<Input>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).with_context(|| format!("{}: cannot open", p.display()))?;
        if meta.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("{}: cannot list folder", p.display()))?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|f| f.is_file() && !f.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
                .collect();
            files.sort();
            if files.is_empty() {
                bail!("{}: folder has no files", p.display());
            }
            out.extend(files.into_iter().map(|path| Input { path, named: false }));
        } else {
            out.push(Input { path: p.clone(), named: true });
        }
    }
    Ok(out)
}

/// The cap on a gzip file's inflated size, set once by `--max-inflated`.
static MAX_INFLATED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Sets the cap on a gzip file's inflated size from `--max-inflated SIZE` (`16G`, `500M`,
/// `2048K` or bytes; powers of 1024).
pub fn set_max_inflated(text: &str) -> Result<()> {
    let bytes = kinetoscope::read::parse_size(text, 'T').map_err(|e| match e {
        SizeError::Unit => anyhow::anyhow!("--max-inflated {text}: expected a size such as 16G, 500M or 1000000 (bytes)"),
        SizeError::Number => anyhow::anyhow!("--max-inflated {text}: expected a positive size such as 16G, 500M or 1000000 (bytes)"),
    })?;
    let _ = MAX_INFLATED.set(bytes);
    Ok(())
}

/// Bytes of a file given to a split reader at a time (see `Sink::push`).
const PIECE: usize = 128 << 10;
/// The smallest such piece (see `Sink::push`).
const MIN_PIECE: usize = 4 << 10;

/// Files at least this large are read by a second thread while the first parses.
const PREFETCH_FROM: u64 = 16 << 20;

fn read_one(path: &Path, done: &AtomicU64, parsers: usize) -> Result<RankTrace, kinetoscope::ReadError> {
    let name = path.display().to_string();
    let read = || {
        let io_err = |e: std::io::Error| kinetoscope::ReadError::new(0, "a readable file", e.to_string());
        let mut f = File::open(path).map_err(io_err)?;
        let meta = f.metadata().ok();
        let total = meta.as_ref().map(|m| m.len());
        // by the size of the content: a gzip file's inflated size (its trailer's, or a guess for
        // several members)
        let content = match total {
            Some(t) if parsers > 0 && t < split_from() && meta.is_some_and(|m| m.is_file()) => content_guess(&mut f, t).map_err(io_err)?,
            t => t.unwrap_or(0),
        };
        let parsers = if content >= split_from() { parsers } else { 0 };
        // an uncompressed Chrome trace is then read in range jobs: each parsing thread reads its
        // ranges itself, and this thread only merges (the others are split into content blocks)
        let reader = match total {
            Some(total) if parsers > 0 => FileReader::new_ranges(&name, total, block_bytes()),
            _ if parsers > 0 => FileReader::new_split(&name, total, block_bytes()),
            _ => FileReader::new(&name, total),
        };
        let reader = reader.with_max_inflated(MAX_INFLATED.get().copied().unwrap_or(kinetoscope::read::DEFAULT_MAX_INFLATED));
        std::thread::scope(|s| {
            let mut sink = Sink::new(reader, path, done, parsers, s);
            if total.unwrap_or(0) < PREFETCH_FROM {
                let mut buf = vec![0u8; CHUNK];
                loop {
                    let n = f.read(&mut buf).map_err(io_err)?;
                    if n == 0 {
                        break;
                    }
                    sink.push(&buf[..n])?;
                    if sink.reader.reads_ranges() {
                        break;
                    }
                }
                return sink.finish();
            }
            // the first chunk tells whether range jobs read the rest
            let mut buf = vec![0u8; CHUNK];
            let n = f.read(&mut buf).map_err(io_err)?;
            sink.push(&buf[..n])?;
            if n == 0 || sink.reader.reads_ranges() {
                return sink.finish();
            }
            // large file: a second thread reads the next chunks while this one parses (the kernel's
            // copy out of the page cache is ~13% of a read); buffers go back and forth, 3 in all
            let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<std::io::Result<(Vec<u8>, usize)>>(2);
            let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
            let _ = empty_tx.send(buf);
            for _ in 0..2 {
                let _ = empty_tx.send(vec![0u8; CHUNK]);
            }
            s.spawn(move || {
                for mut buf in empty_rx {
                    let r = f.read(&mut buf);
                    let stop = !matches!(r, Ok(n) if n > 0);
                    if full_tx.send(r.map(|n| (buf, n))).is_err() || stop {
                        return;
                    }
                }
            });
            for r in full_rx {
                let (buf, n) = r.map_err(io_err)?;
                if n == 0 {
                    break;
                }
                sink.push(&buf[..n])?;
                if sink.reader.reads_ranges() {
                    break; // decided late (a long head): range jobs read the rest
                }
                let _ = empty_tx.send(buf);
            }
            drop(empty_tx); // ends the reading thread if it waits for a buffer
            sink.finish()
        })
    };
    // every error names its file (its Display starts with the name), so callers print it as is
    read().map_err(|e| if e.file.is_empty() { e.in_file(&name) } else { e })
}

/// [`kinetoscope::read::inflate::content_guess`] of the file `f` of `size` bytes: its first 2
/// bytes and last 4 read, then `f` back at its start.
fn content_guess(f: &mut File, size: u64) -> std::io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    let mut head = [0u8; 2];
    let mut tail = [0u8; 4];
    let (head, tail) = if size >= 6 {
        f.read_exact(&mut head)?;
        f.seek(SeekFrom::Start(size - 4))?;
        f.read_exact(&mut tail)?;
        f.seek(SeekFrom::Start(0))?;
        (&head[..], &tail[..])
    } else {
        (&[][..], &[][..])
    };
    Ok(kinetoscope::read::inflate::content_guess(size, head, tail))
}

/// A file whose content is at least this large (a gzip file's inflated size), read alone, is
/// parsed in blocks on every core
/// (`KINETOSCOPE_SPLIT_FROM=BYTES` changes it, for tests and benchmarks).
const SPLIT_FROM: u64 = 64 << 20;

/// Size of the blocks a split file is parsed in (`KINETOSCOPE_SPLIT_BLOCK=BYTES` changes it, for
/// tests). 2 MiB: as fast as 8 MiB here, and the blocks in flight take a quarter of the memory.
const BLOCK_BYTES: usize = 2 << 20;

fn split_from() -> u64 {
    env_number("KINETOSCOPE_SPLIT_FROM").unwrap_or(SPLIT_FROM)
}

fn block_bytes() -> usize {
    env_number("KINETOSCOPE_SPLIT_BLOCK").map_or(BLOCK_BYTES, |b| b.max(1) as usize)
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.parse().ok()
}

/// What parsing a block or range job gave, and the block (`None`: the parser panicked, a bug the
/// panic hook reported).
type Parsed = Option<(Result<Vec<u8>, kinetoscope::ReadError>, Option<Vec<u8>>)>;

/// Where the chunks of one file go: its reader, and, for a split reader
/// ([`FileReader::new_split`], [`FileReader::new_ranges`]), the threads that parse its blocks
/// ([`kinetoscope::read::parse_block`]) or read and parse its range jobs ([`parse_job`]) while
/// this one reads (and inflates) and merges. The result is the rank the reader alone reads.
struct Sink<'s> {
    reader: FileReader,
    /// The parsing threads (`None`: the reader parses everything itself).
    parsers: Option<Parsers>,
    /// Bytes of the file read so far, for the progress line (range jobs add theirs).
    done: &'s AtomicU64,
}

/// The parsing threads of a [`Sink`]: blocks go out on `jobs`, results come back on `results`.
struct Parsers {
    jobs: std::sync::mpsc::Sender<Vec<u8>>,
    results: std::sync::mpsc::Receiver<Parsed>,
    /// Blocks handed out and not merged above which reading waits (bounds the memory).
    most: u32,
}

impl<'s> Sink<'s> {
    /// `parsers` threads (0: the reader parses everything itself) in the scope `s`, for the
    /// file at `path`.
    fn new<'e>(reader: FileReader, path: &'s Path, done: &'s AtomicU64, parsers: usize, s: &'s std::thread::Scope<'s, 'e>) -> Sink<'s> {
        if parsers == 0 {
            return Sink { reader, parsers: None, done };
        }
        let (jobs, queue) = std::sync::mpsc::channel::<Vec<u8>>();
        let (results_tx, results) = std::sync::mpsc::channel::<Parsed>();
        let queue = std::sync::Arc::new(std::sync::Mutex::new(queue));
        let name = path.display().to_string();
        for _ in 0..parsers {
            let (queue, results_tx, name) = (queue.clone(), results_tx.clone(), name.clone());
            s.spawn(move || {
                // a range job's bytes, kept for the next job; the file opened at the first job
                let (mut bytes, mut file) = (Vec::new(), None);
                loop {
                    let block = match queue.lock().map(|q| q.recv()) {
                        Ok(Ok(block)) => block,
                        _ => return,
                    };
                    // a panic must reach the reading thread, which would otherwise wait for this block
                    let range = kinetoscope::read::job_range(&block);
                    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match range {
                        Some(range) => (parse_job(path, &name, &mut file, &block, range, &mut bytes), None),
                        None => {
                            let parsed = kinetoscope::read::parse_block(&name, &block)
                                .map_err(|e| kinetoscope::ReadError::new(0, "a parsed block", e.to_string()));
                            (parsed, Some(block))
                        }
                    }));
                    if let (Some((start, end)), Ok((Ok(_), _))) = (range, &parsed) {
                        done.fetch_add(end - start, Ordering::Relaxed);
                    }
                    let stop = parsed.is_err();
                    if results_tx.send(parsed.ok()).is_err() || stop {
                        return;
                    }
                }
            });
        }
        Sink { reader, parsers: Some(Parsers { jobs, results, most: 2 * parsers as u32 }), done }
    }
    fn push(&mut self, chunk: &[u8]) -> Result<(), kinetoscope::ReadError> {
        // a gzip chunk inflates to about ten times its size: given to the reader in pieces, so
        // that the blocks it makes go out (and wait to be merged) a few at a time; smaller
        // pieces where it inflates to far more (a gzip of `{},` or of whitespace, ~1000 times:
        // a 128 KiB piece was 128 MB of blocks at once), about a block's worth each, the first
        // one small until the ratio is known
        let mut rest = chunk;
        while !rest.is_empty() {
            let piece = match (&self.parsers, self.reader.bytes_consumed(), self.reader.bytes_inflated()) {
                (None, ..) => rest.len(),
                (Some(_), 0, _) => MIN_PIECE,
                (Some(_), consumed, inflated) => {
                    let ratio = (inflated / consumed).max(1);
                    usize::try_from(block_bytes() as u64 / ratio).unwrap_or(PIECE).clamp(MIN_PIECE, PIECE)
                }
            };
            let (part, later) = rest.split_at(piece.min(rest.len()));
            rest = later;
            self.reader.push(part)?;
            self.done.fetch_add(part.len() as u64, Ordering::Relaxed);
            self.hand_out(false)?;
        }
        Ok(())
    }

    /// Gives ready blocks to the parsers and merges the results that have come back; waits
    /// while more than `most` are not merged yet (until every result is in, with `all`).
    fn hand_out(&mut self, all: bool) -> Result<(), kinetoscope::ReadError> {
        let Some(p) = &self.parsers else { return Ok(()) };
        loop {
            for block in self.reader.take_blocks() {
                p.jobs.send(block).map_err(|_| lost_parser())?;
            }
            // merged at once, a result frees its block's bytes
            let mut merged = false;
            while let Ok(parsed) = p.results.try_recv() {
                Self::merge(&mut self.reader, parsed)?;
                merged = true;
            }
            if merged {
                continue; // a merge may have made a job (a block to parse again): handed out first
            }
            // a result that arrived before an earlier block's waits, holding its block: counted
            let (out, unmerged) = (self.reader.blocks_outstanding(), self.reader.blocks_unmerged());
            if out == 0 || !all && unmerged <= p.most {
                return Ok(());
            }
            Self::merge(&mut self.reader, p.results.recv().unwrap_or(None))?;
        }
    }

    /// Merges a block's result (`None`: its parser stopped).
    fn merge(reader: &mut FileReader, parsed: Parsed) -> Result<(), kinetoscope::ReadError> {
        let (parsed, block) = parsed.ok_or_else(lost_parser)?;
        reader.add_partial(parsed?, block)
    }

    fn finish(mut self) -> Result<RankTrace, kinetoscope::ReadError> {
        if self.reader.reads_ranges() {
            // the range jobs count the whole file, the bytes read here to tell its format too
            self.done.fetch_sub(self.reader.bytes_consumed(), Ordering::Relaxed);
        }
        if self.parsers.is_some() {
            self.reader.end_input()?;
            self.hand_out(true)?;
        }
        self.parsers = None; // ends the parsing threads
        self.reader.finish()
    }
}

/// Bytes read past a range job's end, where its block's last event usually ends (as the page's
/// helpers do); at most the block size, so that tests' small blocks also read further.
fn range_margin() -> u64 {
    (256 << 10).min(block_bytes() as u64)
}

/// Reads and parses one range job ([`FileReader::new_ranges`]): the file's bytes from the job's
/// `start` to a little past its `end` (further while [`kinetoscope::read::parse_range`] asks for
/// more), into `bytes` (kept for the next job), from `file` (opened at the first job); a job that
/// runs to the end of the file is streamed in chunks.
fn parse_job(
    path: &Path,
    name: &str,
    file: &mut Option<File>,
    job: &[u8],
    (start, end): (u64, u64),
    bytes: &mut Vec<u8>,
) -> Result<Vec<u8>, kinetoscope::ReadError> {
    use std::io::{Seek, SeekFrom};
    let io_err = |at: u64| move |e: std::io::Error| kinetoscope::ReadError::new(at, "a readable file", e.to_string());
    let f = match file {
        Some(f) => f,
        None => file.insert(File::open(path).map_err(io_err(start))?),
    };
    f.seek(SeekFrom::Start(start)).map_err(io_err(start))?;
    let block_err = |e: kinetoscope::read::BlockError| kinetoscope::ReadError::new(start, "a parsed block", e.to_string());
    if kinetoscope::read::job_to_end(job) {
        let mut p = kinetoscope::read::BlockParse::for_job(job).map_err(block_err)?;
        bytes.resize(CHUNK, 0);
        loop {
            let n = f.read(bytes).map_err(io_err(start))?;
            if n == 0 {
                return Ok(p.finish(name));
            }
            p.push(name, &bytes[..n]);
        }
    }
    let mut have = 0;
    let mut want = usize::try_from(end.saturating_sub(start) + range_margin()).unwrap_or(usize::MAX);
    loop {
        bytes.resize(want, 0);
        let mut at_eof = false;
        while have < want {
            match f.read(&mut bytes[have..want]) {
                Ok(0) => {
                    at_eof = true;
                    break;
                }
                Ok(n) => have += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(start + have as u64)(e)),
            }
        }
        if let Some(result) = kinetoscope::read::parse_range(name, job, &bytes[..have], at_eof).map_err(block_err)? {
            return Ok(result);
        }
        if at_eof {
            return Err(kinetoscope::ReadError::new(start, "a range job's block", "the end of the file (parse_range asked for more)"));
        }
        want = want.saturating_mul(2);
    }
}

fn lost_parser() -> kinetoscope::ReadError {
    kinetoscope::ReadError::new(0, "a parsed block", "a parsing thread that stopped")
}

/// The progress line on stderr: every 200 ms until `finished` is set (and the thread unparked),
/// then cleared.
fn show_progress(done: &AtomicU64, total: u64, finished: &AtomicBool) {
    let start = Instant::now();
    loop {
        let tick = Instant::now() + Duration::from_millis(200);
        // park_timeout may wake early (spuriously or by unpark): wait out the tick unless finished
        while !finished.load(Ordering::Acquire) && Instant::now() < tick {
            std::thread::park_timeout(tick.saturating_duration_since(Instant::now()));
        }
        if finished.load(Ordering::Acquire) {
            break;
        }
        let d = done.load(Ordering::Relaxed);
        let mb = |b: u64| b as f64 / 1e6;
        let rate = mb(d) / start.elapsed().as_secs_f64().max(1e-3);
        eprint!("\rreading {:5.1}%  {:.0}/{:.0} MB  {:.0} MB/s ", 100.0 * d as f64 / total.max(1) as f64, mb(d), mb(total), rate);
        let _ = std::io::stderr().flush();
    }
    eprint!("\r{:60}\r", "");
}

/// Whether `p` is a Recorder trace folder: it holds `recorder.mt` or `VERSION`, or Recorder's
/// per-rank files (`*.cst`, `*.cfg`, or the pre-2.0 `*.itf`).
fn is_recorder_folder(p: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(p) else { return false };
    entries.filter_map(|e| e.ok()).any(|e| kinetoscope::read::recorder::marks_folder(&e.file_name().to_string_lossy()))
}

/// The ranks of the Recorder trace folder `p` (its top-level files that can be part of a
/// Recorder trace, decoded together; `input_bytes` counts those).
fn read_recorder(p: &Path) -> Result<Vec<RankTrace>> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(p).with_context(|| format!("{}: cannot list folder", p.display()))? {
        let path = e?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        if path.is_file() && kinetoscope::read::recorder::is_part(&name) {
            files.push((name, std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?));
        }
    }
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let bytes = files.iter().map(|(_, b)| b.len() as u64).sum();
    kinetoscope::read::recorder::model::read_ranks(&refs, &p.display().to_string(), bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// One thing to read: a Recorder trace folder (decoded as a whole) or one file.
enum Unit {
    Recorder(PathBuf),
    File(Input),
}

/// The inputs of `paths` in the order they are read: Recorder trace folders first (in the order
/// given), then every other path, folders expanded into their files (sorted).
fn units(paths: &[PathBuf]) -> Result<Vec<Unit>> {
    let (recorder, paths): (Vec<PathBuf>, Vec<PathBuf>) = paths.iter().cloned().partition(|p| p.is_dir() && is_recorder_folder(p));
    let mut units: Vec<Unit> = recorder.into_iter().map(Unit::Recorder).collect();
    units.extend(expand(&paths)?.into_iter().map(Unit::File));
    Ok(units)
}

/// Part `index` (from 0) of `count` contiguous parts of the inputs (`--chunk INDEX/COUNT`).
#[derive(Debug, Clone, Copy)]
pub struct Chunk {
    /// Which part, from 0.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl std::str::FromStr for Chunk {
    type Err = String;

    fn from_str(s: &str) -> Result<Chunk, String> {
        let parsed = s.split_once('/').and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if index < count => Ok(Chunk { index, count }),
            _ => Err(format!("expected K/N with 0 <= K < N (part K, from 0, of N), found '{s}'")),
        }
    }
}

/// Reads every input (or the inputs of one chunk) into one rank per file, as reading leaves
/// them before [`assemble`]: what a partial file stores. Files found in folders that are not
/// traces are skipped with a note on stderr; a named file that fails is an error. Without a
/// chunk, finding no trace at all is an error.
pub fn read_ranks(paths: &[PathBuf], chunk: Option<Chunk>) -> Result<Vec<RankTrace>> {
    let mut units = units(paths)?;
    if let Some(c) = chunk {
        let (from, to) = (c.index * units.len() / c.count, (c.index + 1) * units.len() / c.count);
        units = units.into_iter().skip(from).take(to - from).collect();
    }
    let mut ranks = Vec::new();
    let mut files = Vec::new();
    for u in units {
        match u {
            Unit::Recorder(p) => ranks.extend(read_recorder(&p)?),
            Unit::File(i) => files.push(i),
        }
    }
    if files.is_empty() {
        return Ok(ranks);
    }
    read_files(&files, &mut ranks)?;
    if ranks.is_empty() && chunk.is_none() {
        bail!("no trace found in {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    }
    Ok(ranks)
}

/// Reads every input into one trace.
pub fn read_trace(paths: &[PathBuf]) -> Result<Trace> {
    Ok(assemble(read_ranks(paths, None)?))
}

/// Reads `inputs` (several at a time) and appends their ranks to `ranks`, in input order.
fn read_files(inputs: &[Input], ranks: &mut Vec<RankTrace>) -> Result<()> {
    let total: u64 = inputs.iter().filter_map(|i| std::fs::metadata(&i.path).ok()).map(|m| m.len()).sum();
    let done = AtomicU64::new(0);
    let show = std::io::stderr().is_terminal() && total > 32 << 20;
    let finished = AtomicBool::new(false);
    let results = std::thread::scope(|s| {
        let progress = show.then(|| s.spawn(|| show_progress(&done, total, &finished)));
        // one file alone is parsed in blocks on every core; several, one file per core
        let parsers = if inputs.len() == 1 { cores() } else { 0 };
        let results = on_threads(inputs.len(), |i| read_one(&inputs[i].path, &done, parsers));
        finished.store(true, Ordering::Release);
        if let Some(p) = &progress {
            p.thread().unpark();
        }
        // A reader panicked (a bug): carry its panic on to main's catch_unwind (exit code 2). The
        // panic hook already reported it in the reader; resume_unwind does not report it again.
        // The scope joins the progress thread before it unwinds.
        results.unwrap_or_else(|payload| std::panic::resume_unwind(payload))
    });
    for (input, r) in inputs.iter().zip(results) {
        match r {
            Ok(rank) => ranks.push(rank),
            Err(e) if input.named => return Err(e.into()),
            // the error's Display starts with the file name
            Err(e) => eprintln!("kinetoscope: skipped {e}"),
        }
    }
    Ok(())
}

/// The machine's cores (1 if unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map(|c| c.get()).unwrap_or(1)
}

/// `work(i)` for every `i` in `0..n`, on up to one thread per core, each thread taking the next
/// `i` not yet taken; the results in the order of `i`. If `work` panicked (a bug), the panic's
/// payload, once every thread has stopped.
pub(super) fn on_threads<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync) -> std::thread::Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let threads = cores().min(n).max(1);
    let worker = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return mine;
            }
            mine.push((i, work(i)));
        }
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads).map(|_| s.spawn(worker)).collect();
        let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
        let mut panicked = None;
        for h in workers {
            match h.join() {
                Ok(mine) => mine.into_iter().for_each(|(i, r)| results[i] = Some(r)),
                Err(payload) => panicked = panicked.or(Some(payload)),
            }
        }
        match panicked {
            Some(payload) => Err(payload),
            // every i was taken by a worker that returned
            None => Ok(results.into_iter().flatten().collect()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gzip file's content is what its trailer says (so a small `.json.gz` of a large trace is
    /// parsed on every core), or 8 times its size when the trailer says less than that (several
    /// members: the trailer is the last one's), a plain file's its size; either way the file is
    /// read from its start afterwards.
    #[test]
    fn content_of_a_file_from_its_first_and_last_bytes() {
        let dir = std::env::temp_dir().join(format!("kinetoscope-content-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gz = dir.join("t.json.gz");
        // a gzip member's header, then (not inflated here) anything, then CRC32 and ISIZE = 200 MiB
        let mut bytes = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3];
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&(200u32 << 20).to_le_bytes());
        std::fs::write(&gz, &bytes).unwrap();
        let plain = dir.join("t.json");
        std::fs::write(&plain, b"{\"traceEvents\": []}").unwrap();
        // members of a bgzip file: the last one empty (ISIZE 0)
        let bgzf = dir.join("t.bgzf.json.gz");
        let member = |content: &[u8]| {
            let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3];
            m.extend_from_slice(&0u32.to_le_bytes());
            m.extend_from_slice(&(content.len() as u32).to_le_bytes());
            m
        };
        let members = [member(&[b' '; 1000]), member(&[b' '; 1000]), member(&[])].concat();
        std::fs::write(&bgzf, &members).unwrap();
        for (path, want) in [(&gz, 200 << 20), (&plain, 19), (&bgzf, 8 * members.len() as u64)] {
            let mut f = File::open(path).unwrap();
            let size = f.metadata().unwrap().len();
            assert_eq!(content_guess(&mut f, size).unwrap(), want, "{}", path.display());
            let mut again = Vec::new();
            f.read_to_end(&mut again).unwrap();
            assert_eq!(again, std::fs::read(path).unwrap());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
