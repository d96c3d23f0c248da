#!/usr/bin/env bash
# Benchmark `kinetoscope stats` / `extract` against kernel_extractor's approach (the whole trace
# parsed into one serde_json::Value: scripts/bench/serde_value_baseline) on a large Paddle trace.
#
# Usage: scripts/bench/bench_decode.sh [FILE]
#        (default bench-out/paddle_531mb.paddle_trace.json, generated with gen_paddle.py if missing)
#
# 1. builds the baseline (cargo build --release --offline in serde_value_baseline/, its own
#    Cargo.lock and target/);
# 2. measures RUNS (default 3) rounds of every command (each kinetoscope command right after its
#    baseline), wall time + peak RSS (/usr/bin/time -v), `uptime` printed before every run, warm
#    page cache:
#      baseline stats        serde_value_baseline stats FILE OUT.csv
#      baseline extract      serde_value_baseline extract FILE OUT.csv RANGE
#      kinetoscope stats     target/release/kinetoscope stats FILE OUT.csv
#      kinetoscope extract   target/release/kinetoscope extract FILE OUT.csv RANGE
#    (CLONE=1 adds the baseline with --clone-events: the per-event copy kernel_extractor makes);
# 3. checks that both tools wrote the same CSV (rows, names, numbers within 1e-6 relative);
# 4. prints a markdown table with speed-up and memory fraction of each kinetoscope command
#    against the baseline's same command, measured in this run, saved to
#    bench-out/decode_<time>.md (raw runs in .tsv; CSVs and logs of the first runs in
#    bench-out/decode_csv/). The page counterpart: bench_browser.mjs --tab decode (docs/performance.md).
#
# Environment knobs:
#   RUNS=3            repetitions per command
#   RANGE=START,END   extract's range in µs (default: 3 decode steps from the middle of the trace,
#                     read from the ProfileStep events at the start of the file)
#   KINETOSCOPE=...   CLI binary (default target/release/kinetoscope)
#   CLONE=1           also measure the baseline with --clone-events
#   SKIP_BUILD=1      use the baseline binary as it is
#   BENCH_OUT=...     output folder (default <repo>/bench-out)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
RUNS=${RUNS:-3}
BIN=${KINETOSCOPE:-$ROOT/target/release/kinetoscope}
FILE=${1:-$OUT/paddle_531mb.paddle_trace.json}
BASE_DIR=$HERE/serde_value_baseline
BASE=$BASE_DIR/target/release/serde_value_baseline
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
TSV=$OUT/decode_$STAMP.tsv
MD=$OUT/decode_$STAMP.md
CSVS=$OUT/decode_csv
mkdir -p "$OUT" "$CSVS"

log() { printf '%s\n' "$*" >&2; }

# --- tools -----------------------------------------------------------------------------------
if [ ! -x /usr/bin/time ]; then
  log "installing GNU time (apt-get install time)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y time >/dev/null || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y time >/dev/null; }
