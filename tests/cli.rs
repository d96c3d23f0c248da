//! The real `kinetoscope` binary on testdata (run from `testdata/`, so paths in messages are
//! short and exact): the `info` table, `info --json` values, folder arguments, exit codes and
//! the one-line messages for bad input, warnings shown for damaged input, `--help`, `--version`
//! and bad arguments.

use std::process::Output;

use serde_json::{json, Value};

use crate::{eqnice, util};

use util::run_cli as run;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

/// `info --json` output, parsed.
fn info_json(args: &[&str]) -> Value {
    let mut all = vec!["info", "--json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("info --json is not JSON ({e}): {}", stdout(&o)))
}

#[test]
fn info_prints_the_table() {
    let o = run(&["info", "kineto/object-form.json"]);
    assert_eq!(o.status.code(), Some(0));
    eqnice!(
        "\
3 events in 1 rank(s)

rank 0  kineto/object-form.json  (kineto, 531 bytes)
  schema_version     1
  vocabulary         2021+ (cpu_op/cuda_runtime/kernel)
  devices used       [0]
  streams            [7]
  time span          0.033 ms (100000 .. 133000 ns)
  events             3  (rows kept: 3, threads: 2)
    cpu_op                            1
    kernel                            1
    runtime                           1
",
        stdout(&o)
    );
    eqnice!("", stderr(&o));
}

/// Two files, one with warnings: totals, per-rank values and the warnings, exactly. ts-missing.json
/// has no distributedInfo, so it takes rank 0; a.json says rank 1.
#[test]
fn info_json_has_exact_values() {
    let v = info_json(&["kineto/two-ranks/a.json", "kineto/bad/ts-missing.json"]);
    assert_eq!(v["events"], json!(7));
    assert_eq!(v["files"], json!(["kineto/bad/ts-missing.json", "kineto/two-ranks/a.json"]));
    let ranks: Vec<Value> = v["ranks"]
        .as_array()
        .expect("ranks")
        .iter()
        .map(|r| json!([r["rank"], r["file"], r["format"], r["events"], r["rows"], r["kinds"], r["warnings"]]))
        .collect();
    assert_eq!(
        ranks,
        vec![
            json!([0, "kineto/bad/ts-missing.json", "kineto", 5, 1, {"cpu_op": 3, "instant": 1, "metadata": 1}, 3]),
            json!([1, "kineto/two-ranks/a.json", "kineto", 2, 2, {"cpu_op": 1, "kernel": 1}, 0]),
        ]
    );
    assert_eq!(
        v["warnings"],
        json!([
            {
                "kind": "missing_field",
                "count": 2,
                "file": "kineto/bad/ts-missing.json",
                "offset": 106,
                "detail": "event \"no_ts\" (ph X) has no \"ts\"",
                "message": "an event lacks a field its phase needs; it was skipped"
            },
            {
                "kind": "ill_typed_field",
                "count": 1,
                "file": "kineto/bad/ts-missing.json",
                "offset": 311,
                "detail": "\"ts\" is null, expected a number",
                "message": "a field has the wrong type; the event was skipped or the field ignored"
            }
        ])
    );
    assert_eq!(v["ranks"][1]["distributed"], json!({"rank": 1, "world_size": 2, "backend": "nccl"}));
    assert_eq!(v["ranks"][1]["span_ns"], json!({"start": 100000, "end": 116000, "duration": 16000}));
}

/// A folder: every file directly inside it, ranks from distributedInfo; the non-trace
/// `kineto/two-ranks/notes.txt` is skipped with a note on stderr.
#[test]
fn info_on_a_folder() {
    let o = run(&["info", "--json", "kineto/two-ranks"]);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    let ranks: Vec<Value> = v["ranks"].as_array().expect("ranks").iter().map(|r| json!([r["rank"], r["file"], r["events"]])).collect();
    assert_eq!(ranks, vec![json!([0, "kineto/two-ranks/b.json", 1]), json!([1, "kineto/two-ranks/a.json", 2])]);
    assert_eq!(v["events"], json!(3));
    eqnice!(
        "kinetoscope: skipped kineto/two-ranks/notes.txt: byte 0: expected a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv), found 'Two ranks of one job: a.json is rank 1,…'\n",
        stderr(&o)
    );
}

/// `distributedInfo` in the table: plain values, `?` for a value the trace lacks.
#[test]
fn info_shows_distributed_info() {
    let o = run(&["info", "kineto/two-ranks/b.json"]);
    assert_eq!(o.status.code(), Some(0));
    eqnice!(
        "\
1 events in 1 rank(s)

rank 0  kineto/two-ranks/b.json  (kineto, 186 bytes)
  vocabulary         2021+ (cpu_op/cuda_runtime/kernel)
  distributed        rank 0 of 2, backend nccl
  time span          0.012 ms (100000 .. 112000 ns)
  events             1  (rows kept: 1, threads: 1)
    cpu_op                            1
",
        stdout(&o)
    );
    eqnice!("", stderr(&o));

    // only a rank: world size and backend are unknown
    let text = r#"{"distributedInfo": {"rank": 5}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}"#;
    let path = std::env::temp_dir().join(format!("kinetoscope-cli-{}-rank-only.json", std::process::id()));
    std::fs::write(&path, text).expect("write temp trace");
    let o = run(&["info", path.to_str().expect("utf-8 temp path")]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("\n  distributed        rank 5 of ?, backend ?\n"), "{out}");
    eqnice!("", stderr(&o));
}

/// Bad input named on the command line: exit code 1, nothing on stdout, one line on stderr
/// naming the file, the byte offset and what was expected.
#[test]
fn bad_input_exits_1_with_one_line() {
    let cases = [
        (
            "kineto/bad/not-json.json",
            "kinetoscope: kineto/bad/not-json.json: byte 0: expected a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv), found 'hello'\n",
        ),
        (
            "kineto/bad/corrupt-gzip.json.gz",
            "kinetoscope: kineto/bad/corrupt-gzip.json.gz: byte 28: expected valid gzip (deflate) data, found corrupt deflate data at compressed byte 28\n",
        ),
        (
            "kineto/bad/wrong-shape-object.json",
            "kinetoscope: kineto/bad/wrong-shape-object.json: byte 9: expected a \"traceEvents\" array (Chrome trace format), found end of the top-level object without one\n",
        ),
        (
            "kineto/bad/empty.json",
            "kinetoscope: kineto/bad/empty.json: byte 0: expected a trace (JSON or rocprof CSV), found end of input (the file is empty)\n",
        ),
        ("kineto/no-such-file.json", "kinetoscope: kineto/no-such-file.json: cannot open: No such file or directory (os error 2)\n"),
    ];
    for (file, message) in cases {
        let o = run(&["info", file]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        eqnice!("", stdout(&o));
        eqnice!(message, stderr(&o));
    }
}

/// Truncated input is read (exit 0) and the warnings are shown under the table.
#[test]
fn truncated_input_shows_warnings() {
    let o = run(&["info", "kineto/bad/truncated-tail.json"]);
    assert_eq!(o.status.code(), Some(0));
    eqnice!(
        "\
2 events in 1 rank(s)

rank 0  kineto/bad/truncated-tail.json  (kineto, 239 bytes)
  vocabulary         2021+ (cpu_op/cuda_runtime/kernel)
  time span          0.015 ms (10000 .. 25000 ns)
  events             2  (rows kept: 2, threads: 1)
    cpu_op                            2

warnings:
  1 × truncated_tail: the file ends inside an event (truncated); complete events before it were kept (first at byte 184 of kineto/bad/truncated-tail.json: incomplete event at byte 184 dropped)
",
        stdout(&o)
    );
    let v = info_json(&["kineto/bad/truncated-gzip.json.gz"]);
    let w: Vec<Value> = v["warnings"].as_array().expect("warnings").iter().map(|w| json!([w["kind"], w["count"], w["offset"]])).collect();
    assert_eq!(w, vec![json!(["truncated_gzip", 1, 254]), json!(["truncated_tail", 1, 184])]);
    assert_eq!(v["ranks"][0]["events"], json!(2));
}

#[test]
fn help_works() {
    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.starts_with("GPU/ML/HPC trace analyzer"), "{out}");
    assert!(out.contains("\nUsage: kinetoscope [OPTIONS] <COMMAND>\n"), "{out}");
    assert!(out.contains("--max-inflated <SIZE>"), "{out}");
    // the column width follows the longest subcommand name
    let listed = |cmd: &str, about: &str| {
        out.lines()
            .any(|l| l.trim_start().strip_prefix(cmd).is_some_and(|rest| rest.starts_with(' ') && rest.trim_start().starts_with(about)))
    };
    assert!(listed("info", "What a trace is and contains"), "{out}");
    assert!(listed("temporal", "GPU idle / compute / non-compute time per rank"), "{out}");
    assert!(listed("memory_bw", "Memcpy/memset bandwidth (GB/s) over time per copy type"), "{out}");
    eqnice!("", stderr(&o));
    let o = run(&["info", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Usage: kinetoscope info [OPTIONS] <PATHS>..."), "{}", stdout(&o));
    eqnice!("", stderr(&o));
}

#[test]
fn version_works() {
    let o = run(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    eqnice!(format!("kinetoscope {}\n", env!("CARGO_PKG_VERSION")), stdout(&o));
    eqnice!("", stderr(&o));
}

/// Bad arguments are a user error: exit code 1 (not clap's 2, which is kept for internal
/// errors), clap's message on stderr, nothing on stdout.
#[test]
fn bad_arguments_exit_1() {
    let cases: [(&[&str], &str); 3] = [
        (
            &["info", "--bogus", "kineto/object-form.json"],
            "\
error: unexpected argument '--bogus' found

  tip: to pass '--bogus' as a value, use '-- --bogus'

Usage: kinetoscope info [OPTIONS] <PATHS>...

For more information, try '--help'.
",
        ),
        (
            &["info"],
            "\
error: the following required arguments were not provided:
  <PATHS>...

Usage: kinetoscope info <PATHS>...

For more information, try '--help'.
",
        ),
        (
            &["bogus"],
            "\
error: unrecognized subcommand 'bogus'

Usage: kinetoscope [OPTIONS] <COMMAND>

For more information, try '--help'.
",
        ),
    ];
    for (args, message) in cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        eqnice!("", stdout(&o));
        eqnice!(message, stderr(&o));
    }
    // no command at all: the help, on stderr, as an error
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1));
    eqnice!("", stdout(&o));
    assert!(stderr(&o).contains("\nUsage: kinetoscope [OPTIONS] <COMMAND>\n"), "{}", stderr(&o));
}

/// `info --csv`: events per kind per rank, one row each.
#[test]
fn info_csv_lists_kinds_per_rank() {
    let o = run(&["info", "--csv", "kineto/two-ranks/a.json", "kineto/bad/ts-missing.json"]);
    assert_eq!(o.status.code(), Some(0));
    eqnice!("rank,kind,events\n0,cpu_op,3\n0,instant,1\n0,metadata,1\n1,cpu_op,1\n1,kernel,1\n", stdout(&o));
}

/// A file over 16 MiB is read by a second thread while the first parses: same result as reading
/// it in one piece with the library, and a damaged tail is still reported at its byte offset.
#[test]
fn large_files_are_read_ahead_in_a_second_thread() {
    let dir = std::env::temp_dir().join(format!("kinetoscope-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join("large.json");
    let mut text = String::from("{\"traceEvents\": [\n");
    let n = 120_000;
    for i in 0..n {
        text += &format!("{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_{}\", \"pid\": 0, \"tid\": 7, \"ts\": {}, \"dur\": 3, \"args\": {{\"stream\": 7, \"correlation\": {i}, \"padding\": \"{}\"}}}},\n", i % 7, i * 5, "x".repeat(80));
    }
    let cut = text.len();
    text += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"last\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1}\n]}\n";
    assert!(text.len() > 17 << 20, "{} bytes", text.len());
    std::fs::write(&path, &text).expect("write");
    let lib = kinetoscope::read::read_all(&[("large.json", text.as_bytes())]).expect("read");
    let v = info_json(&[path.to_str().expect("utf-8")]);
    assert_eq!(v["events"], json!(n + 1));
    assert_eq!(v["ranks"][0]["rows"], json!(lib.ranks[0].events.len()));
    assert_eq!(v["ranks"][0]["kinds"]["kernel"], json!(n + 1));
    // cut inside the last event: the complete events are kept and the tail is reported
    std::fs::write(&path, &text.as_bytes()[..cut + 20]).expect("write");
    let v = info_json(&[path.to_str().expect("utf-8")]);
    assert_eq!(v["events"], json!(n));
    assert_eq!(v["warnings"][0]["offset"], json!(cut));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `diff`: one run's rank against its other ranks, the main table as CSV on stdout and the
/// summary on stderr; `--plot` and `--out`; the errors of the one-trace form and of `--hta`.
#[test]
fn diff_compares_ranks_of_one_run_and_two_runs() {
    let o = run(&["diff", "diff/ranks", "--test-ranks", "2", "--by", "type", "--csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    eqnice!(
        "kernel_type,control_time_us,test_time_us,diff_time_us,change_pct,control_count,test_count,control_mean_us,test_mean_us,change
COMPUTATION,220.0,320.0,100.0,45.45,2.0,2.0,110.0,160.0,unchanged
COMMUNICATION,100.0,100.0,0.0,0.0,1.0,1.0,100.0,100.0,unchanged
",
        stdout(&o)
    );
    assert!(
        stderr(&o).starts_with(
            "step time 1.000 → 1.000 ms (+0.0 %); control (2 ranks, median) vs test (rank 2); biggest loss (type): COMPUTATION +100.0 µs\n"
        ),
        "{}",
        stderr(&o)
    );

    let dir = std::env::temp_dir().join(format!("kinetoscope-diff-{}", std::process::id()));
    let (out, plot) = (dir.join("out"), dir.join("d.svg"));
    let o = run(&[
        "diff",
        "diff/control.json",
        "diff/test.json",
        "--by",
        "kernel",
        "--out",
        out.to_str().expect("utf-8"),
        "--plot",
        plot.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("diff_by_kernel\nname "), "{}", stdout(&o));
    let mut files: Vec<String> =
        std::fs::read_dir(&out).expect("out").map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "diff_by_annotation.csv",
            "diff_by_kernel.csv",
            "diff_by_op.csv",
            "diff_by_type.csv",
            "diff_kernel_sequences.csv",
            "diff_overlap.csv",
            "diff_steps.csv",
            "diff_temporal.csv"
        ]
    );
    let svg = std::fs::read_to_string(&plot).expect("svg");
    assert!(svg.contains("Time per step by kernel: control vs test") && svg.contains("difference"), "{}", &svg[..svg.len().min(400)]);
    let _ = std::fs::remove_dir_all(&dir);

    let o = run(&["diff", "diff/ranks"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("one trace given: say which of its ranks to compare with the others (--test-ranks 3), or give a TEST trace"),
        "{}",
        stderr(&o)
    );
    let o = run(&["diff", "diff/ranks", "--test-ranks", "0-2"]);
    assert!(
        stderr(&o).contains("diff/ranks: the test ranks take every rank of the trace; nothing is left to compare with"),
        "{}",
        stderr(&o)
    );
    let o = run(&["diff", "diff/ranks", "--test-ranks", "7"]);
    assert!(stderr(&o).contains("test: rank 7 is not in the trace (ranks: 0, 1, 2)"), "{}", stderr(&o));
    let o = run(&["diff", "diff/ranks", "diff/ranks", "--hta", "--control-ranks", "0,1"]);
    assert!(stderr(&o).contains("control ranks: HTA's TraceDiff compares one rank per side"), "{}", stderr(&o));
}

#[test]
fn subcommands_are_snake_case_and_accept_kebab_case() {
    // one spelling (the analysis' and the page panel's), the other accepted as an alias
    let help = stdout(&run(&["--help"]));
    assert!(help.contains("\n  annotated_kernels "), "{help}");
    assert!(!help.contains("annotated-kernels"), "{help}");
    let snake = run(&["annotated_kernels", "analysis/annotated_kernels.json", "--csv"]);
    let kebab = run(&["annotated-kernels", "analysis/annotated_kernels.json", "--csv"]);
    assert_eq!(snake.status.code(), Some(0), "{}", stderr(&snake));
    eqnice!(stdout(&snake), stdout(&kebab));
    let o = run(&["memory-bw", "analysis/memory_bw.json", "--csv"]);
    eqnice!(stdout(&run(&["memory_bw", "analysis/memory_bw.json", "--csv"])), stdout(&o));
}

/// `--table NAME` keeps one table: with `--csv` its CSV alone (rocprof's stats.csv on stdout,
/// byte for byte rocprof's own where the corpus has it); an unknown name lists the tables.
#[test]
fn table_option_prints_one_table() {
    let o = run(&["rocprof-stats", "rocprof/v3", "--csv", "--table", "stats"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    eqnice!(
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\
         \"void scale<float, 2>(float*, float, int)\",2,2500,1250,68.4931506849315\n\
         \"say \"\"hi\"\", kernel\",1,750,750,20.54794520547945\n\
         \"other_process_kernel\",1,400,400,10.95890410958904\n",
        stdout(&o)
    );
    let o = run(&["rocprof_stats", "rocprof/v3", "--table", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    eqnice!("kinetoscope: --table nope: rocprof_stats has no such table (it has: stats, stats_extended, stats_per_gpu)\n", stderr(&o));
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces/rocprof/hpctrainingexamples/finite-difference");
    let o = run(&["rocprof-stats", dir.join("results.csv").to_str().unwrap(), "--csv", "--table", "stats"]);
    assert_eq!(o.stdout, util::bytes(&dir.join("results.stats.csv")), "{}", stdout(&o));
}

/// A Recorder trace folder is one trace: `info` shows its ranks (rank numbers from the trace,
/// events = recorder2text's lines); a pre-2.0 text trace gets the reader's message.
#[test]
fn info_reads_a_recorder_folder() {
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces/recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb");
    let v = info_json(&[dir.to_str().unwrap()]);
    let ranks = v["ranks"].as_array().expect("ranks");
    let lines = |r: usize| String::from_utf8(util::bytes(&dir.join(format!("_text/{r}.txt")))).unwrap().lines().count() as u64;
    assert_eq!(ranks.len(), 4);
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!((r["rank"].as_u64(), r["format"].as_str(), r["events"].as_u64()), (Some(i as u64), Some("recorder"), Some(lines(i))));
    }
    let legacy = util::shared("traces/recorder/legacy_2019-06_746c04c_text_itf");
    let o = run(&["info", legacy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("a pre-2.0 Recorder text trace (0.mt + 0.itf) is not read"), "{}", stderr(&o));
}

#[test]
fn stats_extract_and_diff_take_their_options_from_the_analyses_tables() {
    // each option of the decode, gpu_ops and diff tables is a flag, with the table's help and
    // default (declared once: analysis::decode::ANALYSIS, gpu_ops::ANALYSIS, diff::OPTIONS)
    let tables = [
        ("stats", kinetoscope::analysis::decode::ANALYSIS.options, &["start_kernel"][..]),
        ("extract", kinetoscope::analysis::gpu_ops::ANALYSIS.options, &["range"][..]),
        ("diff", kinetoscope::analysis::diff::OPTIONS, &[][..]),
    ];
    for (cmd, opts, positional) in tables {
        let help = stdout(&run(&[cmd, "--help"]));
        for o in opts {
            if positional.contains(&o.name) {
                assert!(help.contains(o.help), "{cmd}: positional {}: {help}", o.name);
                continue;
            }
            let flag = format!("--{}", o.name.replace('_', "-"));
            let line = help.lines().skip_while(|l| !l.trim_start().starts_with(&flag)).take(2).collect::<Vec<_>>().join(" ");
            assert!(line.contains(o.help), "{cmd} {flag}: {line}");
        }
    }
    // stats' positional DECODE_MAX_MS and --prefill-ms are one option: not both
    let o = run(&["stats", "decode/kineto-decode.json", "/dev/null", "none", "5", "--prefill-ms", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
    // diff: --test-iteration needs --iteration; a bad --by names the choices; a bad step number
    let o = run(&["diff", "diff/control.json", "diff/test.json", "--test-iteration", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--iteration <TEXT>"), "{}", stderr(&o));
    let o = run(&["diff", "diff/control.json", "diff/test.json", "--by", "x"]);
    assert!(stderr(&o).contains("[possible values: op, kernel, type, step, annotation]"), "{}", stderr(&o));
    let o = run(&["diff", "diff/control.json", "diff/test.json", "--iteration", "x"]);
    assert_eq!(o.status.code(), Some(1));
    eqnice!("kinetoscope: option 'iteration': expected an integer, found 'x'\n", stderr(&o));
}

/// `report` writes one HTML file: the dashboard (the summary's key figures), the panels asked for in
/// order with their command lines, the trace details; no script. A bad panel is an error naming the
/// valid options.
#[test]
fn report_writes_one_html_file_of_the_dashboard_and_the_panels() {
    let dir = std::env::temp_dir().join(format!("kinetoscope-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("r.html");
    let o = run(&[
        "report",
        "analysis/summary",
        "-o",
        out.to_str().unwrap(),
        "--panel",
        "idle?consecutive_kernel_delay=50&ranks=1",
        "--panel",
        "temporal?hta=1",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let html = std::fs::read_to_string(&out).expect("report written");
    assert!(html.starts_with("<!doctype html>") && !html.contains("<script"), "a static page");
    assert!(
        html.contains("<a class=\"kpi\" data-figure=\"GPU idle\" href=\"#panel-idle\""),
        "a figure links to its panel when the report has it"
    );
    assert!(
        html.contains("<span class=\"kpi-value\">75<small> %</small></span><span class=\"kpi-name\">GPU busy</span>"),
        "the summary's key figures"
    );
    let idle =
        html.find("<code>kinetoscope idle TRACE --consecutive-kernel-delay 50 --ranks 1</code>").expect("idle panel with its options");
    let temporal = html.find("<code>kinetoscope temporal TRACE --hta</code>").expect("temporal in HTA mode");
    assert!(idle < temporal, "in the order asked");
    assert!(html.contains("data-table=\"temporal_breakdown\""), "the panel's tables");
    assert!(html.contains("id=\"trace-details\""));
    let bad = run(&["report", "analysis/summary", "-o", out.to_str().unwrap(), "--panel", "idle?nope=1"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad)
            .contains("'nope' is not an option of idle (options: streams, consecutive_kernel_delay, visualize_pctg; and ranks, hta)"),
        "{}",
        stderr(&bad)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `export`: each format written whole (through a temporary name), the folded stacks of
/// testdata/profile/nesting.json, a Chrome trace per rank into a folder; refused: an output that is
/// an input, an unwritable output (named), CPU stacks of a trace without CPU spans.
#[test]
fn export_writes_profiles_and_refuses_what_it_cannot_do() {
    let dir = std::env::temp_dir().join(format!("kinetoscope-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = |n: &str| dir.join(n).to_string_lossy().to_string();
    let o = run(&["export", "folded", "profile/nesting.json", "-o", &path("n.folded")]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let folded = std::fs::read_to_string(dir.join("n.folded")).unwrap();
    assert!(folded.starts_with("process 1 (python) / thread 1 (main);main 25000\n"), "{folded}");
    assert_eq!(folded.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap()).sum::<i64>(), 140_000);
    for (format, file) in [("pprof", "n.pb.gz"), ("speedscope", "n.speedscope.json")] {
        let o = run(&["export", format, "profile/nesting.json", "-o", &path(file), "--gpu"]);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
    }
    assert_eq!(&std::fs::read(dir.join("n.pb.gz")).unwrap()[..2], &[0x1f, 0x8b], "pprof is gzip-compressed");
    let leftovers: Vec<_> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().contains(".part-")).collect();
    assert!(leftovers.is_empty(), "no temporary files left");
    // two ranks: one Chrome trace each, in a folder
    let o = run(&["export", "chrome", "analysis/summary", "-o", &path("chrome"), "--cats", "kernel"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let mut names: Vec<String> =
        std::fs::read_dir(dir.join("chrome")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    names.sort();
    assert_eq!(names, ["chrome.rank0.json", "chrome.rank1.json"]);
    let rank0 = std::fs::read_to_string(dir.join("chrome/chrome.rank0.json")).unwrap();
    assert!(rank0.contains("\"cat\": \"kernel\"") && !rank0.contains("\"cat\": \"cpu_op\""), "only kernels: {rank0}");
    assert!(!rank0.contains("\"ph\": \"C\""), "no counter tracks unless asked");
    let o = run(&["export", "chrome", "analysis/summary/rank0.json", "-o", &path("counters.json"), "--counters"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let with = std::fs::read_to_string(dir.join("counters.json")).unwrap();
    assert!(
        with.contains("{\"ph\": \"C\", \"name\": \"Memcpy HtoD\", \"pid\": 0, \"ts\": 80, \"args\": {\"Memcpy BW\": 0}}"),
        "the counters analysis' tracks: {with}"
    );
    // kernel sequences marked as the sequences analysis marks them, names and args kept
    let o = run(&["export", "chrome", "analysis/sequences.json", "-o", &path("patterns.json"), "--patterns", "aten::linear"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let marked = std::fs::read_to_string(dir.join("patterns.json")).unwrap();
    assert!(marked.contains("\"Patterns\": {\"aten::linear|gemm_a|bias_add|relu\":3}"), "{marked}");
    // one profile per rank
    let o = run(&["export", "folded", "analysis/summary", "-o", &path("per"), "--per-rank", "--gpu"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let mut names: Vec<String> =
        std::fs::read_dir(dir.join("per")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    names.sort();
    assert_eq!(names, ["per.rank0.folded", "per.rank1.folded"]);
    assert!(!std::fs::read_to_string(dir.join("per/per.rank1.folded")).unwrap().contains("rank 1;"), "one rank: no rank frame");
    // refusals
    let same = run(&["export", "folded", &path("n.folded"), "-o", &path("n.folded")]);
    assert_eq!(same.status.code(), Some(1));
    assert!(stderr(&same).contains("the output is one of the inputs"), "{}", stderr(&same));
    let bad = run(&["export", "folded", "profile/nesting.json", "-o", "/nonexistent-dir/x.folded"]);
    assert_eq!(stderr(&bad), "kinetoscope: cannot write /nonexistent-dir/x.folded: No such file or directory (os error 2)\n");
    std::fs::write(
        dir.join("gpu_only.json"),
        r#"{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7}}]}"#,
    )
    .unwrap();
    let cpu = run(&["export", "folded", &path("gpu_only.json"), "-o", &path("g.folded")]);
    assert_eq!(stderr(&cpu), "kinetoscope: the trace has no CPU spans (python functions, operators, annotations, runtime calls) to build call stacks from; --gpu exports the GPU time by launching stack\n");
    assert!(!dir.join("g.folded").exists(), "nothing written");
    let gpu = run(&["export", "folded", &path("gpu_only.json"), "-o", &path("g.folded"), "--gpu"]);
    assert_eq!(gpu.status.code(), Some(0), "{}", stderr(&gpu));
    assert_eq!(std::fs::read_to_string(dir.join("g.folded")).unwrap(), "(no launching CPU call);k 2000\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `critical-path --overlay FILE` writes plain JSON (gzip when the name ends in .gz);
/// `analyze --option critical_path.annotation=...` reaches the analysis, a bad one is named.
#[test]
fn critical_path_overlay_and_analyze_options() {
    let trace = util::testdata("critical_path/cpu_bound.json");
    let dir = std::env::temp_dir().join(format!("ks-cp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (plain, gz) = (dir.join("o.json"), dir.join("o.json.gz"));
    for p in [&plain, &gz] {
        let o = run(&["critical-path", trace.to_str().unwrap(), "--overlay", p.to_str().unwrap(), "--table", "critical_path_summary"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("cpu_bound"), "{}", stdout(&o));
    }
    let v: Value = serde_json::from_slice(&util::bytes(&plain)).expect("plain JSON");
    assert!(v["traceEvents"].as_array().unwrap().iter().any(|e| e["args"]["critical"] == 1));
    assert_eq!(&util::bytes(&gz)[..2], &[0x1f, 0x8b], "gzip");
    let out = dir.join("an");
    let o =
        run(&["analyze", trace.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-charts", "--option", "critical_path.annotation="]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = std::fs::read_to_string(out.join("critical_path_info.json")).unwrap();
    assert!(info.contains("\"annotation\": \"\"") && info.contains("\"instance_id\": null"), "{info}");
    let o = run(&["analyze", trace.to_str().unwrap(), "--out", out.to_str().unwrap(), "--option", "critical_path.anotation=x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("critical_path has no option anotation (options: rank, annotation"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// `analyze` leaves the produced traces out unless `--traces` (or `--hta`) asks for them, and
/// writes the same tables either way, whichever analysis thread finishes first.
#[test]
fn analyze_writes_produced_traces_only_when_asked() {
    let trace = util::testdata("critical_path/cpu_bound.json");
    let dir = std::env::temp_dir().join(format!("ks-an-traces-{}", std::process::id()));
    let listing = |d: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    let (plain, with) = (dir.join("plain"), dir.join("with"));
    let o = run(&["analyze", trace.to_str().unwrap(), "--out", plain.to_str().unwrap(), "--no-charts"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("produced traces (copies of a rank with an analysis' marks or counters) not written: --traces writes them"),
        "{}",
        stderr(&o)
    );
    let o = run(&["analyze", trace.to_str().unwrap(), "--out", with.to_str().unwrap(), "--no-charts", "--traces"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (listing(&plain), listing(&with));
    assert!(!a.iter().any(|n| n.ends_with(".json.gz")), "{a:?}");
    let gz: Vec<&String> = b.iter().filter(|n| n.ends_with(".json.gz")).collect();
    assert!(gz.iter().any(|n| n.starts_with("overlaid_critical_path_")) && gz.iter().any(|n| n.contains("with_counters")), "{gz:?}");
    assert_eq!(a, b.iter().filter(|n| !n.ends_with(".json.gz")).cloned().collect::<Vec<_>>());
    for n in &a {
        assert_eq!(util::bytes(&plain.join(n)), util::bytes(&with.join(n)), "{n}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every table of an `analyze` run has a file of its own: on a Recorder folder the `io` tables
/// no longer share `functions.csv`/`ranks.csv` with `flame` and `summary` (the analyses write
/// at once, so a shared name was a race), and the user's options making the two `sequences` runs
/// one are run once.
#[test]
fn analyze_writes_each_table_once() {
    let dir = std::env::temp_dir().join(format!("ks-an-once-{}", std::process::id()));
    let out = dir.join("rec");
    let o = run(&["analyze", util::testdata("recorder/gen-4ranks").to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-charts"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let status = std::fs::read_to_string(out.join("_status.csv")).unwrap();
    assert!(!status.contains("written by step"), "{status}");
    assert!(status.contains("\nio,ok,6,\n") && status.contains("\nflame,ok,1,\n"), "{status}");
    let header = |n: &str| std::fs::read_to_string(out.join(n)).unwrap().lines().next().unwrap_or_default().to_string();
    assert_eq!(header("io_functions.csv"), "layer,function,calls,ranks,time_ns");
    assert!(header("io_ranks.csv").starts_with("rank,calls,io_time_ns,"), "{}", header("io_ranks.csv"));
    assert!(!header("functions.csv").starts_with("layer,"), "{}", header("functions.csv"));
    // a trace with two of the plan's operators runs sequences twice; given one operator, once
    let trace = util::testdata("analysis/aten_ops.json");
    let runs = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let o = run(&[&["analyze", trace.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-charts"], extra].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let status = std::fs::read_to_string(out.join("_status.csv")).unwrap();
        assert!(!status.contains("written by step"), "{status}");
        status.lines().filter(|l| l.starts_with("sequences,ok,")).count()
    };
    assert_eq!(runs("seq2", &[]), 2);
    assert_eq!(runs("seq1", &["--option", "sequences.operator_name=aten::"]), 1);
    std::fs::remove_dir_all(&dir).ok();
}

/// `--max-inflated SIZE` stops a gzip file whose content inflates past SIZE, naming the cap and
/// the option; under the cap (and by default, 16 GiB) the same file reads.
#[test]
fn max_inflated_caps_gzip_content() {
    let dir = std::env::temp_dir().join(format!("ks-inflate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut json = b"{\"traceEvents\": [".to_vec();
    for _ in 0..(3 << 20) / 3 {
        json.extend_from_slice(b"{},");
    }
    json.extend_from_slice(b"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2}]}");
    let gz = dir.join("placeholders.json.gz");
    std::fs::write(&gz, kinetoscope::export::gzip(&json)).unwrap();
    let p = gz.to_str().unwrap();
    let o = run(&["info", p, "--max-inflated", "1M"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("kinetoscope: {p}: byte 0: expected gzip content of at most 1 MiB, the cap on inflated size (--max-inflated SIZE sets another, e.g. --max-inflated 64G), found more: the content reached 1 MiB within the {} read so far\n", kinetoscope::read::size_text(std::fs::metadata(&gz).unwrap().len()))
    );
    for ok in [vec!["info", p], vec!["--max-inflated", "4M", "info", p]] {
        let o = run(&ok);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).starts_with("1 events in 1 rank(s)"), "{}", stdout(&o));
    }
    let bad = run(&["info", p, "--max-inflated", "lots"]);
    assert_eq!(stderr(&bad), "kinetoscope: --max-inflated lots: expected a size such as 16G, 500M or 1000000 (bytes)\n");
    let bad = run(&["info", p, "--max-inflated=-5G"]);
    assert_eq!(stderr(&bad), "kinetoscope: --max-inflated -5G: expected a positive size such as 16G, 500M or 1000000 (bytes)\n");
    std::fs::remove_dir_all(&dir).ok();
}
