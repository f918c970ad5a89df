#!/usr/bin/env bash
# Runs examples/ldcp-vs-dcqcn.yaml as LDCP with PFC off (the file as written),
# LDCP's event-API variant with PFC off, and DCQCN with PFC on, and prints per
# run: the incast bottleneck queue (edge switch node 16 -> host 0) and the
# largest data queue anywhere, drops (`buf`: of them buffer overflows; the
# rest are WRED drops of LDCP's ECN-incapable fast-start packets),
# retransmission timeouts, PFC pause frames, and slowdown p50/p99 of short
# (< 100 KB) and long (>= 1 MB) background flows and of the incast flows.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ROCESIM:-build/rocesim}
# Not results/ldcp-vs-dcqcn, the scenario's own directory (a run owns its directory).
out=${1:-results/ldcp-vs-dcqcn-runs}
run() {  # name, extra --set arguments...
  local name=$1; shift
  "$bin" run examples/ldcp-vs-dcqcn.yaml -q --force -o "$out/$name" "$@"
}
run ldcp
run ldcp-event --set host.ldcp.variant=event_api --set host.cnp_interval=0us
run dcqcn-pfc --set host.cc=dcqcn --set switch.pfc.enabled=true --set switch.ecn.kmin=100KB \
  --set switch.ecn.kmax=400KB --set switch.ecn.pmax=0.2 --set switch.ecn.wred_drop=0
python3 - "$out" <<'PY'
import csv, json, math, sys
out = sys.argv[1]
def pct(v, p):
    v = sorted(v)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)] if v else float("nan")
print(f"{'run':11} {'bneck q mean/p99/max KB':>24} {'max q KB':>8} {'drops':>6} {'buf':>4} "
      f"{'RTOs':>4} {'pauses':>6} {'short p50/p99':>13} {'long p50/p99':>13} {'incast p50/p99':>14} {'done':>7}")
for name in ["ldcp", "ldcp-event", "dcqcn-pfc"]:
    d = f"{out}/{name}"
    s = json.load(open(f"{d}/summary.json"))
    short, long_, inc = [], [], []
    for r in csv.DictReader(open(f"{d}/flows.csv")):
        if not r["fct_ps"]:
            continue
        sd, size = float(r["slowdown"]), int(r["size_bytes"])
        if r["tag"] == "incast":
            inc.append(sd)
        elif size < 100_000:
            short.append(sd)
        elif size >= 1_000_000:
            long_.append(sd)
    bneck, allq = [], []
    for r in csv.DictReader(open(f"{d}/queues.csv")):
        if r["priority"] != "3":
            continue
        b = int(r["bytes"])
        allq.append(b)
        if r["node"] == "16" and r["port"] == "0":
            bneck.append(b)
    mean = sum(bneck) / len(bneck) / 1e3
    print(f"{name:11} {mean:>8.1f}/{pct(bneck, 99) / 1e3:>6.1f}/{max(bneck) / 1e3:>6.1f} "
          f"{max(allq) / 1e3:>10.1f} {s['drops']['total']:>6} {s['drops']['buffer_full']:>4} "
          f"{s['timeouts']:>4} {s['pfc']['pause_frames_sent']:>6} {pct(short, 50):>6.2f}/{pct(short, 99):<6.2f} "
          f"{pct(long_, 50):>6.2f}/{pct(long_, 99):<6.2f} {pct(inc, 50):>7.2f}/{pct(inc, 99):<6.2f} "
          f"{s['flows']['completed']:>3}/{s['flows']['total']:<3}")
PY
