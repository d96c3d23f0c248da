#!/usr/bin/env bash
# Benchmark `kinetoscope diff` on two large Kineto traces against analysing both of them.
#
# Usage: scripts/bench/bench_diff.sh [MB]      (default 250: two traces of ~250 MB each)
#
# 1. generates bench-out/diff_<MB>mb/{control,test}/trace.json with gen_kineto.py from the real
#    before/after pair ../shared/traces/hta/trace_diff/{control,test} (if missing);
# 2. measures RUNS (default 3) rounds, each of (warm page cache, /usr/bin/time -v, uptime before):
#      json.load both      python3 json.load of control, then of test (the same-run baseline)
#      info both           kinetoscope info control; kinetoscope info test        (reading only)
#      kernels both        kinetoscope kernels control; kinetoscope kernels test  ("analysing both":
#                          reading + frames + the GPU kernel breakdown, one trace after the other)
#      temporal both       kinetoscope temporal control; kinetoscope temporal test
#      diff                kinetoscope diff control test --out DIR   (every table of the comparison)
#      diff --hta          kinetoscope diff control test --hta --out DIR
#    and, with HTA_PYTHON=/path/to/python (HolisticTraceAnalysis 0.5.0 installed), HTA's
#    TraceDiff once (hta_diff_baseline.py);
# 3. prints a markdown table (also bench-out/diff_<MB>mb_<time>.md; raw runs in .tsv): seconds,
#    peak RSS, and each command's time against `json.load both` and against `kernels both` of the
#    same run.
#
# Environment knobs: RUNS=3, KINETOSCOPE=target/release/kinetoscope, BENCH_OUT=<repo>/bench-out,
# HTA_PYTHON (unset: HTA is not run).
set -euo pipefail

MB=${1:-250}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-3}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
DIR=$OUT/diff_${MB}mb
PAIR=$ROOT/../shared/traces/hta/trace_diff
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/diff_${MB}mb_$STAMP.tsv
MD=$OUT/diff_${MB}mb_$STAMP.md
# shellcheck source=lib.sh
. "$HERE/lib.sh"

ensure_gnu_time
[ -x "$BIN" ] || { log "kinetoscope not found at $BIN - build it with 'cargo build --release'"; exit 1; }
for side in control test; do
  f=$DIR/$side/trace.json
  if [ ! -s "$f" ]; then
    mkdir -p "$DIR/$side"
    log "generating $f (gen_kineto.py from $PAIR/$side)"
    python3 "$HERE/gen_kineto.py" "$PAIR/$side/$side.json.gz" "$f" "$MB" | tail -n 1 >&2
  fi
done
C=$DIR/control/trace.json T=$DIR/test/trace.json
log "machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB RAM; control $(stat -c %s "$C") bytes, test $(stat -c %s "$T") bytes"

pair() { # CMD... runs CMD on control, then on test
  "$@" "$C" && "$@" "$T"
}
json_load() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"; }
export -f pair json_load
export C T

printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
for i in $(seq 1 "$RUNS"); do
  cat "$C" "$T" > /dev/null   # warm the page cache
  measure_run "$TSV" "json.load both" "$i" -- bash -c 'pair json_load'
  measure_run "$TSV" "info both" "$i" -- bash -c "pair '$BIN' info"
  measure_run "$TSV" "kernels both" "$i" -- bash -c "pair '$BIN' kernels"
  measure_run "$TSV" "temporal both" "$i" -- bash -c "pair '$BIN' temporal"
  measure_run "$TSV" "diff" "$i" -- "$BIN" diff "$C" "$T" --out "$OUT/diff_out"
  measure_run "$TSV" "diff --hta" "$i" -- "$BIN" diff "$C" "$T" --hta --out "$OUT/diff_out_hta"
done
if [ -n "${HTA_PYTHON:-}" ]; then
  measure_run "$TSV" "HTA TraceDiff" 1 -- "$HTA_PYTHON" "$HERE/hta_diff_baseline.py" "$DIR/control" "$DIR/test"
fi

python3 - "$TSV" "$MD" <<'PY'
import csv, statistics, sys
tsv, md = sys.argv[1:3]
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
runs = {}
for r in rows:
    runs.setdefault(r["label"], []).append(r)
def stat(rs):
    ok = [float(r["secs"]) for r in rs if r["rc"] == "0"]
    return (min(ok), statistics.median(ok), max(int(r["rss_kb"]) for r in rs) / 1024) if ok else None
S = {k: stat(v) for k, v in runs.items()}
out = ["| command | s best | s median | peak RSS MiB (one process) | vs json.load both (best / median) | vs kernels both (best / median) | load1 before runs |",
       "|---|---:|---:|---:|---:|---:|---|"]
for label, s in S.items():
    if s is None:
        out.append("| %s | failed | | | | | |" % label)
        continue
    rel = lambda base: "%.2fx / %.2fx" % (s[0] / S[base][0], s[1] / S[base][1]) if S.get(base) else ""
    loads = "/".join("%.1f" % float(r["load1"]) for r in runs[label])
    out.append("| %s | %.2f | %.2f | %.0f | %s | %s | %s |" % (label, s[0], s[1], s[2], rel("json.load both"), rel("kernels both"), loads))
text = "\n".join(out) + "\n\n(time of each command divided by the baseline's time in the same session: below 1 is faster)\n"
open(md, "w").write(text)
print(text)
PY
log "saved $MD"
