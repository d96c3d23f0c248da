//! Folded stacks (Brendan Gregg's format, what `flamegraph.pl` and inferno read): one line per
//! stack, `frame;frame;…;frame VALUE`, root first, the value the stack's own time in ns.

use super::{Profile, NO_NODE};

/// What a folded file measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// CPU self time per stack.
    Cpu,
    /// GPU time per launching stack, the GPU operation as the leaf frame.
    Gpu,
}

/// A frame's name as one folded field: `;` separates frames and a line ends with a space and the
/// value, so `;` becomes `:` and line breaks become spaces.
pub fn field(name: &str) -> String {
    name.replace(';', ":").replace(['\n', '\r'], " ")
}

/// The folded stacks of `p` (lines sorted, stacks with no time left out). With one rank its
/// `rank N` root frame is left out.
pub fn folded(p: &Profile, measure: Measure) -> String {
    let one_rank = p.ranks.len() <= 1;
    let path = |node: u32| -> Vec<String> {
        let mut s: Vec<String> = p.stack(node).into_iter().map(field).collect();
        if one_rank && !s.is_empty() {
            s.remove(0);
        }
        s
    };
    let mut lines: Vec<(String, i64)> = Vec::new();
    match measure {
        Measure::Cpu => {
            for (i, n) in p.nodes.iter().enumerate() {
                if n.self_ns > 0 && n.parent != NO_NODE {
                    lines.push((path(i as u32).join(";"), n.self_ns));
                }
            }
        }
        Measure::Gpu => {
            let mut by: std::collections::BTreeMap<String, i64> = Default::default();
            for g in p.gpu.iter().filter(|g| g.ns > 0) {
                let mut s = path(g.node);
                s.push(field(&p.names[g.name as usize]));
                *by.entry(s.join(";")).or_default() += g.ns;
            }
            lines.extend(by);
        }
    }
    lines.sort();
    let mut out = String::new();
    for (stack, v) in lines {
        out.push_str(&stack);
        out.push(' ');
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}
