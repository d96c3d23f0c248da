//! Baseline for scripts/bench/bench_decode.sh: kernel_extractor's `stats` and `extract`
//! (huicongyao/trace_processor) done the way it does them. The whole trace is parsed into one
//! `serde_json::Value` with `serde_json::from_reader`, then the `traceEvents` are filtered.
//!
//! ```text
//! serde_value_baseline stats   IN.json OUT.csv [trim_start_kernel|none] [decode_max_ms]
//! serde_value_baseline extract IN.json OUT.csv START_US,END_US
//! ```
//!
//! What it keeps from kernel_extractor:
//! * GPU operations are events with `cat` Kernel, Memcpy or Memset, `ph` "X", and
//!   `args.start_time` / `args.end_time` strings ("1234.567 us"), parsed as f64 µs. Steps are
//!   events with `cat` ProfileStep, `ph` "X", and the same args.
//! * `extract` writes the operations with start ≥ START and end ≤ END, sorted by start, under
//!   their full names (timing suffix included).
//! * `stats` handles steps as follows:
//!   - steps longer than `decode_max_ms` (default 30) are dropped;
//!   - a step's operations are those inside it;
//!   - names lose a " us]"/" ms]" suffix;
//!   - each step is cut at the first operation whose name contains the trim kernel (default
//!     recover_decode_task), and times are taken relative to that operation (steps without it
//!     are kept whole, relative to the step start);
//!   - the reference sequence is the first step with the most common operation count;
//!   - only steps with the same names at every position are averaged, position by position;
//!   - the bubble is the mean of max(0, start − previous end).
//!
//! What differs: events are read from the `Value` by reference. kernel_extractor instead
//! deserializes a clone of every event (`from_value(event.clone())`), which costs extra time.
//! `--clone-events` (first argument) does that too. Timings of the phases go to stderr.

use std::collections::HashMap;
use std::error::Error;
use std::fs::File;
use std::io::BufReader;
use std::time::Instant;

use serde_json::Value;

type Res<T> = Result<T, Box<dyn Error>>;

/// One GPU operation or step: name and times in µs.
struct Op {
    name: String,
    start: f64,
    end: f64,
}

/// "1234.567 us" -> 1234.567.
fn time_of(v: Option<&Value>) -> Option<f64> {
    v?.as_str()?.split_whitespace().next()?.parse().ok()
}

/// (cat, name, start, end) of a complete event with string `args.start_time`/`end_time`.
fn fields(ev: &Value) -> Option<(&str, &str, f64, f64)> {
    if ev.get("ph")?.as_str()? != "X" {
        return None;
    }
    let args = ev.get("args")?;
    Some((ev.get("cat")?.as_str()?, ev.get("name")?.as_str()?, time_of(args.get("start_time"))?, time_of(args.get("end_time"))?))
}

/// GPU operations (and steps, if `steps` is given) of the trace.
fn collect(events: &[Value], clone: bool, mut steps: Option<&mut Vec<Op>>) -> Vec<Op> {
    let mut ops = Vec::new();
    for ev in events {
        // kernel_extractor's per-event copy, on request
        let owned;
        let ev = if clone {
            owned = ev.clone();
            &owned
        } else {
            ev
        };
        let Some((cat, name, start, end)) = fields(ev) else { continue };
        let op = || Op { name: name.to_string(), start, end };
        match cat {
            "Kernel" | "Memcpy" | "Memset" => ops.push(op()),
            "ProfileStep" => {
                if let Some(s) = steps.as_deref_mut() {
                    s.push(op());
                }
            }
            _ => {}
        }
    }
    ops.sort_by(|a, b| a.start.total_cmp(&b.start));
    ops
}

fn load(path: &str) -> Res<Value> {
    let t = Instant::now();
    let json: Value = serde_json::from_reader(BufReader::new(File::open(path)?))?;
    eprintln!("parse into serde_json::Value: {:.3} s", t.elapsed().as_secs_f64());
    Ok(json)
}

/// Drops the tree (as kernel_extractor does when its function returns), timed.
fn free(json: Value) {
    let t = Instant::now();
    drop(json);
    eprintln!("free the Value: {:.3} s", t.elapsed().as_secs_f64());
}

fn trace_events(json: &Value) -> Res<&Vec<Value>> {
    Ok(json.get("traceEvents").and_then(Value::as_array).ok_or("traceEvents not found or not an array")?)
}

