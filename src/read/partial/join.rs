//! Partials in order into one trace: what `kinetoscope merge` analyses.
//!
//! The ranks are taken partial by partial, each partial's in stored order, with the ranks of
//! Recorder folders first (as `analyze` reads Recorder folders before the other inputs), then
//! assembled as [`crate::read::assemble`] does. So merging partials equals one `analyze` of
//! their inputs in the same order: a sorted file list cut into contiguous chunks, the chunks'
//! partials given in chunk order, gives the trace of the whole list.
//!
//! Refused, as they are almost surely a mistake in how the inputs were split: one input file
//! in two partials, and two partials whose files claim the same rank (`distributedInfo.rank`,
//! or a rank number in the file name; within one partial the usual rule applies: the later file
//! gets the next free rank, with a warning).

use std::collections::HashMap;

use super::{Partial, PartialError};
use crate::model::{Format, RankTrace, Trace};
use crate::read::rank::{explicit_rank, number_ranks};

/// The trace of `partials` merged in order (see the module docs).
pub fn join(partials: Vec<Partial>) -> Result<Trace, PartialError> {
    let owner = owners(&partials)?;
    let names: Vec<String> = partials.iter().map(|p| p.file.clone()).collect();
    let mut ranks: Vec<RankTrace> = partials.into_iter().flat_map(|p| p.ranks).collect();
    // stable: Recorder ranks first, each group in partial order
    ranks.sort_by_key(|r| r.format != Some(Format::Recorder));
    crate::read::rocprof::merge_process_files(&mut ranks);
    let mut claimed: HashMap<u32, (usize, &str)> = HashMap::new();
    for r in &ranks {
        let (Some(rank), Some(input)) = (explicit_rank(r), r.files.first()) else { continue };
        let part = owner.get(input.as_str()).copied().unwrap_or_default();
        match claimed.get(&rank) {
            Some(&(p, other)) if p != part => {
                return Err(PartialError::SameRank {
                    rank,
                    first: (names[p].clone(), other.to_string()),
                    second: (names[part].clone(), input.clone()),
                })
            }
            Some(_) => {}
            None => {
                claimed.insert(rank, (part, input));
            }
        }
    }
    Ok(number_ranks(ranks))
}

/// Which partial holds each input file; an input in two partials is an error.
fn owners(partials: &[Partial]) -> Result<HashMap<String, usize>, PartialError> {
    let mut owner: HashMap<String, usize> = HashMap::new();
    for (i, p) in partials.iter().enumerate() {
        for input in p.ranks.iter().flat_map(|r| &r.files) {
            match owner.get(input) {
                Some(&j) if j != i => {
                    return Err(PartialError::SameInput { input: input.clone(), first: partials[j].file.clone(), second: p.file.clone() })
                }
                Some(_) => {}
                None => {
                    owner.insert(input.clone(), i);
                }
            }
        }
    }
    Ok(owner)
}
