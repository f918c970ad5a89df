"""rocesim.run: one scenario run, its results as tables (rocesim/__init__.py)."""

import json
import os
import re
import shutil
import tempfile
import weakref

from . import _core, _tables

ScenarioError = _core.ScenarioError

# "FILE:LINE:COLUMN: FIELD: what" (scenario/yaml_fields.cpp) or "FILE: what".
_MESSAGE = re.compile(r"^(?P<source>.*?):(?P<line>\d+):(?P<column>\d+): "
                      r"(?:(?P<field>[A-Za-z0-9_.\[\]-]+): )?(?P<what>.*)$", re.S)
DICT_SOURCE = "<dict>"


def scenario_source(scenario):
    """(text or path, is_text, name) for the C++ reader: a dict becomes YAML
    text named "<dict>", a path stays a path."""
    if isinstance(scenario, dict):
        return _core.dict_to_yaml(scenario), True, DICT_SOURCE
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        return path, False, path
    raise TypeError(f"scenario: expected a file path or a dict, got {type(scenario).__name__}")


def override_args(overrides):
    """`--set` arguments ("key.path=value") from a dict {key.path: value} or
    a list of such strings; values as YAML text (str as written, bool as
    true/false, lists and dicts in flow style)."""
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return [f"{k}={_yaml_value(v)}" for k, v in overrides.items()]
    return [str(o) for o in overrides]


def _yaml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return repr(v)
    if hasattr(v, "tolist"):  # numpy scalars and arrays
        return _yaml_value(v.tolist())
    return json.dumps(v)


def reraise(error, name):
    """A ScenarioError with `source`, `line`, `column` and `field` (the field's
    path, e.g. "traffic.0.size"; None when the message names none). For a
    dict the line and column of the YAML it was turned into mean nothing to
    the caller and are left out of the message."""
    message = str(error)
    m = _MESSAGE.match(message)
    if m and m.group("source") == DICT_SOURCE == name:
        field = m.group("field")
        message = f"{DICT_SOURCE}: " + (f"{field}: " if field else "") + m.group("what")
    e = ScenarioError(message)
    e.source = name
    e.field = m.group("field") if m else None
    e.line = int(m.group("line")) if m and name != DICT_SOURCE else None
    e.column = int(m.group("column")) if m and name != DICT_SOURCE else None
    raise e from None


def _check_seed(seed):
    """As `rocesim run --seed`: an integer from 0 to 2**64 - 1."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or
                             not 0 <= seed < 2**64):
        raise ValueError(f"seed: expected an integer from 0 to {2**64 - 1}, got {seed!r}")


def check(scenario, overrides=None, seed=None):
    """Validates a scenario (a path or a dict) as `rocesim run --check` reads
    it, without building or running it; raises ScenarioError."""
    _check_seed(seed)
    source, is_text, name = scenario_source(scenario)
    try:
        _core.check(source, is_text, name, override_args(overrides), seed)
    except ScenarioError as e:
        reraise(e, name)


def usable_cores():
    """The cores this process may run on (its affinity mask), as the command
    line counts them for `--threads auto`."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_threads(threads):
    """`threads` as a count at most: "auto" is one per usable core (`--threads
    auto`), fewer when the fabric or `partitions` takes fewer."""
    return usable_cores() if threads == "auto" else threads


def check_parallelism(threads, partitions):
    """Validates `threads` (a count, or "auto") and `partitions` as `rocesim
    run` does; returns the partition count (0 when None: the run picks it by
    the fabric's size)."""
    auto = threads == "auto"
    if not auto and (not isinstance(threads, int) or not 1 <= threads <= 1024):
        raise ValueError(f'threads: expected an integer from 1 to 1024 or "auto", '
                         f'got {threads!r}')
    if partitions is None:
        return 0
    least = 1 if auto else threads
    if not isinstance(partitions, int) or not least <= partitions <= 4096:
        raise ValueError(f"partitions: expected an integer from "
                         f"{'1' if auto else f'threads ({threads})'} to 4096, got {partitions!r}")
    return partitions


