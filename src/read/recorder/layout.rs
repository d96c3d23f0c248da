//! Which files hold a rank's call signatures, grammar and timestamps, per layout, and reading
//! them into the parts [`super::decode`] joins.

use std::collections::BTreeMap;

use super::bytes::Bytes;
use super::cst::{parse_cst, parse_cst_2_3, Signature};
use super::error::{ErrorKind, RecorderError};
use super::grammar::{parse_grammar, Grammar};
use super::meta::{Layout, Metadata};
use super::zlib::{read_all_blocks, read_block};

/// The folder's files by name (sub-folders such as `_text/` left out).
pub struct Folder<'a> {
    files: BTreeMap<&'a str, &'a [u8]>,
}

impl<'a> Folder<'a> {
    /// The top-level files of `files` (names relative to the folder).
    pub fn new(files: &[(&'a str, &'a [u8])]) -> Self {
        Folder { files: files.iter().filter(|(n, _)| !n.contains('/')).map(|&(n, b)| (n, b)).collect() }
    }

    /// Whether `name` is present.
    pub fn has(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    /// The file names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.files.keys().map(|n| n.to_string()).collect()
    }

    /// `name`'s bytes, or a missing-file error saying it would hold `what`.
    pub fn get(&self, name: &str, what: &str) -> Result<&'a [u8], RecorderError> {
        self.files.get(name).copied().ok_or_else(|| RecorderError::missing(name, what))
    }
}

/// What every rank is decoded from: the call-signature tables and grammars, with the name of the
/// file each came from (for errors), and each rank's timestamp pairs.
pub struct Parts {
    /// Call-signature tables; `cst_of[rank]` indexes them.
    pub csts: Vec<Vec<Signature>>,
    /// Per rank: index into `csts`.
    pub cst_of: Vec<usize>,
    /// Grammars with their file names; `grammar_of[rank]` indexes them.
    pub grammars: Vec<(String, Grammar)>,
    /// Per rank: index into `grammars`.
    pub grammar_of: Vec<usize>,
    /// Per rank: (Δstart, Δend) tick pairs.
    pub ticks: Vec<Vec<(u32, u32)>>,
}

/// Reads the signature tables, grammars and timestamps of `meta`'s layout from `folder`.
pub fn read_parts(folder: &Folder, meta: &Metadata) -> Result<Parts, RecorderError> {
    let ranks = meta.ranks as usize;
    let merged = meta.flags.interprocess_compression;
    let (csts, cst_of) = if merged {
        let (name, data) = match meta.layout {
            Layout::Pilgrim => ("0.cst", folder.get("0.cst", "the merged call-signature table")?.to_vec()),
            Layout::Gotcha => {
                ("recorder.cst", read_all_blocks("recorder.cst", folder.get("recorder.cst", "the merged call-signature table")?)?)
            }
        };
        (vec![parse_cst(&inflated_name(name, meta.layout), &data)?], vec![0; ranks])
    } else {
        let csts = (0..ranks)
            .map(|r| {
                let parse = if meta.minor == 3 { parse_cst_2_3 } else { parse_cst };
                rank_file(folder, meta.layout, &format!("{r}.cst"), "call-signature table", r, parse)
            })
            .collect::<Result<_, _>>()?;
        (csts, (0..ranks).collect())
    };
    let (grammars, grammar_of) = if merged {
        let ug = folder.get("ug.mt", "the rank → unique-grammar map")?;
        let (ids, unique) = parse_ug_map(ug, ranks)?;
        (unique_grammars(folder, meta.layout, unique)?, ids)
    } else {
        let grammars = (0..ranks)
            .map(|r| {
                let name = format!("{r}.cfg");
                rank_file(folder, meta.layout, &name, "grammar", r, parse_grammar).map(|g| (inflated_name(&name, meta.layout), g))
            })
            .collect::<Result<_, _>>()?;
        (grammars, (0..ranks).collect())
    };
    let ticks = match meta.layout {
        Layout::Pilgrim => (0..ranks).map(|r| pilgrim_ticks(folder, r)).collect::<Result<_, _>>()?,
        Layout::Gotcha => gotcha_ticks(folder.get("recorder.ts", "every rank's timestamps")?, ranks, meta.flags.ts_compression)?,
    };
    Ok(Parts { csts, cst_of, grammars, grammar_of, ticks })
}

/// How errors name a file whose content is a zlib block (offsets are then in the inflated bytes).
fn inflated_name(name: &str, layout: Layout) -> String {
    match layout {
        Layout::Pilgrim => name.to_string(),
        Layout::Gotcha => format!("{name} (inflated)"),
    }
}

/// Parses rank `rank`'s own `name` (`what` it holds) with `parse`, inflating it first in the
/// gotcha layout.
fn rank_file<T>(
    folder: &Folder,
    layout: Layout,
    name: &str,
    what: &str,
    rank: usize,
    parse: fn(&str, &[u8]) -> Result<T, RecorderError>,
) -> Result<T, RecorderError> {
    let data = folder.get(name, &format!("rank {rank}'s {what}"))?;
    match layout {
        Layout::Pilgrim => parse(name, data),
        Layout::Gotcha => parse(&inflated_name(name, layout), &read_all_blocks(name, data)?),
    }
}

