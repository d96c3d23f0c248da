#!/usr/bin/env bash
# Benchmark `kinetoscope critical-path` (graph build and longest path) on a ~100k-event window and
# on a ~1M-event trace analysed whole, against HTA 0.5.0's critical_path_analysis in the same run
# (issue 22).
#
# Usage: scripts/bench/bench_critical_path.sh
#
# 1. generates two traces with gen_kineto.py from SRC (default: HTA's df_index_resolver trace,
#    216k events, one rank (1), 4 ProfilerStep instances of ~23k window events each), if missing:
#      step    bench-out/cp_step_<STEP_COPIES>x/trace.json (default 2 copies, 432k events);
#              window: annotation ProfilerStep, instances STEP_INSTANCE (default 2-5: four
#              consecutive steps across the copies' boundary, ~92k events in the window)
#      whole   bench-out/cp_whole_<WHOLE_COPIES>x/trace.json (default 5 copies, 1.08M events);
#              window: the whole rank (--annotation '')
#    Each trace is alone in its folder, which is what HTA loads.
# 2. per input, once and untimed: `critical-path --json --table critical_path_info` in both modes
#    gives the graph's nodes and edges, the window's events and the path length;
# 3. RUNS rounds (default 3), each of (warm page cache, /usr/bin/time -v, uptime before; lib.sh):
#      info                      kinetoscope info FILE (reading only, the reference)
#      critical-path             kinetoscope critical-path FILE WINDOW --json --table critical_path_info
#                                (every table is built; only the small info table is printed)
#      critical-path --hta       the same with --hta
#      ... --json, all tables    kinetoscope critical-path FILE WINDOW [--hta] --json > /dev/null
#                                (every table printed: the path's rows, with --hta every edge)
#    and in the first HTA_RUNS rounds (default 1) HTA 0.5.0 on the same folder, rank and window
#    (hta_critical_path.py with HTA_PYTHON: import, TraceAnalysis load and critical_path_analysis
#    timed separately), stopped after HTA_TIMEOUT seconds (default 3600);
# 4. checks that HTA's path length, nodes and edges equal those of `critical-path --hta`, and
#    prints a markdown table (median of the runs; also bench-out/critical_path_<time>.md, raw runs
#    in .tsv, HTA's figures per run in .hta_<input>_<run>.json).
#
# Environment knobs: RUNS=3, HTA_RUNS=1, HTA_TIMEOUT=3600, HTA_PYTHON (default
# ../hta-venv/bin/python next to the repository, if it exists; empty: HTA is not run),
# SRC=<source trace>, STEP_COPIES=2, STEP_INSTANCE=2-5, WHOLE_COPIES=5, INPUTS="step whole",
# FULL_JSON=1 (0: skip the all-tables --json rows), KINETOSCOPE=target/release/kinetoscope,
# PYTHON=python3, BENCH_OUT=<repo>/bench-out.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-3}
HTA_RUNS=${HTA_RUNS:-1}
HTA_TIMEOUT=${HTA_TIMEOUT:-3600}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
PY=${PYTHON:-python3}
SRC=${SRC:-$ROOT/../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz}
STEP_COPIES=${STEP_COPIES:-2}
STEP_INSTANCE=${STEP_INSTANCE:-2-5}
WHOLE_COPIES=${WHOLE_COPIES:-5}
INPUTS=${INPUTS:-step whole}
FULL_JSON=${FULL_JSON:-1}
if [ -z "${HTA_PYTHON+set}" ] && [ -x "$ROOT/../hta-venv/bin/python" ]; then HTA_PYTHON=$ROOT/../hta-venv/bin/python; fi
HTA_PY=${HTA_PYTHON:-}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/critical_path_$STAMP.tsv
MD=$OUT/critical_path_$STAMP.md
mkdir -p "$OUT"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
ensure_gnu_time
[ -x "$BIN" ] || { log "kinetoscope not found at $BIN - build it with 'cargo build --release'"; exit 1; }

HTA=0
if [ -z "$HTA_PY" ]; then log "SKIP HTA: HTA_PYTHON is empty and ../hta-venv/bin/python does not exist"
elif ! "$HTA_PY" -c 'import hta, networkx' 2>/dev/null; then log "SKIP HTA: 'import hta, networkx' fails with $HTA_PY"
else HTA=1; log "HTA: $("$HTA_PY" -c 'import importlib.metadata as m; print("HolisticTraceAnalysis", m.version("HolisticTraceAnalysis"), "pandas", m.version("pandas"), "networkx", m.version("networkx"))')"; fi

