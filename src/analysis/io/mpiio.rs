//! What an MPI-IO call recorded by Recorder does (`lib/recorder-mpi.c`): `MPI_File_open` stores
//! the path and the new handle's id (`comm path amode info fh`); reads and writes store the
//! handle's id, then `[offset] buf count datatype …`. Their bytes are `count` × the datatype's
//! size, known for MPI's predefined types; a derived type (`Dup_…`, named types) leaves the bytes
//! unknown (the call still counts).

/// An MPI-IO call on a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpiIo<'a> {
    /// `MPI_File_open`: the path and the handle's id.
    Open {
        /// The path.
        file: &'a str,
        /// The handle's id (`0-0`).
        fh: &'a str,
    },
    /// A read or write (blocking, non-blocking, collective, split `_begin`, shared or ordered).
    Data {
        /// The handle's id.
        fh: &'a str,
        /// A write (else a read).
        write: bool,
        /// `count` × the datatype's size, if the type is a predefined one.
        bytes: Option<i64>,
    },
}

/// The size of a predefined MPI datatype, by name.
fn type_size(name: &str) -> Option<i64> {
    Some(match name {
        "MPI_BYTE" | "MPI_CHAR" | "MPI_SIGNED_CHAR" | "MPI_UNSIGNED_CHAR" | "MPI_INT8_T" | "MPI_UINT8_T" | "MPI_PACKED" | "MPI_C_BOOL" => 1,
        "MPI_SHORT" | "MPI_UNSIGNED_SHORT" | "MPI_INT16_T" | "MPI_UINT16_T" | "MPI_WCHAR" => 2,
        "MPI_INT" | "MPI_UNSIGNED" | "MPI_FLOAT" | "MPI_INT32_T" | "MPI_UINT32_T" | "MPI_INTEGER" | "MPI_REAL" => 4,
        "MPI_LONG"
        | "MPI_UNSIGNED_LONG"
        | "MPI_DOUBLE"
        | "MPI_LONG_LONG"
        | "MPI_LONG_LONG_INT"
        | "MPI_UNSIGNED_LONG_LONG"
        | "MPI_INT64_T"
        | "MPI_UINT64_T"
        | "MPI_OFFSET"
        | "MPI_AINT"
        | "MPI_COUNT"
        | "MPI_DOUBLE_PRECISION"
        | "MPI_C_FLOAT_COMPLEX"
        | "MPI_COMPLEX" => 8,
        "MPI_LONG_DOUBLE" | "MPI_C_DOUBLE_COMPLEX" | "MPI_DOUBLE_COMPLEX" => 16,
        _ => return None,
    })
}

/// What MPI-IO call `func` with `args` does to a file, if it opens, reads or writes one.
pub fn mpiio_op<'a>(func: &str, args: &[&'a str]) -> Option<MpiIo<'a>> {
    let func = func.strip_prefix('P').filter(|f| f.starts_with("MPI_")).unwrap_or(func);
    let op = func.strip_prefix("MPI_File_")?;
    if op == "open" {
        return Some(MpiIo::Open { file: args.get(1)?, fh: args.get(4)? });
    }
    let write = op.contains("write");
    if !(write || op.contains("read")) || op.ends_with("_end") {
        return None;
    }
    let fh = args.first()?;
    // the buffer is `%p`, after the handle or after the handle and the offset
    let buf = (1..=2).find(|&i| args.get(i) == Some(&"%p"))?;
    let count = args.get(buf + 1).and_then(|c| c.parse::<i64>().ok());
    let size = args.get(buf + 2).and_then(|t| type_size(t));
    Some(MpiIo::Data { fh, write, bytes: count.zip(size).map(|(c, s)| c * s) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(func: &str, args: &'static str) -> Option<MpiIo<'static>> {
        mpiio_op(func, &args.split(' ').collect::<Vec<_>>())
    }

    #[test]
    fn calls_as_recorder_stores_them() {
        assert_eq!(op("MPI_File_open", "MPI_COMM_WORLD /tmp/s 9 %p 0-0"), Some(MpiIo::Open { file: "/tmp/s", fh: "0-0" }));
        let data = |fh, write, bytes| Some(MpiIo::Data { fh, write, bytes });
        assert_eq!(op("MPI_File_write_at_all", "0-0 8192 %p 8192 MPI_BYTE MPI_STATUS_IGNORE"), data("0-0", true, Some(8192)));
        assert_eq!(op("MPI_File_read", "0-1 %p 10 MPI_DOUBLE MPI_STATUS_IGNORE"), data("0-1", false, Some(80)));
        assert_eq!(op("MPI_File_iwrite_at", "0-1 0 %p 3 MPI_INT %p"), data("0-1", true, Some(12)));
        assert_eq!(op("MPI_File_write_at", "0-1 0 %p 3 Dup_ [0_0]"), data("0-1", true, None));
        assert_eq!(op("MPI_File_write_all_end", "0-1 %p [0_0]"), None);
        assert_eq!(op("MPI_File_set_view", "0-0 49152 MPI_BYTE MPI_BYTE %p %p"), None);
        assert_eq!(op("MPI_File_close", "0-0"), None);
    }
}
