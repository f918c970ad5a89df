#!/usr/bin/env bash
# Builds rocesim and runs the whole test suite (unit, model and scenario tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)"
