//! Whether a drop fits in the page, decided before its traces are read. A wasm32 instance's
//! memory grows to 4 GiB at most ([`WASM32_MEMORY`]) and the reading worker's instance holds the
//! whole trace, so a drop whose estimate is larger is refused with a message that says how big
//! it is, what it would need, the limit, and what to do instead ([`Estimate::message`]).
//!
//! The estimate ([`estimate`]) is what the instance already holds, plus
//! [`MEMORY_PER_CONTENT_BYTE`] times the content of all the files (the ranks kept, and what the
//! dashboard keeps per rank), plus [`MEMORY_PER_LARGEST_BYTE`] times the content of the largest
//! file (what the dashboard's analyses hold while they work on one rank). The content of a file is its size, or for gzip (its first
//! bytes `1f 8b`) at least the size its trailer records (ISIZE, the last 4 bytes: the last
//! member's inflated size modulo 2^32) and at least the compressed size. Both are lower bounds,
//! so a gzip file is never refused for a size it might not have; one that inflates to more than
//! 4 GiB can be under-estimated (the CLI reads it).

use serde::{Deserialize, Serialize};

use super::folders::{plan, Role};
use crate::read::inflate::content_at_least;
use crate::read::size_text;

/// The most memory a wasm32 instance can have: 65,536 pages of 64 KiB.
pub const WASM32_MEMORY: u64 = 4 << 30;

/// Bytes of the reading worker's wasm memory per byte of trace content once the Overview is
/// shown, over all files, and per byte of the largest file: fitted to the memory measured on
/// Kineto JSON (docs/performance.md, "Many ranks in the page"): 1,185–1,198 MiB for one rank of 1.03
/// GB, 1,020 MiB for 64 ranks of 19.7 MB. (When the trace is read and before the dashboard, it
/// is 0.33–0.38 bytes per byte.) In thousandths: 0.85 bytes per byte. Not refitted since: the
/// Overview now takes 0.33–0.36 bytes per byte, and opening every panel in both modes 0.65 on
/// the 488 MB benchmark trace, so the margin is what the panels take after the Overview.
pub const MEMORY_PER_CONTENT_BYTE: Thousandths = Thousandths(850);
/// See [`MEMORY_PER_CONTENT_BYTE`]: 0.35 bytes per byte of the largest file.
pub const MEMORY_PER_LARGEST_BYTE: Thousandths = Thousandths(350);

/// A ratio in thousandths (integer arithmetic: the estimate is exact and the same everywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thousandths(pub u64);

/// A dropped file as the page sees it before reading: where it was in what was dropped (see
/// [`plan`]), its size, its first 2 bytes and its last 4 (read with `File.slice`).
#[derive(Debug, Clone, Deserialize)]
pub struct Dropped {
    /// The path in what was dropped or picked (a file's name if dropped alone).
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// The first bytes (2 are enough: the gzip magic).
    #[serde(default)]
    pub head: Vec<u8>,
    /// The last bytes (4 are enough: the gzip ISIZE).
    #[serde(default)]
    pub tail: Vec<u8>,
}

/// What a drop needs, against the limit.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    /// Files that would be read (a Recorder folder's other files are left out, as in reading).
    pub files: usize,
    /// Their bytes, as dropped.
    pub input_bytes: u64,
    /// Their content, at least (gzip files inflated, lower bound).
    pub content_bytes: u64,
    /// The content of each file given, at least, in their order (those left out too): the page
    /// parses a file on every core by it.
    pub content_sizes: Vec<u64>,
    /// Whether each file given is gzip, in their order (its blocks are cut after inflating).
    pub gzip: Vec<bool>,
    /// The content of the largest of them, at least.
    pub largest_bytes: u64,
    /// How many of them are gzip.
    pub gzip_files: usize,
    /// Memory the instance already has (a Diff mode's first run).
    pub in_use_bytes: u64,
    /// Estimated memory at the Overview: `in_use_bytes` plus the content's share.
    pub need_bytes: u64,
    /// The most the instance may have.
    pub limit_bytes: u64,
    /// Whether `need_bytes` is within `limit_bytes`.
    pub fits: bool,
    /// Why the drop is refused, for the page to show; `None` when it fits.
    pub message: Option<String>,
}

