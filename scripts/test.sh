#!/usr/bin/env bash
# The project's one test command (README): formatting and lints, native build + tests, wasm page
# build, browser e2e. Works on a fresh Debian machine with rustup and node: scripts/setup.sh
# installs the wasm32 target, wasm-bindgen-cli (Cargo.lock's version) and Chromium when missing.
#
# The corpus of real traces and HTA's outputs (../shared beside the checkout, or the folder
# $KINETOSCOPE_SHARED names) is optional here: tests that need it are skipped, and the run ends
# with a line counting them. KINETOSCOPE_REQUIRE_CORPUS=1 (set by .ci/run) makes them fail instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
t0=$SECONDS
step() { echo "== [$((SECONDS - t0))s] $*"; }
KINETOSCOPE_SKIP_LOG=$(mktemp)
export KINETOSCOPE_SKIP_LOG
trap 'rm -f "$KINETOSCOPE_SKIP_LOG"' EXIT

step "setup (wasm target, wasm-bindgen-cli, Chromium; skipped when present)"
bash scripts/setup.sh --wasm --browser

step "cargo fmt --check"
cargo fmt --check
step "cargo clippy --all-targets -- -D warnings"
cargo clippy --release --locked --all-targets -- -D warnings
step "cargo doc --no-deps --lib (RUSTDOCFLAGS=-D warnings: no broken or private doc links)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib --locked
step "cargo build --release"
cargo build --release --locked
step "cargo test --release"
cargo test --release --locked
step "www/build.sh (wasm + dist/)"
www/build.sh
step "npm ci (tests/e2e)"
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
step "e2e (headless Chromium)"
node --test tests/e2e/
step "done"
skipped=$(wc -l < "$KINETOSCOPE_SKIP_LOG")
if [ "$skipped" -gt 0 ]; then
  echo "== SKIPPED $skipped tests ($(grep -c '^rust ' "$KINETOSCOPE_SKIP_LOG" || true) Rust, $(grep -c '^e2e ' "$KINETOSCOPE_SKIP_LOG" || true) browser): they need the corpus, not found at ${KINETOSCOPE_SHARED:-../shared}. Get it beside the checkout as ../shared (traces/ and hta-oracle/) or set KINETOSCOPE_SHARED=DIR; see docs/testing.md"
else
  echo "== all tests ran (corpus at ${KINETOSCOPE_SHARED:-../shared})"
fi
