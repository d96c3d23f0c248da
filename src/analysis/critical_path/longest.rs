//! The longest path of the graph, as `networkx.dag_longest_path(G, weight="weight")` finds it:
//! nodes in topological generations (sources in the order they joined the graph, then each
//! generation's successors in edge order), each node's best predecessor the first one with the
//! greatest distance (a negative best restarts the path at the node), the path ending at the
//! first node of greatest distance. Equally long paths are therefore broken as networkx breaks
//! them, which is what makes HTA's choice among them reproducible.

use super::graph::{Graph, NONE};

/// The path's edges, in order, and its length (sum of graph weights), or `Err` with a node on a
/// cycle.
pub fn longest_path(g: &Graph) -> Result<(Vec<u32>, i64), u32> {
    let n = g.nodes.len();
    // successors and predecessors as edge lists, in edge order (CSR)
    let (succ_start, succ) = csr(n, g.edges.iter().enumerate().map(|(e, x)| (x.src, e as u32)));
    let (pred_start, pred) = csr(n, g.edges.iter().enumerate().map(|(e, x)| (x.dst, e as u32)));
    let mut indegree: Vec<u32> = (0..n).map(|v| pred_start[v + 1] - pred_start[v]).collect();
    let mut topo: Vec<u32> = g.order.iter().copied().filter(|&v| indegree[v as usize] == 0).collect();
    let mut done = 0;
    while done < topo.len() {
        let end = topo.len();
        for i in done..end {
            let v = topo[i] as usize;
            for &e in &succ[succ_start[v] as usize..succ_start[v + 1] as usize] {
                let child = g.edges[e as usize].dst;
                indegree[child as usize] -= 1;
                if indegree[child as usize] == 0 {
                    topo.push(child);
                }
            }
        }
        done = end;
    }
    if topo.len() < g.order.len() {
        let on_cycle = g.order.iter().copied().find(|&v| indegree[v as usize] > 0).unwrap_or(NONE);
        return Err(on_cycle);
    }
    // (distance, edge from the best predecessor or NONE)
    let mut dist: Vec<(i64, u32)> = vec![(0, NONE); n];
    for &v in &topo {
        let v = v as usize;
        let mut best: Option<(i64, u32)> = None;
        for &e in &pred[pred_start[v] as usize..pred_start[v + 1] as usize] {
            let edge = &g.edges[e as usize];
            let d = dist[edge.src as usize].0 + edge.graph_weight;
            if best.is_none_or(|(b, _)| d > b) {
                best = Some((d, e));
            }
        }
        dist[v] = match best {
            Some((d, e)) if d >= 0 => (d, e),
            _ => (0, NONE),
        };
    }
    let Some(mut v) = topo.iter().copied().reduce(|a, b| if dist[b as usize].0 > dist[a as usize].0 { b } else { a }) else {
        return Ok((Vec::new(), 0));
    };
    let length = dist[v as usize].0;
    let mut path = Vec::new();
    while dist[v as usize].1 != NONE {
        let e = dist[v as usize].1;
        path.push(e);
        v = g.edges[e as usize].src;
    }
    path.reverse();
    Ok((path, length))
}

/// Compressed lists: for each key `0..n`, its values in input order.
fn csr(n: usize, items: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for (k, _) in items.clone() {
        start[k as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![0u32; start[n] as usize];
    for (k, v) in items {
        out[fill[k as usize] as usize] = v;
        fill[k as usize] += 1;
    }
    (start, out)
}

#[cfg(test)]
mod tests {
    use super::super::graph::EdgeKind;
    use super::*;
    use crate::analysis::hta_frame::HtaFrame;

    /// A graph over `n` one-node events at times `ts`, with edges `(src, dst, zero)`.
    fn graph(ts: &[i64], edges: &[(u32, u32)]) -> Graph {
        // exact frame rows read their times from the model rows
        let mut r = crate::model::RankTrace::default();
        (r.events.ts, r.events.dur) = (ts.to_vec(), std::iter::repeat_n(0, ts.len()).collect());
        let mut f = HtaFrame::default();
        (f.row, f.exact) = ((0..ts.len() as u32).collect(), true);
        let rows: Vec<usize> = (0..ts.len()).collect();
        let mut g = Graph::new(&f, &r, &rows, -1);
        for &(a, b) in edges {
            // start nodes only: node 2k is event k's start
            g.add(2 * a, 2 * b, EdgeKind::Operator, false);
        }
        g
    }

    #[test]
    fn longest_of_two_branches() {
        // 0 → 1 → 3 (10 + 10) vs 0 → 2 → 3 (5 + 15): both 20; networkx keeps the first
        // predecessor of 3 in edge order (1)
        let g = graph(&[0, 10, 5, 20], &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let (path, len) = longest_path(&g).expect("dag");
        assert_eq!(len, 20);
        let nodes: Vec<u32> = path.iter().map(|&e| g.edges[e as usize].dst).collect();
        assert_eq!(nodes, vec![2, 6]);
        // the longer branch wins
        let g = graph(&[0, 10, 5, 30], &[(0, 1), (0, 2), (2, 3), (1, 3)]);
        let (path, len) = longest_path(&g).expect("dag");
        assert_eq!(len, 30);
        assert_eq!(path.len(), 2);
    }

    #[test]
    fn cycles_are_found() {
        let g = graph(&[0, 10, 20], &[(0, 1), (1, 2), (2, 1)]);
        assert!(longest_path(&g).is_err());
    }

    #[test]
    fn empty_graph_has_an_empty_path() {
        let g = graph(&[0], &[]);
        assert_eq!(longest_path(&g), Ok((Vec::new(), 0)));
    }
}
