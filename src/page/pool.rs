//! The ranks of a drop read by several Web Workers. A file smaller than the page's split size is
//! a *whole-file job*: a helper worker reads it with its own [`FileReader`] and sends the rank
//! back encoded ([`encode_rank`]: the partial-file encoding of [`crate::read::partial`],
//! uncompressed, which stores every field of a rank as reading left it). The reading worker
//! keeps each rank at its file's place ([`InOrder`]): results come in any order, the trace is
//! assembled in file order, so it is the trace a one-by-one read gives, rank for rank and
//! warning for warning.

use crate::error::ReadError;
use crate::model::RankTrace;
use crate::read::partial::{self, Compression};
use crate::read::FileReader;

/// A file read whole by one worker, pushed in chunks ([`FileReader`] with the size known).
pub struct WholeFile {
    reader: FileReader,
}

impl WholeFile {
    /// A reader for the file `name` of `size` bytes.
    pub fn new(name: &str, size: Option<u64>) -> WholeFile {
        WholeFile { reader: FileReader::new(name, size) }
    }

    /// The next chunk of the file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.reader.push(chunk)
    }

    /// Bytes of the file consumed so far.
    pub fn bytes_consumed(&self) -> u64 {
        self.reader.bytes_consumed()
    }

    /// After the last chunk: the rank, encoded for [`InOrder::put_encoded`]. The error is the
    /// one a one-by-one read of the file gives.
    pub fn finish(self) -> Result<Vec<u8>, ReadError> {
        Ok(encode_rank(&self.reader.finish()?))
    }
}

/// One rank as a whole-file job sends it back.
pub fn encode_rank(rank: &RankTrace) -> Vec<u8> {
    partial::encode(std::slice::from_ref(rank), Compression::None)
}

/// The ranks read so far, each at its file's place in the drop; folders (Recorder traces,
/// decoded at the end) after every file, in the order they come.
#[derive(Default)]
pub struct InOrder {
    ranks: Vec<(u32, RankTrace)>,
}

/// The place of ranks that come after every file (Recorder folders).
pub const AFTER_FILES: u32 = u32::MAX;

impl InOrder {
    /// The rank of the file at place `at`.
    pub fn put(&mut self, at: u32, rank: RankTrace) {
        self.ranks.push((at, rank));
    }

    /// The rank of the file `name` at place `at`, encoded by a whole-file job ([`encode_rank`]).
    /// An error (a bug, or damage between the workers; never the trace's fault) names the file.
    pub fn put_encoded(&mut self, at: u32, name: &str, bytes: &[u8]) -> Result<(), String> {
        let mut ranks = partial::decode(name, bytes).map_err(|e| format!("{name}: the rank a parse helper sent back is damaged: {e}"))?;
        match (ranks.pop(), ranks.is_empty()) {
            (Some(rank), true) => {
                self.put(at, rank);
                Ok(())
            }
            _ => Err(format!("{name}: a parse helper sent back {} ranks for one file", ranks.len() + 1)),
        }
    }

    /// Ranks that come after every file, in this order (the decoded Recorder folders).
    pub fn extend_after_files(&mut self, ranks: impl IntoIterator<Item = RankTrace>) {
        self.ranks.extend(ranks.into_iter().map(|r| (AFTER_FILES, r)));
    }

    /// The ranks in file order (ranks of one place in the order they came).
    pub fn into_ranks(mut self) -> Vec<RankTrace> {
        self.ranks.sort_by_key(|(at, _)| *at);
        self.ranks.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::overview::overview;
    use crate::read::{assemble, read_all};

    const FILES: [&str; 5] = [
        "diff/ranks/rank0.json",
        "kineto/two-members.json.gz",
        "diff/ranks/rank2.json",
        "kineto/bad/truncated-tail.json",
        "diff/ranks/rank1.json",
    ];

    fn bytes(rel: &str) -> Vec<u8> {
        let path = format!("{}/testdata/{rel}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Whole-file jobs finishing in any order give the trace of a one-by-one read: same ranks,
    /// same order, same warnings (the overview's JSON holds them all).
    #[test]
    fn whole_files_in_any_order_equal_one_by_one() {
        let data: Vec<(&str, Vec<u8>)> = FILES.iter().map(|f| (*f, bytes(f))).collect();
        let refs: Vec<(&str, &[u8])> = data.iter().map(|(n, b)| (*n, b.as_slice())).collect();
        let want = serde_json::to_string(&overview(&read_all(&refs).expect("reads"))).expect("json");
        let encoded: Vec<Vec<u8>> = data
            .iter()
            .map(|(name, b)| {
                let mut job = WholeFile::new(name, Some(b.len() as u64));
                for chunk in b.chunks(7) {
                    job.push(chunk).expect("push");
                }
                assert_eq!(job.bytes_consumed(), b.len() as u64);
                job.finish().expect("finish")
            })
            .collect();
        for order in [[4, 3, 2, 1, 0], [2, 0, 4, 1, 3]] {
            let mut ranks = InOrder::default();
            for at in order {
                ranks.put_encoded(at as u32, FILES[at], &encoded[at]).expect("decodes");
            }
            let got = serde_json::to_string(&overview(&assemble(ranks.into_ranks()))).expect("json");
            assert_eq!(got, want);
        }
        assert!(want.contains("\"warnings\":[{"), "a warning is carried: {want}");
    }

    /// A file a whole-file job cannot read fails with the one-by-one read's error.
    #[test]
    fn errors_are_the_one_by_one_reads() {
        let bad = b"not a trace";
        let mut job = WholeFile::new("t.json", Some(bad.len() as u64));
        job.push(bad).expect("push");
        let want = crate::read::read_bytes("t.json", bad, 1 << 20).err().map(|e| e.to_string());
        assert_eq!(job.finish().err().map(|e| e.to_string()), want);
        assert!(want.is_some());
    }

    #[test]
    fn damaged_results_and_folders() {
        let mut ranks = InOrder::default();
        let err = ranks.put_encoded(0, "a.json", b"nonsense").unwrap_err();
        assert!(err.starts_with("a.json: the rank a parse helper sent back is damaged: "), "{err}");
        let two = partial::encode(&[RankTrace::default(), RankTrace::default()], Compression::None);
        assert_eq!(ranks.put_encoded(0, "a.json", &two).unwrap_err(), "a.json: a parse helper sent back 2 ranks for one file");
        let named = |f: &str| RankTrace { files: vec![f.to_string()], ..RankTrace::default() };
        ranks.extend_after_files([named("folder-a"), named("folder-b")]);
        ranks.put(3, named("c"));
        ranks.put(1, named("b"));
        let files: Vec<String> = ranks.into_ranks().into_iter().map(|r| r.files[0].clone()).collect();
        assert_eq!(files, ["b", "c", "folder-a", "folder-b"]);
    }
}
