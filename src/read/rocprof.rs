//! rocprof readers (AMD): v1 `results.csv` kernel tables and rocprofv3 CSV traces, plus the
//! post-processing of rocprof v1 `--hip-trace` JSON (read by the Chrome-trace reader).

use crate::error::ReadError;
use crate::model::{Format, RankTrace};

/// Which rocprof CSV table a header line announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvKind {
    /// rocprof v1 `results.csv` (`Index,KernelName,gpu-id,...,BeginNs,EndNs,...`).
    V1Results,
    /// rocprofv3 `kernel_trace.csv`.
    V3Kernel,
    /// rocprofv3 `memory_copy_trace.csv`.
    V3MemoryCopy,
    /// rocprofv3 API traces (`hip_api_trace.csv`, `hsa_api_trace.csv`, `marker_api_trace.csv`, ...).
    V3Api,
}

impl CsvKind {
    /// Recognises a header line.
    pub fn from_header(line: &str) -> Option<CsvKind> {
        let cols: Vec<String> = line.split(',').map(|c| c.trim().trim_matches('"').to_string()).collect();
        let has = |c: &str| cols.iter().any(|x| x == c);
        if has("KernelName") && has("BeginNs") && has("EndNs") {
            Some(CsvKind::V1Results)
        } else if has("Kind") && has("Kernel_Name") && has("Start_Timestamp") {
            Some(CsvKind::V3Kernel)
        } else if has("Kind") && has("Direction") && has("Start_Timestamp") {
            Some(CsvKind::V3MemoryCopy)
        } else if has("Domain") && has("Function") && has("Start_Timestamp") {
            Some(CsvKind::V3Api)
        } else {
            None
        }
    }

    /// The model format this table is read as.
    pub fn format(self) -> Format {
        match self {
            CsvKind::V1Results => Format::RocprofV1Csv,
            _ => Format::RocprofV3Csv,
        }
    }
}

/// Push-based CSV reader for the rocprof tables.
pub struct CsvReader {
    kind: CsvKind,
}

impl CsvReader {
    /// A reader for `kind`.
    pub fn new(kind: CsvKind) -> CsvReader {
        CsvReader { kind }
    }

    /// Feeds decompressed bytes.
    pub fn push(&mut self, _data: &[u8], _rank: &mut RankTrace, _file: &str) -> Result<(), ReadError> {
        Err(ReadError::new(0, format!("a supported format ({:?} is not read yet)", self.kind), ""))
    }

    /// Ends the table.
    pub fn finish(&mut self, _rank: &mut RankTrace, _file: &str) -> Result<(), ReadError> {
        Ok(())
    }
}

/// rocprof v1 JSON has no categories: kinds come from the process names (`HIP`, `COPY`, `GPU0`).
pub fn classify_v1_json(_rank: &mut RankTrace) {}

/// Merges rocprofv3 CSV files of one process into one rank.
pub fn merge_process_files(_ranks: &mut Vec<RankTrace>) {}
