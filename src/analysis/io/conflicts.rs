//! Conflicting accesses, as Recorder's `conflict_detector` finds them: two reads or writes of one
//! file by different ranks whose byte ranges overlap, at least one a write. Each pair is named by
//! its order in time: a write then a write (`WAW`), a write then a read (`RAW`), a read then a
//! write (`WAR`). A pair is *concurrent* when the two ranks' sessions of the file (open to close)
//! overlap in time: then POSIX gives no order between them (MPI-IO needs sync-barrier-sync).
//!
//! Per file the ops are swept by offset, so the work is the ops plus the overlapping pairs (files
//! of one rank are passed over); at most `budget` pairs are looked at in all (then the result
//! says it stopped).

use std::collections::BTreeMap;

use super::replay::{DataOp, Session};

/// Conflicting pairs of one file, kind and rank pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Conflict {
    /// Pairs.
    pub pairs: i64,
    /// Bytes both touched, summed over the pairs.
    pub bytes: i64,
    /// Pairs whose sessions overlap in time.
    pub concurrent: i64,
    /// The earliest start of a pair's second op, ns.
    pub first_ns: i64,
}

/// (file, kind, first rank, second rank).
pub type Key = (u32, &'static str, u32, u32);

/// Conflicts by [`Key`].
pub type ByKey = BTreeMap<Key, Conflict>;

/// The conflicts, and whether the budget ran out.
pub type Conflicts = (ByKey, bool);

/// The conflicts among `ops` (sessions: `sessions`), looking at `budget` overlapping pairs at most.
pub fn conflicts(ops: &[DataOp], sessions: &[Session], budget: u64) -> Conflicts {
    let mut by_file: Vec<&DataOp> = ops.iter().filter(|o| o.bytes > 0).collect();
    by_file.sort_unstable_by_key(|o| (o.file, o.offset));
    let mut out = ByKey::new();
    let mut looked = 0u64;
    for ops in by_file.chunk_by(|a, b| a.file == b.file) {
        // a file of one rank has no conflicts (and a rank rewriting its blocks many pairs)
        if ops.iter().all(|o| o.rank == ops[0].rank) {
            continue;
        }
        if sweep(ops, sessions, budget, &mut looked, &mut out) {
            return (out, true);
        }
    }
    (out, false)
}

/// The conflicts among one file's `ops` (sorted by offset) into `out`; `looked` counts the
/// overlapping pairs looked at. Whether the budget ran out.
fn sweep(ops: &[&DataOp], sessions: &[Session], budget: u64, looked: &mut u64, out: &mut ByKey) -> bool {
    for (i, a) in ops.iter().enumerate() {
        let a_end = a.offset + a.bytes;
        for b in &ops[i + 1..] {
            if b.offset >= a_end {
                break;
            }
            *looked += 1;
            if *looked > budget {
                return true;
            }
            if a.rank == b.rank || !(a.write || b.write) {
                continue;
            }
            let (first, second) = if (a.start, a.rank) <= (b.start, b.rank) { (a, b) } else { (b, a) };
            let kind = match (first.write, second.write) {
                (true, true) => "WAW",
                (true, false) => "RAW",
                _ => "WAR",
            };
            let (s1, s2) = (&sessions[first.session as usize], &sessions[second.session as usize]);
            let c = out.entry((a.file, kind, first.rank, second.rank)).or_insert(Conflict { first_ns: i64::MAX, ..Conflict::default() });
            c.pairs += 1;
            c.bytes += a_end.min(b.offset + b.bytes) - b.offset;
            c.concurrent += i64::from(s1.start < s2.end && s2.start < s1.end);
            c.first_ns = c.first_ns.min(second.start);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(rank: u32, session: u32, start: i64, offset: i64, bytes: i64, write: bool) -> DataOp {
        DataOp { file: 0, rank, session, start, offset, bytes, write }
    }

    #[test]
    fn overlapping_ranges_of_different_ranks_with_a_write() {
        let sessions = [
            Session { file: 0, rank: 0, start: 0, end: 100 },
            Session { file: 0, rank: 1, start: 50, end: 200 },
            Session { file: 0, rank: 2, start: 300, end: 400 },
        ];
        let ops = [
            op(0, 0, 10, 0, 100, true),    // rank 0 writes 0..100
            op(1, 1, 60, 50, 100, true),   // rank 1 writes 50..150: WAW 0→1, 50 bytes, concurrent
            op(2, 2, 310, 120, 10, false), // rank 2 reads 120..130: RAW 1→2, 10 bytes, not concurrent
            op(2, 2, 320, 0, 10, false),   // rank 2 reads 0..10: RAW 0→2
            op(0, 0, 20, 200, 10, false),  // nothing else there
            op(1, 1, 70, 140, 0, true),    // zero bytes: never a conflict
        ];
        let (c, stopped) = conflicts(&ops, &sessions, 100);
        assert!(!stopped);
        let got: Vec<_> = c.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(
            got,
            vec![
                ((0, "RAW", 0, 2), Conflict { pairs: 1, bytes: 10, concurrent: 0, first_ns: 320 }),
                ((0, "RAW", 1, 2), Conflict { pairs: 1, bytes: 10, concurrent: 0, first_ns: 310 }),
                ((0, "WAW", 0, 1), Conflict { pairs: 1, bytes: 50, concurrent: 1, first_ns: 60 }),
            ]
        );
        assert!(conflicts(&ops, &sessions, 1).1, "the budget stops the sweep");
    }
}