fn extract(input: &str, output: &str, range: &str, clone: bool) -> Res<()> {
    let (lo, hi) = range.split_once(',').ok_or("range: expected START,END")?;
    let (lo, hi): (f64, f64) = (lo.trim().parse()?, hi.trim().parse()?);
    let json = load(input)?;
    let t = Instant::now();
    let ops: Vec<Op> = collect(trace_events(&json)?, clone, None).into_iter().filter(|o| o.start >= lo && o.end <= hi).collect();
    let mut w = csv::Writer::from_path(output)?;
    w.write_record(["kernel_name", "start_time_us", "end_time_us", "duration_us"])?;
    for o in &ops {
        w.write_record([o.name.clone(), o.start.to_string(), o.end.to_string(), (o.end - o.start).to_string()])?;
    }
    w.flush()?;
    eprintln!("filter + CSV: {:.3} s", t.elapsed().as_secs_f64());
    println!("{} GPU operations written to {output}", ops.len());
    free(json);
    Ok(())
}

/// `name` without a trailing "[... us]" / "[... ms]".
fn normalize(name: &str) -> &str {
    match name.rfind('[') {
        Some(i) if name.ends_with(" us]") || name.ends_with(" ms]") => &name[..i],
        _ => name,
    }
}

fn stats(input: &str, output: &str, trim: Option<&str>, decode_max_ms: f64, clone: bool) -> Res<()> {
    let json = load(input)?;
    let t = Instant::now();
    let mut steps = Vec::new();
    let ops = collect(trace_events(&json)?, clone, Some(&mut steps));
    steps.sort_by(|a, b| a.start.total_cmp(&b.start));
    steps.retain(|s| s.end - s.start <= decode_max_ms * 1000.0);
    if steps.is_empty() {
        return Err("no decode ProfileStep".into());
    }
    // per step: its operations relative to the step start (or the trim kernel)
    let per_step: Vec<Vec<Op>> = steps
        .iter()
        .map(|s| {
            let lo = ops.partition_point(|o| o.start < s.start);
            let mut inside: Vec<Op> = ops[lo..]
                .iter()
                .take_while(|o| o.start <= s.end)
                .filter(|o| o.end <= s.end)
                .map(|o| Op { name: normalize(&o.name).to_string(), start: o.start - s.start, end: o.end - s.start })
                .collect();
            if let Some(i) = trim.and_then(|k| inside.iter().position(|o| o.name.contains(k))) {
                let base = inside[i].start;
                inside.drain(..i);
                for o in &mut inside {
                    o.start -= base;
                    o.end -= base;
                }
            }
            inside
        })
        .collect();
    // reference: first step with the most common operation count
    let mut counts: HashMap<usize, usize> = HashMap::new();
    for s in per_step.iter().filter(|s| !s.is_empty()) {
        *counts.entry(s.len()).or_default() += 1;
    }
    let len = counts.iter().max_by_key(|&(l, c)| (*c, std::cmp::Reverse(*l))).map(|(l, _)| *l).ok_or("all steps are empty")?;
    let reference = per_step.iter().find(|s| s.len() == len).unwrap();
    let mut sums = vec![[0.0f64; 4]; len]; // start, end, duration, bubble
    let mut used = 0usize;
    for s in per_step.iter().filter(|s| s.len() == len && s.iter().zip(reference).all(|(a, b)| a.name == b.name)) {
        used += 1;
        let mut prev_end = 0.0;
        for (acc, o) in sums.iter_mut().zip(s) {
            acc[0] += o.start;
            acc[1] += o.end;
            acc[2] += o.end - o.start;
            acc[3] += (o.start - prev_end).max(0.0);
            prev_end = o.end;
        }
    }
    let mut w = csv::Writer::from_path(output)?;
    w.write_record(["operation_name", "avg_start_time_us", "avg_end_time_us", "avg_duration_us", "bubble_time_us"])?;
    for (o, acc) in reference.iter().zip(&sums) {
        let n = used as f64;
        w.write_record([o.name.clone(), (acc[0] / n).to_string(), (acc[1] / n).to_string(), (acc[2] / n).to_string(), (acc[3] / n).to_string()])?;
    }
    w.flush()?;
    eprintln!("filter + statistics + CSV: {:.3} s", t.elapsed().as_secs_f64());
    println!("{} decode steps ({used} averaged, reference length {len}); {len} operations written to {output}", steps.len());
    drop((ops, per_step));
    free(json);
    Ok(())
}

fn main() -> Res<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let clone = args.first().is_some_and(|a| a == "--clone-events");
    if clone {
        args.remove(0);
    }
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match a.as_slice() {
        ["extract", input, output, range] => extract(input, output, range, clone),
        ["stats", input, output, rest @ ..] if rest.len() <= 2 => {
            let trim = match rest.first() {
                Some(k) if k.eq_ignore_ascii_case("none") => None,
                Some(k) => Some(*k),
                None => Some("recover_decode_task"),
            };
            let max_ms = rest.get(1).map(|s| s.parse()).transpose()?.unwrap_or(30.0);
            stats(input, output, trim, max_ms, clone)
        }
        _ => Err("usage: serde_value_baseline [--clone-events] stats IN OUT.csv [trim_kernel|none] [decode_max_ms] | extract IN OUT.csv START,END".into()),
    }
}
