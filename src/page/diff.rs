//! The page's Diff mode: what `kinetoscope diff` shows, as the JSON of a run (parent module docs),
//! for two traces or for two rank sets of one trace ("rank 3 against the others").
//!
//! [`diff_json`] takes the options as the page's forms send them (a JSON object of text values,
//! declared once in [`OPTIONS`] and listed for the form by [`diff_options_json`]) and does
//! what `src/cli/diff.rs` does with the same flags:
//!
//! * the same trace on both sides: `test_ranks` is required, and an empty `control_ranks` means
//!   every other rank of the trace (the CLI's one-trace form, `diff RUN --test-ranks 3`);
//! * HTA mode: HTA's `TraceDiff` tables (one rank per side, the first one by default), the
//!   `compare_traces__<device>[__short]` table of the options first, and [`hta_summary`]'s line;
//! * otherwise [`report`]: the `by` table and its grouped-bar charts first, the summary line the
//!   first note.
//!
//! The JSON adds to a run's: `control_ranks` and `test_ranks` (the ranks each side compared) and
//! `summary` (the one-line summary, also the first note). Each table's `csv`
//! is what `kinetoscope diff … --out DIR` writes to `DIR/<table>.csv`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{option_texts, PageTable};
use crate::analysis::api::{fail, parse_int_list, AnalysisError, Opt, Params};
use crate::analysis::diff::{choices, hta_report, other_ranks, report, DiffOptions, Side, OPTIONS};
use crate::model::Trace;
use crate::table::{Chart, Report};

/// One option as the page's Diff form shows it.
#[derive(Serialize)]
struct DiffOpt {
    #[serde(flatten)]
    opt: &'static Opt,
    choices: Vec<&'static str>,
}

/// [`OPTIONS`] as JSON: `[{name, kind, default, help, choices: [text]}]` (`choices` empty
/// unless the option takes one of a few values).
pub fn diff_options_json() -> String {
    let list: Vec<DiffOpt> = OPTIONS.iter().map(|opt| DiffOpt { opt, choices: choices(opt.name) }).collect();
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
}

/// The JSON of a diff (module docs).
#[derive(Serialize)]
struct DiffPage<'a> {
    analysis: &'static str,
    hta: bool,
    control_ranks: Vec<u32>,
    test_ranks: Vec<u32>,
    params: BTreeMap<&'a str, &'a str>,
    summary: &'a str,
    tables: Vec<PageTable<'a>>,
    charts: &'a [Chart],
    notes: &'a [String],
    files: [(); 0],
}

/// A finished comparison and the ranks of each side.
pub struct Diff {
    /// Tables, charts and notes, in the CLI's order.
    pub report: Report,
    /// Ranks of the control side.
    pub control_ranks: Vec<u32>,
    /// Ranks of the test side.
    pub test_ranks: Vec<u32>,
}

