#!/usr/bin/env python3
"""Which thread of the page was busy when, from a Chromium trace of a page run
(node scripts/bench/bench_browser.mjs FILE --tab overview --trace-out DIR writes DIR/runN.json).

Usage: python3 scripts/bench/trace_threads.py DIR/run1.json [--bucket MS]

Prints each thread's time inside tasks (nested tasks counted once), and for the five busiest threads
the share of each bucket (default 250 ms) they spent inside tasks. A thread inside a task is not
always on a core: on 2 cores the reading worker and two helpers share them (docs/performance.md,
twenty-eighth round).
"""
import collections
import json
import sys


def main():
    args = sys.argv[1:]
    bucket_ms = 250.0
    if '--bucket' in args:
        i = args.index('--bucket')
        bucket_ms = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    d = json.load(open(args[0]))
    ev = d['traceEvents'] if isinstance(d, dict) else d
    names = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    by_thread = collections.defaultdict(list)
    for e in ev:
        if e.get('ph') == 'X' and 'dur' in e and e.get('name') in ('ThreadControllerImpl::RunTask', 'RunTask', 'ThreadPool_RunTask'):
            by_thread[(e['pid'], e['tid'])].append((e['ts'], e['ts'] + e['dur']))
    # the union of each thread's task intervals
    spans = {}
    for k, iv in by_thread.items():
        iv.sort()
        out, end = [], -1
        for s, f in iv:
            s = max(s, end)
            if f > s:
                out.append((s, f))
                end = f
        spans[k] = out
    if not spans:
        sys.exit('no task events in the trace')
    t0 = min(s for iv in spans.values() for s, _ in iv)
    t1 = max(f for iv in spans.values() for _, f in iv)
    busy = {k: sum(f - s for s, f in iv) for k, iv in spans.items()}
    top = sorted(busy, key=lambda k: -busy[k])
    print(f'span {(t1 - t0) / 1e3:.0f} ms')
    for k in top[:12]:
        print(f"{names.get(k, '?'):28s} busy {busy[k] / 1e3:7.0f} ms  from {(spans[k][0][0] - t0) / 1e3:6.0f} to {(spans[k][-1][1] - t0) / 1e3:6.0f} ms")
    width = bucket_ms * 1e3
    n = int((t1 - t0) // width) + 1
    shown = top[:5]
    grid = {k: [0.0] * n for k in shown}
    for k in shown:
        for s, f in spans[k]:
            s -= t0
            f -= t0
            while s < f:
                b = int(s // width)
                end = min(f, (b + 1) * width)
                grid[k][b] += end - s
                s = end
    print(f'{"at":>7s}  ' + ' '.join(f"{names.get(k, '?')[:10]:>10s}" for k in shown))
    for b in range(n):
        print(f'{b * bucket_ms / 1e3:6.2f}s  ' + ' '.join(f'{100 * grid[k][b] / width:9.0f}%' for k in shown))


if __name__ == '__main__':
    main()
