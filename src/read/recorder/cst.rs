//! The call-signature table (CST): every distinct call (function, depth, thread, arguments) once,
//! indexed by the terminal ids the grammar uses.
//!
//! Layout (`serialize_cst` in `lib/recorder-cst-cfg.c`; the same bytes in a pilgrim `<rank>.cst`
//! and inside a gotcha zlib block):
//!
//! | type | field |
//! |---|---|
//! | int | entries |
//! | per entry: int | terminal_id (`0 ≤ id < entries`, each once) |
//! | int | rank that first saw the call |
//! | int | key_len |
//! | int | count (calls with this signature) |
//! | key_len bytes | the key, below |
//!
//! Key (`compose_cs_key`): `pthread_t` tid (8 bytes), `unsigned char` func_id, call depth and
//! arg_count, `int` arg_strlen, then `arg_strlen` bytes: each argument followed by one space
//! (spaces inside arguments were written as `_`). Like the C reader, an argument is the text
//! before each space; anything after the last space is ignored.

use super::bytes::Bytes;

use super::error::RecorderError;

/// Bytes before a key's argument text: tid 8, func_id 1, depth 1, arg_count 1, arg_strlen 4.
const KEY_ARGS_START: usize = 15;

/// One distinct call, as its key stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// `pthread_t` of the calling thread; 0 when the writer did not log thread ids.
    pub tid: u64,
    /// Index into the function names (255 = a user function whose name is the second argument).
    pub func_id: u8,
    /// Call depth (0 = called by the application, 1 = inside another traced call, …).
    pub depth: u8,
    /// The arguments as the writer turned them into text.
    pub args: Vec<String>,
}

/// Reads a CST from `data` (the file, or an inflated block, named `file`): the signatures in
/// terminal-id order.
pub fn parse_cst(file: &str, data: &[u8]) -> Result<Vec<Signature>, RecorderError> {
    parse_entries(file, data, true)
}

/// Reads a per-rank CST of Recorder 2.3 (`serialize_cst_local`: each entry's head is only
/// `terminal_id, key_len`, without the rank and count).
pub fn parse_cst_2_3(file: &str, data: &[u8]) -> Result<Vec<Signature>, RecorderError> {
    parse_entries(file, data, false)
}

/// A CST whose entry heads hold the rank and the count (`full`) or not.
fn parse_entries(file: &str, data: &[u8], full: bool) -> Result<Vec<Signature>, RecorderError> {
    let mut b = Bytes::new(file, data);
    let entries = b.count("the number of call signatures")?;
    let head = if full { 16 } else { 8 };
    // an entry takes at least its head + 15 bytes, so a huge count in a short file fails here, not in an allocation
    if entries > b.remaining() / (head + KEY_ARGS_START) {
        return Err(b.corrupt_at(0, format!("{entries} call signatures cannot fit in the {} bytes that follow", b.remaining())));
    }
    let mut table: Vec<Option<Signature>> = vec![None; entries];
    for _ in 0..entries {
        let at = b.pos();
        let terminal_id = b.count("a terminal id")?;
        if full {
            b.i32("a signature's rank")?;
        }
        let key_len = b.count("a key length")?;
        if full {
            b.i32("a signature's count")?;
        }
        let key_at = b.pos();
        let key = b.take(key_len, "a call signature key")?;
        let sig = parse_key(key).map_err(|msg| b.corrupt_at(key_at, msg))?;
        match table.get_mut(terminal_id) {
            Some(slot @ None) => *slot = Some(sig),
            Some(Some(_)) => return Err(b.corrupt_at(at, format!("terminal id {terminal_id} appears twice"))),
            None => return Err(b.corrupt_at(at, format!("terminal id {terminal_id} is not below the table's {entries} entries"))),
        }
    }
    // every slot is filled: `entries` distinct ids, all below `entries`
    Ok(table.into_iter().flatten().collect())
}

