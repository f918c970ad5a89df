#!/usr/bin/env bash
# Seed 002 §4: each RCM experiment with DCQCN only and with RCM (DCQCN
# underneath), and the numbers the README's RCM table quotes.
#   examples/rcm-compare.sh [path/to/rocesim]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/rocesim}
OUT=${OUT:-results/rcm-compare}
mkdir -p "$OUT"
run() {  # name yaml rcm extra-sets...
  local name=$1 yaml=$2 rcm=$3
  shift 3
  local sets=(--set "switch.rcm.enabled=$rcm")
  for s in "$@"; do sets+=(--set "$s"); done
  "$BIN" run "examples/$yaml" -q -o "$OUT/$name-$rcm" "${sets[@]}"
}
ECN=(switch.ecn.kmin=90KB switch.ecn.kmax=400KB)
for rcm in false true; do
  run victim rcm-victim.yaml $rcm duration=3ms "${ECN[@]}"
  run victim-ecn5k rcm-victim.yaml $rcm duration=3ms
  run burst rcm-incast-burst.yaml $rcm
  run hotspot rcm-hotspot.yaml $rcm
  run datamining rcm-workloads.yaml $rcm
  run websearch rcm-workloads.yaml $rcm traffic.0.cdf=websearch
done
python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
def rates(d):  # goodput per flow per monitor interval from rates.csv (1000 B payload)
    prev, res = {}, {}
    for x in csv.DictReader(open(f"{d}/rates.csv")):
        t, fl, u = int(x["time_ps"]), int(x["flow"]), int(x["snd_una"])
        if fl in prev: res.setdefault(fl, []).append((prev[fl][0], t, u - prev[fl][1]))
        prev[fl] = (t, u)
    return res
def goodput(d, flow, t0, t1):
    b = sum(n for a, z, n in rates(d)[flow] if a >= t0 and z <= t1)
    return b * 1000 * 8 / ((t1 - t0) * 1e-12) / 1e9
def flows(d): return list(csv.DictReader(open(f"{d}/flows.csv")))
def mean(xs): return sum(xs) / len(xs) if xs else float("nan")
def fct(rows, pred):
    done = [int(r["fct_ps"]) / 1e6 for r in rows if pred(int(r["size_bytes"])) and r["fct_ps"]]
    tot = sum(1 for r in rows if pred(int(r["size_bytes"])))
    return f"{mean(done):.1f} us ({len(done)}/{tot})"
def tput(rows, tag):
    g = [int(r["size_bytes"]) * 8 / (int(r["fct_ps"]) * 1e-12) / 1e9 for r in rows if r["tag"] == tag and r["fct_ps"]]
    return mean(g)
ms, us = 10**9, 10**6
print(f"{'experiment':46} {'DCQCN only':>20} {'RCM + DCQCN':>20}")
def row(name, f):
    print(f"{name:46} {f(out + '/' + name.split(':')[0] + '-false'):>20} {f(out + '/' + name.split(':')[0] + '-true'):>20}")
for v in ("victim", "victim-ecn5k"):
    row(f"{v}: victim goodput 0-1 ms, Gb/s", lambda d: f"{goodput(d, 4, 0, 1*ms):.1f}")
    row(f"{v}: victim goodput 1-3 ms, Gb/s", lambda d: f"{goodput(d, 4, 1*ms, 3*ms):.1f}")
row("burst: burst goodput 175-195 us, Gb/s", lambda d: f"{goodput(d, 4, 175*us, 195*us):.1f}")
row("burst: incast sum 175-195 us, Gb/s", lambda d: f"{sum(goodput(d, i, 175*us, 195*us) for i in range(4)):.1f}")
row("burst: incast ECN marks", lambda d: str(sum(int(r['ecn_marked']) for r in flows(d)[:4])))
row("hotspot: background mean goodput, Gb/s", lambda d: f"{tput(flows(d), 'background'):.2f}")
row("hotspot: hot mean goodput, Gb/s", lambda d: f"{tput(flows(d), 'hot'):.2f}")
for w in ("datamining", "websearch"):
    row(f"{w}: mice (<1MB) mean FCT", lambda d: fct(flows(d), lambda s: s < 10**6))
    row(f"{w}: elephants (>10MB) mean FCT", lambda d: fct(flows(d), lambda s: s > 10**7))
for n in ("victim", "burst", "hotspot", "datamining"):
    s = json.load(open(f"{out}/{n}-true/summary.json"))
    print(f"{n}: rcm {s['rcm']}, drops {s['drops']['total']}")
PY
