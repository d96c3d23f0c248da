//! speedscope's file format (`https://www.speedscope.app/file-format-schema.json`): one evented
//! profile per thread (its frames opened and closed in time order, ns), and with GPU time a
//! sampled profile per rank of the GPU operations by launching stack (weights in ns).

use serde_json::{json, Value};

use super::Profile;

/// The speedscope JSON of `p`, named `name`; `gpu`: add the GPU profiles.
pub fn speedscope(p: &Profile, name: &str, gpu: bool) -> String {
    let frames: Vec<Value> = p.names.iter().map(|n| json!({ "name": n })).collect();
    let mut profiles = Vec::new();
    for t in &p.timelines {
        let label = p.stack(t.node).join(" · ");
        let (start, end) = (t.marks.first().map_or(0, |m| m.at), t.marks.last().map_or(0, |m| m.at));
        let events: Vec<Value> =
            t.marks.iter().map(|m| json!({ "type": if m.open { "O" } else { "C" }, "frame": m.name, "at": m.at - start })).collect();
        profiles.push(json!({
            "type": "evented", "name": label, "unit": "nanoseconds",
            "startValue": 0, "endValue": end - start, "events": events,
        }));
    }
    if gpu {
        for &rank in &p.ranks {
            let mut samples = Vec::new();
            let mut weights = Vec::new();
            for g in p.gpu.iter().filter(|g| g.ns > 0 && p.nodes[g.node as usize].rank == rank) {
                let mut stack = Vec::new();
                let mut at = g.node;
                while at != super::NO_NODE {
                    stack.push(p.nodes[at as usize].name);
                    at = p.nodes[at as usize].parent;
                }
                stack.reverse();
                stack.push(g.name);
                samples.push(stack);
                weights.push(g.ns);
            }
            if samples.is_empty() {
                continue;
            }
            let total: i64 = weights.iter().sum();
            profiles.push(json!({
                "type": "sampled", "name": format!("rank {rank} · GPU time by launching stack"), "unit": "nanoseconds",
                "startValue": 0, "endValue": total, "samples": samples, "weights": weights,
            }));
        }
    }
    json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "name": name,
        "exporter": format!("kinetoscope {}", env!("CARGO_PKG_VERSION")),
        "activeProfileIndex": 0,
        "shared": { "frames": frames },
        "profiles": profiles,
    })
    .to_string()
}