/// Decodes one key, or says what is wrong with it.
pub fn parse_key(key: &[u8]) -> Result<Signature, String> {
    if key.len() < KEY_ARGS_START {
        return Err(format!("a key of {} bytes is shorter than its {KEY_ARGS_START}-byte head", key.len()));
    }
    let mut tid = [0u8; 8];
    tid.copy_from_slice(&key[..8]);
    let (func_id, depth, arg_count) = (key[8], key[9], key[10]);
    let arg_strlen = i32::from_le_bytes([key[11], key[12], key[13], key[14]]);
    let text = usize::try_from(arg_strlen)
        .ok()
        .and_then(|n| key.get(KEY_ARGS_START..KEY_ARGS_START + n))
        .ok_or_else(|| format!("arg_strlen {arg_strlen} does not fit in a key of {} bytes", key.len()))?;
    let args = split_args(text);
    if args.len() != arg_count as usize {
        return Err(format!("the key says {arg_count} arguments but its text has {}", args.len()));
    }
    Ok(Signature { tid: u64::from_le_bytes(tid), func_id, depth, args })
}

/// The space-terminated arguments of a key's text.
fn split_args(text: &[u8]) -> Vec<String> {
    let mut pieces: Vec<&[u8]> = text.split(|&c| c == b' ').collect();
    pieces.pop(); // after the last space: empty, or text the C reader drops too
    pieces.into_iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key as `compose_cs_key` writes it.
    fn key(tid: u64, func_id: u8, depth: u8, args: &[&str]) -> Vec<u8> {
        let text: String = args.iter().map(|a| format!("{a} ")).collect();
        let mut k = tid.to_le_bytes().to_vec();
        k.extend([func_id, depth, args.len() as u8]);
        k.extend((text.len() as i32).to_le_bytes());
        k.extend(text.as_bytes());
        k
    }

    /// A CST entry.
    fn entry(terminal_id: i32, key: &[u8]) -> Vec<u8> {
        let mut e = Vec::new();
        for v in [terminal_id, 0, key.len() as i32, 1] {
            e.extend(v.to_le_bytes());
        }
        e.extend(key);
        e
    }

    #[test]
    fn key_fields_and_args() {
        let s = parse_key(&key(77, 3, 1, &["/tmp/a", "%p", "4096"])).unwrap();
        assert_eq!(s, Signature { tid: 77, func_id: 3, depth: 1, args: vec!["/tmp/a".into(), "%p".into(), "4096".into()] });
        assert_eq!(parse_key(&key(0, 9, 0, &[])).unwrap().args, Vec::<String>::new());
        // an empty argument between two spaces is kept
        assert_eq!(parse_key(&key(0, 9, 0, &["", "x"])).unwrap().args, vec!["", "x"]);
    }

    #[test]
    fn bad_keys_say_why() {
        assert_eq!(parse_key(&[0; 14]).unwrap_err(), "a key of 14 bytes is shorter than its 15-byte head");
        let mut k = key(0, 1, 0, &["a"]);
        k[10] = 2;
        assert_eq!(parse_key(&k).unwrap_err(), "the key says 2 arguments but its text has 1");
        k[11] = 50;
        assert_eq!(parse_key(&k).unwrap_err(), "arg_strlen 50 does not fit in a key of 17 bytes");
    }

    #[test]
    fn table_is_in_terminal_id_order() {
        let mut data = 2i32.to_le_bytes().to_vec();
        data.extend(entry(1, &key(0, 5, 0, &["b"])));
        data.extend(entry(0, &key(0, 4, 0, &["a"])));
        let t = parse_cst("0.cst", &data).unwrap();
        assert_eq!(t.iter().map(|s| s.func_id).collect::<Vec<_>>(), vec![4, 5]);
    }

    #[test]
    fn duplicate_or_out_of_range_ids_are_corrupt() {
        let mut data = 2i32.to_le_bytes().to_vec();
        data.extend(entry(0, &key(0, 5, 0, &["b"])));
        let second = data.len();
        data.extend(entry(0, &key(0, 4, 0, &["a"])));
        assert_eq!(
            parse_cst("0.cst", &data).unwrap_err().to_string(),
            format!("0.cst at byte {second}: corrupt: terminal id 0 appears twice")
        );
        data[second] = 7;
        assert_eq!(
            parse_cst("0.cst", &data).unwrap_err().to_string(),
            format!("0.cst at byte {second}: corrupt: terminal id 7 is not below the table's 2 entries")
        );
    }
}
