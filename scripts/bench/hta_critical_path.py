#!/usr/bin/env python3
"""Times HolisticTraceAnalysis 0.5.0's critical path on one rank of a trace folder: loading the
folder, then `critical_path_analysis(rank, annotation, instance_id)` (graph construction and
networkx's longest path), each timed separately.

Usage: hta_critical_path.py TRACE_DIR RANK ANNOTATION INSTANCE [OUT.json]
  ANNOTATION  e.g. ProfilerStep, or '' for the whole rank
  INSTANCE    an instance number (2) or an inclusive range (2-5), as kinetoscope's --instance
Prints `key<TAB>value` lines and writes them to OUT.json (rewritten after each one):
  import_s, load_s, critical_path_s
                            wall seconds of `import hta`, TraceAnalysis(trace_dir) and the analysis
  load_rss_mib, rss_mib     peak RSS after loading and at the end (getrusage)
  success, n_nodes, n_edges, n_critical_edges
  critical_path_length      sum of the path edges' weights (CPEdge.weight, µs), as the oracle's
                            critical_path_info.json computes it
Needs HolisticTraceAnalysis==0.5.0 (pandas 2.2.3, numpy 2.2.6; see ../shared/hta-oracle/README.md).
"""
import json
import logging
import resource
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def peak_rss_mib():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main():
    trace_dir, rank, annotation, instance = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    out = sys.argv[5] if len(sys.argv) > 5 else None
    first, _, last = instance.partition("-")
    instance_id = (int(first), int(last)) if last else int(first)
    res = {}

    def report(key, value):
        res[key] = value
        print(f"{key}\t{value}", flush=True)
        if out:  # after every value, so a run stopped by a timeout keeps what it measured
            with open(out, "w") as f:
                json.dump(res, f, indent=1)

    t0 = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis

    logging.getLogger("hta").setLevel(logging.ERROR)  # one warning per unconnected kernel otherwise
    report("import_s", round(time.perf_counter() - t0, 3))
    t0 = time.perf_counter()
    a = TraceAnalysis(trace_dir=trace_dir)
    report("load_s", round(time.perf_counter() - t0, 3))
    report("load_rss_mib", peak_rss_mib())
    t1 = time.perf_counter()
    cp, ok = a.critical_path_analysis(rank=rank, annotation=annotation, instance_id=instance_id)
    report("critical_path_s", round(time.perf_counter() - t1, 3))
    report("rss_mib", peak_rss_mib())
    report("success", bool(ok))
    report("n_nodes", cp.number_of_nodes())
    report("n_edges", cp.number_of_edges())
    report("n_critical_edges", len(cp.critical_path_edges_set))
    length = sum(e.weight for e in cp.critical_path_edges_set)
    report("critical_path_length", int(length) if float(length).is_integer() else length)


if __name__ == "__main__":
    main()
