#!/usr/bin/env bash
# A/B speed comparison of two rocesim binaries on one scenario, robust to
# this VM's drifting host speed: each round runs A and B at the same time,
# one per core (taskset), swapping cores every round; the estimate is the
# geometric mean of B/A over both core assignments, which cancels a core's
# own bias. Prints the per-round ratios and checks flows.csv is identical.
# Never fails on time.
#
# usage: bench/ab.sh BIN_A BIN_B SCENARIO.yaml [ROUNDS=6] [-- extra run args]
#   e.g. bench/ab.sh /tmp/old/rocesim build/rocesim bench/fat320_websearch_dcqcn.yaml 6 \
#          -- --set duration=2.003s
set -euo pipefail
A=$1 B=$2 SC=$3
ROUNDS=${4:-6}
shift $(($# < 4 ? $# : 4))
[ "${1:-}" = "--" ] && shift
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
ratios=""
for i in $(seq "$ROUNDS"); do
  if [ $((i % 2)) -eq 1 ]; then ca=0 cb=1; else ca=1 cb=0; fi
  # Fresh result directories rather than --force, which builds older than
  # the option (a3f20f7, before issue #15's work) do not take.
  rm -rf "$OUT/a" "$OUT/b"
  /usr/bin/time -f %U -o "$OUT/ta" taskset -c $ca "$A" run "$SC" -q -o "$OUT/a" "$@" >/dev/null &
  /usr/bin/time -f %U -o "$OUT/tb" taskset -c $cb "$B" run "$SC" -q -o "$OUT/b" "$@" >/dev/null &
  wait
  ta=$(tail -1 "$OUT/ta") tb=$(tail -1 "$OUT/tb")
  echo "round $i: A ${ta}s (core $ca)  B ${tb}s (core $cb)"
  ratios="$ratios $ta,$tb"
done
python3 - "$ratios" <<'PY'
import math, sys
pairs = [tuple(map(float, p.split(","))) for p in sys.argv[1].split()]
r = [max(b, 1e-3) / max(a, 1e-3) for a, b in pairs]
odd, even = r[0::2], r[1::2]
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
est = (gm(odd) * gm(even)) ** 0.5 if even else gm(odd)
print("B/A per round:", " ".join(f"{x:.3f}" for x in r), f"  estimate B/A = {est:.3f}")
PY
cmp -s "$OUT/a/flows.csv" "$OUT/b/flows.csv" && echo "flows.csv identical" || echo "flows.csv DIFFERS"
