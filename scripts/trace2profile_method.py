#!/usr/bin/env python3
"""What trace2profile (github.com/WarningRan/trace2profile, trace2profile.py) makes of a trace, computed
the way it does it: every event with a `dur` (CPU and GPU alike) becomes one pprof sample of one frame
whose value is the event's whole duration; nesting is not rebuilt, so a frame's callees are counted again
in its own sample. Prints its samples, frames per sample and total, and the same trace's CPU and GPU
parts, for the side-by-side in docs/exports.md (kinetoscope's numbers: `kinetoscope export pprof TRACE -o
P.pb.gz` then `go tool pprof -top -sample_index=wall|gpu P.pb.gz`).

usage: python3 scripts/trace2profile_method.py TRACE.json[.gz]
"""
import gzip
import json
import sys

path = sys.argv[1]
with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
    events = json.load(f)["traceEvents"]
DEVICE = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "gpu_user_annotation"}
with_dur = [e for e in events if "dur" in e]
total = sum(int(e["dur"] * 1000) for e in with_dur)
gpu = sum(int(e["dur"] * 1000) for e in with_dur if e.get("cat") in DEVICE)
print(f"samples:           {len(with_dur)}")
print("frames per sample: 1")
print(f"total:             {total / 1e6:.3f} ms  (CPU events {(total - gpu) / 1e6:.3f} ms + GPU events {gpu / 1e6:.3f} ms, one sample type 'cpu')")
