#!/usr/bin/env bash
# A/B work comparison of two rocesim binaries on one scenario by the
# instructions they execute (valgrind's callgrind), which, unlike this VM's
# wall and CPU time, repeat exactly run to run. Counts the run with nothing
# simulated too (duration cut to 1 ps, so setup alone: parsing, building,
# partitioning), and prints each binary's total, its events' share (total
# less setup), B/A of both, and the functions whose counts moved most.
# Instructions are not time (cache misses and branch mispredictions cost
# more than their count): use it beside bench/ab.sh, not instead of it.
# About 50x slower than a plain run, so cut long scenarios short with --set.
# Checks flows.csv is identical. Never fails on the counts.
#
# usage: bench/ab_instructions.sh BIN_A BIN_B SCENARIO.yaml [-- extra run args]
#   e.g. bench/ab_instructions.sh /tmp/old/rocesim build/rocesim \
#          bench/k8_websearch_dcqcn.yaml -- --set duration=2.0005s --threads 1 --partitions 2
set -euo pipefail
A=$1 B=$2 SC=$3
shift 3
[ "${1:-}" = "--" ] && shift
command -v valgrind >/dev/null || { echo "ab_instructions: valgrind is not installed" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
count() {  # BIN NAME [args...]: runs under callgrind, prints the instruction total
  local bin=$1 name=$2
  shift 2
  # Each run writes a directory of its own (no --force: older builds lack it).
  valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.cg" "$bin" run "$SC" -q \
    -o "$OUT/$name" "$@" >/dev/null 2>"$OUT/$name.log"
  sed -n 's/^==[0-9]*== Collected : //p' "$OUT/$name.log"
}
# Both binaries at once, one per core; then each with nothing simulated
# (the last --set wins, so duration=1ps overrides one given in the args).
count "$A" a "$@" >"$OUT/ta" &
count "$B" b "$@" >"$OUT/tb" &
wait
count "$A" a0 "$@" --set duration=1ps >"$OUT/ta0" &
count "$B" b0 "$@" --set duration=1ps >"$OUT/tb0" &
wait
python3 - "$OUT" <<'PY'
import re, subprocess, sys
out = sys.argv[1]
n = {k: int(open(f"{out}/t{k}").read()) for k in ("a", "b", "a0", "b0")}
ea, eb = n["a"] - n["a0"], n["b"] - n["b0"]
print(f"A: {n['a']:,} instructions ({n['a0']:,} setup, {ea:,} events)")
print(f"B: {n['b']:,} instructions ({n['b0']:,} setup, {eb:,} events)")
print(f"B/A: total {n['b'] / n['a']:.4f}, events {eb / max(ea, 1):.4f}")
def functions(name):
    text = subprocess.run(["callgrind_annotate", "--threshold=100", f"{out}/{name}.cg"],
                          capture_output=True, text=True).stdout
    per = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\?*:?(.*?) \[", line)
        if m:
            per[m.group(2)] = per.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return per
fa, fb = functions("a"), functions("b")
moved = sorted(set(fa) | set(fb), key=lambda f: -abs(fb.get(f, 0) - fa.get(f, 0)))[:8]
print("moved most (B - A):")
for f in moved:
    d = fb.get(f, 0) - fa.get(f, 0)
    if d:
        print(f"  {d:+,}  {f[:110]}")
PY
cmp -s "$OUT/a/flows.csv" "$OUT/b/flows.csv" && echo "flows.csv identical" || echo "flows.csv DIFFERS"
