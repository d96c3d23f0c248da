#!/usr/bin/env bash
# Makes target/ray-venv, a venv with ray at the pinned version, unless it is already there
# (python3 -m venv; `scripts/setup.sh --venv` installs python3-venv first where it is missing).
# Used by scripts/test_ray.sh and scripts/bench/bench_ray.sh; prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/../.."
RAY_VERSION=2.60.0
venv=target/ray-venv
if [ "$("$venv/bin/python" -c 'import ray; print(ray.__version__)' 2>/dev/null)" != "$RAY_VERSION" ]; then
  echo "== venv $venv with ray==$RAY_VERSION (once, about 300 MB)" >&2
  bash scripts/setup.sh --venv >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "ray==$RAY_VERSION" >&2
fi
echo "$PWD/$venv/bin/python"
