#!/usr/bin/env python3
"""Generate a large, coherent Kineto (PyTorch profiler) trace from a real one.

Usage:
    gen_kineto.py [SRC] [OUT] [TARGET_MB] [--gap-us N] [--copies N] [--gzip] [--level N]

SRC        real Kineto trace, ``.json`` or ``.json.gz`` (object form or bare array form).
           Default: ../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz
           (resolved against the repository root, i.e. the parent of scripts/).
OUT        output path (default bench-out/kineto_<TARGET_MB>mb.json). With --gzip the
           output is gzip-compressed and ``.gz`` is appended to OUT if missing.
TARGET_MB  approximate output size in MB (1 MB = 1,000,000 bytes of uncompressed JSON),
           default 500. Only whole copies of the source are written, so the result is the
           multiple of the source size closest to the target (at least one copy).

How the copies are made coherent (copy k = 0, 1, ...):
  * ``ts`` of every event is shifted by k * SHIFT, where SHIFT = ceil(source span + gap)
    (span = max(ts+dur) - min(ts) over the source; gap default 1000 ts units = 1 ms).
    Integers stay integers; fractional values keep their exact digits after the dot
    (SHIFT is an integer and is added to the integer part only).
  * every id that links events is offset by k * ID_STRIDE, one stride shared by all of
    them so cross-links survive (flow ``id`` == ``args.correlation`` in Kineto):
    top-level ``id`` (flows s/t/f, async events) and, in ``args``: ``correlation``,
    ``External id``, ``Record function id``, ``Ev Idx``, ``Sequence number``,
    ``Python id``, ``Python parent id``, ``wait_on_cuda_event_record_corr_id``.
    ID_STRIDE is the smallest power of ten above the largest such id in the source.
  * ``ProfilerStep#N`` in names becomes ``ProfilerStep#(N + k * STEP_STRIDE)`` with
    STEP_STRIDE = max step - min step + 1, so step numbers continue without repeats.
  * events that describe the whole session are written once, not per copy: metadata
    (``ph`` "M"), the ``Trace`` span (cat "Trace", its ``dur`` stretched to cover all
    copies), global instant events such as "Iteration Start: ..." (copy 0) and
    "Record Window End" (last copy, shifted), and an empty ``{}`` event (last).

The header keys (schemaVersion, deviceProperties, distributedInfo, ...) and the tail
(traceName, ...) are copied verbatim, once. Every event keeps the exact bytes of its
source text apart from the rewritten numbers (the generator checks that copy 0 is
byte-identical to the source). Output is streamed: only the source (tens of MB) and one
batch of rendered events are in memory.

Prints the number of events written (last line: ``events: N``).
"""
import argparse
import gzip
import io
import json
import math
import os
import re
import sys
import time
from decimal import Decimal

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_SRC = os.path.join(REPO, "..", "shared", "traces", "hta", "df_index_resolver",
                           "df_index_resolver.json.gz")

# keys inside "args" whose numeric value identifies / links events
ARG_ID_KEYS = frozenset([
    "correlation", "External id", "Record function id", "Ev Idx", "Sequence number",
    "Python id", "Python parent id", "wait_on_cuda_event_record_corr_id",
])

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
COLON = re.compile(r'\s*:\s*')
NUMBER = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')
STEP = re.compile(r'ProfilerStep#(\d+)')
SEP = re.compile(r'\s*,?\s*')

# hole kinds
K_TS, K_ID, K_STEP, K_DUR = 0, 1, 2, 3

# event modes
M_ALL, M_FIRST, M_LAST = 0, 1, 2