/// The estimate of reading `files` in an instance that already has `in_use` bytes, against
/// `limit` bytes (`overridden`: the limit was set for a test, `?memory-limit=`; the message
/// says so).
pub fn estimate(files: &[Dropped], in_use: u64, limit: u64, overridden: bool) -> Estimate {
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let contents: Vec<(u64, bool)> = files.iter().map(|f| content_at_least(f.size, &f.head, &f.tail)).collect();
    let read: Vec<(&Dropped, (u64, bool))> =
        files.iter().zip(contents.iter().copied()).zip(plan(&paths)).filter(|(_, role)| *role != Role::Skip).map(|(f, _)| f).collect();
    let (mut input_bytes, mut content_bytes, mut largest_bytes, mut gzip_files) = (0u64, 0u64, 0u64, 0usize);
    for &(f, (content, gz)) in &read {
        input_bytes += f.size;
        content_bytes += content;
        largest_bytes = largest_bytes.max(content);
        gzip_files += usize::from(gz);
    }
    let need_bytes = in_use + share(content_bytes, MEMORY_PER_CONTENT_BYTE) + share(largest_bytes, MEMORY_PER_LARGEST_BYTE);
    let mut e = Estimate {
        files: read.len(),
        input_bytes,
        content_bytes,
        content_sizes: contents.iter().map(|&(content, _)| content).collect(),
        gzip: contents.iter().map(|&(_, gz)| gz).collect(),
        largest_bytes,
        gzip_files,
        in_use_bytes: in_use,
        need_bytes,
        limit_bytes: limit,
        fits: need_bytes <= limit,
        message: None,
    };
    if !e.fits {
        e.message = Some(refusal(&e, overridden));
    }
    e
}

/// `bytes` times `per_byte`, rounded down.
fn share(bytes: u64, per_byte: Thousandths) -> u64 {
    (u128::from(bytes) * u128::from(per_byte.0) / 1000).try_into().unwrap_or(u64::MAX)
}

/// The text of a refusal: the input, the need, the limit, what to do.
fn refusal(e: &Estimate, overridden: bool) -> String {
    let what = if e.files == 1 { "this file".to_string() } else { format!("these {} files", e.files) };
    let size = match e.gzip_files {
        0 => size_text(e.input_bytes),
        _ => format!("{}, at least {} once inflated", size_text(e.input_bytes), size_text(e.content_bytes)),
    };
    let held = if e.in_use_bytes >= 256 << 20 {
        format!(", with the {} this tab already holds", size_text(e.in_use_bytes))
    } else {
        String::new()
    };
    let limit = if overridden {
        format!("the {} limit set by ?memory-limit", size_text(e.limit_bytes))
    } else {
        format!("the {} a browser lets a page's WebAssembly memory grow to", size_text(e.limit_bytes))
    };
    let instead = if e.files == 1 {
        "Read it with the command line instead, which has no such limit: kinetoscope analyze FILE --out OUT (or kinetoscope \
         info, summary, … on it)."
            .to_string()
    } else {
        // files of the average size that fit beside the largest one's working memory
        let per_file = share(e.content_bytes / e.files as u64, MEMORY_PER_CONTENT_BYTE);
        let room = e.limit_bytes.saturating_sub(e.in_use_bytes + share(e.largest_bytes, MEMORY_PER_LARGEST_BYTE));
        let fewer = match room.checked_div(per_file).unwrap_or(0) {
            0 => ". Even one of these files is too large for the page.".to_string(),
            1 => "; or open them one at a time.".to_string(),
            n => format!("; or open fewer ranks at a time: about {n} of these files fit."),
        };
        format!(
            "Read them with the command line instead, which has no such limit: kinetoscope analyze DIR --out OUT (or \
             kinetoscope info, summary, … on the files){fewer}"
        )
    };
    format!(
        "Not opened: {what} ({size}) would need about {need} of memory in this page{held}, more than {limit}. Nothing was read. \
         {instead}",
        need = size_text(e.need_bytes),
    )
}

