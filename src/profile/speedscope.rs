//! speedscope's file format (`https://www.speedscope.app/file-format-schema.json`): one evented
//! profile per thread (its frames opened and closed in time order, ns), and with GPU time a
//! sampled profile per rank of the GPU operations by launching stack (weights in ns). Written as
//! text piece by piece: a trace's millions of opens and closes never become a JSON tree.

use std::fmt::Write;

use super::{Profile, NO_NODE};

/// `s` as a JSON string.
fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// The speedscope JSON of `p`, named `name`; `gpu`: add the GPU profiles.
pub fn speedscope(p: &Profile, name: &str, gpu: bool) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":{},\"exporter\":{},\"activeProfileIndex\":0,\"shared\":{{\"frames\":[",
        quoted(name),
        quoted(&format!("kinetoscope {}", env!("CARGO_PKG_VERSION")))
    );
    for (i, n) in p.names.iter().enumerate() {
        let _ = write!(out, "{}{{\"name\":{}}}", if i == 0 { "" } else { "," }, quoted(n));
    }
    out.push_str("]},\"profiles\":[");
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !std::mem::take(&mut first) {
            out.push(',');
        }
    };
    for t in &p.timelines {
        sep(&mut out);
        let (start, end) = (t.marks.first().map_or(0, |m| m.at), t.marks.last().map_or(0, |m| m.at));
        let _ = write!(
            out,
            "{{\"type\":\"evented\",\"name\":{},\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":{},\"events\":[",
            quoted(&p.stack(t.node).join(" · ")),
            end - start
        );
        for (i, m) in t.marks.iter().enumerate() {
            let _ = write!(
                out,
                "{}{{\"type\":\"{}\",\"frame\":{},\"at\":{}}}",
                if i == 0 { "" } else { "," },
                if m.open { "O" } else { "C" },
                m.name,
                m.at - start
            );
        }
        out.push_str("]}");
    }
    if gpu {
        for &rank in &p.ranks {
            let of_rank: Vec<_> = p.gpu.iter().filter(|g| g.ns > 0 && p.nodes[g.node as usize].rank == rank).collect();
            if of_rank.is_empty() {
                continue;
            }
            sep(&mut out);
            let total: i64 = of_rank.iter().map(|g| g.ns).sum();
            let _ = write!(
                out,
                "{{\"type\":\"sampled\",\"name\":{},\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":{total},\"samples\":[",
                quoted(&format!("rank {rank} · GPU time by launching stack"))
            );
            for (i, g) in of_rank.iter().enumerate() {
                let mut stack = vec![g.name];
                let mut at = g.node;
                while at != NO_NODE {
                    stack.push(p.nodes[at as usize].name);
                    at = p.nodes[at as usize].parent;
                }
                stack.reverse();
                let frames: Vec<String> = stack.iter().map(u32::to_string).collect();
                let _ = write!(out, "{}[{}]", if i == 0 { "" } else { "," }, frames.join(","));
            }
            out.push_str("],\"weights\":[");
            out.push_str(&of_rank.iter().map(|g| g.ns.to_string()).collect::<Vec<_>>().join(","));
            out.push_str("]}");
        }
    }
    out.push_str("]}\n");
    out
}
