//! `steps` (HTA `get_profiler_steps`) on the two ranks of `testdata/analysis/stragglers/`.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;

use crate::{eqnice, util};

fn csv(hta: bool, ranks: Option<&[i64]>) -> String {
    let dir = util::testdata("analysis/stragglers");
    let files: Vec<(String, Vec<u8>)> = ["rank0.json", "rank1.json"].iter().map(|f| (f.to_string(), util::bytes(&dir.join(f)))).collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let trace = kinetoscope::read::read_all(&refs).expect("read");
    let a = find("steps").expect("registered");
    let ctx = Context::new(&trace, hta, ranks).expect("context");
    let r = (a.run)(&ctx, &Params::defaults(a.options)).expect("run");
    assert_eq!(r.tables.len(), 1);
    r.tables[0].to_csv()
}

/// Steps 1–3 on both ranks; loading drops the last one (SPEC §1.9), in both modes. The default
/// adds how many ranks have each step.
#[test]
fn last_step_is_dropped() {
    eqnice!("profiler_step\n1\n2\n", csv(true, None));
    eqnice!("profiler_step,num_ranks\n1,2\n2,2\n", csv(false, None));
    eqnice!("profiler_step,num_ranks\n1,1\n2,1\n", csv(false, Some(&[1])));
}

/// A trace without steps: an empty table (HTA returns an empty list).
#[test]
fn no_steps() {
    let trace = kinetoscope::read::read_all(&[("launch.json", &util::bytes(&util::testdata("analysis/launch.json")))]).expect("read");
    let a = find("steps").expect("registered");
    for hta in [true, false] {
        let ctx = Context::new(&trace, hta, None).expect("context");
        let r = (a.run)(&ctx, &Params::defaults(a.options)).expect("run");
        assert_eq!(r.tables[0].rows(), 0);
    }
}
