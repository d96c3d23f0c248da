//! `kinetoscope export pprof|folded|speedscope|chrome PATH... -o OUT`: call stacks as a profile,
//! or the trace filtered, written by `export::formats` (what the page's export buttons download).
//! The output is written to a temporary name beside it and renamed, so nothing is half-written;
//! an output that is one of the inputs is refused.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use kinetoscope::analysis::api::{parse_int_list, select_ranks};
use kinetoscope::analysis::gpu_ops::parse_range;
use kinetoscope::export::formats::{export, write_chrome, Format, Request};

/// Options of `export`.
#[derive(clap::Args)]
pub struct Args {
    /// pprof (profile.proto, gzip), folded (flamegraph.pl, inferno), speedscope, or chrome (the
    /// trace filtered, Chrome-trace JSON for Perfetto).
    #[arg(value_name = "FORMAT", value_parser = ["pprof", "folded", "speedscope", "chrome"])]
    format: String,
    /// Trace files or folders of per-rank traces.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The file to write (chrome with several ranks: a folder, one file per rank).
    #[arg(short, long, value_name = "OUT")]
    out: PathBuf,
    /// Ranks to export, e.g. 0,2-5 (default: all).
    #[arg(long, value_name = "LIST")]
    ranks: Option<String>,
    /// Only the time START,END (µs on the trace's clock): the stacks' time inside it, the
    /// Chrome trace's events that overlap it.
    #[arg(long, value_name = "START,END")]
    range: Option<String>,
    /// Folded: GPU time by launching stack instead of CPU self time; speedscope: add it.
    #[arg(long)]
    gpu: bool,
    /// chrome: only events of these categories, e.g. kernel,cpu_op.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    cats: Vec<String>,
    /// pprof, folded, speedscope: one file per rank into the folder OUT (default: one file, ranks as
    /// labels in pprof, as root frames in folded and speedscope).
    #[arg(long)]
    per_rank: bool,
    /// chrome: add counter tracks (queue length and memory bandwidth per stream, as the counters analysis).
    #[arg(long)]
    counters: bool,
    /// chrome: mark the kernels of the top kernel sequences this operator launches (as the sequences analysis).
    #[arg(long, value_name = "OPERATOR")]
    patterns: Option<String>,
}

/// Runs `export`.
pub fn run(a: Args) -> Result<()> {
    let format = Format::parse(&a.format).map_err(anyhow::Error::msg)?;
    refuse_inputs(&a.out, &a.paths)?;
    let trace = super::input::read_trace(&a.paths)?;
    let ranks = a.ranks.as_deref().map(parse_int_list).transpose().context("--ranks")?.flatten();
    let ranks = select_ranks(&trace, ranks.as_deref()).map_err(|e| anyhow::anyhow!("--ranks: {e}"))?;
    let range = a.range.as_deref().map(parse_range).transpose().map_err(|e| anyhow::anyhow!("--range: {e}"))?;
    let stem = a.out.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "trace".into());
    let stem = stem.strip_suffix(format.extension()).unwrap_or(&stem).to_string();
    let request = Request { ranks, range, gpu: a.gpu, cats: a.cats, counters: a.counters, patterns: a.patterns, per_rank: a.per_rank };
    if format == Format::Chrome {
        // streamed rank by rank: a Chrome trace is as large as its input
        let several = request.ranks.len() > 1;
        out_folder(&a.out, request.ranks.len())?;
        for &p in &request.ranks {
            let path = if several { a.out.join(format!("{stem}.rank{}.json", trace.ranks[p].rank)) } else { a.out.clone() };
            write_whole(&path, |mut w| write_chrome(&trace, p, &request, &mut w))?;
        }
        say_written(&a.out, request.ranks.len());
        return Ok(());
    }
    let files = export(&trace, format, &request, &stem).map_err(anyhow::Error::msg)?;
    out_folder(&a.out, files.len())?;
    match files.as_slice() {
        [one] => write_whole(&a.out, |w| w.write_all(&one.bytes))?,
        many => {
            for f in many {
                write_whole(&a.out.join(&f.name), |w| w.write_all(&f.bytes))?;
            }
        }
    }
    say_written(&a.out, files.len());
    Ok(())
}

/// Creates the folder `out` when `files` files (one per rank) go into it; one file is `out` itself.
fn out_folder(out: &Path, files: usize) -> Result<()> {
    if files > 1 {
        std::fs::create_dir_all(out).with_context(|| format!("cannot create the folder {}", out.display()))?;
    }
    Ok(())
}

/// Says on stderr what was written: `out`, and how many files when it is a folder.
fn say_written(out: &Path, files: usize) {
    eprintln!("wrote {}{}", out.display(), if files > 1 { format!(" ({files} files, one per rank)") } else { String::new() });
}

/// An error if `out` is one of the input files (or inside an input folder's files).
fn refuse_inputs(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    let Ok(out) = out.canonicalize() else { return Ok(()) }; // does not exist yet: not an input
    for input in inputs {
        if let Ok(i) = input.canonicalize() {
            if i == out || (i.is_dir() && out.starts_with(&i) && out.is_file()) {
                bail!("{}: the output is one of the inputs; choose another -o", out.display());
            }
        }
    }
    Ok(())
}

/// Writes `path` with `write` through a temporary file beside it, renamed when complete (removed
/// when not).
fn write_whole(path: &Path, write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.part-{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    match written.and_then(|_| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(anyhow::anyhow!("cannot write {}: {e}", path.display()))
        }
    }
}