/// A size as `?memory-limit=` takes it: `64M`, `1.5G`, `2048K` or bytes (powers of 1024; `B`,
/// `KB`, `KiB`… accepted too; at most `G`). `None` for anything else, or for zero.
pub fn parse_size(text: &str) -> Option<u64> {
    crate::read::parse_size(text, 'G').ok().filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, size: u64, head: &[u8], tail: &[u8]) -> Dropped {
        Dropped { path: path.to_string(), size, head: head.to_vec(), tail: tail.to_vec() }
    }

    #[test]
    fn sixty_four_ranks_of_20_mb_fit_and_1_gb_fits() {
        let ranks: Vec<Dropped> = (0..64).map(|i| file(&format!("run/rank{i}.json"), 20_000_000, b"{\n", b"]}\n\n")).collect();
        let e = estimate(&ranks, 30 << 20, WASM32_MEMORY, false);
        assert!(e.fits && e.message.is_none(), "{e:?}");
        assert_eq!(
            (e.files, e.input_bytes, e.content_bytes, e.largest_bytes, e.gzip_files),
            (64, 1_280_000_000, 1_280_000_000, 20_000_000, 0)
        );
        assert_eq!(e.need_bytes, (30 << 20) + 1_088_000_000 + 7_000_000);
        let one = estimate(&[file("one.json", 1 << 30, b"{", b"}")], 0, WASM32_MEMORY, false);
        assert_eq!((one.fits, one.need_bytes), (true, 1_288_490_188));
        // 3.3 GiB in one file is about the most that fits
        assert!(!estimate(&[file("one.json", 3_600_000_000, b"{", b"}")], 0, WASM32_MEMORY, false).fits);
    }

    #[test]
    fn too_much_is_refused_with_the_sizes_the_limit_and_what_to_do() {
        let ranks: Vec<Dropped> =
            (0..8).map(|i| file(&format!("run/rank{i}.json.gz"), 200 << 20, &[0x1f, 0x8b], &(1u32 << 30).to_le_bytes())).collect();
        let e = estimate(&ranks, 0, WASM32_MEMORY, false);
        assert!(!e.fits);
        assert_eq!((e.content_bytes, e.largest_bytes, e.gzip_files), (8 << 30, 1 << 30, 8));
        assert_eq!(e.content_sizes, vec![1 << 30; 8]);
        assert_eq!(e.gzip, vec![true; 8]);
        assert_eq!(
            e.message.as_deref(),
            Some(
                "Not opened: these 8 files (1.6 GiB, at least 8 GiB once inflated) would need about 7.1 GiB of memory in this \
                 page, more than the 4 GiB a browser lets a page's WebAssembly memory grow to. Nothing was read. Read them with \
                 the command line instead, which has no such limit: kinetoscope analyze DIR --out OUT (or kinetoscope info, \
                 summary, … on the files); or open fewer ranks at a time: about 4 of these files fit."
            )
        );
        let huge: Vec<Dropped> = (0..2).map(|i| file(&format!("rank{i}.json"), 2 << 30, b"[", b"]")).collect();
        let m = estimate(&huge, 0, WASM32_MEMORY, false).message.unwrap_or_default();
        assert!(m.ends_with("(or kinetoscope info, summary, … on the files); or open them one at a time."), "{m}");
        let too_big: Vec<Dropped> = (0..2).map(|i| file(&format!("rank{i}.json"), 7 << 29, b"[", b"]")).collect();
        let m = estimate(&too_big, 0, WASM32_MEMORY, false).message.unwrap_or_default();
        assert!(m.ends_with("(or kinetoscope info, summary, … on the files). Even one of these files is too large for the page."), "{m}");
        // one file; a limit set for a test; memory already held (a Diff mode's first run)
        let e = estimate(&[file("big.json", 300 << 20, b"{", b"}")], 512 << 20, 256 << 20, true);
        assert!(!e.fits);
        let m = e.message.unwrap_or_default();
        assert_eq!(
            m,
            "Not opened: this file (300 MiB) would need about 872 MiB of memory in this page, with the 512 MiB this tab \
             already holds, more than the 256 MiB limit set by ?memory-limit. Nothing was read. Read it with the command line \
             instead, which has no such limit: kinetoscope analyze FILE --out OUT (or kinetoscope info, summary, … on it)."
        );
    }

    /// A Recorder folder's files that reading leaves out are not counted.
    #[test]
    fn skipped_files_do_not_count() {
        let files = [file("t/recorder.mt", 10, b"", b""), file("t/_text/0.txt", 1 << 40, b"", b""), file("t/0.cst", 20, b"", b"")];
        let e = estimate(&files, 0, WASM32_MEMORY, false);
        assert_eq!((e.files, e.input_bytes), (2, 30));
        // each file's content, in the order given, the skipped one too (the page indexes it so)
        assert_eq!(e.content_sizes, [10, 1 << 40, 20]);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size(" 1.5 GiB"), Some(3 << 29));
        assert_eq!(parse_size("2048k"), Some(2 << 20));
        assert_eq!(parse_size("1000"), Some(1000));
        for bad in ["", "0", "-1M", "lots", "5T", "NaN"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
