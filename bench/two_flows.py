#!/usr/bin/env python3
"""Reproduces the README's two-flow congestion-control table: runs
bench/two_flows.yaml under each algorithm and prints, over the last half of
the run, each flow's goodput (acknowledged payload from rates.csv), Jain's
fairness index and the bottleneck queue's time-average (from queues.csv).

usage: bench/two_flows.py [--bin build/rocesim]"""
import argparse, csv, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = [("none", []), ("dcqcn", []), ("dctcp", []), ("hpcc", []),
        ("timely", ["--set", "host.timely.preset=per_packet"]), ("timely-segment", [])]


def analyse(d, half_ps, mtu=1000):
    una = {}
    samples = 0
    for r in csv.DictReader(open(os.path.join(d, "rates.csv"))):
        t = int(r["time_ps"])
        if t < half_ps:
            continue
        una.setdefault(int(r["flow"]), []).append((t, int(r["snd_una"])))
        samples += r["flow"] == "0"
    thr = []
    for v in una.values():
        (t0, u0), (t1, u1) = v[0], v[-1]
        thr.append((u1 - u0) * mtu * 8 / ((t1 - t0) / 1e12) / 1e9)
    jain = sum(thr) ** 2 / (len(thr) * sum(x * x for x in thr)) if thr else 0
    q = [int(r["bytes"]) for r in csv.DictReader(open(os.path.join(d, "queues.csv")))
         if int(r["time_ps"]) >= half_ps and r["priority"] == "3"]
    return thr, jain, sum(q) / max(samples, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "rocesim"))
    args = ap.parse_args()
    print(f"{'cc':16} {'goodput per flow (Gb/s)':>24} {'Jain':>7} {'mean queue KB':>14}")
    for name, extra in RUNS:
        cc = name.split("-")[0]
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([args.bin, "run", os.path.join(ROOT, "bench", "two_flows.yaml"), "-q",
                            "-o", out, "--set", f"host.cc={cc}"] + extra, check=True)
            thr, jain, q = analyse(out, 5e9)
        print(f"{name:16} {' + '.join(f'{x:.1f}' for x in thr):>24} {jain:>7.3f} {q / 1000:>14.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