def run(scenario, overrides=None, seed=None, threads=1, partitions=None):
    """Runs a scenario and returns its Result.

    scenario   a scenario file's path, or a dict with the file's structure
               (validated exactly like a file; errors name "<dict>" and the
               field's path)
    overrides  {"key.path": value} or ["key.path=value", ...], as
               `rocesim run --set` (applied in order, before `seed`)
    seed       replaces the scenario's seed (0 .. 2**64 - 1)
    threads    threads on this machine (`--threads`; identical results);
               "auto": one per core this process may use, but no more than
               `partitions` or than the fabric can be cut into (a fabric
               that cannot be cut runs serially)
    partitions the fabric cut into this many partitions that the threads
               share (`--partitions`; at least `threads`; default 1, 2 or
               4 per thread by the fabric's size, as the command line)

    Raises ScenarioError (a ValueError) for a bad scenario. The GIL is
    released while the simulation runs."""
    partitions = check_parallelism(threads, partitions)
    _check_seed(seed)
    source, is_text, name = scenario_source(scenario)
    directory = tempfile.mkdtemp(prefix="rocesim-run-")
    result = Result(directory, owned=True)  # removes the directory when dropped
    try:
        _core.run_into(source, is_text, name, override_args(overrides), seed,
                       0 if threads == "auto" else threads, partitions, directory)
    except ScenarioError as e:
        reraise(e, name)
    result._load_summary()
    return result


class Result:
    """One run's results. Tables (pandas DataFrames, or dicts of numpy arrays
    without pandas; columns and dtypes in rocesim._tables):

      .flows .queues .ports .rates .counters .events

    .summary is summary.json as a dict; .dir the directory holding the
    files; .save(dir) writes the same results directory `rocesim run -o dir`
    writes. Tables are read on first use."""

    TABLES = tuple(_tables.SCHEMAS)

    def __init__(self, directory, owned=False):
        self.dir = directory
        self.summary = None
        self._cache = {}
        if owned:
            self._finalizer = weakref.finalize(self, shutil.rmtree, directory, True)
        else:
            self._load_summary()

    def _load_summary(self):
        with open(os.path.join(self.dir, "summary.json")) as f:
            self.summary = json.load(f)

    def table(self, name):
        if name not in self._cache:
            self._cache[name] = _tables.load_table(self.dir, name)
        return self._cache[name]

    flows = property(lambda self: self.table("flows"))
    queues = property(lambda self: self.table("queues"))
    ports = property(lambda self: self.table("ports"))
    rates = property(lambda self: self.table("rates"))
    counters = property(lambda self: self.table("counters"))
    events = property(lambda self: self.table("events"))

    def files(self):
        """The results directory's file names."""
        return sorted(os.listdir(self.dir))

    def save(self, directory, force=False):
        """Writes the results directory (the files `rocesim run` writes, byte
        for byte but summary.json's `run` object) to `directory`: complete or
        not at all (a staging directory beside it, renamed at the end).
        An existing non-empty directory is replaced only with force=True."""
        target = os.path.abspath(os.fspath(directory))
        if os.path.isdir(target) and os.listdir(target) and not force:
            raise FileExistsError(f"{directory} exists and is not empty (save(..., force=True) "
                                  "replaces it)")
        parent = os.path.dirname(target)
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".", dir=parent)
        try:
            os.chmod(staging, 0o755)
            for name in self.files():
                src, dst = os.path.join(self.dir, name), os.path.join(staging, name)
                if os.path.isdir(src):  # pcap/ (monitors.pcap)
                    shutil.copytree(src, dst)
                else:
                    shutil.copyfile(src, dst)
            if os.path.exists(target):
                shutil.rmtree(target)
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def __repr__(self):
        s = self.summary or {}
        flows = s.get("flows", {})
        return (f"<rocesim.Result {s.get('name')!r} seed {s.get('seed')}: "
                f"{flows.get('completed')}/{flows.get('total')} flows completed>")
