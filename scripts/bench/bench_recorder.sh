#!/usr/bin/env bash
# Benchmark kinetoscope on a large generated Recorder trace (pilgrim per-rank layout) against
# Recorder's own C reader (recorder2text) and recorder-viz's HTML report, in the same run.
#
# Usage: scripts/bench/bench_recorder.sh [RANKS]          (default 256)
#
# 1. generates bench-out/recorder_<RANKS>r_<ITERATIONS>i/ (gen_recorder.py --check, if missing):
#    ITERATIONS (default 400) iterations of the generator's program, ~7.2 M calls at 256 ranks;
# 2. prints the call count kinetoscope decodes;
# 3. measures RUNS (default 3) rounds, wall time + peak RSS (/usr/bin/time -v), `uptime` before
#    every run, warm page cache:
#      kinetoscope info          the folder
#      kinetoscope io --json     the folder (stdout to /dev/null)
#      recorder2text             $RECORDER/bin/recorder2text on the folder, one process (it writes
#                                the folder's _text/, which is removed after each run)
#      recorder-viz report       RecorderReader(DIR) + generate_report(...) with recorder-viz 0.5.4
#                                over $RECORDER/lib/libreader.so (VIZ_RUNS rounds, default 1: slow)
#    A baseline that is not installed is skipped with the reason; a run longer than TIMEOUT
#    seconds (default 3600) is stopped and counted as failed;
# 4. prints a markdown table (median of the runs, each as a ratio to `info` and to the
#    baselines), saved to bench-out/recorder_<time>.md (raw runs in .tsv).
#
# Recorder (branch pilgrim @ c1c3dcb, the layout generated) and recorder-viz are not part of this
# repository; how to install them into $RECORDER is in scripts/bench/README.md.
#
# Environment knobs: RUNS=3, VIZ_RUNS=1, ITERATIONS=400, TIMEOUT=3600, KINETOSCOPE=... (binary),
# PYTHON=python3, RECORDER=/work/recorder-install, VIZ_PYTHON=$RECORDER/venv/bin/python,
# BENCH_OUT=... (folder)
set -euo pipefail

RANKS=${1:-256}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-3}
VIZ_RUNS=${VIZ_RUNS:-1}
ITERATIONS=${ITERATIONS:-400}
TIMEOUT=${TIMEOUT:-3600}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
PY=${PYTHON:-python3}
RECORDER=${RECORDER:-/work/recorder-install}
VIZ_PY=${VIZ_PYTHON:-$RECORDER/venv/bin/python}
DIR=$OUT/recorder_${RANKS}r_${ITERATIONS}i
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/recorder_$STAMP.tsv
MD=$OUT/recorder_$STAMP.md
mkdir -p "$OUT"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
ensure_gnu_time
[ -x "$BIN" ] || { log "kinetoscope not found at $BIN - build it with 'cargo build --release'"; exit 1; }

if [ ! -s "$DIR/recorder.mt" ]; then
  log "generating $DIR ($RANKS ranks, $ITERATIONS iterations, gen_recorder.py)"
  "$PY" "$HERE/gen_recorder.py" "$DIR" --ranks "$RANKS" --iterations "$ITERATIONS" --check | tee "$DIR.gen.log" >&2
fi
rm -rf "$DIR/_text"
CALLS=$("$BIN" info "$DIR" | head -n 1)
log "input: $(du -sh "$DIR" | cut -f1) in $DIR; kinetoscope decodes: $CALLS"

# Baselines: skipped loudly when missing, with what is missing.
R2T=0 VIZ=0
if [ -x "$RECORDER/bin/recorder2text" ]; then R2T=1
else log "SKIP recorder2text: $RECORDER/bin/recorder2text not found (build Recorder pilgrim @ c1c3dcb, see README.md)"; fi
if [ ! -x "$VIZ_PY" ]; then log "SKIP recorder-viz: no Python at $VIZ_PY (make the venv, see README.md)"
elif [ ! -f "$RECORDER/lib/libreader.so" ]; then log "SKIP recorder-viz: $RECORDER/lib/libreader.so not found"
elif ! "$VIZ_PY" -c 'import recorder_viz, bokeh, pandas, prettytable' 2>/dev/null; then
  log "SKIP recorder-viz: 'import recorder_viz, bokeh, pandas, prettytable' fails with $VIZ_PY"
else VIZ=1; fi

VIZ_CODE='import sys; from recorder_viz import RecorderReader, generate_report; generate_report(RecorderReader(sys.argv[1]), sys.argv[2])'
printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
for i in $(seq 1 "$RUNS"); do
  measure_run "$TSV" "kinetoscope info" "$i" -- "$BIN" info "$DIR"
  measure_run "$TSV" "kinetoscope io --json" "$i" -- "$BIN" io "$DIR" --json
  if [ "$R2T" = 1 ]; then
    (cd "$OUT" && measure_run "$TSV" "recorder2text" "$i" -- timeout "$TIMEOUT" "$RECORDER/bin/recorder2text" "$DIR")
    [ "$i" = 1 ] && log "   recorder2text wrote $(cat "$DIR"/_text/*.txt 2>/dev/null | wc -l) lines into $DIR/_text"
    rm -rf "$DIR/_text"
  fi
  if [ "$VIZ" = 1 ] && [ "$i" -le "$VIZ_RUNS" ]; then
    (cd "$OUT" && export RECORDER_INSTALL_PATH=$RECORDER && measure_run "$TSV" "recorder-viz report" "$i" -- \
      timeout "$TIMEOUT" "$VIZ_PY" -c "$VIZ_CODE" "$DIR" "$OUT/recorder_viz_report.html")
  fi
done

"$PY" - "$TSV" "$RANKS" "$ITERATIONS" "$CALLS" > "$MD" <<'PY'
import csv, statistics, sys
runs = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
rows = [r for r in runs if r["rc"] == "0"]
labels = list(dict.fromkeys(r["label"] for r in runs))
med = {l: (statistics.median(float(r["secs"]) for r in rows if r["label"] == l),
           statistics.median(float(r["cpu_secs"]) for r in rows if r["label"] == l),
           int(statistics.median(int(r["rss_kb"]) for r in rows if r["label"] == l)),
           sum(r["label"] == l for r in rows)) for l in labels if any(r["label"] == l for r in rows)}
loads = [float(r["load1"]) for r in runs]
print(f"Generated Recorder trace: {sys.argv[2]} ranks, {sys.argv[3]} iterations; kinetoscope: {sys.argv[4]}.")
print(f"Median of the successful runs; load average {min(loads):.2f}-{max(loads):.2f} before the runs.\n")
print("| command | runs | wall s | CPU s | peak RSS MiB | time / info | time / recorder2text | time / recorder-viz |")
print("|---|---|---|---|---|---|---|---|")
for l in labels:
    if l not in med:
        bad = [r for r in runs if r["label"] == l]
        why = "stopped by TIMEOUT" if all(r["rc"] == "124" for r in bad) else "failed, exit " + ",".join(r["rc"] for r in bad)
        print(f"| {l} | 0 of {len(bad)} ({why}) | > {max(float(r['secs']) for r in bad):.0f} | | | | | |")
        continue
    s, cpu, rss, n = med[l]
    vs = lambda b: f"{s / med[b][0]:.3f}" if b in med else "-"
    print(f"| {l} | {n} | {s:.3f} | {cpu:.2f} | {rss // 1024} | {vs('kinetoscope info')} "
          f"| {vs('recorder2text')} | {vs('recorder-viz report')} |")
PY
cat "$MD"
