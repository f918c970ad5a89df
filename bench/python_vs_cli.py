"""A run from Python against the same run from the command line.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_cli.py \\
        examples/quickstart.yaml bench/k8_websearch_dcqcn.yaml --repeat 3

Per scenario, the best of --repeat runs of each: the end-to-end wall time
(`rocesim run -q` as a process; rocesim.run() plus reading flows.csv into a
DataFrame) and the simulation's own wall time (summary.json run.wall_seconds,
the same clock on both sides)."""
import argparse
import json
import os
import subprocess
import tempfile
import time

import rocesim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(binary, scenario, out):
    start = time.perf_counter()
    subprocess.run([binary, "run", scenario, "-q", "--force", "-o", out], check=True)
    wall = time.perf_counter() - start
    with open(os.path.join(out, "summary.json")) as f:
        return wall, json.load(f)["run"]["wall_seconds"]


def python(scenario):
    start = time.perf_counter()
    r = rocesim.run(scenario)
    len(r.flows)
    return time.perf_counter() - start, r.summary["run"]["wall_seconds"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenarios", nargs="+")
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "rocesim"))
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    print("| scenario | CLI wall s | CLI sim s | Python wall s | Python sim s |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for sc in a.scenarios:
            c = min(cli(a.bin, sc, os.path.join(tmp, "cli")) for _ in range(a.repeat))
            y = min(python(sc) for _ in range(a.repeat))
            print(f"| `{sc}` | {c[0]:.3f} | {c[1]:.3f} | {y[0]:.3f} | {y[1]:.3f} |")


if __name__ == "__main__":
    main()
