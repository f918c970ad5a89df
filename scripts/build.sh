#!/usr/bin/env bash
# Configures and builds the optimised (Release, -O2) rocesim into build/: a
# unity build (CMake option ROCESIM_UNITY_BUILD, on by default), which a fresh
# machine compiles in about 5 min on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
# CI (.ci/run) sets ROCESIM_WARNINGS_AS_ERRORS=1: the -Wall -Wextra build must
# stay clean there. A user's newer compiler may warn where g++ 12 does not, so
# elsewhere a warning stays a warning.
WERROR=()
[ "${ROCESIM_WARNINGS_AS_ERRORS:-0}" = 1 ] && WERROR=(-DCMAKE_COMPILE_WARNING_AS_ERROR=ON)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${WERROR[@]}" >/dev/null
cmake --build build -j "$(nproc)"
echo "== build took $((SECONDS - start)) s"
