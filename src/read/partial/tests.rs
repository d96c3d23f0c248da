//! Round trips on the hand-made traces of `testdata/` (every sparse column is in one of them),
//! the numbering version 1 pins, and damage at every byte.

use super::*;
use crate::model::kind::{ALL_KINDS, ALL_PHASES};
use crate::model::{Format, IntArg};

/// Ranks read from `testdata/<rel>` files, one per file.
fn ranks(rels: &[&str]) -> Vec<RankTrace> {
    rels.iter()
        .map(|rel| {
            let path = format!("{}/testdata/{rel}", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            crate::read::read_bytes(rel, &bytes, 1 << 20).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

const SAMPLES: [&str; 8] = [
    "kineto/vocab-new.json",     // int args, flows
    "kineto/phases.json",        // counters, B/E
    "kineto/ids.json",           // string ids
    "kineto/metadata.json",      // distributedInfo, devices, names
    "paddle/profile-steps.json", // name suffixes
    "analysis/cupti.json",       // profiler_range_args
    "rocprof/v3/4242_kernel_trace.csv",
    "kineto/bad/truncated-tail.json", // warnings
];

#[test]
fn round_trip_keeps_every_field() {
    let rs = ranks(&SAMPLES);
    for compression in [Compression::None, Compression::Deflate(1)] {
        let bytes = encode(&rs, compression);
        let back = decode("p", &bytes).expect("decodes");
        assert_eq!(back.len(), rs.len());
        // the encoding is canonical (names sorted by key), so equal encodings mean equal ranks
        assert_eq!(encode(&back, Compression::None), encode(&rs, Compression::None));
        for (a, b) in rs.iter().zip(&back) {
            assert_eq!(format!("{:?}", a.events), format!("{:?}", b.events));
            assert_eq!(format!("{:?}{:?}", a.meta, a.counts), format!("{:?}{:?}", b.meta, b.counts));
            assert_eq!((&a.files, a.input_bytes, a.format, &a.warnings), (&b.files, b.input_bytes, b.format, &b.warnings));
            assert_eq!(a.strings.iter().collect::<Vec<_>>(), b.strings.iter().collect::<Vec<_>>());
            assert_eq!(a.ids.values(), b.ids.values());
            assert_eq!((&a.process_names, &a.thread_names), (&b.process_names, &b.thread_names));
        }
    }
    let sparse = |f: fn(&RankTrace) -> usize| rs.iter().map(f).sum::<usize>();
    assert!(sparse(|r| r.events.int_args.len()) > 0 && sparse(|r| r.events.counters.len()) > 0);
    assert!(sparse(|r| r.events.name_suffix.len()) > 0 && sparse(|r| r.events.profiler_range_args.len()) > 0);
    assert!(sparse(|r| r.warnings.iter().count()) > 0 && rs.iter().any(|r| r.meta.distributed.is_some()));
}

#[test]
fn recorder_call_args_round_trip() {
    let dir = format!("{}/testdata/recorder/gen-4ranks", env!("CARGO_MANIFEST_DIR"));
    let files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap_or_default().to_string_lossy().to_string(), std::fs::read(&p).expect("file")))
        .filter(|(n, _)| crate::read::recorder::is_part(n))
        .collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let rs = crate::read::recorder::model::read_ranks(&refs, "gen-4ranks", 1234).expect("recorder");
    assert!(rs.iter().all(|r| !r.events.call_args.is_empty()));
    let back = decode("p", &encode(&rs, Compression::Deflate(1))).expect("decodes");
    assert_eq!(encode(&back, Compression::None), encode(&rs, Compression::None));
}

/// Version 1 numbers kinds, phases, sparse arguments and formats by these positions. If this
/// fails, a list changed: bump [`VERSION`] and update the lists here.
#[test]
fn version_1_numbering() {
    assert_eq!(VERSION, 1);
    let kinds: Vec<&str> = ALL_KINDS.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        kinds.join(" "),
        "cpu_op user_annotation gpu_user_annotation python_function runtime driver kernel memcpy memset cuda_sync \
         launch_flow fwdbwd_flow profiler_step trace_span overhead cpu_instant mtia_runtime mtia_device_op \
         cuda_profiler_range hsa_api marker framework_phase kernel_launch metadata counter flow instant other"
    );
    let phases: Vec<&str> = ALL_PHASES.iter().map(|p| p.as_str()).collect();
    assert_eq!(phases.join(" "), "X B E i C M s t f b/e/n other");
    let args: Vec<String> = IntArg::ALL.iter().map(|a| format!("{a:?}")).collect();
    assert_eq!(
        args.join(" "),
        "Bytes Device FlowId WaitOnStream WaitOnEventRecordCorrelation RecordFunctionId PaddleStartNs PaddleEndNs \
         HipStream BeginNs EndNs MemoryBwGbpsBits"
    );
    let formats: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(formats.join(" "), "kineto paddle rocprof_v1_json rocprof_v1_csv rocprof_v3_csv rocprof_v3_json chrome_trace recorder");
}

#[test]
fn refuses_other_versions_and_other_files() {
    let mut bytes = encode(&ranks(&SAMPLES[..1]), Compression::Deflate(1));
    bytes[20] = 2;
    let e = decode("x.kpartial", &bytes).expect_err("version 2");
    assert_eq!(
        e.to_string(),
        format!(
            "x.kpartial: partial format version 2 (written by kinetoscope {WRITER}), this kinetoscope ({WRITER}) reads version 1; \
             write the partials and merge with the same kinetoscope version"
        )
    );
    let e = decode("t.json", b"{\"traceEvents\": []}").expect_err("not a partial");
    assert!(matches!(e, PartialError::NotPartial { .. }), "{e}");
    assert!(e.to_string().starts_with("t.json: not a kinetoscope partial"), "{e}");
    assert!(matches!(decode("e", b""), Err(PartialError::NotPartial { .. })));
}

/// Cut at every byte, and every byte changed (CRC fixed up for the uncompressed content, so
/// the checks behind it are reached): an error naming the file, never a panic.
#[test]
fn damage_is_an_error_never_a_panic() {
    let rs = ranks(&["kineto/phases.json", "paddle/profile-steps.json"]);
    for compression in [Compression::None, Compression::Deflate(1)] {
        let bytes = encode(&rs, compression);
        for cut in 0..bytes.len() {
            let e = decode("d.kpartial", &bytes[..cut]).expect_err("truncated");
            assert!(e.to_string().starts_with("d.kpartial: "), "{e}");
        }
        let head = HEADER;
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x5a;
            if compression == Compression::None && at >= head {
                let crc = crc32fast::hash(&b[head..]).to_le_bytes();
                b[head - 4..head].copy_from_slice(&crc);
            }
            if let Err(e) = decode("d.kpartial", &b) {
                assert!(e.to_string().starts_with("d.kpartial"), "{e}");
            }
        }
    }
}

/// Bytes before the content: magic, version, writer, compression, length, CRC-32.
const HEADER: usize = 20 + 4 + 4 + WRITER.len() + 1 + 8 + 4;
