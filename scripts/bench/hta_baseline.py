#!/usr/bin/env python3
"""Times HolisticTraceAnalysis 0.5.0 on a trace folder: loading, then each analysis API that
`kinetoscope analyze --hta` also runs (defaults as in ../shared/hta-oracle/README.md, all ranks).

Usage: hta_baseline.py TRACE_DIR [OUT.json]
Prints one line per step (`step<TAB>seconds`) and writes {step: seconds} to OUT.json.
Needs `pip install HolisticTraceAnalysis==0.5.0 pandas==2.2.3 numpy==2.2.6` (bench_hta.sh makes a venv).
"""
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def main():
    trace_dir = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else None
    from hta.trace_analysis import TraceAnalysis

    times = {}

    def step(name, fn):
        t0 = time.perf_counter()
        try:
            fn()
            status = "ok"
        except Exception as e:  # HTA raises on some inputs; that is part of the comparison
            status = f"error: {type(e).__name__}"
        times[name] = round(time.perf_counter() - t0, 3)
        print(f"{name}\t{times[name]}\t{status}", flush=True)

    holder = {}
    step("load", lambda: holder.update(a=TraceAnalysis(trace_dir=trace_dir)))
    a = holder["a"]
    ranks = sorted(a.t.traces.keys())
    step("temporal", lambda: a.get_temporal_breakdown(visualize=False))
    step("kernels", lambda: a.get_gpu_kernel_breakdown(visualize=False))
    step("overlap", lambda: a.get_comm_comp_overlap(visualize=False))
    step("idle", lambda: a.get_idle_time_breakdown(ranks=ranks, visualize=False, show_idle_interval_stats=True))
    step("queue", lambda: a.get_queue_length_summary(ranks=ranks))
    step("memory_bw", lambda: a.get_memory_bw_summary(ranks=ranks))
    step("launch", lambda: a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False))
    step("annotations", lambda: a.get_gpu_user_annotation_breakdown(use_gpu_annotation=False, visualize=False))
    step("steps", lambda: a.get_profiler_steps())
    times["total"] = round(sum(times.values()), 3)
    print(f"total\t{times['total']}", flush=True)
    if out:
        with open(out, "w") as f:
            json.dump(times, f, indent=1)


if __name__ == "__main__":
    main()
