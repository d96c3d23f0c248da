#!/usr/bin/env bash
# The Ray driver (scripts/ray/kinetoscope_ray.py) against one `kinetoscope analyze`: for each set,
# a local Ray instance with 2 CPUs runs 2 tasks (`analyze --chunk K/2 --partial`, the partials
# coming back through Ray's object store), the driver merges them, and `diff -r` of the merged
# folder and one `kinetoscope analyze` folder must find nothing. Sets: testdata (ranks from
# distributedInfo; ranks from the file order with every sparse column; a rocprofv3 CSV process
# split over the chunks; a Recorder folder and a Kineto file) and, when the corpus is there, a
# multi-rank Kineto set from it, also with --hta. Called by .ci/run; about a minute, most of it
# Ray starting (once per set).
#
# Ray goes into a venv, target/ray-venv (scripts/ray/venv.sh: `pip install ray==2.60.0`, pinned; once).
# env: KINETOSCOPE_SHARED (the corpus, default ../shared), KINETOSCOPE_REQUIRE_CORPUS=1 (fail
# instead of skipping the corpus set when it is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
t0=$SECONDS
step() { echo "== [$((SECONDS - t0))s] $*"; }

python=$(bash scripts/ray/venv.sh)
step "cargo build --release"
cargo build --release --locked -q
kinetoscope=$PWD/target/release/kinetoscope
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# no token file in ~/.ray for a throwaway local instance
export RAY_AUTH_MODE=disabled

failed=0
# check NAME [OPTIONS --] PATHS...: the driver's folder against analyze's
check() {
  local name=$1; shift
  local options=()
  if [[ " $* " == *" -- "* ]]; then
    while [ "$1" != "--" ]; do options+=("$1"); shift; done
    shift
  fi
  step "$name: ${options[*]} $*"
  "$kinetoscope" analyze "$@" --out "$work/$name.analyze" "${options[@]}" 2>"$work/$name.analyze.log"
  "$python" scripts/ray/kinetoscope_ray.py "$@" --tasks 2 --num-cpus 2 --kinetoscope "$kinetoscope" \
    --out "$work/$name.ray" "${options[@]}" 2>"$work/$name.ray.log" \
    || { cat "$work/$name.ray.log"; failed=1; return; }
  grep '^kinetoscope_ray: ' "$work/$name.ray.log" | sed 's/^/   /'
  if diff -r "$work/$name.analyze" "$work/$name.ray" >"$work/$name.diff"; then
    echo "   same: $(ls "$work/$name.ray" | wc -l) files"
  else
    head -20 "$work/$name.diff"
    echo "test_ray: $name: the merged folder differs from analyze's" >&2
    failed=1
  fi
}

check distributed-info testdata/diff/ranks
check file-order testdata/analysis/kernels.json testdata/analysis/counters.json testdata/paddle/profile-steps.json \
  testdata/analysis/cupti.json testdata/kineto/vocab-new.json
check rocprof-v3 testdata/rocprof/v3
check recorder-and-kineto testdata/analysis/kernels.json testdata/recorder/gen-4ranks
shared=${KINETOSCOPE_SHARED:-../shared}
if [ -d "$shared/traces/hta/trace_filter" ]; then
  check corpus "$shared/traces/hta/trace_filter"
  check corpus-hta --hta -- "$shared/traces/hta/trace_filter"
elif [ "${KINETOSCOPE_REQUIRE_CORPUS:-}" = 1 ]; then
  echo "test_ray: the corpus is required (KINETOSCOPE_REQUIRE_CORPUS=1) but $shared/traces/hta/trace_filter is missing" >&2
  failed=1
else
  echo "== SKIPPED the corpus set: no corpus at $shared (set KINETOSCOPE_SHARED)"
fi
[ "$failed" = 0 ] || { echo "test_ray: FAILED" >&2; exit 1; }
step "test_ray: every merged folder equals analyze's"