fi
[ -x "$BIN" ] || { log "kinetoscope not found at $BIN - build it with 'cargo build --release'"; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "== building the baseline (cargo build --release --offline in $BASE_DIR)"
  (cd "$BASE_DIR" && cargo build --release --offline --quiet)
fi

# --- input -----------------------------------------------------------------------------------
if [ ! -s "$FILE" ]; then
  log "generating $FILE (gen_paddle.py)"
  python3 "$HERE/gen_paddle.py" "$FILE" | tee "$FILE.gen.log" >&2
  grep '^events: ' "$FILE.gen.log" | awk '{print $2 - 1}' > "$FILE.events"
fi
if [ -z "${RANGE:-}" ]; then
  # Paddle writes every ProfileStep first: take 3 decode steps (<= 30 ms) from the middle
  RANGE=$(python3 - "$FILE" <<'PY'
import re, sys
head = open(sys.argv[1], "rb").read(4 << 20).decode("ascii", "replace")
steps = re.findall(r'"cat": "ProfileStep",.*?"start_time": "([0-9.]+) us",\s*"end_time": "([0-9.]+) us"', head, re.S)
decode = [(a, b) for a, b in steps if float(b) - float(a) <= 30000.0]
if len(decode) < 3:
    sys.exit("bench_decode.sh: fewer than 3 decode ProfileSteps in the first 4 MiB; set RANGE=START,END")
m = len(decode) // 2
print("%s,%s" % (decode[m][0], decode[m + 2][1]))
PY
)
fi
JSON_BYTES=$(stat -L -c %s "$FILE")
EVENTS=$(cat "$FILE.events" 2>/dev/null || echo "?")

log ""
log "machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB RAM, $(uname -r)"
log "input:   $FILE ($JSON_BYTES bytes, $EVENTS events); extract range $RANGE us"
log ""

printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"

# measure LABEL CSV RUN -- CMD...   (CMD writes CSV; the first run's CSV and output are kept)
measure() {
  local label=$1 csv=$2 i=$3; shift 4
  cat "$FILE" > /dev/null   # warm the page cache: every run reads from RAM
  {
    log "[$label, run $i/$RUNS] uptime:$(uptime)"
    local load1; load1=$(awk '{print $1}' /proc/loadavg)
    local tv="$OUT/.time.$$" so="$OUT/.stdout.$$" se="$OUT/.stderr.$$"
    local t0 t1 rc=0
    t0=$(date +%s%N)
    /usr/bin/time -v -o "$tv" "$@" > "$so" 2> "$se" || rc=$?
    t1=$(date +%s%N)
    local secs rss cpu
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
    rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$tv")
    cpu=$(awk -F': ' '/User time|System time/{s += $2} END{printf "%.2f", s}' "$tv")
    if [ "$i" = 1 ]; then
      cat "$so" "$se" > "${csv%.csv}.log"
      cp "$csv" "${csv%.csv}.first.csv" 2>/dev/null || true
    fi
    if [ "$rc" != 0 ]; then
      log "   -> FAILED (exit $rc): $(tail -n 3 "$se" | tr '\n' ' ')"
    else
      log "   -> ${secs}s (CPU ${cpu}s), peak RSS $((rss / 1024)) MiB$(grep -h -e '^parse into' -e '^free the' "$se" | sed 's/^/; /' | tr -d '\n' || true)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$*" "$i" "$secs" "$cpu" "$rss" "$load1" "$rc" >> "$TSV"
    rm -f "$tv" "$so" "$se"
  }
}

# rounds: every command once per round, each kinetoscope command right after its baseline, so a
# drift of the machine's speed over the session hits both sides alike
for i in $(seq 1 "$RUNS"); do
  measure "baseline stats" "$CSVS/baseline_stats.csv" "$i" -- "$BASE" stats "$FILE" "$CSVS/baseline_stats.csv"
  measure "kinetoscope stats" "$CSVS/kinetoscope_stats.csv" "$i" -- "$BIN" stats "$FILE" "$CSVS/kinetoscope_stats.csv"
  measure "baseline extract" "$CSVS/baseline_extract.csv" "$i" -- "$BASE" extract "$FILE" "$CSVS/baseline_extract.csv" "$RANGE"
  measure "kinetoscope extract" "$CSVS/kinetoscope_extract.csv" "$i" -- "$BIN" extract "$FILE" "$CSVS/kinetoscope_extract.csv" "$RANGE"
  if [ "${CLONE:-0}" = 1 ]; then
    measure "baseline stats --clone-events" "$CSVS/baseline_clone_stats.csv" "$i" -- \
      "$BASE" --clone-events stats "$FILE" "$CSVS/baseline_clone_stats.csv"
  fi
done

# --- report ----------------------------------------------------------------------------------
python3 - "$TSV" "$MD" "$FILE" "$JSON_BYTES" "$EVENTS" "$RANGE" "$CSVS" <<'PY'
import csv, os, platform, re, statistics, sys
tsv, md, file, json_bytes, events, rng, csvs = sys.argv[1:8]
mb = int(json_bytes) / 1e6
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
groups = {}
for r in rows:
    groups.setdefault(r["label"], []).append(r)

def summary(rs):
    ok = [r for r in rs if r["rc"] == "0"]
    if not ok:
        return None
    secs = sorted(float(r["secs"]) for r in ok)
    return dict(best=secs[0], cpu=min(float(r["cpu_secs"]) for r in ok), median=statistics.median(secs), rss=max(int(r["rss_kb"]) for r in ok) / 1024.0,
                loads="/".join("%.1f" % float(r["load1"]) for r in rs), failed=len(rs) - len(ok),
                command=rs[0]["command"])

S = {k: summary(v) for k, v in sorted(groups.items(), key=lambda kv: not kv[0].startswith("baseline"))}
lines = ["| command | s best | s median | CPU s best | MB/s | peak RSS MiB | speed-up vs baseline (best / median) | memory vs baseline | load1 before runs |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
for label, s in S.items():
    if s is None:
        lines.append("| %s | failed | | | | | | | |" % label)
        continue
    base = S.get("baseline " + label.split()[-1]) if label.startswith("kinetoscope") else None
    sp = "%.2fx / %.2fx" % (base["best"] / s["best"], base["median"] / s["median"]) if base else ""
    mem = "%.3fx" % (s["rss"] / base["rss"]) if base else ""
    lines.append("| %s | %.3f | %.3f | %.2f | %.1f | %.0f | %s | %s | %s |" % (
        label, s["best"], s["median"], s["cpu"], mb / s["best"], s["rss"], sp, mem, s["loads"]) +
        ("" if not s["failed"] else " (%d runs failed)" % s["failed"]))

# --- do the CSVs agree? ---
SUFFIX = re.compile(r"\[[0-9.]+ (us|ms|ns|s)\]$")
def table(path):
    try:
        return list(csv.reader(open(path, newline="")))
    except OSError:
        return None
def close(a, b):
    x, y = float(a), float(b)
    return abs(x - y) <= 1e-6 * max(abs(x), abs(y)) or abs(x - y) <= 1e-9
def compare(base, kin, strip):
    if base is None or kin is None:
        return "not compared (a CSV is missing)"
    if base[0] != kin[0]:
        return "headers differ: %s vs %s" % (base[0], kin[0])
    b, k = base[1:], kin[1:]
    if strip:
        b = [[SUFFIX.sub("", r[0])] + r[1:] for r in b]
    if len(b) != len(k):
        return "row counts differ: baseline %d, kinetoscope %d" % (len(b), len(k))
    worst, bad = 0.0, []
    for i, (x, y) in enumerate(zip(b, k)):
        if x[0] != y[0]:
            bad.append("row %d: name %r vs %r" % (i + 1, x[0], y[0]))
            continue
        for c, (u, v) in enumerate(zip(x[1:], y[1:]), 1):
            if not close(u, v):
                bad.append("row %d %s: %s vs %s" % (i + 1, base[0][c], u, v))
            elif float(u) != float(v):
                worst = max(worst, abs(float(u) - float(v)) / max(abs(float(u)), abs(float(v))))
    if bad:
        return "%d differences, e.g. %s" % (len(bad), "; ".join(bad[:3]))
    return "agree: %d rows, same names and order, numbers equal within 1e-6 relative (largest relative difference %.1e)" % (len(k), worst)
checks = [
    ("extract", compare(table(os.path.join(csvs, "baseline_extract.first.csv")),
                        table(os.path.join(csvs, "kinetoscope_extract.first.csv")), True)),
    ("stats", compare(table(os.path.join(csvs, "baseline_stats.first.csv")),
                      table(os.path.join(csvs, "kinetoscope_stats.first.csv")), False)),
]
def first_line(path, pat):
    try:
        for l in open(path):
            if re.search(pat, l):
                return l.strip()
    except OSError:
        pass
    return "?"
steps_base = first_line(os.path.join(csvs, "baseline_stats.log"), r"decode steps")
steps_kin = first_line(os.path.join(csvs, "kinetoscope_stats.log"), r"decode step")

try:
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
except Exception:
    cpu = platform.processor()
head = ["## kinetoscope stats/extract vs a serde_json::Value baseline, %s" % os.path.basename(md)[:-3], "",
        "- machine: %s, %d cores, %s" % (cpu, os.cpu_count(), platform.release()),
        "- input: `%s` (%.1f MB, %s events); extract range %s µs; MB = 10^6 bytes" % (file, mb, events, rng),
        "- runs per command: %d; s = wall time; CPU s = user + sys of the run with the least; peak RSS = max over runs; warm page cache; "
        "ratios against the baseline's same command in this run" % max(len(v) for v in groups.values()),
        "- baseline: scripts/bench/serde_value_baseline (serde_json::from_reader into Value, then "
        "kernel_extractor's filtering)", ""]
tail = ["", "CSV check (baseline vs kinetoscope; extract names compared without the `[x us]` suffix, "
        "which kernel_extractor keeps and kinetoscope strips by default):", ""]
tail += ["- %s: %s" % c for c in checks]
tail += ["- steps used by stats: baseline `%s`; kinetoscope `%s`" % (steps_base, steps_kin)]
text = "\n".join(head + lines + tail) + "\n"
print()
print(text)
open(md, "w").write(text)
print("results written to %s (raw runs: %s)" % (md, md[:-3] + ".tsv"))
PY
