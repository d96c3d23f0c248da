#!/usr/bin/env python3
"""HolisticTraceAnalysis 0.5.0 end to end as issue 23 compares it: load a trace folder, then its
four analyses (temporal breakdown, kernel breakdown, comm/comp overlap, idle time), all ranks.
Run it under /usr/bin/time: the process's wall time and peak RSS are the baseline.

Usage: hta_analyze.py TRACE_DIR
Prints one line per step (`step<TAB>seconds<TAB>status`).
"""
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def main():
    t0 = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis

    print(f"import\t{time.perf_counter() - t0:.3f}\tok", flush=True)
    holder = {}

    def step(name, fn):
        t = time.perf_counter()
        status = "ok"
        try:
            fn()
        except Exception as e:  # HTA raises on some inputs; that is part of the comparison
            status = f"error: {type(e).__name__}"
        print(f"{name}\t{time.perf_counter() - t:.3f}\t{status}", flush=True)

    step("load", lambda: holder.update(a=TraceAnalysis(trace_dir=sys.argv[1])))
    a = holder["a"]
    ranks = sorted(a.t.traces.keys())
    step("temporal", lambda: a.get_temporal_breakdown(visualize=False))
    step("kernels", lambda: a.get_gpu_kernel_breakdown(visualize=False))
    step("overlap", lambda: a.get_comm_comp_overlap(visualize=False))
    step("idle", lambda: a.get_idle_time_breakdown(ranks=ranks, visualize=False, show_idle_interval_stats=True))
    print(f"total\t{time.perf_counter() - t0:.3f}\tok", flush=True)


if __name__ == "__main__":
    main()
