//! Call stacks and the profile exports (src/profile): testdata/profile/nesting.json, whose folded
//! stacks are worked out by hand (testdata/README.md), pprof decoded with its schema giving the same
//! stacks and totals, and on every Kineto trace of the corpus: self times add up to the union of
//! each thread's spans, GPU time to the GPU operations' durations.

use kinetoscope::model::{Kind, Phase};
use kinetoscope::profile::{self, Measure, Options, Profile};
use kinetoscope::Trace;
use prost::Message;

use crate::{eqnice, util};

fn read(path: &std::path::Path) -> Result<Trace, String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    kinetoscope::read::read_all(&[(name.as_str(), util::bytes(path).as_slice())]).map_err(|e| e.to_string())
}

fn nesting() -> Profile {
    profile::build(&read(&util::testdata("profile/nesting.json")).expect("reads"), &Options::default())
}

/// main [0,100) holds forward [10,60) and the rest of aten::add; aten::add [45,75) starts in forward
/// and ends after it: [45,60) under forward, [60,75) under main; the unclosed B [90,…) ends with the
/// thread's last span (100). Self times: main 100−50−15−10 = 25, forward 50−20−15 = 15, aten::mm
/// 20−5 = 15; they add up to 100, the thread's span. The kernel hangs under its launch; the one
/// with no launching call under `(no launching CPU call)`.
#[test]
fn folded_stacks_of_a_hand_made_trace() {
    let p = nesting();
    let t1 = "process 1 (python) / thread 1 (main)";
    eqnice!(
        format!(
            "{t1};main 25000
{t1};main;aten::add 15000
{t1};main;forward 15000
{t1};main;forward;aten::add 15000
{t1};main;forward;aten::mm 15000
{t1};main;forward;aten::mm;cudaLaunchKernel 5000
{t1};main;unclosed 10000
process 1 (python) / thread 2;backward 30000
process 1 (python) / thread 2;backward;aten::mm 10000
"
        ),
        profile::folded(&p, Measure::Cpu)
    );
    eqnice!(
        format!("(no launching CPU call);orphan 4000\n{t1};main;forward;aten::mm;cudaLaunchKernel;gemm 8000\n"),
        profile::folded(&p, Measure::Gpu)
    );
    assert_eq!((p.repairs.partial_overlaps, p.repairs.unclosed, p.repairs.unlaunched_gpu), (1, 1, 1));
    assert_eq!((p.cpu_ns(), p.gpu_ns()), (140_000, 12_000));
    // a time range keeps the part of each span inside it
    let trace = read(&util::testdata("profile/nesting.json")).unwrap();
    let cut = profile::build(&trace, &Options { range: Some((20_000, 30_000)), ..Options::default() });
    eqnice!(
        format!(
            "{t1};main;forward;aten::mm 5000\n{t1};main;forward;aten::mm;cudaLaunchKernel 5000\nprocess 1 (python) / thread 2;backward 10000\n"
        ),
        profile::folded(&cut, Measure::Cpu)
    );
}

