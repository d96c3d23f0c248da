//! rocprofv3 JSON reader: the hand-made `testdata/rocprof/v3_json/4242_results.json` (exact
//! rows worked out by hand, see its README), chunk sizes 1/7/4096/whole, detection by content
//! (read as "x"), and damage (a bad record is skipped with a warning; no process array is an
//! error).

use std::collections::BTreeMap;
use std::fmt::Write;

use kinetoscope::model::{Format, IntArg, Kind, Phase, RankTrace};
use kinetoscope::read::read_bytes;
use kinetoscope::WarningKind;

use crate::util::{bytes, testdata};

const T: i64 = 2_000_000_000_000_000;

/// One line per row: index kind cat name ts dur pid/tid stream correlation args.
fn rows(r: &RankTrace) -> String {
    let ev = &r.events;
    let mut s = String::new();
    for e in 0..ev.len() {
        assert_eq!(ev.phase[e], Phase::Complete);
        let args: Vec<String> = [IntArg::Device, IntArg::HipStream, IntArg::Bytes]
            .iter()
            .filter_map(|&a| ev.int_arg(e as u32, a).map(|v| format!("{a:?}={v}")))
            .collect();
        let _ = writeln!(
            s,
            "{} {:?} {} {:?} {} {} {}/{} {} {} [{}]",
            ev.index.get(e),
            ev.kind[e],
            r.cat(e as u32),
            r.name(e as u32),
            ev.ts[e] - T,
            ev.dur.get(e),
            r.id_text(ev.pid.get(e)),
            r.id_text(ev.tid.get(e)),
            ev.stream.get(e),
            ev.correlation.get(e),
            args.join(" ")
        );
    }
    s
}

fn fingerprint(r: &RankTrace) -> String {
    let mut s = format!("{:?} {:?}\n{}", r.format, r.counts, rows(r));
    let _ = writeln!(s, "{:?}", r.events.int_args);
    for w in r.warnings.iter() {
        let _ = writeln!(s, "{:?} {} {} {}", w.kind, w.count, w.offset, w.detail);
    }
    s
}

fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn hand_made_results_json() {
    let p = testdata("rocprof/v3_json/4242_results.json");
    let b = bytes(&p);
    let name = p.display().to_string();
    let r = read_bytes(&name, &b, 1 << 30).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.format, Some(Format::RocprofV3Json));
    assert_eq!(Format::RocprofV3Json.as_str(), "rocprof_v3_json");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    crate::eqnice!(
        "0 Kernel KERNEL_DISPATCH \"void scale<float, 2>(float*, float, int)\" 1000 2500 4242/4243 1 3 [Device=2 HipStream=0]\n\
         1 Kernel KERNEL_DISPATCH \"say \\\"hi\\\", kernel\" 2000 750 4242/4243 2 5 [Device=2 HipStream=1]\n\
         2 Runtime HIP_RUNTIME_API \"hipMemcpyAsync\" 100 850 4242/4243 -1 2 []\n\
         3 Runtime HIP_RUNTIME_API \"hipLaunchKernel\" 960 30 4242/4243 -1 3 []\n\
         4 Memcpy MEMORY_COPY \"Memcpy HtoD (Host -> Device)\" 500 400 4242/4243 -1 2 [Device=2 HipStream=0 Bytes=4096]\n",
        rows(&r)
    );
    assert_eq!(r.counts.events, 5);
    assert_eq!(r.counts.kinds, map(&[("kernel", 2), ("runtime", 2), ("memcpy", 1)]));
    assert_eq!(r.counts.categories, map(&[("KERNEL_DISPATCH", 2), ("HIP_RUNTIME_API", 2), ("MEMORY_COPY", 1)]));
    assert_eq!(r.counts.phases, map(&[("X", 5)]));
    assert_eq!(r.meta.top_level_keys, vec!["rocprofiler-sdk-tool".to_string()]);
    // the launch links to its kernel through the correlation id, as in the CSV reader
    let k = r.events.kind.iter().position(|&k| k == Kind::Kernel).unwrap();
    assert_eq!(r.events.correlation.get(k), r.events.correlation.get(3));

    let want = fingerprint(&r);
    for chunk in [1, 7, 4096] {
        let c = read_bytes(&name, &b, chunk).unwrap_or_else(|e| panic!("chunk {chunk}: {e}"));
        crate::eqnice!(want, fingerprint(&c));
    }
    let anon = read_bytes("x", &b, 7).unwrap_or_else(|e| panic!("as x: {e}"));
    crate::eqnice!(want, fingerprint(&anon));
    // gzip too (the reader sees decompressed bytes)
    let gz = kinetoscope_test_gzip(&b);
    let z = read_bytes("x", &gz, 7).unwrap_or_else(|e| panic!("gzip: {e}"));
    crate::eqnice!(rows(&r), rows(&z));
}

/// Stored (uncompressed) deflate blocks in a gzip member: enough to test the gzip path.
fn kinetoscope_test_gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let blocks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, blk) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let n = blk.len() as u16;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(blk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
        }
    }
    !c
}

#[test]
fn bad_record_is_skipped_with_a_warning() {
    let doc = br#"{"rocprofiler-sdk-tool": [{"metadata": {"pid": 7},
        "strings": {"buffer_records": [{"kind": "NONE", "operations": []}, {"kind": "HSA_CORE_API", "operations": ["hsa_init", "hsa_shut_down"]}]},
        "buffer_records": {"hsa_api": [
            {"kind": 1, "operation": 0, "correlation_id": {"internal": 1, "external": 0}, "start_timestamp": "x", "end_timestamp": 20, "thread_id": 7},
            5,
            {"kind": 1, "operation": 1, "correlation_id": {"internal": 2, "external": 0}, "start_timestamp": 30, "end_timestamp": 40, "thread_id": 8}
        ]}}]}"#;
    let want = {
        let r = read_bytes("x", doc, 1 << 20).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rows(&r), "2 HsaApi HSA_CORE_API \"hsa_shut_down\" -1999999999999970 10 7/8 -1 2 []\n");
        assert_eq!(r.counts.events, 1);
        assert_eq!(r.warnings.count(WarningKind::MalformedEvent), 2);
        let w = r.warnings.iter().next().unwrap();
        let at = doc.windows(10).position(|x| x == br#"{"kind": 1"#).unwrap() as u64;
        assert_eq!(w.offset, at, "{}", w.detail);
        assert!(w.detail.contains("start_timestamp"), "{}", w.detail);
        fingerprint(&r)
    };
    for chunk in [1, 7, 4096] {
        crate::eqnice!(want, fingerprint(&read_bytes("x", doc, chunk).unwrap()));
    }
}

#[test]
fn refused_without_a_process_array() {
    for doc in [&br#"{"rocprofiler-sdk-tool": {"metadata": {}}}"#[..], br#"{"rocprofiler-sdk-tool": [{"buffer_records": {"hip_api": [1, 2"#]
    {
        for chunk in [1, 7, 4096] {
            let e = read_bytes("x", doc, chunk).expect_err("must be refused");
            assert!(e.expected.contains("rocprofiler-sdk-tool") || e.expected.contains("closing"), "{e}");
        }
    }
}
