#!/usr/bin/env python3
"""Replays a partitioned run's window trace (`rocesim run X --threads T
--window-trace TRACE.csv`) to show what its waiting at the barrier costs and
what other synchronisation could save (bench/NOTES.md, thirty-eighth session).

Each partition is taken to run on a thread of its own, its windows taking
what the trace measured (or, with --cost events, its events at the run's mean
cost per event, the same on any machine). Two schedules:

- barrier: every window ends when its slowest partition ends (rocesim's
  scheme, sim/partitioned_run.h);
- asynchronous with slack S: a partition may start its window at s once
  every partition has finished each window that started before s - S + w
  (w: the window; S = the lookahead is the conservative limit, Chandy-Misra-
  Bryant with channels; a larger S shows how long the imbalance lasts).

Prints, per schedule, the wall seconds, the seconds the threads wait, and that
wait as a share of the busy seconds.

usage: bench/window_model.py TRACE.csv [--window PS] [--slack PS ...]
                             [--cost seconds|events]
"""
import argparse
import csv
import sys


def load(path):
    """The windows' starts and, per window, each partition's (seconds, events)."""
    starts, rows = [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            w, p = int(r["window"]), int(r["partition"])
            if w == len(starts):
                starts.append(int(r["start_ps"]))
                rows.append([])
            if w != len(starts) - 1 or p != len(rows[w]):
                sys.exit(f"{path}: row for window {w}, partition {p} out of order")
            rows[w].append((float(r["seconds"]), int(r["events"])))
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        sys.exit(f"{path}: not a whole trace (a row per window and partition)")
    return starts, rows


def barrier(cost):
    wall = sum(max(c) for c in cost)
    busy = sum(sum(c) for c in cost)
    return wall, len(cost[0]) * wall - busy


def asynchronous(starts, cost, slack, window):
    """Each partition's window at s waits for every window that started before s - slack + window."""
    parts = len(cost[0])
    finish = [0.0] * parts
    done_max = []  # per window: the latest finish of any partition
    ready = -1  # the last window every partition must have finished
    for j, s in enumerate(starts):
        while ready + 1 < j and starts[ready + 1] < s - slack + window:
            ready += 1
        dep = done_max[ready] if ready >= 0 else 0.0
        finish = [max(finish[p], dep) + cost[j][p] for p in range(parts)]
        done_max.append(max(finish))
    wall = max(finish)
    busy = sum(sum(c) for c in cost)
    return wall, parts * wall - busy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--window", type=int, default=0,
                    help="the run's window in ps (default: the smallest gap between windows' starts)")
    ap.add_argument("--slack", type=float, nargs="*", default=None,
                    help="slacks to replay, in ps (default: 2, 10, 100 and 1000 times the window)")
    ap.add_argument("--cost", choices=["seconds", "events"], default="seconds")
    args = ap.parse_args()
    starts, rows = load(args.trace)
    window = args.window or min((b - a for a, b in zip(starts, starts[1:])), default=1)
    if args.cost == "seconds":
        cost = [[sec for sec, _ in r] for r in rows]
    else:
        seconds = sum(sec for r in rows for sec, _ in r)
        events = sum(ev for r in rows for _, ev in r)
        per_event = seconds / events if events else 0.0
        cost = [[ev * per_event for _, ev in r] for r in rows]
    slacks = args.slack if args.slack is not None else [window * k for k in (2, 10, 100, 1000)]
    busy = sum(sum(c) for c in cost)
    print(f"{len(starts)} windows of {window} ps, {len(cost[0])} partitions, "
          f"{busy:.3f} s of events ({args.cost})")
    print(f"{'schedule':32} {'wall s':>9} {'wait s':>9} {'wait/busy':>10}")
    wall, wait = barrier(cost)
    print(f"{'barrier':32} {wall:9.3f} {wait:9.3f} {wait / busy if busy else 0:10.1%}")
    for slack in slacks:
        wall, wait = asynchronous(starts, cost, slack, window)
        print(f"{f'asynchronous, slack {slack:g} ps':32} {wall:9.3f} {wait:9.3f} "
              f"{wait / busy if busy else 0:10.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