# input name -> folder, annotation, instance
dir_of() { case $1 in step) echo "$OUT/cp_step_${STEP_COPIES}x" ;; whole) echo "$OUT/cp_whole_${WHOLE_COPIES}x" ;; esac; }
annotation_of() { case $1 in step) echo ProfilerStep ;; whole) echo "" ;; esac; }
instance_of() { case $1 in step) echo "$STEP_INSTANCE" ;; whole) echo 0 ;; esac; }
copies_of() { case $1 in step) echo "$STEP_COPIES" ;; whole) echo "$WHOLE_COPIES" ;; esac; }

for input in $INPUTS; do
  dir=$(dir_of "$input")
  if [ ! -s "$dir/trace.json" ]; then
    log "generating $dir/trace.json ($(copies_of "$input") copies of $SRC, gen_kineto.py)"
    mkdir -p "$dir"
    "$PY" "$HERE/gen_kineto.py" "$SRC" "$dir/trace.json" 0 --copies "$(copies_of "$input")" > "$dir.gen.log"
    tail -n 2 "$dir.gen.log" >&2
  fi
  # the graph as kinetoscope builds it (untimed): critical_path_info of both modes
  for mode in default hta; do
    flag=(); [ "$mode" = hta ] && flag=(--hta)
    "$BIN" critical-path "$dir/trace.json" --annotation "$(annotation_of "$input")" --instance "$(instance_of "$input")" \
      "${flag[@]}" --json --table critical_path_info > "$TSV.info_${input}_$mode.json" 2> "$TSV.info_${input}_$mode.log" \
      || log "critical-path ($input, $mode) failed: $(tail -n 2 "$TSV.info_${input}_$mode.log")"
  done
done

printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
for i in $(seq 1 "$RUNS"); do
  for input in $INPUTS; do
    dir=$(dir_of "$input") ann=$(annotation_of "$input") inst=$(instance_of "$input")
    file=$dir/trace.json
    window=(--annotation "$ann" --instance "$inst")
    cat "$file" > /dev/null
    measure_run "$TSV" "$input: info" "$i" -- "$BIN" info "$file"
    measure_run "$TSV" "$input: critical-path" "$i" -- "$BIN" critical-path "$file" "${window[@]}" --json --table critical_path_info
    measure_run "$TSV" "$input: critical-path --hta" "$i" -- "$BIN" critical-path "$file" "${window[@]}" --hta --json --table critical_path_info
    if [ "$FULL_JSON" = 1 ]; then
      measure_run "$TSV" "$input: critical-path --json, all tables" "$i" -- "$BIN" critical-path "$file" "${window[@]}" --json
      measure_run "$TSV" "$input: critical-path --hta --json, all tables" "$i" -- "$BIN" critical-path "$file" "${window[@]}" --hta --json
    fi
    if [ "$HTA" = 1 ] && [ "$i" -le "$HTA_RUNS" ]; then
      rank=$("$PY" -c 'import json,sys; print({r["key"]: r["value"] for r in json.load(open(sys.argv[1]))["tables"]["critical_path_info"]}["rank"])' "$TSV.info_${input}_hta.json")
      measure_run "$TSV" "$input: HTA 0.5.0" "$i" -- timeout "$HTA_TIMEOUT" "$HTA_PY" "$HERE/hta_critical_path.py" "$dir" "$rank" "$ann" "$inst" "$TSV.hta_${input}_$i.json"
    fi
  done
done

"$PY" - "$TSV" "$HTA_TIMEOUT" "$INPUTS" "$STEP_INSTANCE" > "$MD" <<'PY'
import csv, glob, json, statistics, sys
tsv, timeout, inputs, step_instance = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
runs = list(csv.DictReader(open(tsv), delimiter="\t"))
ok = [r for r in runs if r["rc"] == "0"]
labels = list(dict.fromkeys(r["label"] for r in runs))
med = lambda l, k: statistics.median(float(r[k]) for r in ok if r["label"] == l)

def info(inp, mode):
    try:
        rows = json.load(open(f"{tsv}.info_{inp}_{mode}.json"))["tables"]["critical_path_info"]
    except (OSError, ValueError, KeyError):
        return {}
    return {r["key"]: r["value"] for r in rows}

