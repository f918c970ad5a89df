#!/usr/bin/env bash
# The sanitizer pass (issue "Trustworthy at any input"; .ci/run runs it with
# FUZZ_SECONDS=90): builds rocesim with AddressSanitizer +
# UndefinedBehaviorSanitizer (-fno-sanitize-recover: the first report fails
# the run) and with the invariants checked while every run runs
# (-DROCESIM_CHECKS=ON, src/stats/invariants.h) into build-asan/, then runs
# under them
#   1. the whole test suite (ctest) but the validation suite's quick cases,
#      serial and on 2 threads (the Python harness over the Release binary)
#      and the install-tree
#      test; the Python module is not built (an interpreter would have to
#      preload the ASan runtime; its C++ is the library the other tests
#      exercise). The every-example comparison
#      (tests/test_examples_partitioned.cpp) runs every example scenario,
#      serial and partitioned, each cut to its first 1 ms of simulated time
#      (ROCESIM_EXAMPLES_SET) so that the 1,024-GPU example fits CI's time
#      (17 M events in its first 1 ms, 79 M in 2 ms): setup, traffic
#      expansion and every model run, only shorter; the
#      serial-against-partitioned comparison of random scenarios
#      (differential_runs) runs 80 of the Release suite's 200;
#   2. the example sweep (examples/sweep-cc-load.yaml), which the suite runs
#      only in its small test form;
#   3. the fuzzer: every target from its seed corpus, for the number of
#      inputs it runs in about FUZZ_SECONDS (default 20) here; findings are
#      saved in build-asan/fuzz-findings.
# Compile time: the build type is "Sanitize", which adds no flags of its own
# (under "Release" CMake's -O2 came after these flags and won: the pass was
# an -O2 build, half again slower to compile than -O1); the library and the
# binaries are -O1, the tests' own files -O0 (their code runs little;
# ROCESIM_TESTS_COMPILE_OPTIONS), a third of -O1's compile time; -g1 (line
# tables only) is enough for the reports' file:line stacks; and the build is
# a unity build, as scripts/build.sh's (batches of eight files compiled as
# one).
# LeakSanitizer ignores OpenMPI's own allocations (.ci/lsan.supp) and is off in
# mpirun's ranks (ROCESIM_MPI_RANK_ASAN_OPTIONS below).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
# -Wno-maybe-uninitialized: GCC 12 with ASan at -O1 warns falsely inside
# libstdc++'s std::regex (tests/test_cli.cpp); the Release build keeps it.
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g1 -O1"
flags+=" -DNDEBUG"
flags+=" -Wno-maybe-uninitialized"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Sanitize -DROCESIM_BENCH=OFF -DROCESIM_CHECKS=ON \
  -DROCESIM_PYTHON=OFF -DROCESIM_DIFFERENTIAL_COUNT=80 -DROCESIM_TESTS_COMPILE_OPTIONS=-O0 \
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
(cd build-asan && ROCESIM_PROPERTY_RUNS=200 ROCESIM_EXAMPLES_SET="--set duration=1ms" ctest --output-on-failure -j "$(nproc)" \
  -E "^validation_quick$|^validation_quick_threads$|^install_tree$")

echo "== sanitizers: test suite took $((SECONDS - phase)) s"
phase=$SECONDS
echo "== sanitizers: the example sweep"
out=$(mktemp -d)
build-asan/rocesim sweep examples/sweep-cc-load.yaml -j "$(nproc)" -o "$out/sweep" \
  >/dev/null
rm -rf "$out"

echo "== sanitizers: the example sweep took $((SECONDS - phase)) s"
phase=$SECONDS
echo "== sanitizers: fuzzing, about ${FUZZ_SECONDS} s per target, $(nproc) at a time"
# A fixed number of inputs per target, not a time budget, so that every
# machine fuzzes the same inputs and a pass that held here holds in CI: each
# target's inputs per second under the sanitizers (this pass's -O1 build on
# the 2-core VM, two fuzzers at once, 2026-11-29) times FUZZ_SECONDS. The
# targets are dealt round-robin to one worker per core; each saves its
# findings under its target's name, so they share the directory.
# scenario_partitioned (each input run serially and partitioned) was measured
# on a faster VM (2026-12-06: 10.8 a second where scenario made 37.5) and
# scaled to this one's scenario figure.
declare -A per_second=([scenario]=22 [scenario_partitioned]=6 [hpcc_topology]=527
  [hpcc_flows]=470 [hpcc_config]=799 [cdf]=1554 [sweep]=556 [dependency_csv]=2692
  [dependency_json]=1752 [simai_workload]=2951)
mapfile -t targets < <(build-asan/rocesim_fuzz --list)
workers=$(nproc)
pids=()
for ((w = 0; w < workers; ++w)); do
  (
    status=0
    for ((i = w; i < ${#targets[@]}; i += workers)); do
      t=${targets[i]}
      rate=${per_second[$t]:?"scripts/sanitize.sh: no inputs-per-second figure for fuzz target $t"}
      build-asan/rocesim_fuzz "$t" --runs $((rate * FUZZ_SECONDS)) \
        --save build-asan/fuzz-findings || status=1
    done
    exit "$status"
  ) &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
echo "== sanitizers: fuzzing took $((SECONDS - phase)) s"
exit "$failed"
