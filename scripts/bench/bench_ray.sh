#!/usr/bin/env bash
# One `kinetoscope analyze DIR` against the Ray driver (scripts/ray/kinetoscope_ray.py: a local
# Ray instance with 2 CPUs, --tasks 2, the merge included), in the same run, on a generated
# multi-rank Kineto folder; and the driver's two halves alone (each chunk's `analyze --chunk K/2
# --partial`, then `merge`), with their peak RSS. Checks that both ways wrote the same files.
#
# Usage: scripts/bench/bench_ray.sh [RANKS] [MB]          (default 8 ranks of ~20 MB)
#
# 1. generates bench-out/ray_<RANKS>x<MB>mb/worker<r>.json if missing: gen_kineto.py on rank r of
#    ../shared/traces/param/dlrm_8rank (a real 8-rank NCCL run, each rank's own distributedInfo),
#    copied to ~MB MB (so RANKS is at most 8);
# 2. measures RUNS rounds (default 1) with /usr/bin/time -v (lib.sh), `uptime` before each run:
#      analyze                  kinetoscope analyze DIR --out A
#      ray driver (2 tasks)     kinetoscope_ray.py DIR --tasks 2 --num-cpus 2 --out B --keep-partials P
#                               (wall time from the start of Python to the end of the merge; its
#                               log splits it into Ray's start, the tasks, the merge; the RSS is the
#                               driver's or the merge's, not Ray's own processes')
#      partial chunk K/2        kinetoscope analyze DIR --chunk K/2 --partial ... (what a task runs)
#      merge                    kinetoscope merge P/0.kpartial P/1.kpartial --out C
# 3. diff -r A B and A C must find nothing; prints a markdown table, saved to
#    bench-out/ray_<time>.md (raw runs in .tsv), with the sizes: JSON, partials, events.
#
# Knobs: RUNS=1, KINETOSCOPE=... (binary), SHARED=../shared, BENCH_OUT=... (folder).
set -euo pipefail

RANKS=${1:-8}
MB=${2:-20}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-1}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
SHARED=${SHARED:-${KINETOSCOPE_SHARED:-$ROOT/../shared}}
DIR=$OUT/ray_${RANKS}x${MB}mb
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/ray_$STAMP.tsv
MD=$OUT/ray_$STAMP.md
WORK=$OUT/ray_work
mkdir -p "$OUT"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
ensure_gnu_time
[ -x "$BIN" ] || { log "kinetoscope not found at $BIN - build it with 'cargo build --release'"; exit 1; }
[ "$RANKS" -ge 1 ] && [ "$RANKS" -le 8 ] || { log "RANKS must be 1 to 8 (the ranks of dlrm_8rank)"; exit 2; }
PY=$(bash "$ROOT/scripts/ray/venv.sh")
export RAY_AUTH_MODE=disabled

if [ ! -s "$DIR/worker$((RANKS - 1)).json" ]; then
  mkdir -p "$DIR"
  for r in $(seq 0 $((RANKS - 1))); do
    src=$(ls "$SHARED"/traces/param/dlrm_8rank/worker${r}_*.json)
    log "generating $DIR/worker$r.json from $src"
    python3 "$HERE/gen_kineto.py" "$src" "$DIR/worker$r.json" "$MB" >> "$DIR.gen.log"
  done
fi
JSON_MB=$(du -cb "$DIR"/*.json | awk 'END{printf "%.1f", $1/1e6}')
log "input: $RANKS files, $JSON_MB MB of JSON in $DIR"

printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
for i in $(seq 1 "$RUNS"); do
  rm -rf "$WORK" && mkdir -p "$WORK"
  cat "$DIR"/*.json > /dev/null # warm page cache
  measure_run "$TSV" "analyze" "$i" -- "$BIN" analyze "$DIR" --out "$WORK/analyze"
  measure_run "$TSV" "ray driver (2 tasks)" "$i" -- "$PY" "$ROOT/scripts/ray/kinetoscope_ray.py" "$DIR" --tasks 2 \
    --num-cpus 2 --kinetoscope "$BIN" --out "$WORK/ray" --keep-partials "$WORK/parts"
  for k in 0 1; do
    measure_run "$TSV" "partial chunk $k of 2" "$i" -- "$BIN" analyze "$DIR" --chunk "$k/2" --partial "$WORK/chunk$k.kpartial"
  done
  measure_run "$TSV" "merge" "$i" -- "$BIN" merge "$WORK/parts/0.kpartial" "$WORK/parts/1.kpartial" --out "$WORK/merge"
  for other in ray merge; do
    diff -r "$WORK/analyze" "$WORK/$other" > /dev/null || { log "FAIL: $WORK/$other differs from $WORK/analyze"; exit 1; }
  done
  cmp -s "$WORK/chunk0.kpartial" "$WORK/parts/0.kpartial" || { log "FAIL: the task's partial 0 differs from analyze --chunk 0/2's"; exit 1; }
done
log "identical: the driver's folder and the merge's equal analyze's ($(ls "$WORK/analyze" | wc -l) files)"

EVENTS=$(cat "$TSV".partial_chunk_*.log | awk '/^wrote partial/ {for (i = 1; i <= NF; i++) if ($(i+1) == "events,") n += $i} END {print n}')
PART_MB=$(du -cb "$WORK"/parts/*.kpartial | awk 'END{printf "%.1f", $1/1e6}')
python3 - "$TSV" "$RANKS" "$JSON_MB" "$PART_MB" "$EVENTS" "$TSV.ray_driver_(2_tasks).log" "$(nproc)" > "$MD" <<'PY'
import csv, re, statistics, sys
tsv, ranks, json_mb, part_mb, events, driver_log, cpus = sys.argv[1:]
runs = list(csv.DictReader(open(tsv), delimiter="\t"))
labels = list(dict.fromkeys(r["label"] for r in runs))
def med(l, k):
    return statistics.median(float(r[k]) for r in runs if r["label"] == l and r["rc"] == "0")
base = med("analyze", "secs")
loads = [float(r["load1"]) for r in runs]
print(f"{ranks} ranks, {json_mb} MB of Kineto JSON, {int(events):,} events; partials {part_mb} MB "
      f"({float(part_mb) / float(json_mb) * 100:.1f} % of the JSON). {cpus} CPUs; load average "
      f"{min(loads):.2f}-{max(loads):.2f} before the runs; median of {len(runs) // len(labels)} run(s).\n")
print("| command | wall s | CPU s | peak RSS MiB | wall / analyze |")
print("|---|---|---|---|---|")
for l in labels:
    print(f"| {l} | {med(l, 'secs'):.2f} | {med(l, 'cpu_secs'):.2f} | {med(l, 'rss_kb') / 1024:.0f} | {med(l, 'secs') / base:.2f} |")
log = open(driver_log).read()
parts = {k: re.search(p, log) for k, p in [("start", r"ray start ([\d.]+) s"), ("tasks", r"tasks ([\d.]+) s"), ("merge", r"merge ([\d.]+) s")]}
if all(parts.values()):
    print(f"\nThe driver's first run: Ray start {parts['start'][1]} s, the 2 tasks {parts['tasks'][1]} s, "
          f"merge {parts['merge'][1]} s (its own log). merge RSS per event: "
          f"{med('merge', 'rss_kb') * 1024 / int(events):.0f} bytes.")
PY
cat "$MD"
