#!/usr/bin/env bash
# The sanitizer pass (issue "Trustworthy at any input"; .ci/run runs it):
# builds rocesim with AddressSanitizer + UndefinedBehaviorSanitizer
# (-fno-sanitize-recover: the first report fails the run) and with the
# invariants checked while every run runs (-DROCESIM_CHECKS=ON,
# src/stats/invariants.h) into build-asan/, then runs under them
#   1. the test suite (ctest) but for the tests listed in
#      .ci/sanitize-skip.txt (those that took 20 s or more under the
#      sanitizers and per-event checks: scenario tests the Release suite
#      runs) and the validation suite's quick cases; the Python module is not
#      built (an interpreter would have to preload the ASan runtime; its C++
#      is the library the other tests exercise);
#   2. every example scenario, each cut to its first 2 ms of simulated time
#      (--set duration=2ms) so that the 1,024-GPU and sweep-sized examples
#      fit CI's time: setup, traffic expansion and every model run, only
#      shorter;
#   3. the fuzzer: every target for FUZZ_SECONDS (default 20) from its seed
#      corpus; findings are saved in build-asan/fuzz-findings.
# LeakSanitizer ignores OpenMPI's own allocations (.ci/lsan.supp) and is off in
# mpirun's ranks (ROCESIM_MPI_RANK_ASAN_OPTIONS below).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DROCESIM_BENCH=OFF -DROCESIM_CHECKS=ON \
  -DROCESIM_PYTHON=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
phase=$SECONDS
cmake --build build-asan -j "$(nproc)"
echo "== sanitizers: build took $((SECONDS - phase)) s"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan.supp:print_suppressions=0"
# mpirun's ranks (tests/cli_test_support.h MpirunPrefix): no leak checking,
# since OpenMPI's unloaded plugins' allocations cannot be suppressed by name.
export ROCESIM_MPI_RANK_ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1"

phase=$SECONDS
echo "== sanitizers: test suite"
skip=$(grep -v '^#' .ci/sanitize-skip.txt | sed 's|\.|\\.|g; s|.*|^&$|' | paste -sd'|')
(cd build-asan && ROCESIM_PROPERTY_RUNS=200 ctest --output-on-failure -j "$(nproc)" \
  -E "^validation_quick$|^install_tree$|${skip}")

echo "== sanitizers: test suite took $((SECONDS - phase)) s"
phase=$SECONDS
echo "== sanitizers: examples (2 ms each)"
out=$(mktemp -d)
for f in examples/*.yaml examples/*/*.yaml; do
  case "$f" in *sweep*) continue ;; esac  # a sweep file, not a scenario
  start=$SECONDS
  build-asan/rocesim run "$f" -q --set duration=2ms -o "$out/$(basename "$f" .yaml)"
  echo "  $f ($((SECONDS - start)) s)"
done
build-asan/rocesim sweep examples/sweep-cc-load.yaml -j "$(nproc)" -o "$out/sweep" \
  >/dev/null
rm -rf "$out"

echo "== sanitizers: examples took $((SECONDS - phase)) s"
phase=$SECONDS
echo "== sanitizers: fuzzing, ${FUZZ_SECONDS} s per target, $(nproc) at a time"
# The targets dealt round-robin to one fuzzer per core; each saves its findings
# under its target's name, so they share the directory.
mapfile -t targets < <(build-asan/rocesim_fuzz --list)
workers=$(nproc)
pids=()
for ((w = 0; w < workers; ++w)); do
  mine=()
  for ((i = w; i < ${#targets[@]}; i += workers)); do mine+=("${targets[i]}"); done
  [ ${#mine[@]} -eq 0 ] && continue
  build-asan/rocesim_fuzz --seconds "$FUZZ_SECONDS" --save build-asan/fuzz-findings "${mine[@]}" &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
echo "== sanitizers: fuzzing took $((SECONDS - phase)) s"
exit "$failed"
