//! `io` (Recorder I/O report) on the shared per-rank Recorder trace: calls and time per function
//! and per rank, bytes per file and request size, and the access pattern of the per-rank files,
//! recomputed here from recorder2text's `_text/` output; hand-made cases for conflicts; on a
//! Kineto trace it says what it reads.

use std::collections::BTreeMap;

use crate::analysis_kernels::csv;
use crate::util;

#[test]
fn functions_and_ranks_equal_recorder2texts_lines() {
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces/recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb");
    let out = io_csv(&dir);
    // from _text/: `start end func depth layer ( args )`, times in s with 7 decimals (exact ticks)
    let layers = ["POSIX", "MPIIO", "MPI", "HDF5", "FTRACE"];
    let ns = |s: &str| (s.parse::<f64>().unwrap() * 1e9).round() as i64;
    let mut functions: BTreeMap<(String, String), (i64, std::collections::BTreeSet<usize>, i64)> = BTreeMap::new();
    let mut ranks = String::from("rank,calls,io_time_ns,span_ns,io_pct\n");
    for r in 0..4 {
        let text = String::from_utf8(util::bytes(&dir.join(format!("_text/{r}.txt")))).unwrap();
        let mut spans = Vec::new();
        for line in text.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            let (s, e) = (ns(f[0]), ns(f[1]));
            let k = functions.entry((layers[f[4].parse::<usize>().unwrap()].to_string(), f[2].to_string())).or_default();
            k.0 += 1;
            k.1.insert(r);
            k.2 += e - s;
            spans.push((s, e));
        }
        // the union of the calls, by a sweep over the sorted spans
        spans.sort();
        let (mut union, mut end) = (0, i64::MIN);
        for &(s, e) in &spans {
            if e > end {
                union += e - s.max(end);
                end = e;
            }
        }
        let span = spans.iter().map(|x| x.1).max().unwrap() - spans[0].0;
        let pct = (100.0 * union as f64 / span as f64 * 100.0).round_ties_even() / 100.0;
        ranks.push_str(&format!("{r},{},{union},{span},{pct:?}\n", spans.len()));
    }
    let mut want = String::from("layer,function,calls,ranks,time_ns\n");
    for ((layer, func), (calls, rs, time)) in &functions {
        want.push_str(&format!("{layer},{func},{calls},{},{time}\n", rs.len()));
    }
    crate::eqnice!(want, csv_table(&out, "io_functions"));
    // the first five columns of `io_ranks`
    let got: String = csv_table(&out, "io_ranks").lines().map(|l| l.split(',').take(5).collect::<Vec<_>>().join(",") + "\n").collect();
    crate::eqnice!(ranks, got);
}

/// `kinetoscope io --csv DIR`'s output (the run must succeed).
fn io_csv(dir: &std::path::Path) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kinetoscope")).args(["io", "--csv", dir.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Table `name` of an `io --csv` output (the lines after `# name`).
fn csv_table(out: &str, name: &str) -> String {
    let head = format!("# {name}\n");
    let at = out.find(&head).unwrap_or_else(|| panic!("no table {name} in {out}")) + head.len();
    out[at..].lines().take_while(|l| !l.starts_with("# ")).map(|l| format!("{l}\n")).collect()
}

/// The rows of a CSV table as column name → value maps.
fn rows(table: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines.map(|l| header.iter().map(|h| h.to_string()).zip(l.split(',').map(str::to_string)).collect()).collect()
}

/// Per file: data ops, bytes read and written, from recorder2text's POSIX lines and the argument
/// positions of lib/recorder-posix.c; per (op, size): calls.
#[test]
fn bytes_per_file_and_size_equal_recorder2texts_arguments() {
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces/recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb");
    let out = io_csv(&dir);
    let mut files: BTreeMap<String, (i64, i64, i64)> = BTreeMap::new();
    let mut sizes: BTreeMap<(String, i64), i64> = BTreeMap::new();
    for r in 0..4 {
        let text = String::from_utf8(util::bytes(&dir.join(format!("_text/{r}.txt")))).unwrap();
        for line in text.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            let args = &f[6..f.len() - 1];
            let n = |i: usize| args[i].parse::<i64>().unwrap();
            let (file, write, bytes) = match (f[4], f[2]) {
                ("0", "write" | "read" | "pwrite" | "pread") => (args[0], f[2].contains("write"), n(2)),
                ("0", "fwrite" | "fread") => (args[3], f[2] == "fwrite", n(1) * n(2)),
                ("0", "vfprintf") => (args[0], true, n(1)),
                _ => continue,
            };
            let e = files.entry(file.to_string()).or_default();
            e.0 += 1;
            if write {
                e.2 += bytes;
            } else {
                e.1 += bytes;
            }
            *sizes.entry((if write { "write" } else { "read" }.to_string(), bytes)).or_default() += 1;
        }
    }
    let got: BTreeMap<String, (i64, i64, i64)> = rows(&csv_table(&out, "files"))
        .iter()
        .filter(|r| r["data_ops"] != "0")
        .map(|r| {
            (r["file"].clone(), (r["data_ops"].parse().unwrap(), r["bytes_read"].parse().unwrap(), r["bytes_written"].parse().unwrap()))
        })
        .collect();
    assert_eq!(got, files);
    let mut want = String::from("op,size,calls,bytes\n");
    for ((op, size), calls) in &sizes {
        want.push_str(&format!("{op},{size},{calls},{}\n", size * calls));
    }
    crate::eqnice!(want, csv_table(&out, "sizes"));
    // the shared file is written through MPI-IO only (OpenMPI's pwritev is not traced): 4 ranks x 6 x 8 KiB
    let shared = rows(&csv_table(&out, "files")).into_iter().find(|r| r["file"] == "/tmp/rectest/shared.dat").unwrap();
    assert_eq!((shared["mpiio_bytes_written"].as_str(), shared["mpiio_bytes_read"].as_str()), ("196608", "16384"));
}

