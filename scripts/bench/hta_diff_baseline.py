#!/usr/bin/env python3
"""Times HolisticTraceAnalysis 0.5.0's TraceDiff on two trace folders: loading each side
(`LabeledTrace`, i.e. `parse_traces()`), then `compare_traces` and `ops_diff` (the first rank and
iteration of each side, all devices), what `kinetoscope diff --hta` computes.

Usage: hta_diff_baseline.py CONTROL_DIR TEST_DIR
Prints one line per step (`step<TAB>seconds`). Needs HolisticTraceAnalysis==0.5.0 (pandas 2.2.3).
"""
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def main():
    control_dir, test_dir = sys.argv[1:3]
    from hta.trace_diff import LabeledTrace, TraceDiff

    t0 = time.perf_counter()
    control = LabeledTrace(label="control", trace_dir=control_dir)
    t1 = time.perf_counter()
    test = LabeledTrace(label="test", trace_dir=test_dir)
    t2 = time.perf_counter()
    TraceDiff.compare_traces(control, test)
    TraceDiff.ops_diff(control, test)
    t3 = time.perf_counter()
    print(f"load control\t{t1 - t0:.3f}\nload test\t{t2 - t1:.3f}\ncompare_traces + ops_diff\t{t3 - t2:.3f}\ntotal\t{t3 - t0:.3f}")


if __name__ == "__main__":
    main()
