#!/usr/bin/env bash
# Runs examples/cc-compare.yaml under each congestion control, with the ECN
# marking each one is designed for, and prints a table:
#   incast slowdown (p50 / p99), background goodput, PFC pause frames, ECN marks, drops.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ROCESIM:-build/rocesim}
# Not results/cc-compare: that is `rocesim run examples/cc-compare.yaml`'s own
# directory, and a run owns its directory. `rocesim compare $out/*` compares these.
out=${1:-results/cc-compare-runs}
run() {  # name, extra --set arguments...
  local name=$1; shift
  "$bin" run examples/cc-compare.yaml -q --force -o "$out/$name" "$@"
}
run none   --set host.cc=none --set switch.ecn.enabled=false
run dcqcn  --set host.cc=dcqcn
run timely --set host.cc=timely --set switch.ecn.enabled=false
run dctcp  --set host.cc=dctcp --set switch.ecn.kmin=100KB --set switch.ecn.kmax=100KB --set switch.ecn.pmax=1
run hpcc   --set host.cc=hpcc --set switch.ecn.enabled=false
python3 - "$out" <<'PY'
import csv, json, math, sys
out = sys.argv[1]
def pct(v, p):
    v = sorted(v)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)] if v else float("nan")
print(f"{'cc':8} {'incast p50':>10} {'incast p99':>10} {'bg Gb/s':>8} {'pauses':>7} {'ECN marks':>9} {'drops':>6} {'done':>7}")
for cc in ["none", "dcqcn", "timely", "dctcp", "hpcc"]:
    s = json.load(open(f"{out}/{cc}/summary.json"))
    inc, bg = [], []
    for r in csv.DictReader(open(f"{out}/{cc}/flows.csv")):
        if not r["fct_ps"]:
            continue
        if r["tag"] == "incast":
            inc.append(float(r["slowdown"]))
        else:
            bg.append(int(r["size_bytes"]) * 8 / (int(r["fct_ps"]) / 1e12) / 1e9)
    mean_bg = sum(bg) / len(bg) if bg else float("nan")
    print(f"{cc:8} {pct(inc, 50):>10.2f} {pct(inc, 99):>10.2f} {mean_bg:>8.1f} "
          f"{s['pfc']['pause_frames_sent']:>7} {s['ecn_marks']:>9} {s['drops']['total']:>6} "
          f"{s['flows']['completed']:>3}/{s['flows']['total']:<3}")
PY
