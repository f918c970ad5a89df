#!/usr/bin/env bash
# Thread scaling of one run (issue #15): runs SCENARIO once per thread count,
# one run at a time, and prints wall and CPU seconds, events, peak RSS, the
# speed-up over the first count and the efficiency (speed-up per thread
# multiple); checks that every run's CSV tables are the first run's.
# A count T:P runs T threads sharing P partitions (--partitions P); T alone
# runs one partition per thread; T:auto leaves --partitions out, so the run
# picks the count by the fabric's size (sim/partition.h).
# Never fails on time; exits 1 if results differ.
#
# usage: bench/scaling.sh ROCESIM SCENARIO.yaml "1 2 4 8 16" [-- extra run args]
#   e.g. bench/scaling.sh build/rocesim bench/k32_websearch_dcqcn.yaml "1 2 4 8 16"
#        bench/scaling.sh build/rocesim bench/k32_websearch_dcqcn.yaml "1 2:8 4:16"
# TIME_BIN names GNU time where /usr/bin/time is missing (bench/bundle.sh
# carries one as DIR/time).
set -euo pipefail
shopt -s nullglob  # a scenario that writes no table compares none
BIN=$1 SC=$2 COUNTS=$3
shift 3
[ "${1:-}" = "--" ] && shift
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%8s %10s %9s %9s %12s %9s %8s %6s\n' threads partitions wall_s cpu_s events rss_MB speedup eff
first="" base_wall="" status=0
for count in $COUNTS; do
  t=${count%%:*} p=${count#*:}
  [ "$p" = "$count" ] && p=$t
  parts=(--partitions "$p")
  [ "$p" = auto ] && parts=()
  "${TIME_BIN:-/usr/bin/time}" -f '%e %U %S %M' -o "$OUT/time" "$BIN" run "$SC" --threads "$t" \
    "${parts[@]}" --force -o "$OUT/r$count" "$@" >"$OUT/log$count" 2>&1 ||
    { echo "threads $t partitions $p failed:"; cat "$OUT/log$count"; exit 1; }
  read -r wall user sys rss <"$OUT/time"
  events=$(sed -n 's/.* \([0-9]*\) events,.*/\1/p' "$OUT/log$count" | tail -1)
  [ -z "$first" ] && first=$count first_t=$t base_wall=$wall
  read -r speed eff cpu < <(awk -v w0="$base_wall" -v w="$wall" -v t0="$first_t" -v t="$t" \
    -v u="$user" -v s="$sys" 'BEGIN { x = w0 / w; printf "%.2f %.2f %.2f\n", x, x / (t / t0), u + s }')
  printf '%8s %10s %9s %9s %12s %9d %8s %6s\n' "$t" "$p" "$wall" "$cpu" "${events:-?}" \
    $((rss / 1024)) "$speed" "$eff"
  for f in "$OUT/r$first"/*.csv; do  # every table the scenario writes
    f=$(basename "$f")
    cmp -s "$OUT/r$first/$f" "$OUT/r$count/$f" || { echo "$count: $f differs from $first"; status=1; }
  done
  grep -E '^rocesim: (partitions|.*windows;)' "$OUT/log$count" | sed 's/^/    /' || true
done
exit $status
