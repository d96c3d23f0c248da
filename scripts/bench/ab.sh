#!/usr/bin/env bash
# Alternating A/B runs of two or more builds, for changes smaller than this machine's noise (the same
# `analyze` took 0.43-0.79 s from one run to the next on 2026-12-02): each round runs every build
# once, in turn, and the summary gives medians over the rounds.
#
#   scripts/bench/ab.sh cli ROUNDS 'COMMAND' BIN...
#       COMMAND with {} for the binary, e.g. '{} analyze bench-out/analyze_100mb/trace.json --out /tmp/ab'
#       (run through bash; its output is dropped). Per build: median wall s, median user+sys CPU s,
#       median peak RSS (lib.sh's measure_run: GNU time), and the smallest wall time; builds are
#       labelled by their paths, slashes made underscores.
#   scripts/bench/ab.sh page ROUNDS FILE DIST...
#       the page's Overview of FILE from each web-app folder DIST (www/build.sh's dist/, copied aside
#       per build) with bench_browser.mjs (--tab overview --runs 1 --settle 1500 --helpers 2, and
#       $BENCH_ARGS), which also times native `info FILE` before each page run. Per build: median
#       Overview s, median of the per-run ratios Overview / native `info`, and their range.
#
# Raw lines go to bench-out/ab_<time>.tsv. Needs python3 (the medians) and, for `page`, what
# bench_browser.mjs needs (scripts/bench: npm install; scripts/setup.sh --wasm --browser).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${BENCH_OUT:-$ROOT/bench-out}
[ $# -ge 4 ] || { sed -n '2,18p' "$0"; exit 2; }
mode=$1 rounds=$2 what=$3
shift 3
mkdir -p "$OUT"
TSV=$OUT/ab_$(date -u +%Y%m%dT%H%M%SZ).tsv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

case "$mode" in
  cli)
    # shellcheck source=lib.sh
    . "$HERE/lib.sh"
    ensure_gnu_time
    printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > "$TSV"
    for r in $(seq "$rounds"); do
      for b in "$@"; do
        # the build's path as its label, slashes made underscores (lib.sh names a log after it)
        measure_run "$TSV" "${b//\//_}" "$r" -- bash -c "${what//\{\}/$b}"
        [ "$(tail -n 1 "$TSV" | cut -f8)" = 0 ] || exit 1
      done
    done
    ;;
  page)
    printf 'build\tround\toverview_s\tnative_s\n' > "$TSV"
    for r in $(seq "$rounds"); do
      for d in "$@"; do
        # shellcheck disable=SC2086
        node "$HERE/bench_browser.mjs" "$what" --tab overview --runs 1 --settle 1500 --helpers 2 --dist "$d" ${BENCH_ARGS:-} > "$TMP/out" 2>&1 || true
        # the results table's row of the run: | 1 | helpers | load1 | s (page) | s (wall) | tab s | analysis ms | native s | ...
        row=$(grep -m1 '^| 1 |' "$TMP/out" || true)
        [ -n "$row" ] || { echo "no result for $d (see below)" >&2; tail -5 "$TMP/out" >&2; exit 1; }
        tab=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $7); print $7}')
        native=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $9); print $9}')
        printf '%s\t%s\t%s\t%s\n' "$d" "$r" "$tab" "$native" >> "$TSV"
      done
    done
    ;;
  *) echo "ab.sh: the mode is cli or page" >&2; exit 2 ;;
esac

python3 - "$TSV" "$mode" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
key = 'label' if sys.argv[2] == 'cli' else 'build'
builds = list(dict.fromkeys(r[key] for r in rows))
for b in builds:
    mine = [r for r in rows if r[key] == b]
    col = lambda k: [float(r[k]) for r in mine]
    if sys.argv[2] == 'cli':
        print(f"{b}: wall {st.median(col('secs')):.3f} s (min {min(col('secs')):.3f}), CPU {st.median(col('cpu_secs')):.3f} s, "
              f"peak {st.median(col('rss_kb')) / 1024:.1f} MiB ({len(mine)} runs)")
    else:
        ratio = [float(r['overview_s']) / float(r['native_s']) for r in mine]
        print(f"{b}: Overview {st.median(col('overview_s')):.3f} s, native info {st.median(col('native_s')):.3f} s, "
              f"Overview / native {st.median(ratio):.2f}x (runs {min(ratio):.2f}-{max(ratio):.2f}, {len(mine)} runs)")
print(f"raw runs: {sys.argv[1]}")
PY
