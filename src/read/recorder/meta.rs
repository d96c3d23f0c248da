//! `VERSION` and `recorder.mt`: the run's metadata header and the function names.
//!
//! `recorder.mt` is a `RecorderMetadata` C struct (40 bytes on x86-64 in both layouts) followed by
//! one function name per `\n`-terminated line; a record's `func_id` indexes that list.
//!
//! pilgrim (`include/recorder-logger.h` @ c1c3dcb):
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | int | total_ranks (then 4 bytes of padding) |
//! | 8 | double | start_ts (seconds since the epoch) |
//! | 16 | double | time_resolution (seconds per tick, 1e-7 by default) |
//! | 24 | int | ts_buffer_elements |
//! | 28 | int | ts_compression_algo (0 = none; the writer never sets another) |
//! | 32 | int | interprocess_compression (then 4 bytes of padding; 2.3: absent, a 32-byte header) |
//!
//! gotcha (`include/recorder-logger.h` @ a62d702):
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | int | total_ranks |
//! | 4..10 | bool ×6 | posix, mpi, mpiio, hdf5 tracing; store_tid; store_call_depth (then 6 bytes of padding) |
//! | 16 | double | start_ts |
//! | 24 | double | time_resolution |
//! | 32 | int | ts_buffer_elements |
//! | 36..40 | bool ×4 | ts_compression (zlib), interprocess_compression, inter/intraprocess pattern recognition |

use super::bytes::Bytes;
use super::error::{ErrorKind, RecorderError};

/// Size of the `RecorderMetadata` struct in both layouts of 2.4 and 2.5.
pub const HEADER_LEN: usize = 40;

/// Size of Recorder 2.3's `RecorderMetadata` (the pilgrim fields without
/// `interprocess_compression`).
pub const HEADER_LEN_2_3: usize = 32;

/// Which branch of Recorder wrote the folder: the file set and the header differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Branch `pilgrim` (2.3-style files): uncompressed `<rank>.cst`, `<rank>.cfg`, `<rank>.ts`;
    /// with interprocess compression one merged `0.cst`, `<ug>.cfg` per unique grammar, `ug.mt`.
    Pilgrim,
    /// Branch `gotcha`: zlib blocks; `recorder.ts` with every rank's timestamps; with interprocess
    /// compression `recorder.cst`, `ug.cfg`, `ug.mt`, else zlib `<rank>.cst` and `<rank>.cfg`.
    Gotcha,
}

/// What the gotcha layout's boolean flags say (all false for pilgrim, which has none of them but
/// interprocess compression).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// POSIX calls were traced (gotcha only).
    pub posix_tracing: bool,
    /// Plain MPI calls were traced (gotcha only).
    pub mpi_tracing: bool,
    /// MPI-IO calls were traced (gotcha only).
    pub mpiio_tracing: bool,
    /// HDF5 calls were traced (gotcha only).
    pub hdf5_tracing: bool,
    /// Thread ids are in the call signatures (gotcha only; pilgrim stores 0 when it does not log them).
    pub store_tid: bool,
    /// Call depths are in the call signatures (gotcha only).
    pub store_call_depth: bool,
    /// Timestamps are zlib blocks (gotcha only).
    pub ts_compression: bool,
    /// One merged call-signature table and unique grammars (`ug.mt`).
    pub interprocess_compression: bool,
}

/// The run's metadata: `VERSION` and the `recorder.mt` header and names.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// `VERSION`'s text, trimmed (`2.5.0`).
    pub version: String,
    /// Its minor version (3, 4 or 5): 2.3 writes a shorter header and per-rank tables without
    /// each entry's rank and count.
    pub minor: u32,
    /// Which writer's files these are.
    pub layout: Layout,
    /// Number of ranks (`total_ranks`).
    pub ranks: u32,
    /// Seconds since the epoch when the run started (`start_ts`); record times count from it.
    pub start_ts: f64,
    /// Seconds per timestamp tick (`time_resolution`).
    pub time_resolution: f64,
    /// Timestamps the writer buffered before each flush (`ts_buffer_elements`).
    pub ts_buffer_elements: i32,
    /// The layout's flags.
    pub flags: Flags,
    /// Function names, indexed by a record's function id (`PMPI_` already shortened to `MPI_` by
    /// the pilgrim writer).
    pub func_names: Vec<String>,
}

