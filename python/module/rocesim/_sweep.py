"""rocesim.sweep: a scenario over a grid of overrides, points in parallel
processes, with the command line's sweep semantics (docs/sweep.md): the same
expansion order and point names, one results directory per point with its
sweep_point.json record, resume (finished points are not run again), and the
same sweep.csv (src/sweep/, through rocesim._core.SweepPlan)."""

import collections
import multiprocessing
import os
import re
import tempfile
import time

from . import _core
from ._run import (DICT_SOURCE, Result, ScenarioError, check_parallelism, reraise,
                   resolve_threads, run, scenario_source, usable_cores)

try:
    import pandas as pd
except ImportError:  # pragma: no cover - depends on the machine
    pd = None

SWEEP_SOURCE = "<sweep>"

# What the progress callback receives after each point: how many of the
# points to run are done, the point's name, whether it succeeded (the error
# message when not) and its wall seconds.
SweepProgress = collections.namedtuple("SweepProgress", "done total name ok error seconds")


class SweepResult:
    """A finished sweep: .table is sweep.csv (a DataFrame, or a dict of numpy
    arrays without pandas; docs/sweep.md lists its columns), .dir the sweep
    directory, .names the point directories in point order, .failed the
    names of points that failed (with .errors[name] their messages), and
    .result(i) point i's Result."""

    def __init__(self, directory, names, failed, errors):
        self.dir = directory
        self.names = names
        self.failed = failed
        self.errors = errors
        self.table = _read_table(os.path.join(directory, "sweep.csv"))

    def result(self, index):
        return Result(os.path.join(self.dir, self.names[index]))

    def __repr__(self):
        return (f"<rocesim.SweepResult {self.dir}: {len(self.names)} points, "
                f"{len(self.failed)} failed>")


def _read_table(path):
    if pd is not None:
        return pd.read_csv(path)
    import numpy as np  # the numpy form: one array per column
    out = {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split(",")
        rows = [line.rstrip("\n").split(",") for line in f]
    for i, c in enumerate(header):
        values = [r[i] for r in rows]
        try:
            out[c] = np.array([float(v) if v != "" else np.nan for v in values])
        except ValueError:
            out[c] = np.array(values, dtype=object)
    return out


def _share_cores(workers):
    """A worker's initializer: its runs share the machine's cores with the
    other workers', as `rocesim sweep` tells its points, so that a point's
    threads spin only briefly at the barrier when the workers' threads
    outnumber the cores (sim/mpi_launch_env.h)."""
    os.environ["ROCESIM_SWEEP_WORKERS"] = str(workers)


def _run_point(task):
    """A worker's point: run, save into the sweep directory (complete or not
    at all); the error message instead when it fails."""
    index, scenario, args, threads, partitions, target = task
    start = time.monotonic()
    try:
        run(scenario, overrides=args, threads=threads, partitions=partitions).save(target,
                                                                                  force=True)
        error = None
    except Exception as e:  # reported per point; the sweep goes on
        error = f"{type(e).__name__}: {e}"
    return index, error, time.monotonic() - start


def sweep(scenario, grid=None, points=None, set=None, out=None, jobs=None, threads=1,
          progress=None, partitions=None):
    """Runs `scenario` (a path or a dict) at every point of a sweep and
    returns a SweepResult.

    grid      {"key.path": [values...]}: the cartesian product, first key
              outermost, last key varying fastest (as a sweep file's grid:)
    points    [{"key.path": value, ...}, ...]: explicit points, after the grid
    set       {"key.path": value}: applied to every point, before its values
    out       the sweep directory (default: a new temporary directory); a
              point already finished there with the same overrides is not
              run again, and sweep.csv is (re)written there
    jobs      worker processes at once (default: the usable cores divided
              by `threads`, as `rocesim sweep`)
    threads   each point partitioned over this many threads ("auto": every
              usable core, one point at a time unless `jobs` says otherwise)
    partitions  ... into this many partitions (`--partitions`; default by
              the fabric's size, as the command line)
    progress  called as progress(SweepProgress(done, total, name, ok, error,
              seconds)) in this process after each point

    Every point is validated before any runs (ScenarioError names the
    point, the sweep value to blame and the field)."""
    if grid is None and points is None:
        raise ValueError("sweep: give grid= and/or points=")
    check_parallelism(threads, partitions)
    spec = {"grid": grid, "points": points, "set": set}
    source, is_text, name = scenario_source(scenario)
    with tempfile.TemporaryDirectory(prefix="rocesim-sweep-base-") as tmp:
        if is_text:  # the sweep machinery reads its base from a file
            base = os.path.join(tmp, "scenario.yaml")
            with open(base, "w") as f:
                f.write(source)
        else:
            base = os.path.abspath(source)
        text = _core.dict_to_yaml({"base": base, **{k: v for k, v in spec.items() if v}})
        try:
            plan = _core.SweepPlan(text, SWEEP_SOURCE, "")
            plan.validate()
        except ScenarioError as e:
            # Name the dict, not the temporary file it was written to.
            message = str(e).replace(base, DICT_SOURCE) if is_text else str(e)
            reraise(ScenarioError(re.sub(rf"{re.escape(SWEEP_SOURCE)}:\d+:\d+: ",
                                         SWEEP_SOURCE + ": ", message)), SWEEP_SOURCE)
    directory = os.path.abspath(out) if out else tempfile.mkdtemp(prefix="rocesim-sweep-")
    os.makedirs(directory, exist_ok=True)
    listed = plan.points()
    names = [p[0] for p in listed]
    todo = [i for i in range(len(listed)) if not plan.finished(directory, i)]
    tasks = [(i, scenario, listed[i][1], threads, partitions, os.path.join(directory, names[i]))
             for i in todo]
    failed, errors = [], {}

    def finish(index, error, seconds, done):
        log = os.path.join(directory, names[index] + ".log")
        if error is None:
            plan.record(directory, index)
            if os.path.exists(log):
                os.remove(log)
        else:
            failed.append(index)
            errors[names[index]] = error
            with open(log, "w") as f:
                f.write(error + "\n")
        if progress is not None:
            progress(SweepProgress(done, len(tasks), names[index], error is None, error, seconds))

    jobs = max(1, min(jobs or usable_cores() // resolve_threads(threads), len(tasks) or 1))
    if jobs == 1:
        for done, task in enumerate(tasks, 1):
            finish(*_run_point(task), done)
    else:
        # fork: the workers need nothing but this process's modules (a
        # notebook's __main__ is not re-imported).
        with multiprocessing.get_context("fork").Pool(jobs, _share_cores, (jobs,)) as pool:
            for done, outcome in enumerate(pool.imap_unordered(_run_point, tasks), 1):
                finish(*outcome, done)
    csv_text = plan.csv(directory, failed)
    csv_path = os.path.join(directory, "sweep.csv")
    with open(csv_path + f".tmp.{os.getpid()}", "w") as f:
        f.write(csv_text)
    os.replace(csv_path + f".tmp.{os.getpid()}", csv_path)
    return SweepResult(directory, names, sorted(names[i] for i in failed), errors)
