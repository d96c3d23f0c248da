#!/usr/bin/env python3
"""kinetoscope on a Ray cluster: parse the trace files on many nodes, analyse on this one.

    python3 scripts/ray/kinetoscope_ray.py TRACES... --out DIR [--tasks N]
        [--kinetoscope PATH] [--address ADDR] [--num-cpus N] [--keep-partials DIR]
        [--hta] [--ranks LIST] [--no-charts] [--option A.N=V] ...

The inputs (files, folders of per-rank files, Recorder folders) are cut into N contiguous
chunks in the order `kinetoscope analyze` reads them (Recorder folders first, folders expanded
into their sorted files). `kinetoscope analyze` does the cutting itself (`--chunk K/N`), so the
list is exactly the one a single `analyze` would read. One Ray task per chunk (`num_cpus=1`)
runs, on whatever node Ray picks,

    kinetoscope analyze TRACES... --chunk K/N --partial TMP/K.kpartial

and returns the partial's bytes through Ray's object store: the partials need no shared
filesystem. The inputs do: every node must read TRACES at the same paths (a shared filesystem,
or the same copy on every node), and run the tasks in this script's working directory (relative
paths are resolved there). This script then writes the partials to a temporary folder and runs

    kinetoscope merge 0.kpartial ... (N-1).kpartial --out DIR [options]

here, in chunk order. DIR then holds exactly what `kinetoscope analyze TRACES... --out DIR
[options]`, run in the same directory, writes (docs/cluster.md).

Options after the known ones (--hta, --ranks, --no-charts, --option, and any other) go to
`merge` as they are. Timings go to stderr: Ray's start, each task (node, seconds, partial MB),
the merge. Needs `pip install ray` (tested with ray 2.60.0) and kinetoscope on every node.
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def parse_args(argv):
    """The driver's options, and the rest for `merge`."""
    p = argparse.ArgumentParser(
        description="Run kinetoscope's parsing as Ray tasks (one per chunk of the inputs), then merge here.",
        epilog="Other options (--hta, --ranks LIST, --no-charts, --option A.N=V) are passed to `kinetoscope merge`.",
    )
    p.add_argument("paths", nargs="+", help="trace files or folders, as for `kinetoscope analyze`")
    p.add_argument("--out", required=True, help="folder the merge writes into")
    p.add_argument("--tasks", type=int, default=2, help="number of chunks, one Ray task each (default 2)")
    p.add_argument("--kinetoscope", default="kinetoscope", help="the kinetoscope binary on the nodes (default: kinetoscope on PATH)")
    p.add_argument("--address", default=None, help="Ray cluster to join (ray.init(address=...)); default: start a local one")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (default: Ray's own count)")
    p.add_argument("--keep-partials", metavar="DIR", default=None, help="also keep the partial files in DIR")
    args, merge_options = p.parse_known_args(argv)
    if args.tasks < 1:
        p.error("--tasks must be at least 1")
    return args, merge_options


def local_binary(path):
    """`path` as this node runs it: a name on PATH stays a name, a path becomes absolute."""
    if os.sep in path:
        return os.path.abspath(path)
    found = shutil.which(path)
    if not found:
        sys.exit(f"kinetoscope_ray: {path} is not on PATH here (give --kinetoscope PATH)")
    return path


def analyze_chunk(kinetoscope, paths, index, count, cwd):
    """One Ray task: `analyze --chunk index/count --partial` on this node; the partial's bytes."""
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="kinetoscope-ray-") as tmp:
        part = os.path.join(tmp, f"{index}.kpartial")
        cmd = [kinetoscope, "analyze", *paths, "--chunk", f"{index}/{count}", "--partial", part]
        try:
            run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        except OSError as e:
            raise RuntimeError(f"{socket.gethostname()}: cannot run {kinetoscope} in {cwd}: {e}") from None
        if run.returncode != 0:
            raise RuntimeError(f"{socket.gethostname()}: {' '.join(cmd)} failed (exit {run.returncode}):\n{run.stderr}")
        with open(part, "rb") as f:
            data = f.read()
    return {"index": index, "host": socket.gethostname(), "seconds": time.time() - started, "partial": data, "stderr": run.stderr}


def start_ray(args):
    """Joins the cluster at --address, or starts a local instance; seconds it took."""
    import ray

    started = time.time()
    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    return time.time() - started


def log(msg):
    print(f"kinetoscope_ray: {msg}", file=sys.stderr, flush=True)


def main(argv):
    args, merge_options = parse_args(argv)
    import ray

    kinetoscope = local_binary(args.kinetoscope)
    t0 = time.time()
    log(f"ray start {start_ray(args):.2f} s ({'joined ' + args.address if args.address else 'local instance'})")
    task = ray.remote(num_cpus=1)(analyze_chunk)
    cwd = os.getcwd()
    t1 = time.time()
    refs = [task.remote(kinetoscope, args.paths, k, args.tasks, cwd) for k in range(args.tasks)]
    try:
        results = ray.get(refs)
    except ray.exceptions.RayTaskError as e:
        sys.exit(f"kinetoscope_ray: a task failed: {e}")
    log(f"tasks {time.time() - t1:.2f} s")
    for r in sorted(results, key=lambda r: r["index"]):
        log(f"  chunk {r['index']}/{args.tasks} on {r['host']}: {r['seconds']:.2f} s, partial {len(r['partial']) / 1e6:.1f} MB")
    ray.shutdown()
    with tempfile.TemporaryDirectory(prefix="kinetoscope-ray-merge-") as tmp:
        folder = args.keep_partials or tmp
        os.makedirs(folder, exist_ok=True)
        parts = []
        for r in sorted(results, key=lambda r: r["index"]):
            parts.append(os.path.join(folder, f"{r['index']}.kpartial"))
            with open(parts[-1], "wb") as f:
                f.write(r["partial"])
        del results
        t2 = time.time()
        merge = subprocess.run([kinetoscope, "merge", *parts, "--out", args.out, *merge_options])
        log(f"merge {time.time() - t2:.2f} s; total {time.time() - t0:.2f} s")
    return merge.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
