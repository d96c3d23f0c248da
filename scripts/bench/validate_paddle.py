#!/usr/bin/env python3
"""Validate a trace produced by gen_paddle.py.

Usage: validate_paddle.py OUT [--sample ../shared/traces/paddle/paddle3.3.1_cpu_mlp_adam.paddle_trace.json]

json.loads the whole file (use on small outputs) and checks: top-level keys and their order match
the real Paddle 3.3.1 sample; events of the categories the sample has use the same keys in the
same order; names carry a ``[x.xxx ms|us]`` suffix; ts are integers, dur have 3 decimals;
correlation ids are unique (one runtime call + one GPU op + one flow s/f pair each); steps:
prefill > 30 ms, decode 10-20 ms with ``recover_decode_task`` as first GPU kernel; trailing ``{}``.
"""
import argparse
import bisect
import collections
import gzip
import json
import os
import re
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SAMPLE = os.path.join(REPO, "..", "shared", "traces", "paddle",
                      "paddle3.3.1_cpu_mlp_adam.paddle_trace.json")
SUFFIX = re.compile(r"\[\d+\.\d{3} (ms|us)\]$")
DUR_LIT = re.compile(r'"dur": (\d+(?:\.(\d+))?)')


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def keyseq(e):
    return tuple(list(e.keys()) + ["args:" + k for k in (e.get("args") or {})])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sample", default=SAMPLE)
    a = ap.parse_args()
    raw = open(a.out, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    d = json.loads(text)
    ev = d["traceEvents"]
    print("OK  valid JSON, %.1f MB, %d events" % (len(text) / 1e6, len(ev)))

    if os.path.exists(a.sample):
        s = json.load(open(a.sample))
        if list(s) != list(d):
            fail("top-level keys %s != sample %s" % (list(d), list(s)))
        if s["schemaVersion"] != d["schemaVersion"]:
            fail("schemaVersion")
        ref = {}
        for e in s["traceEvents"]:
            if e.get("cat") and e.get("ph") == "X":
                ref.setdefault(e["cat"], keyseq(e))
        for e in ev:
            c = e.get("cat")
            if c in ref and keyseq(e)[:len(ref[c])] != ref[c]:
                fail("key order of %s differs from sample: %s vs %s" % (c, keyseq(e), ref[c]))
        print("OK  top-level keys %s and per-category key order match the sample (%s)"
              % (list(d), ", ".join(sorted(ref))))

    if ev[-1] != {}:
        fail("last event is not {}")
    body = ev[:-1]
    cats = collections.Counter(e.get("cat", "M" if e.get("ph") == "M" else None) for e in body)
    print("OK  categories: %s" % dict(cats.most_common()))

    for e in body:
        if e.get("ph") == "X":
            if not SUFFIX.search(e["name"]):
                fail("name without duration suffix: %r" % e["name"])
            if not isinstance(e["ts"], int):
                fail("non-integer ts %r" % e["ts"])
            for k in ("start_time", "end_time"):
                if not re.fullmatch(r"\d+\.\d{3} us", e["args"][k]):
                    fail("bad %s %r" % (k, e["args"][k]))
    if any(len(m.group(2) or "") != 3 for m in DUR_LIT.finditer(text)):
        fail("a dur literal without 3 decimals")
    print("OK  names have [x.xxx ms|us] suffix, ts integers, dur 3 decimals, start/end strings")

    rt = collections.Counter()
    dev = collections.Counter()
    flows = collections.Counter()
    for e in body:
        c = e.get("cat")
        if c == "CudaRuntime":
            rt[e["args"]["correlation id"]] += 1
        elif c in ("Kernel", "Memcpy", "Memset"):
            dev[e["args"]["correlation id"]] += 1
        elif c == "async":
            flows[(e["id"], e["ph"])] += 1
    if any(v != 1 for v in rt.values()) or any(v != 1 for v in dev.values()):
        fail("duplicate correlation ids")
    if set(rt) != set(dev):
        fail("runtime/device correlation sets differ")
    if any(flows[(c, "s")] != 1 or flows[(c, "f")] != 1 for c in rt) or len(flows) != 2 * len(rt):
        fail("flow s/f pairs do not match correlation ids")
    print("OK  %d correlation ids, each: 1 CudaRuntime + 1 GPU op + 1 flow s/f pair" % len(rt))

    steps = sorted((e["ts"], e["ts"] + e["dur"], e["name"]) for e in body
                   if e.get("cat") == "ProfileStep")
    starts = [s[0] for s in steps]
    first_gpu = {}
    n_gpu = collections.Counter()
    for e in body:
        if e.get("cat") in ("Kernel", "Memcpy", "Memset"):
            i = bisect.bisect_right(starts, e["ts"]) - 1
            if i < 0 or e["ts"] > steps[i][1] + 1:
                fail("GPU op outside any step: %r" % e["name"])
            n_gpu[i] += 1
            if e.get("cat") == "Kernel" and (i not in first_gpu or e["ts"] < first_gpu[i][0]):
                first_gpu[i] = (e["ts"], e["name"])
    prefill = decode = 0
    dd = []
    for i, (t0, t1, name) in enumerate(steps):
        dur_ms = (t1 - t0) / 1000.0
        is_dec = first_gpu[i][1].startswith("recover_decode_task[")
        if is_dec:
            decode += 1
            dd.append(dur_ms)
            if not 10.0 <= dur_ms <= 20.0:
                fail("decode step %s lasts %.3f ms" % (name, dur_ms))
        else:
            prefill += 1
            if dur_ms <= 30.0:
                fail("prefill step %s lasts only %.3f ms" % (name, dur_ms))
            if decode:
                fail("prefill step after decode steps")
    print("OK  %d prefill steps (>30 ms), %d decode steps %.3f..%.3f ms (mean %.3f) "
          "starting with recover_decode_task; GPU ops per step %d..%d"
          % (prefill, decode, min(dd), max(dd), sum(dd) / len(dd), min(n_gpu.values()),
             max(n_gpu.values())))
    names = [s[2].split("[")[0] for s in steps]
    if len(set(names)) != len(names):
        fail("ProfileStep names repeat")
    print("ALL CHECKS PASSED")


if __name__ == "__main__":
    main()
