#!/usr/bin/env bash
# Installs what building and testing need, skipping what is already there (idempotent).
#   --wasm     the wasm32-unknown-unknown target and wasm-bindgen-cli at exactly Cargo.lock's version
#   --browser  Debian's Chromium and a sans-serif font (for the headless end-to-end tests)
#   --go       Debian's Go, whose `go tool pprof` reads our pprof files in a test (optional: without
#              it that test only says so; the profile is decoded with its schema either way)
#   --venv     Debian's python3-venv, when `python3 -m venv` cannot make a venv (scripts/test_ray.sh)
# Called by www/build.sh (--wasm), scripts/test.sh (--wasm --browser), scripts/test_ray.sh (--venv)
# and .ci/run (--go).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

for arg in "$@"; do
  case "$arg" in
    --wasm)
      rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
        || rustup target add wasm32-unknown-unknown
      want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
      if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]; then
        echo "== cargo install wasm-bindgen-cli $want (about 3 min, once; kept in ~/.cargo/bin)"
        # no --locked: its lockfile pins a webpki-roots version some registry mirrors do not serve
        cargo install -q wasm-bindgen-cli --version "$want"
      fi
      ;;
    --browser)
      if ! command -v chromium >/dev/null 2>&1 || ! [ -d /usr/share/fonts/truetype/liberation ]; then
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        echo "== apt-get install chromium fonts-liberation"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
      fi
      ;;
    --go)
      if ! command -v go >/dev/null 2>&1; then
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        echo "== apt-get install golang-go (go tool pprof)"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends golang-go >/dev/null
      fi
      ;;
    --venv)
      # Debian's python3 has the venv module but not ensurepip, which `python3 -m venv` needs
      if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        echo "== apt-get install python3-venv"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
      fi
      ;;
    *) echo "scripts/setup.sh: unknown argument '$arg' (use --wasm, --browser, --go and/or --venv)" >&2; exit 2 ;;
  esac
done
