#!/usr/bin/env bash
# Benchmark kinetoscope against Python's json.load on a large Kineto trace.
#
# Usage: scripts/bench/bench.sh [MB]          (default 500)
#
# 1. generates bench-out/kineto_<MB>mb.json (gen_kineto.py, if missing) and its .gz (gzip -6);
# 2. measures RUNS (default 3) times each, wall time + peak RSS (/usr/bin/time -v):
#      json.load           python3 -c 'import json,sys; json.load(open(sys.argv[1]))' FILE
#      json.load (gz)      same through gzip.open, on FILE.gz
#      kinetoscope info    target/release/kinetoscope info FILE        (and FILE.gz)
#      kinetoscope info --json                                          (and FILE.gz)
#    printing `uptime` before every measurement;
# 3. prints a markdown table (also saved to bench-out/results_<MB>mb_<time>.md, raw runs in .tsv)
#    and writes bench-out/baseline_<MB>mb.json (json.load numbers, read by bench_browser.mjs).
#
# Environment knobs:
#   RUNS=3            repetitions per command
#   SRC=...           source trace for gen_kineto.py (default: ../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz)
#   KINETOSCOPE=...   CLI binary (default target/release/kinetoscope; skipped with a message if missing)
#   SKIP_CLI=1        measure only the Python baseline
#   SKIP_GZ=1         skip the .gz inputs
#   JSON_FLAG=--json  flag for the machine-readable variant (placed after `info`)
#   BENCH_OUT=...     output folder (default <repo>/bench-out)
#   FILE=...          benchmark this uncompressed JSON trace instead of generating one (e.g. the
#                     gen_paddle.py output); MB then only names the result files. FILE.events,
#                     if present, holds the expected event count.
set -euo pipefail

