//! Temporal breakdown on `testdata/analysis/temporal/` (rank 0 with GPU events, rank 1 CPU only).
//!
//! Rank 0, µs: gemm [100,150) compute; nccl [120,200) communication; memcpy [250,260) memory;
//! Stream Wait Event [300,310) (cuda_sync); relu [400.25,400.75) compute.
//!
//! Default (exact ns, sync events are not GPU work): merged busy intervals [100,200), [250,260),
//! [400.25,400.75) → busy 110.5, kernel_time 400.75 − 100 = 300.75, idle 190.25; compute
//! [100,150) ∪ [400.25,400.75) = 50.5; non-compute 300.75 − 50.5 − 190.25 = 60.
//! Percentages: 63.26, 16.79, 19.95.
//!
//! `--hta`: the fractional ts makes HTA round every time: relu becomes ts 401, end 400, dur −1;
//! Stream Wait Event counts as COMPUTATION busy time. Merged [100,200), [250,260), [300,310),
//! [401,400) → busy 100 + 10 + 10 − 1 = 119, kernel_time 400 − 100 = 300, idle 181; compute
//! 50 + 10 − 1 = 59; non-compute 60. Percentages 60.33, 19.67, 20.0.
//! Rank 1 has no GPU events: HTA raises; by default its row has zeros and no percentages.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::read::{assemble, read_bytes};

use crate::util;

fn trace() -> kinetoscope::Trace {
    let files = ["rank0.json", "rank1.json"];
    let ranks = files
        .iter()
        .map(|f| read_bytes(f, &util::bytes(&util::testdata(&format!("analysis/temporal/{f}"))), 1 << 20).expect("read"))
        .collect();
    assemble(ranks)
}

fn run(hta: bool, ranks: Option<&[i64]>) -> Result<kinetoscope::table::Report, String> {
    let trace = trace();
    let a = find("temporal").expect("registered");
    let ctx = Context::new(&trace, hta, ranks).map_err(|e| e.0)?;
    (a.run)(&ctx, &Params::defaults(a.options)).map_err(|e| e.0)
}

#[test]
fn default_mode_exact_times_without_sync_events() {
    let r = run(false, None).unwrap();
    crate::eqnice!(
        "rank,idle_time(us),compute_time(us),non_compute_time(us),kernel_time(us),idle_time_pctg,compute_time_pctg,non_compute_time_pctg\n\
         0,190.25,50.5,60.0,300.75,63.26,16.79,19.95\n\
         1,0.0,0.0,0.0,0.0,,,\n",
        r.tables[0].to_csv()
    );
    assert_eq!(r.notes, vec!["rank 1 has no GPU events".to_string()]);
    assert_eq!(r.charts.len(), 1);
}

#[test]
fn hta_mode_reproduces_rounding_and_sync_as_compute() {
    let r = run(true, Some(&[0])).unwrap();
    crate::eqnice!(
        "rank,idle_time(us),compute_time(us),non_compute_time(us),kernel_time(us),idle_time_pctg,compute_time_pctg,non_compute_time_pctg\n\
         0,181.0,59.0,60.0,300.0,60.33,19.67,20.0\n",
        r.tables[0].to_csv()
    );
    let err = run(true, None).unwrap_err();
    assert!(err.starts_with("rank 1 has no GPU events: HTA 0.5.0 raises IndexError"), "{err}");
}

#[test]
fn unknown_rank_is_an_error() {
    assert_eq!(run(false, Some(&[5])).unwrap_err(), "rank 5 is not in the trace (ranks: 0, 1)");
}
