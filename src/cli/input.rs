//! Turning PATH arguments into a read trace: folders expand to the files directly inside them,
//! files are read in 1 MiB chunks (several files in parallel), with a progress line on stderr
//! for long reads when stderr is a terminal.

use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use kinetoscope::read::{assemble, FileReader};
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

fn read_one(path: &Path, done: &AtomicU64) -> Result<RankTrace, kinetoscope::ReadError> {
    let name = path.display().to_string();
    let io_err = |e: std::io::Error| kinetoscope::ReadError::new(0, "a readable file", e.to_string()).in_file(&name);
    let mut f = File::open(path).map_err(io_err)?;
    let total = f.metadata().map(|m| m.len()).ok();
    let mut reader = FileReader::new(&name, total);
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = f.read(&mut buf).map_err(io_err)?;
        if n == 0 {
            break;
        }
        reader.push(&buf[..n])?;
        done.fetch_add(n as u64, Ordering::Relaxed);
    }
    reader.finish()
}

/// Reads every input into one trace. Files found in folders that are not traces are skipped
/// with a note on stderr; a named file that fails is an error.
pub fn read_trace(paths: &[PathBuf]) -> Result<Trace> {
    let inputs = expand(paths)?;
    let total: u64 = inputs.iter().filter_map(|i| std::fs::metadata(&i.path).ok()).map(|m| m.len()).sum();
    let done = AtomicU64::new(0);
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Option<Result<RankTrace, kinetoscope::ReadError>>>> = Mutex::new((0..inputs.len()).map(|_| None).collect());
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(inputs.len()).max(1);
    let show = std::io::stderr().is_terminal() && total > 32 << 20;
    let finished = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                if i >= inputs.len() {
                    break;
                }
                let r = read_one(&inputs[i].path, &done);
                if let Ok(mut v) = results.lock() {
                    v[i] = Some(r);
                }
            });
        }
        if show {
            s.spawn(|| {
                let start = Instant::now();
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    let d = done.load(Ordering::Relaxed);
                    let mb = |b: u64| b as f64 / 1e6;
                    let rate = mb(d) / start.elapsed().as_secs_f64().max(1e-3);
                    eprint!("\rreading {:5.1}%  {:.0}/{:.0} MB  {:.0} MB/s ", 100.0 * d as f64 / total.max(1) as f64, mb(d), mb(total), rate);
                    let _ = std::io::stderr().flush();
                }
                eprint!("\r{:60}\r", "");
            });
        }
        // the reader threads are joined when the scope ends; signal the progress thread first
        while next.load(Ordering::Relaxed) < inputs.len() as u64 + threads as u64 {
            std::thread::sleep(Duration::from_millis(20));
            if results.lock().map(|v| v.iter().all(|r| r.is_some())).unwrap_or(true) {
                break;
            }
        }
        finished.store(true, Ordering::Relaxed);
    });
    let results = results.into_inner().unwrap_or_default();
    let mut ranks = Vec::new();
    for (input, r) in inputs.iter().zip(results) {
        match r {
            Some(Ok(rank)) => ranks.push(rank),
            Some(Err(e)) if input.named => return Err(e.into()),
            Some(Err(e)) => eprintln!("kinetoscope: skipped {}: {e}", input.path.display()),
            None => bail!("{}: not read", input.path.display()),
        }
    }
    if ranks.is_empty() {
        bail!("no trace found in {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    }
    Ok(assemble(ranks))
}
