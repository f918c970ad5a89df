#!/usr/bin/env python3
"""Speed harness: runs scenarios with the built rocesim and prints, per run,
events, events per wall second, simulated seconds per wall second, CPU
seconds and peak RSS (from summary.json's "run" object, measured by the
simulator with getrusage). Prints numbers; never fails on time.

usage: bench/bench.py [--bin build/rocesim] [--repeat N] [SCENARIO.yaml ...]
With no scenario, runs the README's benchmark set."""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["examples/quickstart.yaml", "bench/incast_k8.yaml", "bench/k8_websearch_dcqcn.yaml"]


def run(binary, scenario):
    with tempfile.TemporaryDirectory() as out:
        # Monitors off: the harness measures the simulation, not the time
        # series an example writes for `rocesim report` (the quickstart's).
        subprocess.run([binary, "run", scenario, "-o", out, "-q", "--set", "monitors.interval=0"],
                       check=True)
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "rocesim"))
    ap.add_argument("--repeat", type=int, default=1, help="runs per scenario; the fastest is shown")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    scenarios = args.scenarios or [os.path.join(ROOT, s) for s in DEFAULT]
    print(f"{'scenario':32} {'events':>12} {'Mev/s':>8} {'sim s/wall s':>13} {'cpu s':>8} {'peak RSS MB':>12} {'flows':>11}")
    for s in scenarios:
        best = min((run(args.bin, s) for _ in range(args.repeat)), key=lambda j: j["run"]["cpu_seconds"])
        r = best["run"]
        print(f"{os.path.basename(s):32} {best['events']:>12} {r['events_per_second']/1e6:>8.2f} "
              f"{r['sim_seconds_per_wall_second']:>13.4f} {r['cpu_seconds']:>8.3f} "
              f"{r['peak_rss_bytes']/2**20:>12.1f} {best['flows']['completed']:>5}/{best['flows']['total']:<5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
