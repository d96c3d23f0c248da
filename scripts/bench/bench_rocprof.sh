#!/usr/bin/env bash
# Benchmark kinetoscope's AMD analyses on a large generated rocprofv3 CSV run against `info` (the
# read alone) and the ad-hoc pandas script they replace, in the same run.
#
# Usage: scripts/bench/bench_rocprof.sh [MB]          (default 300)
#
# 1. generates bench-out/rocprof_<MB>mb/ (gen_rocprof.py, if missing): one process's
#    kernel_trace.csv, hip_api_trace.csv and memory_copy_trace.csv, MB megabytes in all;
# 2. measures RUNS (default 3) rounds, wall time + peak RSS (/usr/bin/time -v), `uptime` before
#    every run, warm page cache:
#      kinetoscope info            the run folder
#      kinetoscope rocprof_stats   the run folder, --csv --table stats (stats.csv on stdout)
#      kinetoscope rocprof_stats   kernel_trace.csv alone (what the pandas script reads)
#      kinetoscope transfers       the run folder
#      kinetoscope patterns        the run folder
#      pandas stats.csv            pandas_rocprof_stats.py on kernel_trace.csv alone (read_csv of
#                                  three columns + groupby), when pandas imports
# 3. checks that rocprof_stats and pandas wrote the same stats.csv (byte for byte);
# 4. prints a markdown table (median of the runs, each as a ratio to `info` and to pandas),
#    saved to bench-out/rocprof_<time>.md (raw runs in .tsv).
#
# Environment knobs: RUNS=3, KINETOSCOPE=... (binary), PYTHON=python3, BENCH_OUT=... (folder)
set -euo pipefail

MB=${1:-300}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-3}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
PY=${PYTHON:-python3}
RUN=$OUT/rocprof_${MB}mb
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/rocprof_$STAMP.tsv
MD=$OUT/rocprof_$STAMP.md
mkdir -p "$OUT"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
ensure_gnu_time
[ -x "$BIN" ] || { log "kinetoscope not found at $BIN - build it with 'cargo build --release'"; exit 1; }

if [ ! -s "$RUN/4242_kernel_trace.csv" ]; then
  log "generating $RUN (~$MB MB, gen_rocprof.py)"
  "$PY" "$HERE/gen_rocprof.py" "$RUN" "$MB" | tee "$RUN.gen.log" >&2
fi
log "input: $(du -sh "$RUN" | cut -f1) in $RUN: $(ls "$RUN" | tr '\n' ' ')"
PANDAS=0
"$PY" -c 'import pandas' 2>/dev/null && PANDAS=1 || log "pandas does not import: its baseline is skipped (pip install pandas)"

printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
for i in $(seq 1 "$RUNS"); do
  measure_run "$TSV" "info" "$i" -- "$BIN" info "$RUN"
  measure_run "$TSV" "rocprof_stats" "$i" -- "$BIN" rocprof_stats "$RUN" --csv --table stats
  measure_run "$TSV" "rocprof_stats (kernel_trace.csv)" "$i" -- "$BIN" rocprof_stats "$RUN/4242_kernel_trace.csv" --csv --table stats
  measure_run "$TSV" "transfers" "$i" -- "$BIN" transfers "$RUN"
  measure_run "$TSV" "patterns" "$i" -- "$BIN" patterns "$RUN"
  [ "$PANDAS" = 1 ] && measure_run "$TSV" "pandas stats.csv" "$i" -- "$PY" "$HERE/pandas_rocprof_stats.py" "$RUN/4242_kernel_trace.csv" "$OUT/rocprof_pandas_stats.csv"
done

"$BIN" rocprof_stats "$RUN" --csv --table stats > "$OUT/rocprof_kinetoscope_stats.csv"
if [ "$PANDAS" = 1 ]; then
  if cmp -s "$OUT/rocprof_kinetoscope_stats.csv" "$OUT/rocprof_pandas_stats.csv"; then
    log "stats.csv: kinetoscope and pandas wrote the same bytes"
  else
    log "stats.csv DIFFERS between kinetoscope and pandas:"; diff "$OUT/rocprof_kinetoscope_stats.csv" "$OUT/rocprof_pandas_stats.csv" | head >&2; exit 1
  fi
fi

"$PY" - "$TSV" "$MB" "$RUNS" > "$MD" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["rc"] == "0"]
labels = list(dict.fromkeys(r["label"] for r in rows))
med = {l: (statistics.median(float(r["secs"]) for r in rows if r["label"] == l),
           statistics.median(int(r["rss_kb"]) for r in rows if r["label"] == l)) for l in labels}
loads = [float(r["load1"]) for r in rows]
print(f"rocprofv3 CSV run of {sys.argv[2]} MB, median of {sys.argv[3]} runs, load average {min(loads):.2f}-{max(loads):.2f}\n")
print("| command | wall s | peak RSS MiB | time / info | time / pandas |")
print("|---|---|---|---|---|")
for l in labels:
    s, rss = med[l]
    vs = lambda b: f"{s / med[b][0]:.2f}" if b in med else "-"
    print(f"| {l} | {s:.3f} | {rss // 1024} | {vs('info')} | {vs('pandas stats.csv')} |")
PY
cat "$MD"
