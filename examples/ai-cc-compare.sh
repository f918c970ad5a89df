#!/usr/bin/env bash
# Runs examples/ai-allreduce-rail.yaml (a ring AllReduce of 256 MB over 128
# GPUs on a rail-optimized fabric) under DCQCN, HPCC and no congestion
# control, and prints each job's iteration time, bus bandwidth, slowdown
# against the idle-fabric ideal, PFC pause frames and ECN marks.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ROCESIM:-build/rocesim}
out=${1:-results/ai-cc-compare}
"$bin" run examples/ai-allreduce-rail.yaml -q --force -o "$out/dcqcn"
"$bin" run examples/ai-allreduce-rail.yaml -q --force -o "$out/hpcc" --set host.cc=hpcc \
  --set switch.ecn.enabled=false
"$bin" run examples/ai-allreduce-rail.yaml -q --force -o "$out/none" --set host.cc=none \
  --set switch.ecn.enabled=false
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
print(f"{'cc':6} {'iteration ms':>12} {'busbw Gb/s':>10} {'slowdown':>8} {'pauses':>7} {'ECN marks':>9}")
for cc in ["dcqcn", "hpcc", "none"]:
    s = json.load(open(f"{out}/{cc}/summary.json"))
    job = s["jobs"][0]
    it = job.get("iteration_s", {}).get("mean", float("nan")) * 1e3
    print(f"{cc:6} {it:12.3f} {job.get('busbw_gbps_mean', float('nan')):10.1f} "
          f"{job.get('slowdown_mean', float('nan')):8.3f} {s['pfc']['pause_frames_sent']:7d} "
          f"{s['ecn_marks']:9d}")
PY
