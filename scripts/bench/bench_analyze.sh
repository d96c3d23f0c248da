#!/usr/bin/env bash
# Benchmark `kinetoscope analyze` (every analysis, every table) against HolisticTraceAnalysis 0.5.0
# end to end (load + its four analyses: hta_analyze.py) and against Python's `json.load`, on
# single-rank Kineto traces of about 100 MB, 500 MB and 1 GB, .json and .json.gz (issue 23).
#
# Usage: scripts/bench/bench_analyze.sh [SIZES...]        (default: 100 500 1000, MB)
#
# 1. generates, if missing, bench-out/analyze_<MB>mb/trace.json with gen_kineto.py (HTA's
#    df_index_resolver trace copied, shifted times, offset ids; whole copies, so sizes are
#    multiples of 54 MB) and bench-out/analyze_<MB>mb_gz/trace.json.gz (the same, gzip -1); each
#    trace alone in its folder, which is what HTA loads;
# 2. per input, RUNS rounds (default 1) of (lib.sh: /usr/bin/time -v, uptime before):
#      json.load           python3 -c 'json.load(open(F))' (gzip.open for .gz)
#      HTA                 hta_analyze.py DIR with HTA_PYTHON (skipped when unset and no
#                          ../hta-venv next to the repository)
#      analyze             kinetoscope analyze F --out TMP
#      analyze --traces    the same, also writing the three produced traces
#      analyze --hta       kinetoscope analyze F --out TMP --hta (HTA's tables and bugs)
# 3. prints a markdown table (median of the runs: seconds, CPU seconds, peak RSS, and speed and
#    memory against HTA and json.load of the same input in the same run); also
#    bench-out/analyze_<time>.md, raw runs in .tsv, stderr of each first run in .tsv.<label>.log
#    (`KINETOSCOPE_TIMINGS=1` makes analyze's log show each analysis' time and memory).
#
# Knobs: RUNS=1, HTA_PYTHON, KINETOSCOPE=target/release/kinetoscope, PYTHON=python3,
# FORMATS="json gz", SRC=<source trace>, BENCH_OUT=<repo>/bench-out.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-1}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
PY=${PYTHON:-python3}
FORMATS=${FORMATS:-json gz}
SRC=${SRC:-$ROOT/../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz}
if [ -z "${HTA_PYTHON+set}" ] && [ -x "$ROOT/../hta-venv/bin/python" ]; then HTA_PYTHON=$ROOT/../hta-venv/bin/python; fi
HTA_PY=${HTA_PYTHON:-}
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(100 500 1000)
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/analyze_$STAMP.tsv
MD=$OUT/analyze_$STAMP.md
mkdir -p "$OUT"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
ensure_gnu_time
[ -x "$BIN" ] || { log "no $BIN: run cargo build --release first"; exit 1; }
[ -n "$HTA_PY" ] || log "HTA_PYTHON unset and no ../hta-venv: HTA is not run"
printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for mb in "${SIZES[@]}"; do
  for fmt in $FORMATS; do
    if [ "$fmt" = gz ]; then dir=$OUT/analyze_${mb}mb_gz; file=$dir/trace.json.gz; gen=(--gzip --level 1); load="import gzip,json; json.load(gzip.open('$file'))"
    else dir=$OUT/analyze_${mb}mb; file=$dir/trace.json; gen=(); load="import json; json.load(open('$file'))"; fi
    if [ ! -f "$file" ]; then
      log "generating $file"
      mkdir -p "$dir"
      "$PY" "$HERE/gen_kineto.py" "$SRC" "${file%.gz}" "$mb" "${gen[@]}" >&2
    fi
    input="${mb}MB $fmt"
    for i in $(seq 1 "$RUNS"); do
      measure_run "$TSV" "$input|json.load" "$i" -- "$PY" -c "$load"
      [ -n "$HTA_PY" ] && measure_run "$TSV" "$input|HTA" "$i" -- "$HTA_PY" "$HERE/hta_analyze.py" "$dir"
      measure_run "$TSV" "$input|analyze" "$i" -- env KINETOSCOPE_TIMINGS=1 "$BIN" analyze "$file" --out "$TMP/a"
      measure_run "$TSV" "$input|analyze --traces" "$i" -- "$BIN" analyze "$file" --out "$TMP/t" --traces
      measure_run "$TSV" "$input|analyze --hta" "$i" -- "$BIN" analyze "$file" --out "$TMP/h" --hta
      rm -rf "$TMP"/*
    done
  done
done

"$PY" - "$TSV" > "$MD" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    if r["rc"] != "0":
        continue
    inp, what = r["label"].split("|")
    by.setdefault(inp, {}).setdefault(what, []).append(r)
med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
print("| input | command | s | CPU s | peak RSS MiB | vs HTA (speed / memory) | vs json.load (speed / memory) | load |")
print("|---|---|---:|---:|---:|---|---|---:|")
for inp, whats in by.items():
    base = {b: (med(whats[b], "secs"), med(whats[b], "rss_kb")) for b in ("HTA", "json.load") if b in whats}
    for what, rs in whats.items():
        s, cpu, rss = med(rs, "secs"), med(rs, "cpu_secs"), med(rs, "rss_kb")
        ratio = lambda b: f"{base[b][0] / s:.1f}× / {rss / base[b][1]:.3f}×" if b in base and what != b else "—"
        print(f"| {inp} | {what} | {s:.2f} | {cpu:.2f} | {rss / 1024:.0f} | {ratio('HTA')} | {ratio('json.load')} | {rs[0]['load1']} |")
PY
cat "$MD"
log "wrote $MD"
