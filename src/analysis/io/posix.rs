//! What a POSIX or stdio call recorded by Recorder does to a file, from its function name and the
//! arguments Recorder stores for it (`lib/recorder-posix.c`: a file descriptor or `FILE*` is
//! stored as the file's real path, so every call names its file).
//!
//! | functions (a `64` ending is dropped) | arguments | op |
//! |---|---|---|
//! | `open`, `__open_2` | path, flags[, mode] | open (`O_APPEND` 02000, `O_TRUNC` 01000) |
//! | `creat` | path, mode | open, truncating |
//! | `fopen`, `fdopen`, `freopen` | path, mode | open (`a`: append, `w`: truncate) |
//! | `close`, `fclose` | path | close |
//! | `lseek`, `fseek`, `fseeko` | path, offset, whence | seek |
//! | `read`, `write` | path, buf, count | read/write `count` at the position |
//! | `pread`, `pwrite` | path, buf, count, offset | read/write `count` at `offset` |
//! | `readv`, `writev` | path, total bytes, iovcnt | read/write at the position |
//! | `fread`, `fwrite` | buf, size, nmemb, path | read/write `size × nmemb` at the position |
//! | `fprintf`, `vfprintf` | path, bytes | write at the position |
//! | `truncate`, `ftruncate` | path, length | the file's size becomes `length` |
//! | `__xstat`, `__lxstat`, `__fxstat` | version, path, buf | metadata |
//! | any other | the first argument starting with `/` | metadata |
//!
//! Calls whose numbers do not parse are metadata on their file; calls naming no file are not
//! file operations.

/// `O_APPEND` and `O_TRUNC` on Linux (x86-64 and aarch64).
const O_APPEND: i64 = 0o2000;
const O_TRUNC: i64 = 0o1000;

/// What a call does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Opens it.
    Open {
        /// Starts at its end (`O_APPEND`, mode `a`).
        append: bool,
        /// Empties it (`O_TRUNC`, mode `w`, `creat`).
        truncate: bool,
    },
    /// Closes it.
    Close,
    /// Moves the position.
    Seek {
        /// Bytes.
        offset: i64,
        /// 0 from the start, 1 from the position, 2 from the end.
        whence: i64,
    },
    /// Reads or writes.
    Data {
        /// A write (else a read).
        write: bool,
        /// Bytes asked for.
        bytes: i64,
        /// At this offset (`pread`, `pwrite`), else at the position, which moves.
        at: Option<i64>,
    },
    /// Sets its size.
    Truncate {
        /// The new size.
        len: i64,
    },
    /// Anything else (stat, sync, access, unlink, fcntl, …).
    Meta,
}

/// A call on a file: the file's path (an argument) and the op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileOp<'a> {
    /// The path as Recorder stored it.
    pub file: &'a str,
    /// What the call does.
    pub op: Op,
}

/// What POSIX/stdio call `func` with `args` does, if it names a file.
pub fn file_op<'a>(func: &str, args: &[&'a str]) -> Option<FileOp<'a>> {
    let base = func.strip_suffix("64").unwrap_or(func);
    let arg = |i: usize| args.get(i).copied().filter(|a| !a.is_empty());
    let int = |i: usize| arg(i).and_then(|a| a.parse::<i64>().ok());
    let (file_at, op) = match base {
        "open" | "__open_2" => (0, int(1).map(|f| Op::Open { append: f & O_APPEND != 0, truncate: f & O_TRUNC != 0 })),
        "creat" => (0, Some(Op::Open { append: false, truncate: true })),
        "fopen" | "fdopen" | "freopen" => (0, arg(1).map(|m| Op::Open { append: m.contains('a'), truncate: m.contains('w') })),
        "close" | "fclose" => (0, Some(Op::Close)),
        "lseek" | "fseek" | "fseeko" => (0, int(1).zip(int(2)).map(|(offset, whence)| Op::Seek { offset, whence })),
        "read" | "write" => (0, int(2).map(|bytes| Op::Data { write: base == "write", bytes, at: None })),
        "pread" | "pwrite" => (0, int(2).zip(int(3)).map(|(bytes, at)| Op::Data { write: base == "pwrite", bytes, at: Some(at) })),
        "readv" | "writev" => (0, int(1).map(|bytes| Op::Data { write: base == "writev", bytes, at: None })),
        "fread" | "fwrite" => {
            (3, int(1).zip(int(2)).map(|(size, n)| Op::Data { write: base == "fwrite", bytes: size.saturating_mul(n), at: None }))
        }
        "fprintf" | "vfprintf" => (0, int(1).map(|bytes| Op::Data { write: true, bytes, at: None })),
        "truncate" | "ftruncate" => (0, int(1).map(|len| Op::Truncate { len })),
        "__xstat" | "__lxstat" | "__fxstat" => (1, Some(Op::Meta)),
        _ => return args.iter().find(|a| a.starts_with('/')).map(|file| FileOp { file, op: Op::Meta }),
    };
    let file = arg(file_at).filter(|f| *f != "%p")?;
    Some(FileOp { file, op: op.filter(|o| !matches!(o, Op::Data { bytes, .. } if *bytes < 0)).unwrap_or(Op::Meta) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(func: &str, args: &str) -> Option<FileOp<'static>> {
        let args: Vec<&'static str> = Box::leak(args.to_string().into_boxed_str()).split(' ').collect();
        file_op(func, &args)
    }

    #[test]
    fn calls_as_recorder_stores_them() {
        let data = |write, bytes, at| Op::Data { write, bytes, at };
        assert_eq!(op("open", "/a 577 420").unwrap(), FileOp { file: "/a", op: Op::Open { append: false, truncate: true } });
        assert_eq!(op("open64", "/a 1089").unwrap().op, Op::Open { append: true, truncate: false });
        assert_eq!(op("fopen", "/l a+").unwrap().op, Op::Open { append: true, truncate: false });
        assert_eq!(op("write", "/a %p 4096").unwrap().op, data(true, 4096, None));
        assert_eq!(op("pread64", "/a %p 4096 8192").unwrap().op, data(false, 4096, Some(8192)));
        assert_eq!(op("fwrite", "%p 3 9 /l").unwrap(), FileOp { file: "/l", op: data(true, 27, None) });
        assert_eq!(op("vfprintf", "/l 12").unwrap().op, data(true, 12, None));
        assert_eq!(op("writev", "/a 300 3").unwrap().op, data(true, 300, None));
        assert_eq!(op("lseek", "/a 94208 0").unwrap().op, Op::Seek { offset: 94208, whence: 0 });
        assert_eq!(op("__xstat64", "1 /a %p").unwrap(), FileOp { file: "/a", op: Op::Meta });
        assert_eq!(op("unlink", "/a").unwrap().op, Op::Meta);
        assert_eq!(op("fsync", "/a").unwrap().op, Op::Meta);
        assert_eq!(op("ftruncate", "/a 10").unwrap().op, Op::Truncate { len: 10 });
    }

    #[test]
    fn calls_without_a_file_or_numbers() {
        assert_eq!(op("getcwd", "%p 4097"), None);
        assert_eq!(op("umask", "18"), None);
        assert_eq!(op("write", "/a %p x").unwrap().op, Op::Meta, "an unparsable count is metadata");
        assert_eq!(op("write", "/a %p -1").unwrap().op, Op::Meta);
        assert_eq!(op("fwrite", "%p 1 9 %p"), None);
    }
}
