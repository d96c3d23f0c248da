//! Checked little-endian reads over one file's bytes: every read says what it was reading, so a
//! short file becomes a [`RecorderError`] naming the file, the offset and the field, never a panic.
//!
//! Recorder writes its C structs and `int` arrays with `fwrite` on x86-64 Linux, so every field
//! is little-endian; `int` is 4 bytes, `size_t` and `pthread_t` 8.

use super::error::{ErrorKind, RecorderError};

/// A read position in one file's bytes.
pub struct Bytes<'a> {
    /// The file's name in errors.
    file: &'a str,
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    /// Reading `data` (the file `file`) from its start.
    pub fn new(file: &'a str, data: &'a [u8]) -> Self {
        Bytes { file, data, pos: 0 }
    }

    /// The current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// An error at the current offset.
    pub fn error(&self, kind: ErrorKind) -> RecorderError {
        RecorderError::at(self.file, self.pos, kind)
    }

    /// A [`ErrorKind::Corrupt`] error at `at` with `msg`.
    pub fn corrupt_at(&self, at: usize, msg: String) -> RecorderError {
        RecorderError::at(self.file, at, ErrorKind::Corrupt(msg))
    }

    /// The next `n` bytes, or a truncation error naming `what`.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], RecorderError> {
        if n > self.remaining() {
            return Err(self.error(ErrorKind::Truncated { what, need: n as u64, have: self.remaining() as u64 }));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The next `N` bytes as an array.
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], RecorderError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }

    /// A C `int`.
    pub fn i32(&mut self, what: &'static str) -> Result<i32, RecorderError> {
        self.array(what).map(i32::from_le_bytes)
    }

    /// A `uint32_t`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32, RecorderError> {
        self.array(what).map(u32::from_le_bytes)
    }

    /// A `size_t` or `pthread_t`.
    pub fn u64(&mut self, what: &'static str) -> Result<u64, RecorderError> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A `double`.
    pub fn f64(&mut self, what: &'static str) -> Result<f64, RecorderError> {
        self.array(what).map(f64::from_le_bytes)
    }

    /// An `unsigned char` or `bool`.
    pub fn u8(&mut self, what: &'static str) -> Result<u8, RecorderError> {
        self.array::<1>(what).map(|a| a[0])
    }

    /// A C `int` that must be a count (zero or more); `what` names it in the error.
    pub fn count(&mut self, what: &'static str) -> Result<usize, RecorderError> {
        let at = self.pos;
        let v = self.i32(what)?;
        usize::try_from(v).map_err(|_| self.corrupt_at(at, format!("{what} is {v}, expected a count of zero or more")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_fields_in_order() {
        let data = [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 7, 2, 0, 0, 0, 0, 0, 0, 0];
        let mut b = Bytes::new("x", &data);
        assert_eq!(b.i32("a").unwrap(), 1);
        assert_eq!(b.i32("b").unwrap(), -1);
        assert_eq!(b.u8("c").unwrap(), 7);
        assert_eq!(b.u64("d").unwrap(), 2);
        assert_eq!(b.remaining(), 0);
    }

    #[test]
    fn short_read_names_field_and_offset() {
        let mut b = Bytes::new("0.cfg", &[1, 0, 0, 0, 9]);
        b.i32("rules").unwrap();
        let e = b.i32("a rule id").unwrap_err();
        assert_eq!(e.to_string(), "0.cfg at byte 4: truncated: a rule id needs 4 bytes but only 1 are left");
    }

    #[test]
    fn negative_count_is_corrupt() {
        let data = (-3i32).to_le_bytes();
        let mut b = Bytes::new("0.cst", &data);
        assert_eq!(
            b.count("entries").unwrap_err().to_string(),
            "0.cst at byte 0: corrupt: entries is -3, expected a count of zero or more"
        );
    }
}
