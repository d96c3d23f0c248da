#!/usr/bin/env bash
# A new user's first minutes, so they cannot regress: `git clone` of this repository (its committed
# HEAD) into an empty temporary folder with no corpus beside it, then the README's Quick start
# there: `bash scripts/test.sh` must pass (the corpus tests skipped, and said so) and
# `www/build.sh` must build the page with its bundled sample. Called by .ci/run.
# env: CARGO_TARGET_DIR (default: this checkout's target/, so dependencies are not built again)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$repo" "$tmp/kinetoscope"
cd "$tmp/kinetoscope"
[ ! -e ../shared ] || { echo "test_clone: $tmp/shared exists" >&2; exit 1; }
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
# The clone's own crate is built into that target dir under the same names as this checkout's
# (cargo hashes a workspace crate's path relative to it), with the clone's folder compiled in
# (the tests find testdata/ by CARGO_MANIFEST_DIR). Its sources are newer, so this checkout's
# next build would take those artifacts as up to date, and its tests would look for the deleted
# clone's testdata/: they are removed on exit (the dependencies stay built).
forget_clone_build() {
  cargo clean -q --release -p kinetoscope || true
  cargo clean -q --release -p kinetoscope --target wasm32-unknown-unknown || true
}
trap 'forget_clone_build; rm -rf "$tmp"' EXIT
log=$tmp/test.log
# the clone sees no corpus: neither CI's folder nor its requirement
set +e
env -u KINETOSCOPE_SHARED -u KINETOSCOPE_REQUIRE_CORPUS bash scripts/test.sh >"$log" 2>&1
rc=$?
set -e
grep -E '^== |^# (tests|pass|fail|skipped) |^test result' "$log"
[ "$rc" = 0 ] || { tail -80 "$log"; echo "test_clone: scripts/test.sh failed (exit $rc) in a clone without the corpus" >&2; exit 1; }
grep -qE '^== SKIPPED [1-9][0-9]* tests' "$log" || { echo "test_clone: no 'SKIPPED N tests' line: did the clone see a corpus?" >&2; exit 1; }
for f in dist/kinetoscope.html dist/index.html dist/sample/manifest.json dist/sample/SOURCE.txt; do
  [ -s "$f" ] || { echo "test_clone: $f was not built" >&2; exit 1; }
done
"$CARGO_TARGET_DIR/release/kinetoscope" info dist/sample/*.json.gz | head -3
echo "test_clone: a clone without the corpus passes scripts/test.sh and builds the page with its sample"