def hta_runs(inp):
    out = []
    for p in sorted(glob.glob(f"{tsv}.hta_{inp}_*.json")):
        try:
            out.append(json.load(open(p)))
        except ValueError:
            pass
    return out

def num(v):
    return f"{int(v):,}" if str(v).lstrip("-").isdigit() else str(v)

loads = [float(r["load1"]) for r in runs]
print(f"Median of the successful runs; 1-minute load average {min(loads):.2f}-{max(loads):.2f} before the runs.")
print("Windows: step = ProfilerStep instances " + step_instance + ", whole = the whole rank (--annotation '').\n")
print("| input | command | runs | wall s | CPU s | peak RSS MiB | graph nodes | graph edges | window events | path length µs | time − info s | HTA process time / this |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
checks = []
for inp in inputs:
    d, h = info(inp, "default"), info(inp, "hta")
    hr = [x for x in hta_runs(inp) if "critical_path_s" in x]
    hta_label = f"{inp}: HTA 0.5.0"
    hta_total = med(hta_label, "secs") if any(r["label"] == hta_label for r in ok) else None
    info_s = med(f"{inp}: info", "secs") if any(r["label"] == f"{inp}: info" for r in ok) else None
    for l in [l for l in labels if l.startswith(inp + ": ")]:
        cmd = l[len(inp) + 2:]
        n = sum(r["label"] == l for r in ok)
        g = h if "--hta" in cmd else d if cmd.startswith("critical-path") else {}
        graph = [num(g.get(k, "")) for k in ("n_nodes", "n_edges", "window_events", "critical_path_length")]
        if n == 0:
            bad = [r for r in runs if r["label"] == l]
            why = f"stopped after HTA_TIMEOUT" if all(r["rc"] == "124" for r in bad) else "failed, exit " + ",".join(r["rc"] for r in bad)
            load = [x for x in hta_runs(inp) if "load_s" in x]
            part = f" (load {load[0]['load_s']:.1f} s)" if load else ""
            print(f"| {inp} | {cmd}{part} | 0 of {len(bad)} ({why}) | > {max(float(r['secs']) for r in bad):.0f} | | | | | | | | |")
            continue
        s, cpu, rss = med(l, "secs"), med(l, "cpu_secs"), med(l, "rss_kb") / 1024
        if cmd == "HTA 0.5.0" and hr:
            m = lambda k: statistics.median(x[k] for x in hr)
            cmd = f"HTA 0.5.0 process (import {m('import_s'):.1f} s, load {m('load_s'):.1f} s, critical_path_analysis {m('critical_path_s'):.1f} s)"
            graph = [num(hr[0]["n_nodes"]), num(hr[0]["n_edges"]), "", num(hr[0]["critical_path_length"])]
        extra = f"{s - info_s:.2f}" if info_s is not None and cmd.startswith("critical-path") else ""
        vs = f"{hta_total / s:.1f}×" if hta_total and cmd.startswith("critical-path") else ""
        print(f"| {inp} | {cmd} | {n} | {s:.2f} | {cpu:.2f} | {rss:.0f} | " + " | ".join(graph) + f" | {extra} | {vs} |")
    for x in hr[:1]:
        same = all(str(x[k]) == str(h.get(hk)) for k, hk in [("critical_path_length", "critical_path_length"), ("n_nodes", "n_nodes"), ("n_edges", "n_edges")])
        checks.append(f"- {inp}: HTA critical path length {x['critical_path_length']} µs, nodes {x['n_nodes']}, edges {x['n_edges']}; "
                      f"`critical-path --hta`: {h.get('critical_path_length')} µs, nodes {h.get('n_nodes')}, edges {h.get('n_edges')}: "
                      + ("**equal**" if same else "**DIFFERENT**"))
    if hr:
        m = lambda k: statistics.median(x[k] for x in hr)
        cp = [l for l in labels if l == f"{inp}: critical-path --hta" and any(r["label"] == l for r in ok)]
        if cp and info_s is not None:
            ours = med(cp[0], "secs") - info_s
            checks.append(f"- {inp}: HTA's critical_path_analysis alone (after loading) took {m('critical_path_s'):.2f} s; "
                          f"`critical-path --hta` beyond reading (its time − `info`) {ours:.2f} s: {m('critical_path_s') / max(ours, 1e-3):.0f}×")
if checks:
    print("\nChecks against HTA (same input, rank and window):\n")
    print("\n".join(checks))
PY
cat "$MD"
