//! `summary` (where the time went, the page's Overview dashboard) on testdata/analysis/summary/:
//! two ranks whose numbers are worked out in testdata/README.md, and its agreement with the
//! analyses it summarises (`temporal`, `overlap`, `idle`, `steps`) on real traces.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::Report;
use kinetoscope::Trace;

use crate::{eqnice, util};

fn two_ranks() -> Trace {
    let files: Vec<(String, Vec<u8>)> = ["rank0.json", "rank1.json"]
        .iter()
        .map(|f| (f.to_string(), util::bytes(&util::testdata(&format!("analysis/summary/{f}")))))
        .collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    kinetoscope::read::read_all(&refs).expect("reads")
}

fn run(trace: &Trace, analysis: &str, opts: &[(&str, &str)]) -> Report {
    let ctx = Context::new(trace, false, None).expect("context");
    let a = find(analysis).expect("registered");
    (a.run)(&ctx, &Params::new(a.options, opts.iter().copied()).expect("options")).expect("runs")
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

#[test]
fn two_ranks_exact_tables() {
    let r = run(&two_ranks(), "summary", &[]);
    eqnice!(
        "rank,span_us,busy_us,compute_us,communication_us,memory_us,other_us,idle_us,busy_pct,compute_pct,communication_pct,memory_pct,other_pct,idle_pct
0,140.0,100.0,70.0,20.0,10.0,0.0,40.0,71.43,50.0,14.29,7.14,0.0,28.57
1,180.0,140.0,110.0,20.0,10.0,0.0,40.0,77.78,61.11,11.11,5.56,0.0,22.22
",
        csv(&r, "gpu_time_by_rank")
    );
    // ProfilerStep#3 is the last step: left out, as by every HTA analysis
    eqnice!(
        "rank,step,duration_us,vs_rank_median_pct
0,1,100.0,-9.09
0,2,120.0,9.09
1,1,100.0,-23.08
1,2,160.0,23.08
",
        csv(&r, "step_times")
    );
    eqnice!(
        "kernel_type,time_us,share_of_busy_pct
COMPUTATION,180.0,75.0
COMMUNICATION,60.0,25.0
MEMORY,20.0,8.33
",
        csv(&r, "time_by_kernel_type")
    );
    eqnice!(
        "name,calls,total_us,mean_us,share_pct,kernel_type
gemm,4,180.0,45.0,69.23,COMPUTATION
ncclKernel_AllReduce,2,60.0,30.0,23.08,COMMUNICATION
Memcpy HtoD (Pageable -> Device),2,20.0,10.0,7.69,MEMORY
",
        csv(&r, "top_gpu_kernels")
    );
    eqnice!("name,calls,total_us,mean_us,share_pct\naten::mm,4,100.0,25.0,90.91\naten::add,2,10.0,5.0,9.09\n", csv(&r, "top_cpu_ops"));
    eqnice!(
        "rank,communication_us,comm_overlapped_pct,idle_host_wait_us,idle_kernel_wait_us,idle_other_us
0,30.0,33.33,0.0,0.0,60.0
1,30.0,33.33,0.0,0.0,60.0
",
        csv(&r, "overlap_and_idle")
    );
    eqnice!(
        "rank,median_step_us,busy_pct,communication_us,idle_pct,outlier_on\n0,110.0,71.43,30.0,28.57,\n1,130.0,77.78,30.0,22.22,\n",
        csv(&r, "ranks")
    );
    assert_eq!(
        r.notes,
        [
            "GPU busy 75.0 % of its span (compute 56.2 %, communication 12.5 %, memory 6.2 %, other 0.0 %), idle 25.0 %",
            "4 steps: median 0.110 ms, slowest ProfilerStep#2 on rank 1 0.160 ms",
            "idle between kernels: host wait 0.0 %, kernel wait 0.0 %, other 100.0 %",
        ]
    );
    // the key figures: the notes' numbers, each with the panel behind it; the overlap weighted by communication time
    eqnice!(
        "figure,value,unit,detail,panel
GPU busy,75.0,%,\"compute 56.2 %, communication 12.5 %, memory 6.2 %, other 0.0 % of the GPU spans of 2 ranks\",temporal
GPU idle,25.0,%,\"between kernels: host wait 0.0 %, kernel wait 0.0 %, other 100.0 % of it\",idle
Communication under compute,33.3,%,of 0.060 ms communication kernel time runs while a compute kernel runs,overlap
Median step,0.11,ms,\"of 4 steps; slowest: ProfilerStep#2 on rank 1, 0.160 ms\",steps
Outlier ranks,0.0,,none of 2 ranks is far from the others' median,stragglers
Patterns found,0.0,,\"no serialized execution, launch overhead, memory-bound phase or long gap\",patterns
",
        csv(&r, "headline")
    );
    assert_eq!(r.tables[0].name, "headline", "the key figures come first");
    // GPU time by rank, and step time (two steps per rank)
    assert_eq!(r.charts.iter().map(|c| c.title()).collect::<Vec<_>>(), ["GPU time by rank", "Step time"]);
    // one rank: no ranks table, no "on rank" in the step line; top 1
    let trace = two_ranks();
    let ctx = Context::new(&trace, false, Some(&[1])).expect("context");
    let a = find("summary").expect("registered");
    let one = (a.run)(&ctx, &Params::new(a.options, [("top", "1")]).expect("options")).expect("runs");
    assert!(one.tables.iter().all(|t| t.name != "ranks"));
    assert_eq!(one.notes[1], "2 steps: median 0.130 ms, slowest ProfilerStep#2 0.160 ms");
    assert!(!csv(&one, "headline").contains("Outlier ranks"), "one rank: no outliers to name");
    eqnice!("name,calls,total_us,mean_us,share_pct\naten::mm,2,50.0,25.0,90.91\n", csv(&one, "top_cpu_ops"));
    assert_eq!(
        Params::new(a.options, [("top", "0")]).map(|p| (a.run)(&ctx, &p).map(|_| ()).unwrap_err().0).unwrap(),
        "option 'top': expected a number of rows of at least 1, found 0"
    );
}

/// The summary's numbers are the other analyses' numbers: temporal's compute and idle time,
/// overlap's communication time and share, idle's causes summed over streams, steps' step numbers.
#[test]
fn summary_agrees_with_the_analyses_it_summarises() {
    if util::skip_without_corpus() {
        return;
    }
    for set in ["trace_filter", "critical_path/alexnet", "nccl_parser_config", "amd_trace"] {
        let dir = util::shared(&format!("traces/hta/{set}"));
        let files: Vec<(String, Vec<u8>)> =
            util::files_under(&dir).iter().map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), util::bytes(p))).collect();
        let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
        let t = kinetoscope::read::read_all(&refs).expect("reads");
        let s = run(&t, "summary", &[]);
        let col = |r: &Report, table: &str, c: &str| -> Vec<String> {
            let t = r.tables.iter().find(|t| t.name == table).unwrap_or_else(|| panic!("{set}: no {table}"));
            let i = t.columns.iter().position(|x| x.name == c).unwrap_or_else(|| panic!("{set}: no {table}.{c}"));
            t.to_csv().lines().skip(1).map(|l| l.split(',').nth(i).unwrap_or_default().to_string()).collect()
        };
        let temporal = run(&t, "temporal", &[]);
        assert_eq!(col(&s, "gpu_time_by_rank", "compute_us"), col(&temporal, "temporal_breakdown", "compute_time(us)"), "{set}");
        assert_eq!(col(&s, "gpu_time_by_rank", "idle_us"), col(&temporal, "temporal_breakdown", "idle_time(us)"), "{set}");
        assert_eq!(col(&s, "gpu_time_by_rank", "span_us"), col(&temporal, "temporal_breakdown", "kernel_time(us)"), "{set}");
        let overlap = run(&t, "overlap", &[]);
        assert_eq!(
            col(&s, "overlap_and_idle", "comm_overlapped_pct"),
            col(&overlap, "comm_comp_overlap", "comp_comm_overlap_pctg"),
            "{set}"
        );
        // idle causes: the idle analysis' per-stream rows summed per rank
        let idle = run(&t, "idle", &[]);
        let (ranks, cats, times) = (
            col(&idle, "idle_time_breakdown", "rank"),
            col(&idle, "idle_time_breakdown", "idle_category"),
            col(&idle, "idle_time_breakdown", "idle_time"),
        );
        for (k, cat) in ["host_wait", "kernel_wait", "other"].iter().enumerate() {
            let want: Vec<f64> = col(&s, "overlap_and_idle", "rank")
                .iter()
                .map(|rank| {
                    (0..ranks.len()).filter(|&i| &ranks[i] == rank && cats[i] == *cat).map(|i| times[i].parse::<f64>().unwrap()).sum()
                })
                .collect();
            let got: Vec<f64> = col(&s, "overlap_and_idle", ["idle_host_wait_us", "idle_kernel_wait_us", "idle_other_us"][k])
                .iter()
                .map(|v| v.parse().unwrap())
                .collect();
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{set} {cat}: {got:?} vs {want:?}");
            }
        }
        // trace_filter has one step per rank: no step-time chart (a line needs two points)
        if set == "trace_filter" {
            assert_eq!(s.charts.len(), 1, "{set}");
        }
        let steps = run(&t, "steps", &[]);
        let mut ours = col(&s, "step_times", "step");
        ours.sort_by_key(|x| x.parse::<i64>().unwrap());
        ours.dedup();
        assert_eq!(ours, col(&steps, "profiler_steps", "profiler_step"), "{set}");
    }
}

/// The patterns that fire (the `patterns` analysis with its defaults) are a key figure naming
/// where: the launch-overhead fixture fires launch overhead alone.
#[test]
fn patterns_found_is_a_key_figure() {
    let path = util::testdata("patterns/launch_overhead.json");
    let r = crate::analysis_kernels::run_on("launch_overhead.json", &util::bytes(&path), "summary", false, &[]).expect("summary");
    let head = csv(&r, "headline");
    assert!(head.ends_with("Patterns found,1.0,,launch overhead (rank 0 GPU 0),patterns\n"), "{head}");
}