MB=${1:-500}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-3}
SRC=${SRC:-$ROOT/../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
JSON_FLAG=${JSON_FLAG:---json}
JSON=${FILE:-$OUT/kineto_${MB}mb.json}
GZ=$JSON.gz
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/results_${MB}mb_$STAMP.tsv
MD=$OUT/results_${MB}mb_$STAMP.md
mkdir -p "$OUT"

log() { printf '%s\n' "$*" >&2; }

# --- tools -----------------------------------------------------------------------------------
if [ ! -x /usr/bin/time ]; then
  log "installing GNU time (apt-get install time)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y time >/dev/null || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y time >/dev/null; }
fi

# --- inputs ----------------------------------------------------------------------------------
if [ -n "${FILE:-}" ] && [ ! -s "$JSON" ]; then
  log "FILE=$JSON does not exist"; exit 1
fi
if [ ! -s "$JSON" ]; then
  log "generating $JSON (~$MB MB) from $SRC"
  python3 "$HERE/gen_kineto.py" "$SRC" "$JSON" "$MB" | tee "$JSON.gen.log" >&2
  grep '^events: ' "$JSON.gen.log" | awk '{print $2}' > "$JSON.events"
fi
if [ "${SKIP_GZ:-0}" != 1 ] && [ ! -s "$GZ" ]; then
  log "compressing $GZ (gzip -6)"
  gzip -6 -c "$JSON" > "$GZ.part" && mv "$GZ.part" "$GZ"
fi
JSON_BYTES=$(stat -c %s "$JSON")
EVENTS=$(cat "$JSON.events" 2>/dev/null || echo "?")

log ""
log "machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB RAM, $(uname -r), $(python3 --version 2>&1)"
log "input:   $JSON ($JSON_BYTES bytes, $EVENTS events)"
[ -s "$GZ" ] && log "         $GZ ($(stat -c %s "$GZ") bytes)"
log ""

printf 'label\tinput\tfile\tfile_bytes\tjson_bytes\trun\tsecs\trss_kb\tload1\trc\n' > "$TSV"

# measure LABEL INPUTKIND FILE -- CMD...
measure() {
  local label=$1 kind=$2 file=$3; shift 4
  local fbytes; fbytes=$(stat -c %s "$file")
  cat "$file" > /dev/null   # warm the page cache: every run reads from RAM
  local i
  for i in $(seq 1 "$RUNS"); do
    local up; up=$(uptime)
    log "[$label, $kind, run $i/$RUNS] uptime:$up"
    local load1; load1=$(awk '{print $1}' /proc/loadavg)
    local tv="$OUT/.time.$$" so="$OUT/.stdout.$$" se="$OUT/.stderr.$$"
    local t0 t1 rc=0
    t0=$(date +%s%N)
    /usr/bin/time -v -o "$tv" "$@" > "$so" 2> "$se" || rc=$?
    t1=$(date +%s%N)
    local secs rss
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
    rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$tv")
    if [ "$i" = 1 ]; then
      local safe=${label//[^A-Za-z0-9]/_}
      cp "$so" "$OUT/out_${MB}mb_${safe}_${kind}.txt"
    fi
    if [ "$rc" != 0 ]; then
      log "   -> FAILED (exit $rc): $(tail -n 3 "$se" | tr '\n' ' ')"
    else
      log "   -> ${secs}s, peak RSS $((rss / 1024)) MiB"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$kind" "$file" "$fbytes" \
      "$JSON_BYTES" "$i" "$secs" "$rss" "$load1" "$rc" >> "$TSV"
    rm -f "$tv" "$so" "$se"
  done
}

# --- baseline --------------------------------------------------------------------------------
measure "python json.load" json "$JSON" -- \
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$JSON"
if [ "${SKIP_GZ:-0}" != 1 ]; then
  measure "python json.load" gz "$GZ" -- \
    python3 -c 'import gzip,json,sys; json.load(gzip.open(sys.argv[1]))' "$GZ"
fi

# --- kinetoscope CLI -------------------------------------------------------------------------
SKIPPED=""
if [ "${SKIP_CLI:-0}" = 1 ]; then
  SKIPPED="kinetoscope CLI skipped (SKIP_CLI=1)"
elif [ ! -x "$BIN" ]; then
  SKIPPED="kinetoscope CLI not found at $BIN - build it with 'cargo build --release' to include it"
else
  for f in json gz; do
    [ "$f" = gz ] && [ "${SKIP_GZ:-0}" = 1 ] && continue
    file=$JSON; [ "$f" = gz ] && file=$GZ
    measure "kinetoscope info" "$f" "$file" -- "$BIN" info "$file"
    measure "kinetoscope info $JSON_FLAG" "$f" "$file" -- "$BIN" info "$JSON_FLAG" "$file"
  done
fi
[ -n "$SKIPPED" ] && log "SKIP: $SKIPPED"

# --- report ----------------------------------------------------------------------------------
python3 - "$TSV" "$MD" "$OUT/baseline_${MB}mb.json" "$EVENTS" "$SKIPPED" <<'PY'
import csv, json, statistics, sys, os, platform, subprocess
tsv, md, basefile, events, skipped = sys.argv[1:6]
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
groups = {}
for r in rows:
    groups.setdefault((r["label"], r["input"]), []).append(r)

def summary(rs):
    ok = [r for r in rs if r["rc"] == "0"]
    if not ok:
        return None
    secs = sorted(float(r["secs"]) for r in ok)
    rss = max(int(r["rss_kb"]) for r in ok) / 1024.0
    return dict(best=secs[0], median=statistics.median(secs), rss=rss, n=len(ok),
                json_mb=int(rs[0]["json_bytes"]) / 1e6, file_mb=int(rs[0]["file_bytes"]) / 1e6,
                loads="/".join("%.1f" % float(r["load1"]) for r in rs),
                file=rs[0]["file"], failed=len(rs) - len(ok))

base = summary(groups.get(("python json.load", "json"), []))
lines = []
lines.append("| command | input | file MB | JSON MB | s best | s median | MB/s | peak RSS MiB "
             "| speed vs json.load | memory vs json.load | load1 before runs |")
lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for (label, kind), rs in groups.items():
    s = summary(rs)
    if s is None:
        lines.append("| %s | %s | | | failed (exit %s) | | | | | | |" % (label, kind, rs[0]["rc"]))
        continue
    mbps = s["json_mb"] / s["best"]
    sp = mem = ""
    if base:
        sp = "%.2fx" % (mbps / (base["json_mb"] / base["best"]))
        mem = "%.3fx" % (s["rss"] / base["rss"])
    lines.append("| %s | .%s | %.1f | %.1f | %.3f | %.3f | %.1f | %.0f | %s | %s | %s |" % (
        label, kind, s["file_mb"], s["json_mb"], s["best"], s["median"], mbps, s["rss"], sp, mem,
        s["loads"]) + ("" if not s["failed"] else " (%d runs failed)" % s["failed"]))
try:
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
except Exception:
    cpu = platform.processor()
head = ["## kinetoscope benchmark, %s" % os.path.basename(md)[:-3], "",
        "- machine: %s, %d cores, %s; Python %s" % (cpu, os.cpu_count(), platform.release(),
                                                  platform.python_version()),
        "- input: `%s` (%s events); MB = 10^6 bytes; MB/s = uncompressed JSON MB / best wall time"
        % (base["file"] if base else "?", events),
        "- runs per command: %s; peak RSS = max over runs; warm page cache" % (
            max(len(v) for v in groups.values())), ""]
if skipped:
    lines += ["", "_%s_" % skipped]
text = "\n".join(head + lines) + "\n"
print()
print(text)
open(md, "w").write(text)
if base:
    json.dump({"file": base["file"], "json_mb": base["json_mb"], "events": events,
               "json_load_best_s": base["best"], "json_load_median_s": base["median"],
               "json_load_mbps": base["json_mb"] / base["best"],
               "json_load_peak_rss_mib": base["rss"], "source": md},
              open(basefile, "w"), indent=2)
    print("baseline written to %s" % basefile)
print("results written to %s (raw runs: %s)" % (md, md[:-3] + ".tsv"))
PY