/// The folded lines of a decoded pprof profile, for sample type `value` (0 wall, 1 gpu).
fn pprof_folded(bytes: &[u8], value: usize) -> String {
    let raw = miniz_oxide::inflate::decompress_to_vec(&bytes[10..bytes.len() - 8]).expect("gzip member");
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip-compressed");
    let pb = profile::PbProfile::decode(raw.as_slice()).expect("profile.proto");
    let s = |i: i64| pb.string_table[i as usize].as_str();
    assert_eq!(s(0), "");
    assert_eq!(
        pb.sample_type.iter().map(|t| (s(t.r#type), s(t.unit))).collect::<Vec<_>>(),
        [("wall", "nanoseconds"), ("gpu", "nanoseconds"), ("events", "count")]
    );
    let name = |loc: u64| {
        let l = pb.location.iter().find(|l| l.id == loc).expect("location");
        s(pb.function.iter().find(|f| f.id == l.line[0].function_id).expect("function").name).to_string()
    };
    let mut by: std::collections::BTreeMap<String, i64> = Default::default();
    for smp in &pb.sample {
        if smp.value[value] > 0 {
            let stack: Vec<String> = smp.location_id.iter().rev().map(|&l| name(l)).collect();
            *by.entry(stack.join(";")).or_default() += smp.value[value];
        }
    }
    by.into_iter().map(|(k, v)| format!("{k} {v}\n")).collect()
}

/// pprof decoded with the schema: the folded stacks and totals, the labels, deduplicated tables.
#[test]
fn pprof_has_the_folded_stacks() {
    let p = nesting();
    let bytes = profile::pprof_bytes(&p);
    eqnice!(profile::folded(&p, Measure::Cpu), pprof_folded(&bytes, 0));
    eqnice!(profile::folded(&p, Measure::Gpu), pprof_folded(&bytes, 1));
    let pb = profile::pprof(&p);
    let names: Vec<&str> = pb.function.iter().map(|f| pb.string_table[f.name as usize].as_str()).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "one function per name: {names:?}");
    let label = |smp: &profile::pprof::Sample, key: &str| {
        smp.label.iter().find(|l| pb.string_table[l.key as usize] == key).map(|l| (l.num, pb.string_table[l.str as usize].clone()))
    };
    let gemm = pb.sample.iter().find(|smp| smp.value[1] == 8000).expect("the kernel's sample");
    assert_eq!(label(gemm, "stream"), Some((7, String::new())));
    assert_eq!(label(gemm, "device"), Some((0, String::new())));
    assert_eq!(label(gemm, "rank"), Some((0, String::new())));
    assert_eq!(label(gemm, "thread").map(|l| l.1), Some("process 1 (python) / thread 1 (main)".to_string()));
    assert_eq!(pb.sample.iter().map(|smp| smp.value[2]).sum::<i64>(), 8 + 2, "8 CPU spans and 2 GPU operations");
}

/// speedscope: evented profiles properly nested (every close matches the innermost open frame),
/// their time adds up to the thread's span.
#[test]
fn speedscope_profiles_are_nested() {
    let p = nesting();
    let v: serde_json::Value = serde_json::from_str(&profile::speedscope(&p, "nesting", true)).expect("JSON");
    assert_eq!(v["$schema"], "https://www.speedscope.app/file-format-schema.json");
    let profiles = v["profiles"].as_array().unwrap();
    assert_eq!(profiles.iter().map(|p| p["type"].as_str().unwrap()).collect::<Vec<_>>(), ["evented", "evented", "sampled"]);
    for pr in profiles.iter().filter(|p| p["type"] == "evented") {
        let mut open = Vec::new();
        for e in pr["events"].as_array().unwrap() {
            if e["type"] == "O" {
                open.push(e["frame"].as_u64().unwrap());
            } else {
                assert_eq!(open.pop(), e["frame"].as_u64(), "{}: closes its innermost frame", pr["name"]);
            }
        }
        assert!(open.is_empty());
    }
    assert_eq!(profiles[0]["endValue"], 100_000);
    assert_eq!(profiles[2]["weights"], serde_json::json!([8000, 4000]));
}

/// A span's start, end and whether it was closed.
type Interval = (i64, i64, bool);

/// The union of the intervals of a thread's spans (closed at their end, or an unclosed B at the
/// thread's last end), computed from the events apart from the profile's sweep.
fn thread_unions(t: &Trace) -> Vec<Vec<i64>> {
    t.ranks
        .iter()
        .map(|r| {
            let ev = &r.events;
            // per (pid, tid): (start, end, closed)
            let mut by: std::collections::BTreeMap<(u32, u32), Vec<Interval>> = Default::default();
            for e in 0..ev.len() {
                let k = ev.kind[e];
                if matches!(ev.phase[e], Phase::Complete | Phase::Begin)
                    && !k.is_device()
                    && !matches!(
                        k,
                        Kind::GpuUserAnnotation
                            | Kind::LaunchFlow
                            | Kind::FwdBwdFlow
                            | Kind::TraceSpan
                            | Kind::CpuInstant
                            | Kind::CudaProfilerRange
                    )
                {
                    let closed = ev.phase[e] == Phase::Complete || ev.flags[e] & kinetoscope::model::events::flags::HAS_DUR != 0;
                    by.entry((ev.pid.get(e), ev.tid.get(e))).or_default().push((ev.ts[e], ev.ts[e] + ev.dur.get(e), closed));
                }
            }
            let mut out: Vec<i64> = by
                .into_values()
                .map(|mut v| {
                    let last = v.iter().filter(|x| x.2).map(|x| x.1).max().unwrap_or(i64::MIN);
                    for x in v.iter_mut().filter(|x| !x.2) {
                        x.1 = last.max(x.0);
                    }
                    v.sort();
                    let (mut total, mut reached) = (0, i64::MIN);
                    for (s, e, _) in v {
                        let s = s.max(reached);
                        if e > s {
                            total += e - s;
                            reached = e;
                        }
                    }
                    total
                })
                .collect();
            out.sort();
            out
        })
        .collect()
}

/// Per rank, the CPU self time under each thread, sorted.
fn thread_totals(p: &Profile, ranks: usize) -> Vec<Vec<i64>> {
    let thread_of = |mut n: u32| {
        while p.nodes[p.nodes[n as usize].parent as usize].parent != profile::NO_NODE {
            n = p.nodes[n as usize].parent;
        }
        n
    };
    let mut by: std::collections::BTreeMap<u32, i64> = Default::default();
    for (i, n) in p.nodes.iter().enumerate() {
        assert!(n.self_ns >= 0, "no negative self time");
        if n.parent != profile::NO_NODE {
            *by.entry(thread_of(i as u32)).or_default() += n.self_ns;
        }
    }
    let mut out = vec![Vec::new(); ranks];
    for (node, total) in by {
        let rank = p.ranks.iter().position(|&r| r == p.nodes[node as usize].rank).unwrap();
        out[rank].push(total);
    }
    for v in &mut out {
        v.sort();
    }
    out
}

/// Every Kineto trace of the corpus: per thread, the self times add up to the union of its spans;
/// the GPU time is the GPU operations' durations; pprof's totals are the profile's.
#[test]
fn self_times_add_up_to_each_threads_span_on_every_trace() {
    if util::skip_without_corpus() {
        return;
    }
    let mut checked = 0;
    for dir in ["traces/hta", "traces/kineto", "traces/param", "traces/tracelens"] {
        for path in util::files_under(&util::shared(dir)) {
            let n = path.to_string_lossy().to_string();
            if !(n.ends_with(".json") || n.ends_with(".json.gz")) {
                continue;
            }
            let Ok(t) = read(&path) else { continue };
            let p = profile::build(&t, &Options::default());
            let unions = thread_unions(&t);
            let mut totals = thread_totals(&p, t.ranks.len());
            for (u, tot) in unions.iter().zip(totals.iter_mut()) {
                tot.retain(|&x| x > 0 || u.contains(&0));
            }
            let unions: Vec<Vec<i64>> = unions.into_iter().map(|v| v.into_iter().filter(|&x| x > 0).collect()).collect();
            let totals: Vec<Vec<i64>> = totals.into_iter().map(|v| v.into_iter().filter(|&x| x > 0).collect()).collect();
            assert_eq!(totals, unions, "{n}: self times per thread = union of its spans");
            let gpu: i64 = t
                .ranks
                .iter()
                .flat_map(|r| (0..r.events.len()).map(move |e| (r, e)))
                .filter(|(r, e)| {
                    matches!(r.events.kind[*e], Kind::Kernel | Kind::Memcpy | Kind::Memset | Kind::MtiaDeviceOp)
                        && r.events.phase[*e] == Phase::Complete
                })
                .map(|(r, e)| r.events.dur.get(e))
                .sum();
            assert_eq!(p.gpu_ns(), gpu, "{n}: GPU time");
            let pb = profile::pprof(&p);
            assert_eq!(pb.sample.iter().map(|s| s.value[0]).sum::<i64>(), p.cpu_ns(), "{n}: pprof wall total");
            assert_eq!(pb.sample.iter().map(|s| s.value[1]).sum::<i64>(), gpu, "{n}: pprof gpu total");
            checked += 1;
        }
    }
    assert!(checked >= 20, "checked {checked} traces");
}

/// `go tool pprof -top` and `-raw` read the pprof file and report the profile's totals (when Go is
/// installed: Debian's golang-go; without it the schema-decoding tests above stand).
#[test]
fn go_pprof_reads_the_file() {
    if std::process::Command::new("go").arg("version").output().is_err() {
        eprintln!(
            "note: go is not installed; go tool pprof not tried (the profile is decoded with its schema in pprof_has_the_folded_stacks)"
        );
        return;
    }
    let p = nesting();
    let file = std::env::temp_dir().join(format!("kinetoscope-go-pprof-{}.pb.gz", std::process::id()));
    std::fs::write(&file, profile::pprof_bytes(&p)).unwrap();
    for (index, want_ns) in [("wall", p.cpu_ns()), ("gpu", p.gpu_ns())] {
        let out = std::process::Command::new("go")
            .args(["tool", "pprof", "-top", &format!("-sample_index={index}")])
            .arg(&file)
            .output()
            .expect("go tool pprof");
        let text = String::from_utf8_lossy(&out.stdout);
        // "Showing nodes accounting for 140us, 100% of 140us total"
        let total = text.split(" of ").nth(1).and_then(|t| t.split(" total").next()).unwrap_or_else(|| panic!("{index}: {text}"));
        let (num, unit) = total.split_at(total.find(|c: char| c.is_ascii_alphabetic()).unwrap());
        let scale = match unit {
            "ns" => 1.0,
            "us" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            u => panic!("unit {u}"),
        };
        assert_eq!((num.parse::<f64>().unwrap() * scale).round() as i64, want_ns, "{index}: {text}");
    }
    // -raw lists every sample with its three values: their sums are the profile's
    let raw = std::process::Command::new("go").args(["tool", "pprof", "-raw"]).arg(&file).output().expect("go tool pprof -raw");
    let text = String::from_utf8_lossy(&raw.stdout);
    assert!(text.contains("wall/nanoseconds gpu/nanoseconds events/count"), "{text}");
    let mut sums = [0i64; 3];
    let samples = text.split("\nLocations").next().unwrap_or_default();
    for line in samples.lines().filter(|l| l.contains(": ") && l.trim_start().starts_with(|c: char| c.is_ascii_digit())) {
        let values: Vec<i64> = line.split(':').next().unwrap().split_whitespace().map(|v| v.parse().unwrap()).collect();
        for (s, v) in sums.iter_mut().zip(values) {
            *s += v;
        }
    }
    assert_eq!(sums, [p.cpu_ns(), p.gpu_ns(), 8 + 2], "{text}");
    let _ = std::fs::remove_file(&file);
}
