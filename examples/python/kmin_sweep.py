"""DCQCN's K_min against p99 slowdown at three loads, from Python.

A 16-host fat tree (k = 4) with WebSearch flows under DCQCN; the switches'
ECN marking starts at K_min (kmax stays 4 x K_min). Runs 9 short points in
parallel and plots p99 slowdown against K_min, one line per load.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/kmin_sweep.py
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import rocesim

parser = argparse.ArgumentParser()
parser.add_argument("--out", default="results/kmin-sweep")
args = parser.parse_args()

scenario = {
    "name": "kmin-sweep",
    "duration": "3ms",
    "topology": {"type": "fat_tree", "k": 4,
                 "host_link": {"rate": "100Gbps", "delay": "1us"},
                 "fabric_link": {"rate": "100Gbps", "delay": "1us"},
                 "core_link": {"rate": "100Gbps", "delay": "1us"}},
    "switch": {"buffer": "12MB", "alpha": "1/8",
               "pfc": {"enabled": True, "priorities": [3]},
               "ecn": {"enabled": True, "kmin": "100KB", "kmax": "400KB", "pmax": 0.2}},
    "host": {"cc": "dcqcn"},
    "traffic": [{"type": "poisson", "load": "30%", "cdf": "websearch", "span": "1ms"}],
}

kmins = [10, 40, 160]  # KB
loads = ["30%", "50%", "70%"]
points = [{"switch.ecn.kmin": f"{k}KB", "switch.ecn.kmax": f"{4 * k}KB", "traffic.0.load": load}
          for load in loads for k in kmins]

sweep = rocesim.sweep(scenario, points=points, out=os.path.join(args.out, "points"),
                      progress=lambda p: print(f"[{p.done}/{p.total}] {p.name}"))
table = sweep.table
print(table[["traffic.0.load", "switch.ecn.kmin", "slowdown_p99"]])

fig, ax = plt.subplots(figsize=(5, 3.5))
for load, rows in table.groupby("traffic.0.load"):
    ax.plot(kmins, rows["slowdown_p99"], marker="o", label=f"load {load:.0%}")
ax.set_xscale("log")
ax.set_xlabel("DCQCN K_min (KB)")
ax.set_ylabel("p99 FCT slowdown")
ax.legend()
fig.tight_layout()
png = os.path.join(args.out, "kmin_p99.png")
fig.savefig(png, dpi=100)
print("wrote", png)
