//! Shared test helpers.
#![allow(dead_code)]

use std::path::PathBuf;

/// Repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `testdata/<rel>`.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// `../shared/<rel>` (beside the checkout in CI).
pub fn shared(rel: &str) -> PathBuf {
    root().join("..").join("shared").join(rel)
}

/// Reads a file fully.
pub fn bytes(p: &std::path::Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// gunzips if needed (test-only, whole file in memory).
pub fn gunzip_if_needed(b: Vec<u8>) -> Vec<u8> {
    if b.len() > 2 && b[0] == 0x1f && b[1] == 0x8b {
        miniz_oxide_gunzip(&b)
    } else {
        b
    }
}

fn miniz_oxide_gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut g = kinetoscope::read::inflate::GzipInflater::default();
    g.push(b, &mut |d| {
        out.extend_from_slice(d);
        Ok(())
    })
    .expect("gzip");
    out
}

/// Chunk sizes every reader test sweeps (tiny chunks glue events across boundaries).
pub const CHUNKS: [usize; 4] = [1, 7, 4096, 1 << 20];

/// Asserts two texts are equal, printing both between rulers when not.
#[macro_export]
macro_rules! eqnice {
    ($expected:expr, $got:expr) => {{
        let (e, g) = (&$expected, &$got);
        if e != g {
            panic!("\nexpected:\n~~~\n{}\n~~~\ngot:\n~~~\n{}\n~~~\n", e, g);
        }
    }};
}