/// Compares `control` with `test` (module docs): options `params_json` (a JSON object of
/// [`OPTIONS`] name → value; missing = default), ranks as text (`0,2-5`; empty = all, or
/// with the same trace on both sides, for control: every rank not in `test_ranks`), HTA mode or
/// not. Returns the JSON of the comparison.
pub fn diff_json(
    control: &Trace,
    test: &Trace,
    params_json: &str,
    control_ranks: &str,
    test_ranks: &str,
    hta: bool,
) -> Result<String, AnalysisError> {
    let given = option_texts(params_json)?;
    let params = Params::new(OPTIONS, given.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let d = diff(control, test, &params, control_ranks, test_ranks, hta)?;
    serde_json::to_string(&DiffPage {
        analysis: "diff",
        hta,
        control_ranks: d.control_ranks,
        test_ranks: d.test_ranks,
        params: params.iter().collect(),
        summary: d.report.notes.first().map(String::as_str).unwrap_or_default(),
        // a comparison's tables always carry their CSV: the Diff mode keeps no run to ask again
        tables: d.report.tables.iter().map(PageTable::with_csv).collect(),
        charts: &d.report.charts,
        notes: &d.report.notes,
        files: [],
    })
    .map_err(|e| AnalysisError(format!("could not write the report as JSON: {e}")))
}

/// [`diff_json`] before JSON: the comparison of checked options.
pub fn diff(
    control: &Trace,
    test: &Trace,
    params: &Params,
    control_ranks: &str,
    test_ranks: &str,
    hta: bool,
) -> Result<Diff, AnalysisError> {
    let o = DiffOptions::from_params(params)?;
    let mut control_ranks = parse_int_list(control_ranks).map_err(|e| AnalysisError(format!("control ranks: {e}")))?;
    let test_ranks = parse_int_list(test_ranks).map_err(|e| AnalysisError(format!("test ranks: {e}")))?;
    if std::ptr::eq(control, test) {
        let Some(t) = &test_ranks else {
            return fail("one trace on both sides: say which of its ranks to compare with the others (test ranks, e.g. 3)");
        };
        if control_ranks.is_none() {
            control_ranks = Some(other_ranks(control, t)?);
        }
    }
    if hta {
        let iterations = (o.iteration, o.test_iteration.or(o.iteration));
        let (report, c, t) =
            hta_report(control, test, control_ranks.as_deref(), test_ranks.as_deref(), iterations, o.device, o.short_names)?;
        return Ok(Diff { report, control_ranks: vec![c], test_ranks: vec![t] });
    }
    let control = Side::new("control", control, control_ranks.as_deref())?;
    let test = Side::new("test", test, test_ranks.as_deref())?;
    Ok(Diff { report: report(&control, &test, &o)?, control_ranks: control.ranks(), test_ranks: test.ranks() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::diff::{hta_summary, hta_tables, LabeledTrace};
    use crate::read::read_all;

    fn testdata(name: &str) -> Vec<u8> {
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff").join(name)).unwrap()
    }

    fn one(name: &str) -> Trace {
        read_all(&[(name, &testdata(name))]).unwrap()
    }

    /// Ranks 0 and 2 are testdata/diff/control.json, rank 1 is test.json.
    fn three_ranks() -> Trace {
        let with_rank = |name: &str, rank: u32| {
            let text = String::from_utf8(testdata(name)).unwrap();
            text.replacen('{', &format!("{{\"distributedInfo\": {{\"rank\": {rank}}}, "), 1).into_bytes()
        };
        let (r0, r1, r2) = (with_rank("control.json", 0), with_rank("test.json", 1), with_rank("control.json", 2));
        read_all(&[("r0.json", &r0[..]), ("r1.json", &r1[..]), ("r2.json", &r2[..])]).unwrap()
    }

    fn json(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    fn column<'v>(table: &'v serde_json::Value, name: &str) -> &'v serde_json::Value {
        &table["columns"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()["values"]
    }

    #[test]
    fn options_list_their_choices() {
        let v = json(&diff_options_json());
        let names: Vec<&str> = v.as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["by", "device", "short_names", "iteration", "test_iteration", "start_kernel", "step_name", "by_launch"]);
        assert_eq!(v[0]["choices"], serde_json::json!(["op", "kernel", "type", "step", "annotation"]));
        assert_eq!(v[0]["default"], "op");
        assert_eq!(v[1]["choices"], serde_json::json!(["all", "cpu", "gpu"]));
        assert_eq!(v[2]["kind"], "bool");
        assert_eq!(v[3]["choices"], serde_json::json!([]));
    }

    #[test]
    fn two_traces_give_the_clis_tables_charts_and_summary() {
        let (c, t) = (one("control.json"), one("test.json"));
        let v = json(&diff_json(&c, &t, "{}", "", "", false).unwrap());
        assert_eq!(v["analysis"], "diff");
        assert_eq!((&v["control_ranks"], &v["test_ranks"]), (&serde_json::json!([0]), &serde_json::json!([0])));
        let summary = "step time 1.000 → 0.800 ms (-20.0 %); control (rank 0) vs test (rank 0); biggest gain: aten::dropout -40.0 µs; biggest loss: gemm +100.0 µs";
        assert_eq!(v["summary"], summary);
        assert_eq!(v["notes"][0], summary);
        assert_eq!(
            v["params"],
            serde_json::json!({"by": "op", "by_launch": "false", "device": "all", "iteration": "", "short_names": "false", "start_kernel": "recover_decode_task", "step_name": "", "test_iteration": ""})
        );
        assert_eq!(v["files"], serde_json::json!([]));

        // the same report as the library's, table for table, CSV for CSV (what --out writes)
        let expected =
            report(&Side::new("control", &c, None).unwrap(), &Side::new("test", &t, None).unwrap(), &DiffOptions::default()).unwrap();
        let tables = v["tables"].as_array().unwrap();
        assert_eq!(tables.len(), expected.tables.len());
        for (got, want) in tables.iter().zip(&expected.tables) {
            assert_eq!(got["name"], want.name);
            assert_eq!(got["rows"], want.rows());
            assert_eq!(got["csv"], want.to_csv());
        }
        assert_eq!(tables[0]["name"], "diff_by_op");
        assert_eq!(v["notes"], serde_json::to_value(&expected.notes).unwrap());
        assert_eq!(v["charts"], serde_json::to_value(&expected.charts).unwrap());
        assert_eq!(v["charts"][0]["type"], "grouped_bars");
        assert_eq!(v["charts"][0]["series"].as_array().unwrap().len(), 3, "control, test, difference");

        // gemm: 100 µs per step in control, 200 in test
        let gemm = column(&tables[0], "name").as_array().unwrap().iter().position(|n| n == "gemm").unwrap();
        assert_eq!(column(&tables[0], "control_time_us")[gemm], 100.0);
        assert_eq!(column(&tables[0], "test_time_us")[gemm], 200.0);
    }

    #[test]
    fn options_choose_the_main_table() {
        let (c, t) = (one("control.json"), one("test.json"));
        for (by, first) in
            [("kernel", "diff_by_kernel"), ("type", "diff_by_type"), ("step", "diff_steps"), ("annotation", "diff_by_annotation")]
        {
            let v = json(&diff_json(&c, &t, &format!(r#"{{"by": "{by}"}}"#), "", "", false).unwrap());
            assert_eq!(v["tables"][0]["name"], first, "by {by}");
        }
        let v = json(
            &diff_json(&c, &t, r#"{"iteration": "1", "device": "gpu", "short_names": true, "start_kernel": "none"}"#, "", "", false)
                .unwrap(),
        );
        assert_eq!(v["params"]["iteration"], "1");
        assert_eq!(v["notes"][1], "times and calls are per step 1: control 1 step, test 2 steps (one compared)");
        let names = column(&v["tables"][0], "name");
        assert!(names.as_array().unwrap().iter().all(|n| n != "aten::mm"), "device gpu leaves CPU operators out: {names}");
    }

    #[test]
    fn a_rank_against_the_other_ranks_of_one_trace() {
        let tr = three_ranks();
        let v = json(&diff_json(&tr, &tr, "{}", "", "1", false).unwrap());
        assert_eq!(v["control_ranks"], serde_json::json!([0, 2]));
        assert_eq!(v["test_ranks"], serde_json::json!([1]));
        assert!(
            v["summary"].as_str().unwrap().starts_with("step time 1.000 → 0.800 ms (-20.0 %); control (2 ranks, median) vs test (rank 1);"),
            "{}",
            v["summary"]
        );
        // the median of two copies of the control run is the control run: the numbers of the two-trace diff
        let (c, t) = (one("control.json"), one("test.json"));
        let two = json(&diff_json(&c, &t, "{}", "", "", false).unwrap());
        assert_eq!(v["tables"][0]["csv"], two["tables"][0]["csv"]);

        // explicit control ranks, and the errors the CLI gives
        let v = json(&diff_json(&tr, &tr, "{}", "2", "1", false).unwrap());
        assert_eq!(v["control_ranks"], serde_json::json!([2]));
        assert!(diff_json(&tr, &tr, "{}", "", "", false).unwrap_err().0.starts_with("one trace on both sides: say which"));
        assert_eq!(
            diff_json(&tr, &tr, "{}", "", "0-2", false).unwrap_err().0,
            "the test ranks take every rank of the trace; nothing is left to compare with"
        );
        assert_eq!(diff_json(&tr, &tr, "{}", "", "7", false).unwrap_err().0, "test: rank 7 is not in the trace (ranks: 0, 1, 2)");
    }

    #[test]
    fn hta_mode_gives_the_oracles_tables_with_the_chosen_one_first() {
        let (c, t) = (one("control.json"), one("test.json"));
        let v = json(&diff_json(&c, &t, r#"{"device": "gpu", "short_names": "true"}"#, "", "", true).unwrap());
        assert_eq!(v["hta"], true);
        let (cl, tl) = (LabeledTrace::new("control", &c, None, false).unwrap(), LabeledTrace::new("test", &t, None, false).unwrap());
        assert_eq!(v["summary"], hta_summary(&cl, &tl, (None, None)));
        assert_eq!(v["notes"], serde_json::json!([hta_summary(&cl, &tl, (None, None))]));
        assert!(v["summary"].as_str().unwrap().starts_with("step time 1.000 → "), "{}", v["summary"]);
        let names: Vec<&str> = v["tables"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names[0], "compare_traces__gpu__short");
        assert!(
            names.contains(&"compare_traces__all") && names.contains(&"ops_diff__cpu") && names.contains(&"iterations__test"),
            "{names:?}"
        );
        let expected = hta_tables(&cl, &tl, (None, None));
        for want in &expected {
            let got = v["tables"].as_array().unwrap().iter().find(|g| g["name"] == want.name).unwrap();
            assert_eq!(got["csv"], want.to_csv(), "{}", want.name);
        }
        assert_eq!(v["charts"], serde_json::json!([]));

        let tr = three_ranks();
        let v = json(&diff_json(&tr, &tr, "{}", "0", "1", true).unwrap());
        assert_eq!((&v["control_ranks"], &v["test_ranks"]), (&serde_json::json!([0]), &serde_json::json!([1])));
        assert_eq!(
            diff_json(&tr, &tr, "{}", "", "1", true).unwrap_err().0,
            "control ranks: HTA's TraceDiff compares one rank per side; give one rank (or leave HTA mode)"
        );
        assert_eq!(diff_json(&tr, &tr, "{}", "0", "5", true).unwrap_err().0, "test: no rank 5");
    }

    #[test]
    fn bad_options_are_errors_not_panics() {
        let (c, t) = (one("control.json"), one("test.json"));
        let err = |params: &str, cr: &str| diff_json(&c, &t, params, cr, "", false).unwrap_err().0;
        assert_eq!(err(r#"{"by": "x"}"#, ""), "option 'by': expected one of op, kernel, type, step, annotation, found 'x'");
        assert_eq!(err(r#"{"device": "tpu"}"#, ""), "option 'device': expected one of all, cpu, gpu, found 'tpu'");
        assert_eq!(err(r#"{"iteration": "two"}"#, ""), "option 'iteration': expected an integer, found 'two'");
        assert_eq!(err(r#"{"iteration": 9}"#, ""), "control: rank 0 has no complete step 9 (steps: 1)");
        assert!(err(r#"{"bogus": 1}"#, "").starts_with("unknown option 'bogus'"));
        assert!(err("{}", "x").starts_with("control ranks: "));
        assert_eq!(err("{}", "3"), "control: rank 3 is not in the trace (ranks: 0)");
    }
}
