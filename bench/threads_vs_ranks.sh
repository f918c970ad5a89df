#!/usr/bin/env bash
# Two cores, four ways (issue #15): runs SCENARIO serially, with 2 threads,
# with 2 MPI ranks through shared memory and with 2 MPI ranks by message
# (ROCESIM_MPI_EXCHANGE=messages), each with the default partition count
# (sim/partition.h: one per thread on k8 and fat320, four per thread on
# k32), in turn, for ROUNDS rounds (turns, not
# blocks: this VM's speed drifts over minutes), each round starting one way
# further on. Prints each run's wall and
# CPU seconds (user + sys; for ranks, both ranks and mpirun) and the
# simulation's own wall seconds (summary.json run.wall_seconds: the windows,
# without the process's start, the fabric's build, the results' writing or
# MPI's start and end), where a partitioned run's time went (rank 0's
# partitions and threads: events, taking in frames, waiting at the barrier,
# exchanging with the other rank; summary.json run.partitioned_time), then
# the sums with the speed-ups over serial and the extra CPU, and the medians of
# each round's own ratios. Checks that every run's
# CSV tables are the serial run's. Never fails on time; exits 1 if results
# differ.
#
# usage: bench/threads_vs_ranks.sh ROCESIM SCENARIO.yaml ROUNDS [-- extra run args]
#   e.g. bench/threads_vs_ranks.sh build/rocesim bench/fat320_websearch_dcqcn.yaml 3
set -euo pipefail
shopt -s nullglob  # a scenario that writes no table compares none
BIN=$1 SC=$2 ROUNDS=$3
shift 3
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")
command -v mpirun >/dev/null || { echo "no mpirun (scripts/install-deps.sh installs OpenMPI)"; exit 1; }
MPIRUN=(mpirun -n 2)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
status=0
run() {  # way round
  local way=$1 dir="$OUT/$1$2"
  case $way in
    serial) cmd=("$BIN" run "$SC") ;;
    threads) cmd=("$BIN" run "$SC" --threads 2) ;;
    shared) cmd=(env ROCESIM_MPI_EXCHANGE=shared "${MPIRUN[@]}" "$BIN" run "$SC") ;;
    messages) cmd=(env ROCESIM_MPI_EXCHANGE=messages "${MPIRUN[@]}" "$BIN" run "$SC") ;;
  esac
  /usr/bin/time -f '%e %U %S' -o "$OUT/time" "${cmd[@]}" -q -o "$dir" "${EXTRA[@]}" >"$OUT/log" 2>&1 ||
    { echo "$way failed:"; cat "$OUT/log"; exit 1; }
  read -r wall user sys <"$OUT/time"
  # The run's own wall time, then (partitioned runs; rank 0's) seconds of
  # events, taking in, waiting and exchanging with the other rank, summed
  # over partitions and threads (summary.json run.partitioned_time).
  read -r sim ev in wt xc < <(python3 -c '
import json, sys
run = json.load(open(sys.argv[1]))["run"]
pt = run.get("partitioned_time", {})
s = lambda k: sum(pt.get(k, [0]))
print(run["wall_seconds"], s("partition_event_seconds"), s("thread_take_in_seconds"),
      s("thread_wait_seconds"), s("thread_rank_exchange_seconds"))' "$dir/summary.json")
  awk -v k="$way" -v r="$2" -v w="$wall" -v u="$user" -v s="$sys" -v m="$sim" -v e="$ev" \
    -v i="$in" -v t="$wt" -v x="$xc" \
    'BEGIN { printf "%-9s %5s %8s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", k, r, w, u + s, m, e, i, t, x }'
  echo "$way $wall $user $sys $sim $2" >>"$OUT/all"
}
compare() {  # round: every table the scenario writes, against the serial run's
  local way f
  for way in threads shared messages; do
    for f in "$OUT/serial$1"/*.csv; do
      f=$(basename "$f")
      cmp -s "$OUT/serial$1/$f" "$OUT/$way$1/$f" || { echo "$way: $f differs from serial"; status=1; }
    done
  done
}
printf '%-9s %5s %8s %8s %8s %8s %8s %8s %8s\n' way round wall_s cpu_s sim_s events_s take_in wait xchg
WAYS=(serial threads shared messages)
for r in $(seq "$ROUNDS"); do
  # Each round starts one way further on, so that no way always follows the
  # same other (this VM's speed drifts from one run to the next).
  for i in 0 1 2 3; do run "${WAYS[$(((r - 1 + i) % 4))]}" "$r"; done
  compare "$r"
done
echo "sums over $ROUNDS rounds:"
awk '{ w[$1] += $2; c[$1] += $3 + $4; m[$1] += $5 }
  END {
    split("serial threads shared messages", order, " ")
    for (i = 1; i <= 4; ++i) {
      k = order[i]
      printf "%-9s wall %8.2f s  %5.2fx   cpu %8.2f s  %+5.1f%%   sim %8.2f s  %5.2fx\n", k,
             w[k], w["serial"] / w[k], c[k], 100 * (c[k] / c["serial"] - 1), m[k],
             m["serial"] / m[k]
    }
  }' "$OUT/all"
# Each round's own ratios against that round's serial run, and their
# medians: a round's runs follow each other within a minute, so the median
# holds against the VM's drift over the whole set better than the sums do.
python3 - "$OUT/all" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    way, wall, user, sys_s, sim, rnd = line.split()
    runs[(way, rnd)] = (float(wall), float(user) + float(sys_s))
rounds = sorted({r for _, r in runs}, key=int)
print("medians of the rounds' own ratios against their serial run (%d rounds):" % len(rounds))
for way in ("threads", "shared", "messages"):
    speed = [runs[("serial", r)][0] / runs[(way, r)][0] for r in rounds]
    cpu = [100 * (runs[(way, r)][1] / runs[("serial", r)][1] - 1) for r in rounds]
    print("%-9s speed-up %5.2fx (%s)   cpu %+5.1f%% (%s)" % (
        way, statistics.median(speed), " ".join("%.2f" % x for x in speed),
        statistics.median(cpu), " ".join("%+.1f" % x for x in cpu)))
PY
exit $status
