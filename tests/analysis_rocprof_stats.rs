//! `rocprof_stats` (rocprof's `stats.csv`), and the notes HTA's analyses add on rocprof input: byte for byte rocprof's own `results.stats.csv` on the
//! shared rocprof v1 runs, and the extended columns recomputed here from `results.csv`'s
//! `BeginNs`/`EndNs` apart from the analysis.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;

use crate::{eqnice, util};

#[test]
fn stats_csv_is_rocprofs_and_the_extended_columns_are_right() {
    if util::skip_without_corpus() {
        return;
    }
    for run in ["finite-difference", "seismic-stencils_13-12-2023_15-20-58"] {
        let dir = util::shared(&format!("traces/rocprof/hpctrainingexamples/{run}"));
        let bytes = util::bytes(&dir.join("results.csv"));
        let trace = kinetoscope::read::read_all(&[("results.csv", bytes.as_slice())]).expect("reads");
        let ctx = Context::new(&trace, false, None).expect("context");
        let a = find("rocprof-stats").expect("registered, kebab alias too");
        let r = (a.run)(&ctx, &Params::new(a.options, std::iter::empty()).unwrap()).expect("runs");
        let want = String::from_utf8(util::bytes(&dir.join("results.stats.csv"))).unwrap();
        eqnice!(want, r.tables[0].to_csv());

        // per kernel: its durations from the CSV (EndNs - BeginNs)
        let mut by: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
        let mut rd = csv::Reader::from_reader(bytes.as_slice());
        let head = rd.headers().unwrap().clone();
        let col = |n: &str| head.iter().position(|h| h == n).unwrap();
        let (name, begin, end) = (col("KernelName"), col("BeginNs"), col("EndNs"));
        for rec in rd.records() {
            let rec = rec.unwrap();
            by.entry(rec[name].to_string()).or_default().push(rec[end].parse::<i64>().unwrap() - rec[begin].parse::<i64>().unwrap());
        }
        let ext = r.tables[1].to_csv();
        for line in ext.lines().skip(1) {
            let mut rd = csv::ReaderBuilder::new().has_headers(false).from_reader(line.as_bytes());
            let f = rd.records().next().unwrap().unwrap();
            let mut d = by[&f[0]].clone();
            d.sort();
            let n = d.len();
            let median = if n % 2 == 1 { d[n / 2] as f64 } else { (d[n / 2 - 1] + d[n / 2]) as f64 / 2.0 };
            let mean = d.iter().sum::<i64>() as f64 / n as f64;
            let sd = (d.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
            assert_eq!((f[4].parse::<i64>().unwrap(), f[5].parse::<i64>().unwrap()), (d[0], d[n - 1]), "{run} {}: min, max", &f[0]);
            assert_eq!(f[6].parse::<f64>().unwrap(), median, "{run} {}: median", &f[0]);
            assert!((f[7].parse::<f64>().unwrap() - sd).abs() <= 1e-6 * sd.max(1.0), "{run} {}: std dev {} vs {sd}", &f[0], &f[7]);
        }
    }
}

/// A trace without kernels says so.
#[test]
fn no_kernels_is_said() {
    let trace = kinetoscope::read::read_all(&[(
        "x.json",
        br#"{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]}"#.as_slice(),
    )])
    .unwrap();
    let ctx = Context::new(&trace, false, None).unwrap();
    let a = find("rocprof_stats").unwrap();
    let r = (a.run)(&ctx, &Params::new(a.options, std::iter::empty()).unwrap()).unwrap();
    assert_eq!(r.notes[0], "no GPU kernels in the trace (rocprof: a kernel trace, --kernel-trace / --sys-trace; Kineto: kernel events)");
    eqnice!("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n", r.tables[0].to_csv());
}

/// Two rocprofv3 processes (ranks 0 and 1), the first on GPUs 2 and 3: the total and per GPU,
/// each GPU's percentages of its own kernel time (GPU 3's only kernel lasts 0 ns: no share).
#[test]
fn stats_per_gpu_and_in_total() {
    let trace = util::read_testdata(
        "rocprof/v3",
        &["4242_hip_api_trace.csv", "4242_kernel_trace.csv", "4242_memory_copy_trace.csv", "5151_kernel_trace.csv"],
    );
    let ctx = Context::new(&trace, false, None).unwrap();
    let a = find("rocprof_stats").unwrap();
    let r = (a.run)(&ctx, &Params::new(a.options, std::iter::empty()).unwrap()).unwrap();
    eqnice!(
        "rank,gpu,Name,Calls,TotalDurationNs,AverageNs,Percentage\n\
         0,2,\"void scale<float, 2>(float*, float, int)\",1,2500,2500,76.92307692307692\n\
         0,2,\"say \"\"hi\"\", kernel\",1,750,750,23.076923076923077\n\
         0,3,\"void scale<float, 2>(float*, float, int)\",1,0,0,\n\
         1,1,other_process_kernel,1,400,400,100.0\n",
        r.tables[2].to_csv()
    );
    // the total: 2500 + 750 + 0 + 400 = 3650 ns
    assert!(r.tables[0].to_csv().contains("\"void scale<float, 2>(float*, float, int)\",2,2500,1250,68.4931506849315\n"));
}

/// HTA's analyses on rocprof input say what the format lacks: a v1 kernel table has no host
/// side and no operators; a Kineto trace gets no such note.
#[test]
fn analyses_on_rocprof_name_what_the_format_lacks() {
    let notes = |file: &str, analysis: &str| {
        let trace = kinetoscope::read::read_all(&[(file, util::bytes(&util::testdata(file)).as_slice())]).unwrap();
        let ctx = Context::new(&trace, false, None).unwrap();
        let a = find(analysis).unwrap();
        a.report(&ctx, &Params::new(a.options, std::iter::empty()).unwrap()).unwrap().notes
    };
    let launch = notes("rocprof/v1_results.csv", "launch");
    assert!(launch.contains(&"rocprof input (rank 0): no HIP API calls, so nothing on the host side (launches, copies, synchronization): record them with rocprofv3 --hip-trace or --sys-trace (rocprof v1: --hip-trace; a results.csv kernel table has none)".to_string()), "{launch:?}");
    let flame = notes("rocprof/v1_results.csv", "flame");
    assert_eq!(flame.iter().filter(|n| n.starts_with("rocprof input")).count(), 2, "{flame:?}");
    assert_eq!(notes("rocprof/v1_results.csv", "temporal"), Vec::<String>::new());
    let kineto = notes("analysis/launch.json", "launch");
    assert!(!kineto.iter().any(|n| n.starts_with("rocprof input")), "{kineto:?}");
}
