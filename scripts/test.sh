#!/usr/bin/env bash
# The project's one test command (README): native build + tests, wasm page build, browser e2e.
# Works on a fresh Debian machine with rustup and node: scripts/setup.sh installs the wasm32 target,
# wasm-bindgen-cli (Cargo.lock's version) and Chromium when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
t0=$SECONDS
step() { echo "== [$((SECONDS - t0))s] $*"; }

step "setup (wasm target, wasm-bindgen-cli, Chromium; skipped when present)"
bash scripts/setup.sh --wasm --browser

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