/// Each rank writes its own file at lseek(SEEK_SET) offsets and reads it back with pread: the
/// access pattern, transition by transition, from those offsets.
#[test]
fn access_patterns_follow_the_offsets() {
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces/recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb");
    let files = rows(&csv_table(&io_csv(&dir), "files"));
    for r in 0..4 {
        let name = format!("/tmp/rectest/posix_rank{r}.dat");
        let text = String::from_utf8(util::bytes(&dir.join(format!("_text/{r}.txt")))).unwrap();
        let (mut pos, mut last_end, mut counts) = (0i64, [None::<i64>; 2], [0i64; 3]);
        for line in text.lines().filter(|l| l.contains(&format!(" {name} "))) {
            let f: Vec<&str> = line.split(' ').collect();
            let n = |i: usize| f[6 + i].parse::<i64>().unwrap();
            let (offset, bytes, write) = match f[2] {
                "lseek" if n(2) == 0 => {
                    pos = n(1);
                    continue;
                }
                "open" => {
                    pos = 0;
                    continue;
                }
                "write" => (pos, n(2), 1),
                "pread" => (n(3), n(2), 0),
                _ => continue,
            };
            if f[2] == "write" {
                pos += bytes;
            }
            if let Some(prev) = last_end[write] {
                counts[if offset == prev {
                    0
                } else if offset > prev {
                    1
                } else {
                    2
                }] += 1;
            }
            last_end[write] = Some(offset + bytes);
        }
        let row = files.iter().find(|f| f["file"] == name).unwrap();
        let got = [&row["consecutive"], &row["sequential"], &row["random"]].map(|v| v.parse::<i64>().unwrap());
        assert_eq!(got, counts, "{name}");
        assert!(counts.iter().sum::<i64>() > 20, "{name}: {counts:?}");
    }
}

#[test]
fn a_kineto_trace_has_no_io_calls() {
    let r = crate::analysis_kernels::run("kernels.json", "io", false, &[]).expect("io");
    assert_eq!(r.notes, ["no Recorder trace among the selected ranks: io reads the calls of a Recorder trace folder (kinetoscope io DIR)"]);
    assert_eq!(csv(&r, "io_ranks"), "rank,calls,io_time_ns,span_ns,io_pct,files,bytes_read,bytes_written\n");
    // the timeline's grid is bounded
    let e = crate::analysis_kernels::run("kernels.json", "io", false, &[("timeline_bins", "100000")]).unwrap_err();
    assert_eq!(e.0, "timeline_bins must be between 1 and 20000");
}

/// Two ranks open `/tmp/a` and write its first 4096 bytes while both have it open (a
/// write-after-write conflict, concurrent); rank 1 writes 4096 more, after it (no conflict).
#[test]
fn overlapping_writes_of_two_ranks_are_a_conflict() {
    use crate::read_recorder::{cfg_bytes, cst_bytes, mt_bytes, ts_bytes, Sig};
    const OPEN: Sig = (0, 0, 0, &["/tmp/a", "577", "420"]);
    const WRITE: Sig = (0, 1, 0, &["/tmp/a", "%p", "4096"]);
    let files = [
        ("VERSION", b"2.5.0".to_vec()),
        ("recorder.mt", mt_bytes(false, 2, false)),
        ("0.cst", cst_bytes(&[OPEN, WRITE])),
        ("0.cfg", cfg_bytes(&[(-1, &[(0, 1), (1, 1)])])),
        ("0.ts", ts_bytes(&[(10, 20), (20, 40)])),
        ("1.cst", cst_bytes(&[OPEN, WRITE])),
        ("1.cfg", cfg_bytes(&[(-1, &[(0, 1), (1, 2)])])),
        ("1.ts", ts_bytes(&[(15, 25), (20, 50), (40, 60)])),
    ];
    let dir = std::env::temp_dir().join(format!("kinetoscope-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let out = io_csv(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    // rank 0 writes 0..4096 at 3 µs; rank 1 writes 0..4096 at 3.5 µs and 4096..8192 at 5.5 µs (1e-7 s ticks)
    crate::eqnice!(
        "file,kind,first_rank,second_rank,pairs,bytes,concurrent,first_ns\n/tmp/a,WAW,0,1,1,4096,1,3500\n",
        csv_table(&out, "conflicts")
    );
    let f = &rows(&csv_table(&out, "files"))[0];
    let get = |k: &str| f[k].as_str();
    assert_eq!([get("ranks"), get("sessions"), get("max_open"), get("data_ops"), get("meta_ops")], ["2", "2", "2", "3", "2"]);
    assert_eq!(
        [get("bytes_written"), get("consecutive"), get("sequential"), get("random"), get("pattern"), get("conflicts")],
        ["12288", "1", "0", "0", "consecutive", "1"]
    );
    crate::eqnice!("size,reads,writes\n0–100,0,0\n100–1K,0,0\n1K–10K,0,3\n10K–100K,0,0\n100K–1M,0,0\n1M–4M,0,0\n4M–10M,0,0\n10M–100M,0,0\n100M–1G,0,0\n1G+,0,0\n", csv_table(&out, "size_histogram"));
}
