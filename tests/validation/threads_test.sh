#!/usr/bin/env bash
# The validation suite's quick cases partitioned over 2 threads (issue #15:
# every feature works partitioned): every case must stay within its
# tolerance, and every table of every run must be the serial run's, byte for
# byte (the serial runs are validation_quick's, in SERIAL_OUT/runs).
#
# usage: tests/validation/threads_test.sh ROCESIM SERIAL_OUT THREADS_OUT
set -euo pipefail
shopt -s nullglob
BIN=$1 SERIAL=$2 OUT=$3
[ -d "$SERIAL/runs" ] || { echo "FAIL: no serial runs in $SERIAL/runs (validation_quick writes them)"; exit 1; }
"$BIN" validate --quick --threads 2 --out "$OUT"
compared=0
for run in "$SERIAL"/runs/*/; do
  name=$(basename "$run")
  for table in "$run"*.csv; do
    other="$OUT/runs/$name/$(basename "$table")"
    cmp -s "$table" "$other" || { echo "FAIL: $name/$(basename "$table") differs on 2 threads"; exit 1; }
    compared=$((compared + 1))
  done
  grep -q '"threads": 2' "$OUT/runs/$name/summary.json" ||
    { echo "FAIL: $name did not run on 2 threads"; exit 1; }
done
[ "$compared" -gt 0 ] || { echo "FAIL: no serial runs in $SERIAL/runs"; exit 1; }
echo "$compared tables of $(ls -d "$SERIAL"/runs/*/ | wc -l) runs: the serial run's on 2 threads"
