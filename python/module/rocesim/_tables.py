"""The results directory's CSV files as tables with fixed columns and dtypes.

Each table is a pandas DataFrame, or, where pandas is not installed, a dict
mapping column name to a numpy array (same columns, same dtypes).  A file the
run did not write (no monitors, no faults) gives an empty table with the
documented columns, so code that filters a table works either way.

Columns and dtypes (README "Results directory" describes the values):

  flows     id, src, dst, size_bytes, start_ps: int64; finish_ps, fct_ps:
            float64 (NaN for a flow that did not complete; picoseconds are
            exact in a float64 up to 2**53 ps, about 2.5 hours); ideal_fct_ps:
            int64; slowdown: float64 (NaN when not completed); cc, tag: str;
            ecn_marked, cnps: int64; size_bucket: str
  queues    time_ps, node, port, priority, bytes: int64
  ports     time_ps, node, port, tx_bytes: int64; utilization: float64;
            pause_sent, pause_received, paused_mask: int64
  rates     time_ps, flow, rate_bps, window_bytes, snd_una, snd_nxt: int64
  counters  time_ps, node, port: int64; kind: str; tx_bytes, pause_sent,
            pause_received, paused_time_ps, ecn_marks, cnps_sent,
            cnps_received, drops and one drops_<cause> per drop cause: int64
  events    time_ps, node, port, priority: int64; event: str
"""

import csv
import os

import numpy as np

try:
    import pandas as pd
except ImportError:  # pragma: no cover - depends on the machine
    pd = None

I, F, S = "int64", "float64", "str"

SCHEMAS = {
    "flows": [("id", I), ("src", I), ("dst", I), ("size_bytes", I), ("start_ps", I),
              ("finish_ps", F), ("fct_ps", F), ("ideal_fct_ps", I), ("slowdown", F),
              ("cc", S), ("tag", S), ("ecn_marked", I), ("cnps", I), ("size_bucket", S)],
    "queues": [("time_ps", I), ("node", I), ("port", I), ("priority", I), ("bytes", I)],
    "ports": [("time_ps", I), ("node", I), ("port", I), ("tx_bytes", I), ("utilization", F),
              ("pause_sent", I), ("pause_received", I), ("paused_mask", I)],
    "rates": [("time_ps", I), ("flow", I), ("rate_bps", I), ("window_bytes", I),
              ("snd_una", I), ("snd_nxt", I)],
    "counters": [("time_ps", I), ("node", I), ("port", I), ("kind", S), ("tx_bytes", I),
                 ("pause_sent", I), ("pause_received", I), ("paused_time_ps", I),
                 ("ecn_marks", I), ("cnps_sent", I), ("cnps_received", I), ("drops", I)],
    "events": [("time_ps", I), ("node", I), ("port", I), ("priority", I), ("event", S)],
}


def _columns(name, header):
    """(column, dtype) for the file's header: the schema's columns, and any
    further ones the file has (counters.csv's drops_<cause>) as int64."""
    known = dict(SCHEMAS[name])
    if header is None:
        return SCHEMAS[name]
    return [(c, known.get(c, I)) for c in header]


def _header(path):
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return next(csv.reader(f), None)


def load_table(directory, name, use_pandas=True):
    """Table `name` (a SCHEMAS key) of the results in `directory`."""
    path = os.path.join(directory, name + ".csv")
    columns = _columns(name, _header(path))
    if pd is not None and use_pandas:
        return _load_pandas(path, columns)
    return _load_numpy(path, columns)


def _load_pandas(path, columns):
    if not os.path.exists(path):
        return pd.DataFrame({c: pd.Series(dtype=object if t == S else t) for c, t in columns})
    dtypes = {c: (object if t == S else t) for c, t in columns}
    strings = [c for c, t in columns if t == S]
    # Strings keep their text ("" stays ""); numbers read empty as NaN.
    df = pd.read_csv(path, dtype=dtypes, keep_default_na=False,
                     na_values={c: [""] for c, t in columns if t != S})
    for c in strings:
        df[c] = df[c].astype(object)
    return df


def _load_numpy(path, columns):
    rows = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            reader = csv.reader(f)
            next(reader, None)
            rows = list(reader)
    out = {}
    for i, (c, t) in enumerate(columns):
        values = [r[i] for r in rows]
        if t == S:
            out[c] = np.array(values, dtype=object)
        elif t == F:
            out[c] = np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
        else:
            out[c] = np.array([int(v) for v in values], dtype=np.int64)
    return out
