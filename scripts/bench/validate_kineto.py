#!/usr/bin/env python3
"""Validate a trace produced by gen_kineto.py against its source.

Usage: validate_kineto.py SRC OUT [--gap-us N]

Loads OUT with json.load (needs ~10x the file size in RAM: use it on small outputs) and checks:
  * valid JSON, header keys identical to the source's, event count = copies * per-copy + once;
  * every event's copy index (from its ts) is consistent: each correlation / External id /
    flow (cat, id) / Ev Idx value is used by one copy only, and copy k's ids are exactly the
    source ids + k * stride;
  * ProfilerStep#N names are unique and consecutive across copies;
  * ts literals keep their format (same count of integers / same decimals histogram per copy);
  * flows s/f pairs still share a copy, each kernel's correlation has its runtime launch.
Exit status 1 on the first failed check.
"""
import argparse
import collections
import gzip
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_kineto as g  # noqa: E402

TS_LIT = re.compile(r'"ts"\s*:\s*(-?\d+(?:\.(\d+))?)')


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--gap-us", type=float, default=1000.0)
    a = ap.parse_args()

    stext = load(a.src)
    otext = load(a.out)
    src = json.loads(stext)
    out = json.loads(otext)
    print("OK  valid JSON (%.1f MB)" % (len(otext) / 1e6))

    if isinstance(src, dict):
        sk = [k for k in src if k != "traceEvents"]
        ok = [k for k in out if k != "traceEvents"]
        if sk != ok:
            fail("header keys differ: %s vs %s" % (sk, ok))
        for k in sk:
            if src[k] != out[k]:
                fail("header value %s differs" % k)
        print("OK  header keys kept once: %s" % ", ".join(sk))
        sev, oev = src["traceEvents"], out["traceEvents"]
    else:
        sev, oev = src, out

    header, lead, sep, trail, tail, events = g.analyse(stext)
    p = g.compute_params(events, a.gap_us)
    modes = [e.mode for _, e in events]
    n_all = modes.count(g.M_ALL)
    n_once = len(modes) - n_all
    if (len(oev) - n_once) % n_all:
        fail("event count %d is not once(%d) + copies * %d" % (len(oev), n_once, n_all))
    copies = (len(oev) - n_once) // n_all
    print("OK  event count %d = %d copies x %d + %d once" % (len(oev), copies, n_all, n_once))

    shift, stride = p["shift"], p["id_stride"]
    t0 = p["t_min"]

    def copy_of(e):
        return int((e["ts"] - t0) // shift)

    # per-copy id sets
    id_keys = sorted(g.ARG_ID_KEYS)
    src_ids = {k: collections.Counter() for k in id_keys + ["flow"]}
    for e in sev:
        if g.event_mode(e) != g.M_ALL:
            continue
        args = e.get("args") or {}
        for k in id_keys:
            if isinstance(args.get(k), int):
                src_ids[k][args[k]] += 1
        if isinstance(e.get("id"), int):
            src_ids["flow"][(e.get("cat"), e["id"], e.get("ph"))] += 1
    owner = {}
    per_copy = collections.defaultdict(lambda: {k: collections.Counter() for k in src_ids})
    steps = []
    for e in oev:
        if g.event_mode(e) != g.M_ALL:
            continue
        c = copy_of(e)
        if not 0 <= c < copies:
            fail("event ts %r outside copy windows: %r" % (e.get("ts"), e))
        args = e.get("args") or {}
        for k in id_keys:
            v = args.get(k)
            if isinstance(v, int):
                per_copy[c][k][v - c * stride] += 1
                prev = owner.setdefault((k, v), c)
                if prev != c:
                    fail("%s %d used by copies %d and %d" % (k, v, prev, c))
        if isinstance(e.get("id"), int):
            key = (e.get("cat"), e["id"] - c * stride, e.get("ph"))
            per_copy[c]["flow"][key] += 1
            prev = owner.setdefault(("flow", e.get("cat"), e["id"]), c)
            if prev != c:
                fail("flow %s id %d spans copies %d and %d" % (e.get("cat"), e["id"], prev, c))
        m = g.STEP.search(str(e.get("name", "")))
        if m and e.get("cat") in ("user_annotation", "cpu_op", "Operator"):
            steps.append(int(m.group(1)))
    for c in range(copies):
        for k in src_ids:
            if per_copy[c][k] != src_ids[k]:
                fail("copy %d: %s ids are not source ids + %d*%d" % (c, k, c, stride))
    print("OK  ids unique per copy and = source + k*%d for %s" % (stride, ", ".join(
        "%s(%d)" % (k, sum(src_ids[k].values())) for k in src_ids if src_ids[k])))

    # kernels find their launch (same correlation, same copy)
    launches = set()
    kernels = []
    for e in oev:
        args = e.get("args") or {}
        if "correlation" in args:
            if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
                launches.add(args["correlation"])
            elif e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy",
                                  "Memset"):
                kernels.append(args["correlation"])
    orphan = sum(1 for c in kernels if c not in launches)
    src_launch = {x["args"]["correlation"] for x in sev
                  if x.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime")
                  and "correlation" in (x.get("args") or {})}
    src_orphan = sum(1 for e in sev
                     if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel",
                                         "Memcpy", "Memset")
                     and "correlation" in (e.get("args") or {})
                     and e["args"]["correlation"] not in src_launch)
    if orphan != src_orphan * copies:
        fail("GPU ops without launch: %d (source %d per copy)" % (orphan, src_orphan))
    print("OK  %d GPU ops, %d without a runtime launch (source: %d per copy)"
          % (len(kernels), orphan, src_orphan))

    if steps:
        if len(steps) != len(set(steps)):
            fail("ProfilerStep numbers repeat")
        steps.sort()
        if steps != list(range(steps[0], steps[0] + len(steps))):
            print("note: ProfilerStep numbers not consecutive: %s..." % steps[:20])
        print("OK  %d unique ProfilerStep#N (%d..%d)" % (len(steps), steps[0], steps[-1]))

    def ts_hist(text):
        h = collections.Counter()
        for m in TS_LIT.finditer(text):
            h[len(m.group(2) or "")] += 1
        return h
    sh, oh = ts_hist(stext), ts_hist(otext)
    n_once_ts = collections.Counter()
    for _, e in events:
        if e.mode != g.M_ALL:
            for m in TS_LIT.finditer(e.text):
                n_once_ts[len(m.group(2) or "")] += 1
    exp = collections.Counter({k: (v - n_once_ts[k]) * copies + n_once_ts[k] for k, v in sh.items()})
    if +exp != +oh:
        fail("ts literal format histogram differs: %s vs expected %s" % (dict(oh), dict(exp)))
    print("OK  ts literals keep their format (decimals -> count): %s" % dict(sorted(oh.items())))

    tr = [e for e in oev if e.get("cat") == "Trace"]
    for e in tr:
        end = e["ts"] + e["dur"]
        last = max(x["ts"] + (x.get("dur") or 0) for x in oev
                   if isinstance(x.get("ts"), (int, float)) and x.get("ph") != "M")
        print("OK  Trace span %r covers %.0f..%.0f (last event end %.0f)"
              % (e.get("name"), e["ts"], end, last))
    print("ALL CHECKS PASSED")


if __name__ == "__main__":
    main()