/// Checks `VERSION`'s text: `major.minor[.patch]` with major 2 and minor 3, 4 or 5 (each
/// recorder2text's `check_version` reads `%d.%d.%d` and compares major and minor with its own);
/// returns the text and the minor version.
pub fn check_version(text: &[u8]) -> Result<(String, u32), RecorderError> {
    let version = String::from_utf8_lossy(text).trim().to_string();
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(2), Some(minor @ 3..=5)) => Ok((version, minor)),
        _ => Err(RecorderError::in_file("VERSION", ErrorKind::UnsupportedVersion(version))),
    }
}

/// Reads `recorder.mt` written by `layout`'s writer; `version` and `minor` are `VERSION`'s
/// checked text and minor version.
pub fn parse_metadata(data: &[u8], layout: Layout, (version, minor): (String, u32)) -> Result<Metadata, RecorderError> {
    let mut b = Bytes::new("recorder.mt", data);
    let header_len = if layout == Layout::Pilgrim && minor == 3 { HEADER_LEN_2_3 } else { HEADER_LEN };
    let what = if header_len == HEADER_LEN {
        "the 40-byte RecorderMetadata header"
    } else {
        "the 32-byte RecorderMetadata header of Recorder 2.3"
    };
    let header = b.take(header_len, what)?;
    let mut h = Bytes::new("recorder.mt", header);
    let ranks = h.i32("total_ranks")?;
    let (start_ts, time_resolution, ts_buffer_elements, flags) = match layout {
        Layout::Pilgrim => pilgrim_fields(&mut h, minor >= 4)?,
        Layout::Gotcha => gotcha_fields(&mut h)?,
    };
    let ranks = u32::try_from(ranks)
        .ok()
        .filter(|&r| r > 0)
        .ok_or_else(|| RecorderError::at("recorder.mt", 0, ErrorKind::Corrupt(format!("total_ranks is {ranks}, expected 1 or more"))))?;
    if !(time_resolution.is_finite() && time_resolution > 0.0) {
        let msg = format!("time_resolution is {time_resolution}, expected a positive number of seconds");
        return Err(RecorderError::at("recorder.mt", time_resolution_offset(layout), ErrorKind::Corrupt(msg)));
    }
    let func_names = function_names(&data[header_len..]);
    Ok(Metadata { version, minor, layout, ranks, start_ts, time_resolution, ts_buffer_elements, flags, func_names })
}

/// Byte offset of `time_resolution` in the header.
fn time_resolution_offset(layout: Layout) -> usize {
    match layout {
        Layout::Pilgrim => 16,
        Layout::Gotcha => 24,
    }
}

/// The pilgrim header after `total_ranks`: start, resolution, buffer elements, flags (2.3 has no
/// `interprocess_compression`: `with_interprocess` false).
fn pilgrim_fields(h: &mut Bytes, with_interprocess: bool) -> Result<(f64, f64, i32, Flags), RecorderError> {
    h.take(4, "padding")?;
    let start_ts = h.f64("start_ts")?;
    let time_resolution = h.f64("time_resolution")?;
    let ts_buffer_elements = h.i32("ts_buffer_elements")?;
    let at = h.pos();
    let algo = h.i32("ts_compression_algo")?;
    if algo != 0 {
        // the pilgrim writer only ever writes TS_COMPRESSION_NO and its reader ignores the field
        return Err(h.corrupt_at(at, format!("ts_compression_algo is {algo}; only 0 (uncompressed timestamps) is read")));
    }
    let interprocess_compression = with_interprocess && h.i32("interprocess_compression")? != 0;
    Ok((start_ts, time_resolution, ts_buffer_elements, Flags { interprocess_compression, ..Flags::default() }))
}

/// The gotcha header after `total_ranks`: start, resolution, buffer elements, flags.
fn gotcha_fields(h: &mut Bytes) -> Result<(f64, f64, i32, Flags), RecorderError> {
    let tracing = h.take(6, "the six tracing/storing flags")?;
    let on = |i: usize| tracing[i] != 0;
    h.take(6, "padding")?;
    let start_ts = h.f64("start_ts")?;
    let time_resolution = h.f64("time_resolution")?;
    let ts_buffer_elements = h.i32("ts_buffer_elements")?;
    let ts_compression = h.u8("ts_compression")? != 0;
    let interprocess_compression = h.u8("interprocess_compression")? != 0;
    let flags = Flags {
        posix_tracing: on(0),
        mpi_tracing: on(1),
        mpiio_tracing: on(2),
        hdf5_tracing: on(3),
        store_tid: on(4),
        store_call_depth: on(5),
        ts_compression,
        interprocess_compression,
    };
    Ok((start_ts, time_resolution, ts_buffer_elements, flags))
}

