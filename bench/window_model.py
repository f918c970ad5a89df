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

A trace of more partitions than threads (`--partitions P`), replayed with
`--threads T`, shows instead what moving partitions between threads could
save (bench/NOTES.md, forty-first session), each window still ending at a
barrier:

- claiming: rocesim's scheme (PartitionedRun::ClaimPartition): thread t runs
  its own contiguous share of the partitions, then any of the others' not
  yet begun, from thread t + 1's on;
- own share: each thread runs only its own share;
- re-dealt every M windows: the partitions dealt to the threads, heaviest
  first to the least loaded, by what each took in the M windows before (the
  first M windows: the own shares). A run that moved partitions between
  threads from time to time could do no better than this with that
  history;
- dealt every window: the same by each window's own loads, a bound for any
  scheme that keeps a partition on one thread for a window.

Prints, per schedule, the wall seconds, the seconds the threads wait, and that
wait as a share of the busy seconds.

usage: bench/window_model.py TRACE.csv [--window PS] [--slack PS ...]
                             [--cost seconds|events] [--threads T [--every M ...]]
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


def own_shares(parts, threads):
    """Partition p's thread: contiguous shares, as PartitionedRun deals them."""
    return [p * threads // parts for p in range(parts)]


def claiming(cost, threads):
    """Each window: threads claim their own share in order, then others' not begun."""
    parts = len(cost[0])
    home = [[p for p in range(parts) if p * threads // parts == t] for t in range(threads)]
    wall = 0.0
    for c in cost:
        nxt = [0] * threads
        clock = [0.0] * threads
        done = [False] * threads
        while not all(done):
            t = min((i for i in range(threads) if not done[i]), key=lambda i: (clock[i], i))
            for k in range(threads):
                v = (t + k) % threads
                if nxt[v] < len(home[v]):
                    clock[t] += c[home[v][nxt[v]]]
                    nxt[v] += 1
                    break
            else:
                done[t] = True
        wall += max(clock)
    busy = sum(sum(c) for c in cost)
    return wall, threads * wall - busy


def deal_heaviest_first(loads, threads):
    """Each partition's thread: heaviest first, each to the least loaded thread."""
    total = [0.0] * threads
    thread_of = [0] * len(loads)
    for p in sorted(range(len(loads)), key=lambda p: (-loads[p], p)):
        t = min(range(threads), key=lambda i: (total[i], i))
        thread_of[p] = t
        total[t] += loads[p]
    return thread_of


def dealt(cost, threads, every):
    """Partitions dealt anew every `every` windows by the loads of the `every`
    before (0: every window by its own loads); the first block by own shares."""
    parts = len(cost[0])
    thread_of = own_shares(parts, threads)
    wall = 0.0
    step = every if every > 0 else 1
    for b in range(0, len(cost), step):
        block = cost[b:b + step]
        if every == 0:
            thread_of = deal_heaviest_first(block[0], threads)
        for c in block:
            per = [0.0] * threads
            for p in range(parts):
                per[thread_of[p]] += c[p]
            wall += max(per)
        if every > 0:
            thread_of = deal_heaviest_first([sum(c[p] for c in block) for p in range(parts)],
                                            threads)
    busy = sum(sum(c) for c in cost)
    return wall, threads * wall - busy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--window", type=int, default=0,
                    help="the run's window in ps (default: the smallest gap between windows' starts)")
    ap.add_argument("--slack", type=float, nargs="*", default=None,
                    help="slacks to replay, in ps (default: 2, 10, 100 and 1000 times the window)")
    ap.add_argument("--cost", choices=["seconds", "events"], default="seconds")
    ap.add_argument("--threads", type=int, default=0,
                    help="threads sharing the partitions (default: one per partition)")
    ap.add_argument("--every", type=int, nargs="*", default=None,
                    help="with --threads: windows between re-deals (default: 10, 100, 1000)")
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
    parts = len(cost[0])
    if 0 < args.threads < parts:
        schedules = [("claiming", claiming(cost, args.threads)),
                     ("own share", dealt(cost, args.threads, len(cost)))]
        for every in args.every if args.every is not None else [10, 100, 1000]:
            schedules.append((f"re-dealt every {every} windows", dealt(cost, args.threads, every)))
        schedules.append(("dealt every window", dealt(cost, args.threads, 0)))
        print(f"{args.threads} threads")
        for name, (wall, wait) in schedules:
            print(f"{name:32} {wall:9.3f} {wait:9.3f} {wait / busy if busy else 0:10.1%}")
        return 0
    if args.threads > parts:
        sys.exit(f"{args.trace}: {args.threads} threads for {parts} partitions")
    wall, wait = barrier(cost)
    print(f"{'barrier':32} {wall:9.3f} {wait:9.3f} {wait / busy if busy else 0:10.1%}")
    for slack in slacks:
        wall, wait = asynchronous(starts, cost, slack, window)
        print(f"{f'asynchronous, slack {slack:g} ps':32} {wall:9.3f} {wait:9.3f} "
              f"{wait / busy if busy else 0:10.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
