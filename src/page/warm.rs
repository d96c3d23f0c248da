//! Warming the page's compiled code before the first trace. Browsers compile WebAssembly in two
//! tiers (V8: Liftoff at once, TurboFan for the functions that turn out hot), so the first
//! megabytes of the first trace would run the slower code. The page's standby worker calls
//! [`warm_up`] while the page waits for a file: it reads a generated trace the ways a large file
//! is read (range jobs parsed, merged, assembled, the overview computed; and gzip-compressed:
//! inflated, its CRC-32 checked, cut into blocks, the blocks parsed and merged), runs the
//! decode-step analyses on it and makes its Overview dashboard, so the hot functions are
//! optimised by the time a real trace arrives. V8 does not replace a running function's code,
//! so a loop over a large trace's events that starts in first-tier code would stay there. The
//! compiled module is shared by every worker of the page, and so is its optimised code.

use super::Workspace;
use crate::analysis::overview::overview;
use crate::analysis::registry::ANALYSES;
use crate::model::RankTrace;
use crate::read::{assemble, job_range, parse_block, parse_range, FileReader};

/// Reads a generated trace of about `bytes` bytes (Kineto and PaddlePaddle events, metadata,
/// profiler steps) through the split reader, as range jobs and gzip-compressed in blocks,
/// computes its overview, runs the `decode` and `gpu_ops` analyses and makes the Overview's
/// dashboard (what the page computes first after a read: its frames, links and `summary`);
/// returns the number of events read.
pub fn warm_up(bytes: usize) -> Result<u64, String> {
    let doc = generated_trace(bytes);
    let from_gzip = read_gzip_in_blocks(&doc)?;
    let mut r = FileReader::new_ranges("warm-up.json", doc.len() as u64, 64 << 10);
    r.push(&doc).map_err(|e| e.to_string())?;
    parse_ready(&mut r, |job| {
        let (start, _) = job_range(&job).ok_or("the generated trace was not read as range jobs")?;
        let result = parse_range("warm-up.json", &job, &doc[start as usize..], true)
            .map_err(|e| e.to_string())?
            .ok_or("a job asked for more than the whole file")?;
        Ok((result, None))
    })?;
    r.end_input().map_err(|e| e.to_string())?;
    let trace = assemble(vec![r.finish().map_err(|e| e.to_string())?]);
    let events = overview(&trace).events;
    if from_gzip.events.len() != trace.ranks[0].events.len() {
        return Err(format!(
            "the gzip-compressed generated trace gave {} events, not {}",
            from_gzip.events.len(),
            trace.ranks[0].events.len()
        ));
    }
    let mut w = Workspace::new(trace);
    for analysis in ["decode", "gpu_ops"] {
        w.run_json(analysis, "{}", "", false).map_err(|e| e.0)?;
    }
    w.dashboard_json().map_err(|e| e.0)?;
    Ok(events)
}

/// Blocks of inflated content a gzip file is cut into here: small, so that the per-block code
/// (cutting, the block's CRC-32, its parse and merge) runs many times in a round.
const GZIP_BLOCK: usize = 16 << 10;

/// `doc` gzip-compressed (deflate level 1) and read the way the page reads a large gzip file: the
/// reading worker inflates it in chunks and cuts the content into blocks, a helper parses each
/// block (`parse_block`, with the block's CRC-32), the reading worker merges the results.
fn read_gzip_in_blocks(doc: &[u8]) -> Result<RankTrace, String> {
    use std::io::Write as _;
    let name = "warm-up.json.gz";
    let mut gz = crate::export::gzip::GzipWriter::with_level(Vec::with_capacity(doc.len() / 4), 1);
    gz.write_all(doc).map_err(|e| e.to_string())?;
    let gz = gz.finish().map_err(|e| e.to_string())?;
    let mut r = FileReader::new_split(name, Some(gz.len() as u64), GZIP_BLOCK);
    let parse = |block: Vec<u8>| Ok((parse_block(name, &block).map_err(|e| e.to_string())?, Some(block)));
    for chunk in gz.chunks(8 << 10) {
        r.push(chunk).map_err(|e| e.to_string())?;
        parse_ready(&mut r, parse)?;
    }
    r.end_input().map_err(|e| e.to_string())?;
    parse_ready(&mut r, parse)?;
    r.finish().map_err(|e| e.to_string())
}

/// Parses the jobs `r` has ready with `parse` (a job: its result, and the block handed back
/// with it, if it is one) and merges each, until none is left (a merge may make a job: two
/// blocks parsed again as one).
fn parse_ready(r: &mut FileReader, parse: impl Fn(Vec<u8>) -> Result<(Vec<u8>, Option<Vec<u8>>), String>) -> Result<(), String> {
    loop {
        let jobs = r.take_blocks();
        if jobs.is_empty() {
            return Ok(());
        }
        for job in jobs {
            let (result, block) = parse(job)?;
            r.add_partial(result, block).map_err(|e| e.to_string())?;
        }
    }
}

