//! `kinetoscope analyze PATH... --partial FILE [--chunk K/N]` writes the parsed files as a partial
//! ([`write_partial`]); `kinetoscope merge PARTIAL... --out DIR` reads partials, joins them in
//! order and writes exactly what `analyze` of all their files writes (docs/cluster.md).

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use kinetoscope::read::partial::{self, Compression, Partial};

use super::analyze::{timings, write_analyses, HowArgs};
use super::input::{on_threads, read_ranks, Chunk};

/// Options of `merge`.
#[derive(clap::Args)]
pub struct Args {
    /// Partial files (`analyze --partial`), in the order of their inputs.
    #[arg(required = true, value_name = "PARTIALS")]
    partials: Vec<PathBuf>,
    /// Folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    how: HowArgs,
}

/// How partials are compressed: deflate level 1 (measured in docs/cluster.md), or the level
/// `KINETOSCOPE_PARTIAL_DEFLATE` gives (0: not compressed), for measuring.
fn compression() -> Compression {
    match std::env::var("KINETOSCOPE_PARTIAL_DEFLATE").ok().and_then(|v| v.parse::<u8>().ok()) {
        Some(0) => Compression::None,
        Some(level) => Compression::Deflate(level.min(10)),
        None => Compression::Deflate(1),
    }
}

/// Reads `paths` (or one chunk of them) and writes their ranks to the partial file `file`.
pub fn write_partial(paths: &[PathBuf], chunk: Option<Chunk>, file: &Path) -> Result<()> {
    let clock = std::time::Instant::now();
    let ranks = read_ranks(paths, chunk)?;
    let read = clock.elapsed().as_secs_f64();
    let bytes = partial::encode(&ranks, compression());
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create folder", dir.display()))?;
    }
    // written under another name first, so a partial that exists is complete
    let tmp = file.with_extension("partial-tmp");
    std::fs::write(&tmp, &bytes).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, file).with_context(|| format!("{}: cannot write", file.display()))?;
    if timings() {
        eprintln!("timing\tread\t{read:.3}\tencode\t{:.3}", clock.elapsed().as_secs_f64() - read);
    }
    let events: usize = ranks.iter().map(|r| r.events.len()).sum();
    let input: u64 = ranks.iter().map(|r| r.input_bytes).sum();
    eprintln!(
        "wrote partial {}: {} ranks, {events} events, {:.1} MB (input {:.1} MB)",
        file.display(),
        ranks.len(),
        bytes.len() as f64 / 1e6,
        input as f64 / 1e6
    );
    Ok(())
}

/// Runs `merge`.
pub fn run(a: Args) -> Result<()> {
    let clock = std::time::Instant::now();
    let partials = read_partials(&a.partials)?;
    let trace = partial::join(partials)?;
    if trace.ranks.is_empty() {
        anyhow::bail!("the partials hold no trace (every one was written for inputs without one)");
    }
    if timings() {
        eprintln!("timing\tread\t{:.3}", clock.elapsed().as_secs_f64());
    }
    write_analyses(&trace, &a.out, &a.how.how())
}

/// Every partial file, decoded (several at a time), in the order given.
fn read_partials(files: &[PathBuf]) -> Result<Vec<Partial>> {
    // a panic (a bug) goes on to main's catch_unwind (exit code 2)
    let results = on_threads(files.len(), |i| read_partial(&files[i])).unwrap_or_else(|payload| std::panic::resume_unwind(payload));
    results.into_iter().collect()
}

fn read_partial(path: &Path) -> Result<Partial> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("{file}: cannot read"))?;
    let ranks = partial::decode(&file, &bytes)?;
    Ok(Partial { file, ranks })
}
