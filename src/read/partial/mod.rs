//! Partial files: the parsed ranks of some of a trace's input files, so that many machines can
//! parse (the slow part of reading) and one machine analyses. `kinetoscope analyze PATH...
//! --partial FILE` writes one ([`encode`]); `kinetoscope merge FILE... --out DIR` reads them
//! ([`decode`]), joins their ranks in order ([`join`]) and analyses the trace that
//! [`crate::read::assemble`] makes of them, which is the trace one `analyze` of all the files in
//! that order reads (docs/cluster.md).
//!
//! A partial holds each input file's [`RankTrace`] as reading left it, before `assemble`: rank
//! numbers, rocprofv3 process merging and steps depend on the whole file list, so they are
//! decided at the merge; links are computed on first use, as always. Every other field is
//! stored: files, sizes, format, metadata, strings, ids, every event column (sparse ones
//! included), process and thread names, counts and warnings.
//!
//! Layout, all numbers little-endian (version 1):
//!
//! | bytes | what |
//! |---|---|
//! | 20 | [`MAGIC`], `KINETOSCOPE-PARTIAL` and a NUL byte |
//! | 4 | the format version (`u32`, [`VERSION`]) |
//! | 4 + n | the writing kinetoscope's version: its length (`u32`), then UTF-8 |
//! | 1 | the content's compression: 0 none, 1 raw deflate (RFC 1951) |
//! | 8 | the content's length, uncompressed (`u64`) |
//! | 4 | the content's CRC-32 (uncompressed) |
//! | the rest | the content: the number of ranks (`u32`), then each rank ([`encode`]'s module) |
//!
//! The version changes whenever the content's layout or the numbering of the model's kinds,
//! phases, sparse arguments or formats does (a test pins the numbering of version 1); a reader
//! refuses any other version.
//!
//! Files: `encode.rs` (writing), `decode.rs` (reading, with the checks that keep damaged input
//! from reaching the analyses), `join.rs` (partials in order into one trace, with the merge's
//! refusals).

mod decode;
mod encode;
mod join;

use std::fmt;

use crate::model::RankTrace;

pub use decode::decode;
pub use encode::{encode, Compression};
pub use join::join;

/// The first bytes of every partial file.
pub const MAGIC: &[u8; 20] = b"KINETOSCOPE-PARTIAL\0";

/// The format version this kinetoscope writes and reads.
pub const VERSION: u32 = 1;

/// The kinetoscope version a partial records as its writer.
pub const WRITER: &str = env!("CARGO_PKG_VERSION");

/// One partial file, decoded: its name (for messages) and its ranks in stored order.
#[derive(Debug, Clone)]
pub struct Partial {
    /// The partial's file name as the user gave it.
    pub file: String,
    /// The ranks it holds, one per input file (a Recorder folder: one per Recorder rank), in
    /// the order `analyze` read them.
    pub ranks: Vec<RankTrace>,
}

/// Where a damaged partial's byte offset counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The file itself (the header, or compressed content).
    File,
    /// The content once decompressed.
    Content,
}

/// Why partials cannot be read or merged. `Display` writes the message users see; each names
/// the partial file(s) concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartialError {
    /// The file does not start with [`MAGIC`].
    NotPartial {
        /// The file.
        file: String,
    },
    /// A partial of another format version.
    Version {
        /// The file.
        file: String,
        /// Its format version.
        found: u32,
        /// The kinetoscope version that wrote it, when readable.
        writer: Option<String>,
    },
    /// A truncated or damaged partial.
    Damaged {
        /// The file.
        file: String,
        /// Byte offset of the problem.
        offset: u64,
        /// What the offset counts from.
        place: Place,
        /// What was expected there.
        expected: String,
        /// What was found instead.
        found: String,
    },
    /// One input file read into two partials.
    SameInput {
        /// The input file.
        input: String,
        /// The earlier partial holding it.
        first: String,
        /// The later partial holding it.
        second: String,
    },
    /// Two partials with the same explicit rank (`distributedInfo.rank`, or a rank in a file
    /// name).
    SameRank {
        /// The rank.
        rank: u32,
        /// The earlier partial and its input claiming the rank.
        first: (String, String),
        /// The later partial and its input claiming the rank.
        second: (String, String),
    },
}

impl fmt::Display for PartialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialError::NotPartial { file } => write!(
                f,
                "{file}: not a kinetoscope partial (it does not start with KINETOSCOPE-PARTIAL); partials are written by \
                 `kinetoscope analyze PATH... --partial FILE`"
            ),
            PartialError::Version { file, found, writer } => {
                write!(f, "{file}: partial format version {found}")?;
                if let Some(w) = writer {
                    write!(f, " (written by kinetoscope {w})")?;
                }
                write!(
                    f,
                    ", this kinetoscope ({WRITER}) reads version {VERSION}; write the partials and merge with the same kinetoscope version"
                )
            }
            PartialError::Damaged { file, offset, place, expected, found } => {
                let of = match place {
                    Place::File => "",
                    Place::Content => " of the decompressed content",
                };
                write!(f, "{file}: byte {offset}{of}: expected {expected}, found {found} (the partial is truncated or damaged)")
            }
            PartialError::SameInput { input, first, second } if first == second => {
                write!(f, "{first} is given twice (its input {input} would be read twice)")
            }
            PartialError::SameInput { input, first, second } => {
                write!(f, "{input} is in two partials, {first} and {second}; read each input file into one partial only")
            }
            PartialError::SameRank { rank, first, second } => write!(
                f,
                "rank {rank} is claimed by {} in {} and by {} in {}; each rank must come from one partial (a file's rank is its \
                 distributedInfo.rank, else a rank number in its name)",
                first.1, first.0, second.1, second.0
            ),
        }
    }
}

impl std::error::Error for PartialError {}

#[cfg(test)]
mod tests;
