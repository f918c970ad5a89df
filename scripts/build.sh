#!/usr/bin/env bash
# Configures and builds the optimised (Release, -O2) rocesim into build/: a
# unity build (CMake option ROCESIM_UNITY_BUILD, on by default), which a fresh
# machine compiles in about 5 min on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
echo "== build took $((SECONDS - start)) s"