/// The `\n`-terminated names after the header (text after the last `\n` is ignored, as the C
/// reader does).
pub fn function_names(data: &[u8]) -> Vec<String> {
    let mut names: Vec<String> = data.split(|&c| c == b'\n').map(|n| String::from_utf8_lossy(n).into_owned()).collect();
    names.pop(); // the piece after the last newline (empty in a well-formed file)
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_2_3_to_2_5_are_read_others_are_not() {
        assert_eq!(check_version(b"2.5.0").unwrap(), ("2.5.0".into(), 5));
        assert_eq!(check_version(b"2.5.1\n").unwrap(), ("2.5.1".into(), 5));
        assert_eq!(check_version(b"2.3.2").unwrap(), ("2.3.2".into(), 3));
        assert_eq!(check_version(b"2.4.0").unwrap(), ("2.4.0".into(), 4));
        let e = check_version(b"2.2.1").unwrap_err().to_string();
        assert!(e.starts_with("VERSION: unsupported Recorder version \"2.2.1\"; this reader reads Recorder 2.3, 2.4 and 2.5"), "{e}");
    }

    #[test]
    fn names_split_on_newlines_and_drop_the_unterminated_tail() {
        assert_eq!(function_names(b"open\nMPI_Send\npartial"), vec!["open", "MPI_Send"]);
        assert_eq!(function_names(b""), Vec::<String>::new());
    }

    /// A pilgrim header: 2 ranks, start 100.5 s, 1e-7 s ticks, interprocess compression on.
    fn pilgrim_header() -> Vec<u8> {
        let mut h = Vec::new();
        h.extend(2i32.to_le_bytes());
        h.extend([0; 4]);
        h.extend(100.5f64.to_le_bytes());
        h.extend(1e-7f64.to_le_bytes());
        h.extend(262144i32.to_le_bytes());
        h.extend(0i32.to_le_bytes());
        h.extend(1i32.to_le_bytes());
        h.extend([0; 4]);
        h
    }

    #[test]
    fn pilgrim_header_fields() {
        let mut data = pilgrim_header();
        data.extend(b"open\nH5Fopen\n");
        let m = parse_metadata(&data, Layout::Pilgrim, ("2.5.0".into(), 5)).unwrap();
        assert_eq!((m.ranks, m.start_ts, m.time_resolution, m.ts_buffer_elements), (2, 100.5, 1e-7, 262144));
        assert_eq!(m.flags, Flags { interprocess_compression: true, ..Flags::default() });
        assert_eq!(m.func_names, vec!["open", "H5Fopen"]);
    }

    #[test]
    fn gotcha_header_fields() {
        let mut h = Vec::new();
        h.extend(4i32.to_le_bytes());
        h.extend([1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0]);
        h.extend(7.25f64.to_le_bytes());
        h.extend(1e-6f64.to_le_bytes());
        h.extend(1048576i32.to_le_bytes());
        h.extend([1, 1, 0, 0]);
        let m = parse_metadata(&h, Layout::Gotcha, ("2.5.0".into(), 5)).unwrap();
        assert_eq!((m.ranks, m.start_ts, m.time_resolution), (4, 7.25, 1e-6));
        let f = m.flags;
        assert_eq!(
            (f.posix_tracing, f.mpi_tracing, f.mpiio_tracing, f.hdf5_tracing, f.store_tid, f.store_call_depth),
            (true, false, true, true, false, true)
        );
        assert!(f.ts_compression && f.interprocess_compression);
    }

    #[test]
    fn short_header_and_bad_fields_are_errors() {
        let e = parse_metadata(&[0; 39], Layout::Pilgrim, ("2.5.0".into(), 5)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "recorder.mt at byte 0: truncated: the 40-byte RecorderMetadata header needs 40 bytes but only 39 are left"
        );
        let mut h = pilgrim_header();
        h[16..24].copy_from_slice(&0f64.to_le_bytes());
        let e = parse_metadata(&h, Layout::Pilgrim, ("2.5.0".into(), 5)).unwrap_err();
        assert_eq!(e.to_string(), "recorder.mt at byte 16: corrupt: time_resolution is 0, expected a positive number of seconds");
    }
}
