#!/usr/bin/env bash
# Writes every output the CLI produces on the shared corpus and testdata/ into one folder, so a
# refactoring can be checked byte for byte:
#   scripts/snapshot_outputs.sh BEFORE_DIR            (on the old commit)
#   scripts/snapshot_outputs.sh AFTER_DIR             (on the new one)
#   diff -r BEFORE_DIR AFTER_DIR                      (must print nothing)
# Runs: analyze (default and --hta) on every HTA oracle set and every testdata/ trace, info
# (text and --json) on every shared trace, stats/extract/decode on the decode fixtures and the
# Paddle and Kineto traces, diff (default, --hta, --by kernel, rank mode) on the diff traces.
# Exit codes and stderr are kept too (as <name>.rc and <name>.err), so errors must stay the same.
# env: KINETOSCOPE_SHARED (default ../shared), BIN (default target/release/kinetoscope, built first)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/snapshot_outputs.sh OUT_DIR}
shared=${KINETOSCOPE_SHARED:-../shared}
if [ -z "${BIN:-}" ]; then
  cargo build --release --locked -q || exit 1
  BIN=target/release/kinetoscope
fi
BIN=$(realpath "$BIN")
rm -rf "$out"; mkdir -p "$out"
out=$(realpath "$out")

# run NAME ARGS...: stdout, stderr and exit code into $out/NAME.{out,err,rc}
run() {
  local name=$1; shift
  mkdir -p "$(dirname "$out/$name")"
  "$BIN" "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  sed -i "s#$out#OUT#g" "$out/$name.out" "$out/$name.err"   # the same text whatever OUT_DIR is
}

n=0
# every HTA oracle set: analyze, both modes
for set in "$shared"/hta-oracle/out/*/; do
  set=$(basename "$set")
  case "$set" in trace_diff__control_vs_test|memory_analysis) continue ;; esac
  folder="$shared/traces/hta/${set//__//}"
  [ -d "$folder" ] || continue
  run "analyze/$set/default" analyze "$folder" --out "$out/analyze/$set/default.d"
  run "analyze/$set/hta" analyze "$folder" --hta --out "$out/analyze/$set/hta.d"
  n=$((n + 2))
done
# every testdata trace (file or per-rank folder) and every shared trace file: analyze + info
while IFS= read -r t; do
  rel=${t#./}
  run "analyze-testdata/$rel/default" analyze "$t" --out "$out/analyze-testdata/$rel/default.d"
  run "analyze-testdata/$rel/hta" analyze "$t" --hta --out "$out/analyze-testdata/$rel/hta.d"
  run "info-testdata/$rel" info "$t"
  n=$((n + 3))
done < <(find testdata -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.csv' \) | sort)
while IFS= read -r t; do
  rel=${t#"$shared"/traces/}
  run "info/$rel" info "$t"
  run "info-json/$rel" info --json "$t"
  n=$((n + 2))
done < <(find "$shared/traces" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.csv' -o -name '*.gz' \) | sort)

# decode steps: kernel_extractor's stats/extract, and the registry forms
paddle="$shared/traces/paddle/paddle3.3.1_cpu_mlp_adam.paddle_trace.json"
resnet="$shared/traces/kineto/tb_plugin_2021-06_resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"
for t in testdata/decode/*.json testdata/decode/two-ranks "$paddle" "$resnet"; do
  b=$(basename "$t")
  run "stats/$b/default" stats "$t" "$out/stats/$b/default.csv" --out "$out/stats/$b/default.d" --plot "$out/stats/$b/default.svg"
  run "stats/$b/none" stats "$t" "$out/stats/$b/none.csv" none
  run "stats/$b/by-launch" stats "$t" "$out/stats/$b/by-launch.csv" none --by-launch --prefill-ms 30
  run "stats/$b/step-name" stats "$t" "$out/stats/$b/step-name.csv" none --step-name execute_model
  run "extract/$b" extract "$t" "$out/extract/$b.csv" 0,1e12
  run "decode/$b" decode "$t" --csv
  run "gpu_ops/$b" gpu_ops "$t" --csv
  n=$((n + 7))
done

# diff: testdata and HTA's trace_diff sets
for pair in "testdata/diff/control.json testdata/diff/test.json" \
            "$shared/traces/hta/trace_diff/control $shared/traces/hta/trace_diff/test"; do
  set -- $pair
  b=$(basename "$(dirname "$1")")-$(basename "$1")
  run "diff/$b/default" diff "$1" "$2" --out "$out/diff/$b/default.d" --plot "$out/diff/$b/default.svg"
  run "diff/$b/hta" diff "$1" "$2" --hta --out "$out/diff/$b/hta.d"
  run "diff/$b/kernel" diff "$1" "$2" --by kernel --csv
  run "diff/$b/json" diff "$1" "$2" --json --short-names --device gpu
  n=$((n + 4))
done
run "diff/ranks" diff testdata/diff/ranks --test-ranks 1 --json
run "diff/decode" diff testdata/decode/kineto-decode.json testdata/decode/kineto-lagging.json --by-launch --json
# every registry subcommand on one trace, terminal and JSON output; run from a folder of the
# snapshot, so that a file a subcommand writes by default (`report`: report.html) is compared
# too and not left in the checkout
trace_filter=$(realpath "$shared/traces/hta/trace_filter")
mkdir -p "$out/sub-files"
while IFS= read -r sub; do
  (cd "$out/sub-files" && run "sub/$sub" "$sub" "$trace_filter")
  (cd "$out/sub-files" && run "sub-json/$sub" "$sub" "$trace_filter" --json)
  n=$((n + 2))
done < <("$BIN" --help | awk '/^Commands:/ {on=1; next} /^$/ {on=0} on {print $1}' | grep -vE '^(help|info|analyze|stats|extract|diff)$')
# gzip writes no mtime, so the counter traces compare byte for byte too
echo "snapshot: $n+ commands into $out ($(find "$out" -type f | wc -l) files)"