/// `ug.mt`: an `int` unique-grammar id per rank, then the number of unique grammars. Returns the
/// ids and that number.
pub fn parse_ug_map(data: &[u8], ranks: usize) -> Result<(Vec<usize>, usize), RecorderError> {
    let mut b = Bytes::new("ug.mt", data);
    let mut ids = Vec::with_capacity(ranks.min(data.len() / 4));
    let mut at = Vec::with_capacity(ids.capacity());
    for _ in 0..ranks {
        at.push(b.pos());
        ids.push(b.count("a rank's unique-grammar id")?);
    }
    let unique = b.count("the number of unique grammars")?;
    if let Some((rank, &id)) = ids.iter().enumerate().find(|(_, &id)| id >= unique) {
        return Err(b.corrupt_at(at[rank], format!("rank {rank}'s grammar is {id} but there are {unique} unique grammars")));
    }
    Ok((ids, unique))
}

/// The `unique` grammars: pilgrim `<i>.cfg` files, or the gotcha `ug.cfg` blocks in order.
fn unique_grammars(folder: &Folder, layout: Layout, unique: usize) -> Result<Vec<(String, Grammar)>, RecorderError> {
    match layout {
        Layout::Pilgrim => (0..unique)
            .map(|i| {
                let name = format!("{i}.cfg");
                let data = folder.get(&name, &format!("unique grammar {i}"))?;
                parse_grammar(&name, data).map(|g| (name, g))
            })
            .collect(),
        Layout::Gotcha => {
            let mut b = Bytes::new("ug.cfg", folder.get("ug.cfg", "the unique grammars")?);
            (0..unique)
                .map(|i| {
                    let name = format!("ug.cfg (inflated block {i})");
                    let data = read_block(&mut b)?;
                    parse_grammar(&name, &data).map(|g| (name, g))
                })
                .collect()
        }
    }
}

/// Rank `rank`'s pilgrim `<rank>.ts`: raw `uint32_t` pairs.
fn pilgrim_ticks(folder: &Folder, rank: usize) -> Result<Vec<(u32, u32)>, RecorderError> {
    let name = format!("{rank}.ts");
    let data = folder.get(&name, &format!("rank {rank}'s timestamps"))?;
    tick_pairs(&name, data)
}

/// `data` as (start, end) pairs of little-endian `uint32_t`; its length must be a multiple of 8.
pub fn tick_pairs(file: &str, data: &[u8]) -> Result<Vec<(u32, u32)>, RecorderError> {
    if !data.len().is_multiple_of(8) {
        let msg = format!("{} bytes of timestamps are not whole (start, end) pairs of 4-byte ticks", data.len());
        return Err(RecorderError::at(file, data.len() - data.len() % 8, ErrorKind::Corrupt(msg)));
    }
    let word = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    Ok(data.chunks_exact(8).map(|c| (word(&c[..4]), word(&c[4..]))).collect())
}

/// gotcha `recorder.ts` (`ts_merge_files` in `lib/recorder-timestamps.c`): one `size_t` byte count
/// per rank, then each rank's bytes in rank order: zlib blocks if `compressed`, else raw pairs.
pub fn gotcha_ticks(data: &[u8], ranks: usize, compressed: bool) -> Result<Vec<Vec<(u32, u32)>>, RecorderError> {
    let mut b = Bytes::new("recorder.ts", data);
    let sizes = (0..ranks).map(|_| b.u64("a rank's timestamp byte count")).collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(ranks);
    for (rank, &size) in sizes.iter().enumerate() {
        let start = b.pos();
        let slice = b.take(usize::try_from(size).unwrap_or(usize::MAX), "a rank's timestamps")?;
        let raw = if compressed {
            // blocks are read from the whole file so that errors carry absolute offsets
            let mut inner = Bytes::new("recorder.ts", &data[..start + slice.len()]);
            inner.take(start, "padding")?;
            let mut raw = Vec::new();
            while inner.remaining() > 0 {
                raw.extend(read_block(&mut inner)?);
            }
            raw
        } else {
            slice.to_vec()
        };
        out.push(tick_pairs(&format!("recorder.ts (rank {rank}'s timestamps)"), &raw)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ug_map_ids_and_count() {
        let data: Vec<u8> = [0i32, 1, 0, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(parse_ug_map(&data, 3).unwrap(), (vec![0, 1, 0], 2));
        let e = parse_ug_map(&data, 2).unwrap_err().to_string();
        assert_eq!(e, "ug.mt at byte 0: corrupt: rank 0's grammar is 0 but there are 0 unique grammars");
    }

    #[test]
    fn tick_pairs_must_be_whole() {
        let data: Vec<u8> = [1u32, 2, 3, 4].iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(tick_pairs("0.ts", &data).unwrap(), vec![(1, 2), (3, 4)]);
        assert_eq!(
            tick_pairs("0.ts", &data[..12]).unwrap_err().to_string(),
            "0.ts at byte 8: corrupt: 12 bytes of timestamps are not whole (start, end) pairs of 4-byte ticks"
        );
    }

    #[test]
    fn gotcha_timestamps_are_split_by_the_leading_sizes() {
        let mut data: Vec<u8> = [8u64, 16].iter().flat_map(|i| i.to_le_bytes()).collect();
        data.extend([1u32, 2, 3, 4, 5, 6].iter().flat_map(|i| i.to_le_bytes()));
        assert_eq!(gotcha_ticks(&data, 2, false).unwrap(), vec![vec![(1, 2)], vec![(3, 4), (5, 6)]]);
    }
}
