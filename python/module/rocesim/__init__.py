"""rocesim from Python: run scenarios and sweeps, get the results as tables.

    import rocesim

    r = rocesim.run("examples/quickstart.yaml", overrides={"duration": "2ms"}, seed=7)
    r.flows            # flows.csv as a pandas DataFrame
    r.summary["slowdown"]["p99"]
    r.save("results/quickstart")   # the directory `rocesim run -o` writes

    sc = {"name": "tiny", "duration": "1ms",
          "topology": {"type": "star", "hosts": 3},
          "traffic": [{"type": "incast", "senders": "1-2", "receiver": 0, "size": "100KB"}]}
    r = rocesim.run(sc)                # a dict with a scenario file's structure

    s = rocesim.sweep("examples/dcqcn-incast.yaml",
                      grid={"switch.ecn.kmin": ["5KB", "20KB"], "seed": [1, 2]},
                      out="results/kmin", jobs=4, progress=print)
    s.table            # sweep.csv: one row per point

run(scenario, overrides=None, seed=None, threads=1, partitions=None) -> Result
    scenario: a scenario file's path or a dict with the file's structure,
    validated by the same reader as `rocesim run` (a dict's errors name
    "<dict>" and the field's path). overrides: {"key.path": value} as
    `--set`. threads, partitions: `--threads`, `--partitions` (identical
    results). The simulation runs with the GIL released.

Result
    .flows .queues .ports .rates .counters .events: pandas DataFrames with
    fixed columns and dtypes (rocesim._tables documents them), or dicts of
    numpy arrays where pandas is missing; empty tables with the same
    columns when the run wrote no such file. .summary: summary.json as a
    dict. .save(dir, force=False): the results directory, byte-identical to
    `rocesim run`'s for the same scenario and seed but for summary.json's
    "run" object (wall time, memory).

sweep(scenario, grid=None, points=None, set=None, out=None, jobs=None,
      threads=1, progress=None, partitions=None) -> SweepResult
    The command line's sweep (docs/sweep.md) with the sweep file's keys as
    arguments: points run in `jobs` worker processes, one results directory
    each under `out`, finished points are kept (resume), sweep.csv is
    written and returned as .table. progress(SweepProgress) after each point.

check(scenario, overrides=None, seed=None)
    Validates a scenario without running it.

ScenarioError (a ValueError): a bad scenario, sweep or fabric; .field is
the offending field's path ("traffic.0.size") when the message names one.
"""

from ._core import dict_to_yaml
from ._run import Result, ScenarioError, check, run
from ._sweep import SweepProgress, SweepResult, sweep

__all__ = ["run", "sweep", "check", "Result", "SweepResult", "SweepProgress", "ScenarioError",
           "dict_to_yaml"]
