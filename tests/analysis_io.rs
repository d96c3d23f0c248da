//! `io` (Recorder I/O calls) on the shared per-rank Recorder trace: calls and time per function
//! and per rank recomputed here from recorder2text's `_text/` output; on a Kineto trace it says
//! what it reads.

use std::collections::BTreeMap;

use crate::analysis_kernels::csv;
use crate::util;

#[test]
fn functions_and_ranks_equal_recorder2texts_lines() {
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces/recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kinetoscope")).args(["io", "--csv", dir.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
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
    let mut want = String::from("# functions\nlayer,function,calls,ranks,time_ns\n");
    for ((layer, func), (calls, rs, time)) in &functions {
        want.push_str(&format!("{layer},{func},{calls},{},{time}\n", rs.len()));
    }
    want.push_str("# ranks\n");
    want.push_str(&ranks);
    crate::eqnice!(want, out);
}

#[test]
fn a_kineto_trace_has_no_io_calls() {
    let r = crate::analysis_kernels::run("kernels.json", "io", false, &[]).expect("io");
    assert_eq!(r.notes, ["no Recorder trace among the selected ranks: io reads the calls of a Recorder trace folder (kinetoscope io DIR)"]);
    assert_eq!(csv(&r, "ranks"), "rank,calls,io_time_ns,span_ns,io_pct\n");
}