/// Runs every analysis the page offers, each with its default options, on a generated trace of
/// about `bytes` bytes (that of [`warm_up`]), so that the first panel a user opens runs optimised
/// code as well; returns how many ran (not `sequences`, which needs an operator's name). The page's
/// standby worker calls it after [`warm_up`], a round at a time.
pub fn warm_analyses(bytes: usize) -> Result<usize, String> {
    let rank = crate::read::read_bytes("warm-up.json", &generated_trace(bytes), 1 << 20).map_err(|e| e.to_string())?;
    let mut w = Workspace::new(assemble(vec![rank]));
    Ok(ANALYSES.iter().filter(|a| w.run_json(a.name, "{}", "", false).is_ok()).count())
}

/// A trace document of about `bytes` bytes: groups of a Kineto CPU op, runtime call and kernel,
/// and of a PaddlePaddle operator and kernel (timing suffixes, string times, string tids), in
/// PaddlePaddle profiler steps of 20 groups (200 µs) whose first kernel is the default start
/// kernel of the decode analysis.
fn generated_trace(bytes: usize) -> Vec<u8> {
    let mut doc = String::with_capacity(bytes + 4096);
    doc.push_str("{\"schemaVersion\": 1, \"traceEvents\": [\n");
    doc.push_str(r#"  {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python"}}"#);
    let mut i = 0u64;
    while doc.len() < bytes {
        let ts = 1_000_000 + i * 10;
        if i.is_multiple_of(20) {
            let step = i / 20;
            doc.push_str(&format!(
                r#",
  {{"name": "ProfileStep#{step}[0.200 ms]", "pid": 13006, "tid": "13006(Python)", "ts": {ts}, "dur": 199.999, "ph": "X", "cat": "ProfileStep", "args": {{"start_time": "{}.000 us", "end_time": "{}.999 us"}}}},
  {{"name": "recover_decode_task[0.500 us]", "pid": 0, "tid": "7", "ts": {ts}, "dur": 0.5, "ph": "X", "cat": "Kernel", "args": {{"start_time": "{}.100 us", "end_time": "{}.600 us"}}}}"#,
                ts - 1_000_000,
                ts - 1_000_000 + 199,
                ts - 1_000_000,
                ts - 1_000_000,
            ));
        }
        doc.push_str(&format!(
            r#",
  {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": {ts}, "dur": 5.5, "args": {{"External id": {i}, "Sequence number": {i}, "Input Dims": [[8, 8], [8, 8]]}}}},
  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": {}, "dur": 2, "args": {{"correlation": {i}, "External id": {i}}}}},
  {{"ph": "X", "cat": "kernel", "name": "gemm_{}", "pid": 0, "tid": 7, "ts": {}, "dur": 3.25, "args": {{"stream": 7, "correlation": {i}, "device": 0, "grid": [1, 1, 1]}}}},
  {{"name": "matmul dygraph[{}.125 us]", "pid": 13006, "tid": "13006(C++)", "ts": {ts}, "dur": 9.125, "ph": "X", "cat": "Operator", "args": {{"start_time": "{}.000 us", "end_time": "{}.125 us"}}}},
  {{"name": "gemm_kernel[3.250 us]", "pid": 0, "tid": "7", "ts": {}, "dur": 3.25, "ph": "X", "cat": "Kernel", "args": {{"start_time": "{}.000 us", "end_time": "{}.250 us", "correlation id": {i}}}}}"#,
            ts + 1,
            i % 17,
            ts + 4,
            i % 10,
            ts - 1_000_000,
            ts - 999_991,
            ts + 4,
            ts - 999_996,
            ts - 999_993,
        ));
        i += 1;
    }
    doc.push_str("\n]}\n");
    doc.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_up_reads_every_generated_event() {
        // 1 metadata event + 5 per group + 2 per step (20 groups)
        let groups = generated_trace(200_000).split(|&c| c == b'\n').filter(|l| l.windows(8).any(|w| w == b"aten::mm")).count() as u64;
        assert!(groups > 100);
        assert_eq!(warm_up(200_000), Ok(1 + 5 * groups + 2 * groups.div_ceil(20)));
    }

    #[test]
    fn every_analysis_but_sequences_runs_on_the_generated_trace() {
        let without_options = ANALYSES.iter().filter(|a| a.name != "sequences").count();
        assert!(without_options > 20);
        assert_eq!(warm_analyses(200_000), Ok(without_options));
    }

    #[test]
    fn the_generated_trace_has_decode_steps() {
        let mut w = Workspace::new(assemble(vec![crate::read::read_bytes("t.json", &generated_trace(200_000), 1 << 20).expect("reads")]));
        let json = w.run_json("decode", "{}", "", false).expect("decode runs");
        assert!(json.contains("decode steps averaged"), "{json}");
        // the warm-up's last step: the Overview's dashboard, whose top kernels are the generated ones
        let dashboard = w.dashboard_json().expect("the dashboard is made");
        assert!(dashboard.contains("gemm_"), "{dashboard}");
    }
}