def read_source(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def find_events_array(text):
    """Return (array_open_index, is_object_form). array_open_index points at '['."""
    i = 0
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    if i < n and text[i] == "[":
        return i, False
    if i >= n or text[i] != "{":
        raise SystemExit("source is neither a JSON object nor a JSON array")
    depth = 0
    for m in TOKEN.finditer(text, i):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if depth == 1:
                cm = COLON.match(text, m.end())
                if cm and tok == '"traceEvents"':
                    j = cm.end()
                    if text[j] != "[":
                        raise SystemExit("traceEvents is not an array")
                    return j, True
        elif c in "{[":
            depth += 1
        else:
            depth -= 1
    raise SystemExit("no traceEvents key in source")


def split_number(lit):
    """Return a hole payload (int_base, suffix) or ('dec', Decimal) for exotic numbers."""
    if "e" in lit or "E" in lit or (lit.startswith("-") and "." in lit):
        return None
    if "." in lit:
        a, b = lit.split(".", 1)
        return int(a), "." + b
    return int(lit), ""


class Event:
    __slots__ = ("fmt", "holes", "mode", "text")

    def __init__(self, fmt, holes, mode, text):
        self.fmt = fmt
        self.holes = holes
        self.mode = mode
        self.text = text


def scan_event(text, obj):
    """Build a format template for one event's exact source text.

    Returns (fmt, holes) where fmt is a %-template of the text and holes a list of
    (kind, base, suffix) or (kind, Decimal, None) in template order.
    """
    pieces = []   # literal pieces, '%' escaped
    holes = []
    last = 0
    depth = 0
    key1 = None        # last key seen at depth 1 (event level)
    parent = None      # key of the depth-2 container
    is_trace_span = obj.get("cat") == "Trace" and obj.get("ph") == "X"

    def add_hole(start, end, kind, lit):
        nonlocal last
        sp = split_number(lit)
        if sp is None:
            holes.append((kind, Decimal(lit), None))
        else:
            holes.append((kind, sp[0], sp[1]))
        pieces.append(text[last:start].replace("%", "%%"))
        pieces.append("%s")
        last = end

    for m in TOKEN.finditer(text):
        tok = m.group()
        c = tok[0]
        if c == '"':
            cm = COLON.match(text, m.end())
            if cm is None:
                # a string value; ProfilerStep#N in the event name
                if depth == 1 and key1 == "name" and "ProfilerStep#" in tok:
                    for sm in STEP.finditer(tok):
                        s0 = m.start() + sm.start(1)
                        s1 = m.start() + sm.end(1)
                        add_hole(s0, s1, K_STEP, sm.group(1))
                continue
            key = tok[1:-1]
            vpos = cm.end()
            if depth == 1:
                key1 = key
                if key == "ts" or key == "id" or (key == "dur" and is_trace_span):
                    nm = NUMBER.match(text, vpos)
                    if nm:
                        kind = K_TS if key == "ts" else (K_ID if key == "id" else K_DUR)
                        add_hole(nm.start(), nm.end(), kind, nm.group())
            elif depth == 2 and parent == "args" and key in ARG_ID_KEYS:
                nm = NUMBER.match(text, vpos)
                if nm:
                    add_hole(nm.start(), nm.end(), K_ID, nm.group())
        elif c in "{[":
            depth += 1
            if depth == 2:
                parent = key1
        else:
            depth -= 1
    pieces.append(text[last:].replace("%", "%%"))
    return "".join(pieces), holes


def event_mode(obj):
    if not obj:
        return M_LAST
    ph = obj.get("ph")
    if ph == "M":
        return M_FIRST
    if obj.get("cat") == "Trace" and ph == "X":
        return M_FIRST
    if ph in ("i", "I") and obj.get("s") == "g":
        return M_LAST if obj.get("name") == "Record Window End" else M_FIRST
    return M_ALL


def analyse(text):
    """Parse the source into header, events (with templates) and tail."""
    open_idx, _ = find_events_array(text)
    dec = json.JSONDecoder()
    pos = open_idx + 1
    n = len(text)
    events = []
    seps = []
    lead = None
    ws = re.compile(r"\s*")
    while True:
        m = SEP.match(text, pos)
        sep = text[pos:m.end()]
        j = m.end()
        if j >= n:
            raise SystemExit("unterminated traceEvents array")
        if text[j] == "]":
            trail = sep
            close_idx = j
            break
        obj, end = dec.raw_decode(text, j)
        if not isinstance(obj, dict):
            raise SystemExit("non-object entry in traceEvents at offset %d" % j)
        if lead is None:
            lead = sep
        else:
            seps.append(sep)
        etext = text[j:end]
        fmt, holes = scan_event(etext, obj)
        events.append((obj, Event(fmt, holes, event_mode(obj), etext)))
        pos = end
    if lead is None:
        lead = ""
        trail = text[open_idx + 1:close_idx]
    # most common separator (Kineto: ",\n  ")
    sep = max(set(seps), key=seps.count) if seps else ",\n  "
    if trail.startswith(","):
        trail = trail[1:]
    header = text[:open_idx + 1]
    tail = text[close_idx:]
    return header, lead, sep, trail, tail, events


def compute_params(events, gap):
    t_min = math.inf
    t_max = -math.inf
    max_id = 0
    steps = []
    for obj, ev in events:
        ts = obj.get("ts")
        if isinstance(ts, (int, float)) and obj.get("ph") != "M":
            t_min = min(t_min, ts)
            dur = obj.get("dur")
            end = ts + (dur if isinstance(dur, (int, float)) and dur > 0 else 0)
            t_max = max(t_max, end)
        for kind, base, suf in ev.holes:
            if kind == K_ID:
                max_id = max(max_id, int(base))
            elif kind == K_STEP:
                steps.append(int(base))
    if t_min is math.inf:
        raise SystemExit("source has no timestamps")
    span = t_max - t_min
    shift = int(math.ceil(span + gap))
    id_stride = 10 ** len(str(max_id)) if max_id > 0 else 1
    step_stride = (max(steps) - min(steps) + 1) if steps else 0
    return dict(t_min=t_min, t_max=t_max, span=span, shift=shift, id_stride=id_stride,
                step_stride=step_stride, max_id=max_id,
                steps=(min(steps), max(steps)) if steps else None)


def render(ev, offs):
    vals = []
    for kind, base, suf in ev.holes:
        if suf is None:
            vals.append(str(base + offs[kind]))
        else:
            vals.append(str(base + offs[kind]) + suf)
    return ev.fmt % tuple(vals)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", nargs="?", default=DEFAULT_SRC)
    ap.add_argument("out", nargs="?", default=None)
    ap.add_argument("target_mb", nargs="?", type=float, default=500.0)
    ap.add_argument("--gap-us", type=float, default=1000.0,
                    help="idle gap between copies, in ts units (default 1000 = 1 ms)")
    ap.add_argument("--copies", type=int, default=None,
                    help="number of copies (overrides TARGET_MB)")
    ap.add_argument("--gzip", action="store_true", help="gzip-compress the output")
    ap.add_argument("--level", type=int, default=6, help="gzip level (default 6)")
    ap.add_argument("--batch", type=int, default=20000, help="events per write batch")
    args = ap.parse_args(argv)

    out = args.out or os.path.join(REPO, "bench-out", "kineto_%gmb.json" % args.target_mb)
    if args.gzip and not out.endswith(".gz"):
        out += ".gz"

    t0 = time.time()
    text = read_source(args.src)
    header, lead, sep, trail, tail, events = analyse(text)
    del text
    p = compute_params(events, args.gap_us)
    events = [(None, e) for _, e in events]  # parsed dicts are no longer needed

    n_all = sum(1 for _, e in events if e.mode == M_ALL)
    n_first = sum(1 for _, e in events if e.mode == M_FIRST)
    n_last = sum(1 for _, e in events if e.mode == M_LAST)
    enc = lambda s: len(s.encode("utf-8"))
    per_copy = sum(enc(e.text) for _, e in events if e.mode == M_ALL) + n_all * enc(sep)
    fixed = (enc(header) + enc(lead) + enc(trail) + enc(tail)
             + sum(enc(e.text) + enc(sep) for _, e in events if e.mode != M_ALL))
    if args.copies:
        copies = args.copies
    else:
        copies = max(1, int(round((args.target_mb * 1e6 - fixed) / per_copy)))
    est = fixed + copies * per_copy
    if p["max_id"] * copies >= 2 ** 53 or (p["steps"] and p["steps"][1] + copies * p["step_stride"] >= 2 ** 53):
        print("warning: offset ids exceed 2^53 and may lose precision in JS readers",
              file=sys.stderr)

    print("source: %s" % args.src)
    print("source events: %d (per copy %d, once first %d, once last %d), %.1f MB of events"
          % (len(events), n_all, n_first, n_last, per_copy / 1e6))
    print("span %.3f -> shift %d ts units per copy; id stride %d (max id %d); step stride %d%s"
          % (p["span"], p["shift"], p["id_stride"], p["max_id"], p["step_stride"],
             " (steps %d..%d)" % p["steps"] if p["steps"] else ""))
    print("copies: %d -> ~%.1f MB" % (copies, est / 1e6))
    sys.stdout.flush()

    d = os.path.dirname(out)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = out + ".part"
    if args.gzip:
        raw = open(tmp, "wb")
        fh = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=args.level, mtime=0)
    else:
        raw = None
        fh = open(tmp, "wb", buffering=1 << 20)

    written = 0
    nbytes = 0
    first = True

    def emit(chunks):
        nonlocal nbytes
        b = "".join(chunks).encode("utf-8")
        nbytes += len(b)
        fh.write(b)

    emit([header, lead])
    final_dur = (copies - 1) * p["shift"]
    for k in range(copies):
        offs = {K_TS: k * p["shift"], K_ID: k * p["id_stride"],
                K_STEP: k * p["step_stride"], K_DUR: 0}
        batch = []
        for obj, ev in events:
            if ev.mode == M_ALL or (ev.mode == M_FIRST and k == 0) or \
                    (ev.mode == M_LAST and k == copies - 1):
                if ev.mode == M_FIRST:
                    o = dict(offs)
                    o[K_DUR] = final_dur
                    s = render(ev, o)
                else:
                    s = render(ev, offs)
                if k == 0 and ev.mode == M_ALL and s != ev.text:
                    raise SystemExit("internal error: copy 0 differs from source for event %r"
                                     % ev.text[:200])
                if first:
                    first = False
                else:
                    batch.append(sep)
                batch.append(s)
                written += 1
                if len(batch) >= 2 * args.batch:
                    emit(batch)
                    batch = []
        emit(batch)
        print("  copy %d/%d done, %d events, %.1f MB, %.1fs"
              % (k + 1, copies, written, nbytes / 1e6, time.time() - t0))
        sys.stdout.flush()
    emit([trail, tail])
    fh.close()
    if raw is not None:
        raw.close()
    os.replace(tmp, out)
    size = os.path.getsize(out)
    print("wrote %s: %.1f MB on disk (%.1f MB uncompressed) in %.1fs"
          % (out, size / 1e6, nbytes / 1e6, time.time() - t0))
    print("events: %d" % written)


if __name__ == "__main__":
    main()
