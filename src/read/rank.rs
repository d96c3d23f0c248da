//! Multi-file traces: which file is which rank, then the links of every rank.
//!
//! Rank of a file, first that applies:
//! 1. `distributedInfo.rank` of the file (HTA reads it with a text regex that needs a blank after
//!    the colon, SPEC §1.1/§5.10; we read the JSON value, so compact JSON works too);
//! 2. a number in the file name: `rank-3`, `rank_3`, `rank3`, `worker3` (case-insensitive);
//! 3. otherwise the lowest rank not yet taken, in the order the files were given.
//!
//! Two files claiming the same rank: HTA silently keeps the later one; we keep both, warn, and
//! give the later file the lowest free rank.

use crate::error::WarningKind;
use crate::model::{RankTrace, Trace};

/// The rank number a file name carries, if any.
pub fn rank_from_file_name(name: &str) -> Option<u32> {
    let base = crate::model::base_name(name).to_ascii_lowercase();
    for tag in ["rank", "worker"] {
        let mut from = 0;
        while let Some(p) = base[from..].find(tag) {
            let rest = &base[from + p + tag.len()..];
            let rest = rest.strip_prefix(['-', '_', '.']).unwrap_or(rest);
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty() {
                if let Ok(r) = digits.parse() {
                    return Some(r);
                }
            }
            from += p + tag.len();
        }
    }
    None
}

/// Assigns ranks, merges files that belong to one process (rocprofv3 CSV sets), computes the
/// links, and sorts ranks by number.
pub fn assemble(mut ranks: Vec<RankTrace>) -> Trace {
    crate::read::rocprof::merge_process_files(&mut ranks);
    number_ranks(ranks)
}

/// The rank a file asks for: its `distributedInfo.rank`, else a rank number in its name
/// ([`rank_from_file_name`]).
pub fn explicit_rank(r: &RankTrace) -> Option<u32> {
    r.meta
        .distributed
        .as_ref()
        .and_then(|d| d.rank)
        .and_then(|x| u32::try_from(x).ok())
        .or_else(|| r.files.first().and_then(|f| rank_from_file_name(f)))
}

/// [`assemble`] after the merging of process files: gives every rank its number (see the
/// module docs), finds its steps, and sorts ranks by number.
pub fn number_ranks(mut ranks: Vec<RankTrace>) -> Trace {
    let mut trace = Trace::default();
    let wanted: Vec<Option<u32>> = ranks.iter().map(explicit_rank).collect();
    let mut taken = std::collections::BTreeSet::new();
    let mut assigned = vec![None; ranks.len()];
    for (i, w) in wanted.iter().enumerate() {
        if let Some(w) = w {
            if taken.insert(*w) {
                assigned[i] = Some(*w);
            } else {
                let file = ranks[i].files.first().cloned().unwrap_or_default();
                trace.warnings.add(WarningKind::DuplicateRank, &file, 0, || format!("rank {w} is already taken by another file"));
            }
        }
    }
    let mut next = 0u32;
    for a in assigned.iter_mut() {
        if a.is_none() {
            while taken.contains(&next) {
                next += 1;
            }
            taken.insert(next);
            *a = Some(next);
        }
    }
    for (r, a) in ranks.iter_mut().zip(assigned) {
        r.rank = a.unwrap_or(0);
        r.steps = crate::model::links::find_steps(r);
    }
    ranks.sort_by_key(|r| r.rank);
    trace.ranks = ranks;
    trace
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_from_names() {
        assert_eq!(rank_from_file_name("dir/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"), Some(34));
        assert_eq!(rank_from_file_name("worker3_step_12.1694128201557.pt.trace.json"), Some(3));
        assert_eq!(rank_from_file_name("Rank_7.json"), Some(7));
        assert_eq!(rank_from_file_name("trace.json"), None);
        assert_eq!(rank_from_file_name("ranking-1/x.json"), None);
    }
}
