"""Reading rocesim results directories and the statistics the plots show.

A results directory (written by `rocesim run`) holds flows.csv, summary.json,
scenario.yaml and, when monitors are on, queues.csv, ports.csv and rates.csv;
a sweep directory holds sweep.csv.  Everything here is numpy and the standard
library only (PyYAML is used when present), so it can be unit-tested without
a display or matplotlib.

Problems a user must fix (no such directory, unreadable JSON, a CSV without
the expected columns) raise ResultsError, which the command line turns into
exit status 2 with the message.
"""

import csv
import json
import math
import os
import re
import warnings

import numpy as np

try:  # PyYAML is optional: a tiny fallback reads the two fields we need.
    import yaml
except ImportError:  # pragma: no cover - depends on the machine
    yaml = None


class ResultsError(Exception):
    """A results directory or file that cannot be used as given."""


# --------------------------------------------------------------------------
# Units, matching src/core/units.cpp (KB/MB/GB are powers of 1000).

_SIZE_UNITS = {"B": 1, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
               "KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30, "TiB": 2.0**40}
# Picoseconds per unit: integers, so "20us" is exactly 2e-05 s after one division.
_TIME_UNITS_PS = {"ps": 1, "ns": 10**3, "us": 10**6, "\u00b5s": 10**6, "ms": 10**9, "s": 10**12}
_RATE_PREFIX = {"": 1, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_NUM_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z\u00b5/]*)\s*$")


def parse_quantity(text):
    """A number as written in a scenario or sweep: plain ("0.2"), a fraction
    ("1/16"), a size ("400KB" -> bytes), a time ("20us" -> seconds) or a rate
    ("100Gbps" -> bits/s).  None when the text is none of these."""
    if text is None:
        return None
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    s = str(text).strip()
    frac = re.match(r"^\s*(\d+(?:\.\d*)?)\s*/\s*(\d+(?:\.\d*)?)\s*$", s)
    if frac and float(frac.group(2)) != 0:
        return float(frac.group(1)) / float(frac.group(2))
    m = _NUM_UNIT.match(s)
    if not m:
        return None
    value, unit = float(m.group(1)), m.group(2)
    if unit == "":
        return value
    if unit in _SIZE_UNITS:
        return value * _SIZE_UNITS[unit]
    if unit in _TIME_UNITS_PS:
        return value * _TIME_UNITS_PS[unit] / 1e12
    rate = re.match(r"^([kKMGT]?)(bps|b/s|bit/s)?$", unit)
    if rate and (rate.group(2) or rate.group(1)):
        return value * _RATE_PREFIX[rate.group(1)]
    return None


def fmt_size(nbytes):
    """Bytes as a short decimal size ("250KB", "1.5MB"), as scenarios write them."""
    n = float(nbytes)
    for unit, mult in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= mult:
            return f"{n / mult:.3g}{unit}"
    return f"{n:.0f}B"


def size_group_key(name):
    """Sort key of a flow-size group name ("<10KB", "10KB-100KB", ">10MB"):
    by the sizes it covers, so tables run from small to large (not
    alphabetically, where "100KB-1MB" comes before "10KB-100KB"); names
    without a size go last, alphabetically."""
    sizes = re.findall(r"\d+(?:\.\d+)?\s*(?:[KMGT]i?B|B)", str(name))
    lo = parse_quantity(sizes[0]) if sizes else None
    if lo is None:
        return (1, 0.0, str(name))
    # "<X" holds sizes below X and ">X" above it: just below and above "X-...".
    shift = {"<": -0.5, ">": 0.5}.get(str(name).strip()[:1], 0.0)
    return (0, lo + shift, str(name))


def percentile(values, p):
    """Nearest-rank percentile, the same rule as summary.json
    (src/stats/results_writer.cpp), so plots and tables agree with it."""
    v = np.sort(np.asarray(values, dtype=float))
    if v.size == 0:
        return float("nan")
    idx = max(int(math.ceil(p / 100.0 * v.size)) - 1, 0)
    return float(v[min(idx, v.size - 1)])


# --------------------------------------------------------------------------
# Files.

def check_results_dir(path):
    """Raises ResultsError unless `path` is a directory holding a run's
    results (with its summary.json, which a run writes with all its other
    files) or a sweep (sweep.csv)."""
    if not os.path.exists(path):
        raise ResultsError(f"{path}: no such directory")
    if not os.path.isdir(path):
        raise ResultsError(f"{path}: not a directory")
    if any(os.path.isfile(os.path.join(path, f)) for f in ("summary.json", "sweep.csv")):
        return
    if os.path.isfile(os.path.join(path, "flows.csv")):
        raise ResultsError(f"{path}: has no summary.json, so these are not one finished "
                           "run's results; run the scenario again with "
                           "`rocesim run SCENARIO.yaml -o DIR`")
    raise ResultsError(f"{path}: not a rocesim results directory "
                       "(no summary.json or sweep.csv; "
                       "make one with `rocesim run SCENARIO.yaml -o DIR`)")


def is_run_dir(path):
    return os.path.isfile(os.path.join(path, "summary.json"))


def partial_note(summary):
    """'partial: ...' for a run stopped before its end (Ctrl-C: summary.json
    "partial": true), else None."""
    if not summary or not summary.get("partial"):
        return None
    reached = summary.get("sim_seconds")
    at = f" at {reached * 1e3:g} ms simulated" if isinstance(reached, (int, float)) else ""
    return f"partial: the run was interrupted{at}; its numbers cover only that time"


def load_summary(d):
    path = os.path.join(d, "summary.json")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(s, dict):
        raise ResultsError(f"{path}: expected a JSON object")
    return s


def get(d, dotted, default=None):
    """summary["a"]["b"] for "a.b", or default when any level is missing."""
    for key in dotted.split("."):
        if not isinstance(d, dict) or key not in d:
            return default
        d = d[key]
    return d


def load_scenario(d):
    """scenario.yaml as a dict ({} when absent or unreadable: it only
    supplies the name, mtu and monitor interval, all of which have fallbacks)."""
    path = os.path.join(d, "scenario.yaml")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if yaml is not None:
        try:
            doc = yaml.safe_load(text)
            return doc if isinstance(doc, dict) else {}
        except yaml.YAMLError:
            return {}
    # Fallback without PyYAML: top-level name and the two fields we use.
    out = {}
    m = re.search(r"^name:\s*(\S+)", text, re.M)
    if m:
        out["name"] = m.group(1)
    m = re.search(r"^\s+mtu:\s*(\S+)", text, re.M)
    if m:
        out["host"] = {"mtu": m.group(1)}
    m = re.search(r"interval:\s*([^,}\s]+)", text)
    if m:
        out["monitors"] = {"interval": m.group(1)}
    return out


def scenario_mtu(scenario):
    """RDMA payload bytes per packet (host.mtu; 1000 when not given, the
    simulator's default), used to turn PSNs in rates.csv into bytes."""
    v = parse_quantity(get(scenario, "host.mtu"))
    return v if v and v > 0 else 1000.0


def _header(path):
    with open(path, newline="", encoding="utf-8") as f:
        return next(csv.reader(f), [])


def load_flows(d):
    """flows.csv as a dict of numpy arrays (NaN finish/fct/slowdown for flows
    that did not finish) plus string lists for tag and cc; None when absent."""
    path = os.path.join(d, "flows.csv")
    if not os.path.isfile(path):
        return None
    need = ["id", "size_bytes", "start_ps", "fct_ps", "slowdown"]
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    header = _header(path)
    missing = [c for c in need if c not in header]
    if missing:
        raise ResultsError(f"{path}: missing column(s) {', '.join(missing)} "
                           f"(header is {','.join(header) or 'empty'})")

    def num(col, default=float("nan")):
        out = np.full(len(rows), default, dtype=float)
        for i, r in enumerate(rows):
            v = r.get(col)
            if v not in (None, ""):
                try:
                    out[i] = float(v)
                except ValueError:
                    raise ResultsError(f"{path}: line {i + 2}: {col} is not a number: {v!r}") \
                        from None
        return out

    return {
        "id": num("id").astype(np.int64),
        "src": num("src", -1), "dst": num("dst", -1),
        "size": num("size_bytes"), "start_ps": num("start_ps"),
        "finish_ps": num("finish_ps"), "fct_ps": num("fct_ps"),
        "ideal_ps": num("ideal_fct_ps"), "slowdown": num("slowdown"),
        "tag": [r.get("tag") or "" for r in rows],
        "cc": [r.get("cc") or "" for r in rows],
    }


COLLECTIVE_NUMBERS = ["iteration", "ranks", "size_bytes", "start_ps", "finish_ps", "time_ps",
                      "algbw_gbps", "busbw_gbps", "ideal_ps", "slowdown"]


def load_collectives(d):
    """collectives.csv (one row per collective instance: a job's iteration)
    as a list of dicts, numbers as floats (NaN where an instance did not
    complete); None when the run had no collective traffic."""
    path = os.path.join(d, "collectives.csv")
    if not os.path.isfile(path):
        return None
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    header = _header(path)
    missing = [c for c in ["tag"] + COLLECTIVE_NUMBERS if c not in header]
    if missing:
        raise ResultsError(f"{path}: missing column(s) {', '.join(missing)}")
    for i, r in enumerate(rows):
        for c in COLLECTIVE_NUMBERS:
            v = r.get(c)
            try:
                r[c] = float(v) if v not in (None, "") else float("nan")
            except ValueError:
                raise ResultsError(f"{path}: line {i + 2}: {c} is not a number: {v!r}") from None
    return rows


def load_series(d, name, columns):
    """A monitor CSV (queues/ports/rates) as {column: float array}, found by
    header name so extra columns do not matter.  None when the file is absent."""
    path = os.path.join(d, name)
    if not os.path.isfile(path):
        return None
    header = [h.strip() for h in _header(path)]
    missing = [c for c in columns if c not in header]
    if missing:
        raise ResultsError(f"{path}: missing column(s) {', '.join(missing)} "
                           f"(header is {','.join(header) or 'empty'})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # loadtxt warns on a header-only file
        try:
            # Only the columns asked for: counters.csv has a text column (kind).
            data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, dtype=float,
                              usecols=[header.index(c) for c in columns])
        except (ValueError, IndexError) as e:
            raise ResultsError(f"{path}: not numeric CSV: {e}") from None
    if data.size == 0:
        data = np.zeros((0, len(columns)))
    return {c: data[:, i] for i, c in enumerate(columns)}


QUEUE_COLS = ["time_ps", "node", "port", "priority", "bytes"]
PORT_COLS = ["time_ps", "node", "port", "tx_bytes", "pause_sent", "pause_received", "paused_mask"]
RATE_COLS = ["time_ps", "flow", "rate_bps", "window_bytes", "snd_una", "snd_nxt"]
COUNTER_COLS = ["time_ps", "node", "port", "paused_time_ps"]


def monitor_interval_ps(scenario, *series):
    """The monitor sampling interval: monitors.interval from scenario.yaml, or
    else the smallest gap between sample times seen in the monitor files
    (rows are written only for active ports/queues, but the smallest gap is
    still one interval)."""
    v = parse_quantity(get(scenario, "monitors.interval"))
    if v and v > 0:
        return float(round(v * 1e12))
    times = [np.unique(s["time_ps"]) for s in series if s is not None and s["time_ps"].size]
    gaps = [np.diff(t) for t in times if t.size > 1]
    gaps = [g[g > 0].min() for g in gaps if (g > 0).any()]
    return float(min(gaps)) if gaps else None


def time_grid(times, interval_ps, window=None):
    """Every sample instant from the first to the last seen time, extended to
    the monitor `window` (start, end) when given: the monitor files omit idle
    rows, which the plots must show as zeros, but only where the monitor was
    sampling."""
    if times.size == 0:
        return np.zeros(0)
    t0, t1 = float(times.min()), float(times.max())
    if not interval_ps:
        return np.unique(times)
    if window is not None:
        ws, we = window
        if np.isfinite(ws) and ws < t0:
            t0 -= interval_ps * math.floor((t0 - ws) / interval_ps)
        if np.isfinite(we) and we > t1:
            t1 += interval_ps * math.floor((we - t1) / interval_ps)
    n = int(round((t1 - t0) / interval_ps)) + 1
    if n > 2_000_000:  # a pathological interval; fall back to the samples seen
        return np.unique(times)
    return t0 + interval_ps * np.arange(n)


def grid_index(grid, times, interval_ps):
    if interval_ps and grid.size and np.allclose(np.diff(grid), interval_ps):
        idx = np.rint((times - grid[0]) / interval_ps).astype(np.int64)
        return np.clip(idx, 0, grid.size - 1)
    return np.searchsorted(grid, times)


class TimeAxis:
    """The run's time axis, shared by every time plot: 0 to the end of the
    run, in one unit, with the monitor window [start, end] inside it (outside
    it nothing was sampled, so nothing is drawn there) and the nodes the
    monitors were limited to (monitors.nodes; empty: all)."""

    def __init__(self, end_ps, window, nodes=(), events=()):
        self.end_ps = end_ps
        self.window = window
        self.nodes = list(nodes)
        self.events = list(events)  # (time_ps, label) marked on every time plot
        self.div, self.unit = time_scale(end_ps or 1)

    def nodes_note(self):
        """The title suffix of a plot that covers only monitored nodes."""
        if not self.nodes:
            return ""
        shown = ", ".join(str(n) for n in self.nodes[:8]) + (", ..." if len(self.nodes) > 8
                                                            else "")
        return f" (monitored nodes only: {shown})"


def time_axis(scenario, summary, *series):
    """TimeAxis of a results directory: the run ends at summary.json's
    sim_seconds (else the last monitor sample); the window is
    monitors.start/end from scenario.yaml, clipped to the run."""
    end = get(summary or {}, "sim_seconds")
    end_ps = float(end) * 1e12 if isinstance(end, (int, float)) and end > 0 else None
    if end_ps is None:
        last = [s["time_ps"].max() for s in series if s is not None and s["time_ps"].size]
        end_ps = float(max(last)) if last else None
    ws = parse_quantity(get(scenario, "monitors.start"))
    we = parse_quantity(get(scenario, "monitors.end"))
    ws = ws * 1e12 if ws is not None else 0.0
    we = we * 1e12 if we is not None else math.inf
    if end_ps is not None:
        we = min(we, end_ps)
    nodes = get(scenario, "monitors.nodes") or []
    return TimeAxis(end_ps, (ws, we), nodes if isinstance(nodes, list) else [])


def node_kinds(queues, ports):
    """Which node ids are switches: the ones with queues in queues.csv (only
    switch queues are written) or with a port other than 0 (hosts have one)."""
    sw = set()
    if queues is not None:
        sw.update(int(n) for n in np.unique(queues["node"]))
    if ports is not None and ports["node"].size:
        sw.update(int(n) for n in np.unique(ports["node"][ports["port"] > 0]))
    return sw


class NodeNames:
    """Node ids with their names from nodes.csv (host12, tor3, agg1, ...):
    `in` says whether a node is a switch, label() names it.  Plots take it
    where they took the set of switch ids."""

    def __init__(self, names, switches, monitored=None):
        self.names = dict(names)
        self.switches = set(switches)
        # Iterating (a heat map's rows) gives the switches the monitor files
        # hold, not every switch of a fabric whose monitors cover a few.
        self.monitored = sorted(self.switches if monitored is None
                                else self.switches & set(monitored))

    def __contains__(self, node):
        return node in self.switches

    def __iter__(self):
        return iter(self.monitored)

    def __len__(self):
        return len(self.monitored)

    def label(self, node):
        node = int(node)
        if node in self.names:
            return self.names[node]
        return f"switch {node}" if node in self.switches else f"host {node}"


def load_nodes(d):
    """nodes.csv (node,kind,tier,index,name) as (names by id, switch ids), or
    None when the run predates it."""
    path = os.path.join(d, "nodes.csv")
    if not os.path.isfile(path):
        return None
    names, switches = {}, set()
    with open(path, newline="", encoding="utf-8") as f:
        for i, row in enumerate(csv.DictReader(f)):
            try:
                node = int(row["node"])
            except (KeyError, TypeError, ValueError):
                raise ResultsError(f"{path}: line {i + 2}: expected columns "
                                   "node,kind,tier,index,name with an integer node") from None
            names[node] = row.get("name") or str(node)
            if row.get("kind") != "host":
                switches.add(node)
    return names, switches


def node_names(d, queues, ports):
    """The NodeNames of a results directory: nodes.csv where written, else
    switches guessed from the monitor files (node_kinds)."""
    loaded = load_nodes(d)
    seen = node_kinds(queues, ports)
    if loaded is None:
        return NodeNames({}, seen)
    names, switches = loaded
    return NodeNames(names, switches, seen)


def node_label(node, switches):
    if isinstance(switches, NodeNames):
        return switches.label(node)
    return f"switch {node}" if node in switches else f"host {node}"


EVENT_COLS = ["time_ps", "node", "port", "priority", "event"]


def load_events(d):
    """events.csv (faults, watchdog triggers and restores, deadlocks) as a
    list of dicts with int times, or None when absent."""
    path = os.path.join(d, "events.csv")
    if not os.path.isfile(path):
        return None
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in EVENT_COLS if c not in (reader.fieldnames or [])]
        if missing:
            raise ResultsError(f"{path}: missing column(s) {', '.join(missing)}")
        for i, row in enumerate(reader):
            try:
                out.append({"time_ps": int(row["time_ps"]), "node": int(row["node"]),
                            "port": int(row["port"]), "priority": int(row["priority"]),
                            "event": row["event"]})
            except (TypeError, ValueError):
                raise ResultsError(f"{path}: line {i + 2}: not an event row: "
                                   f"{','.join(str(v) for v in row.values())}") from None
    return out


def event_marks(events, nodes, limit=12):
    """The events to mark on the time plots as (time_ps, label): one mark per
    event at one instant (the nodes it hit named in the label); beyond `limit`
    marks, only each kind's first, labelled with how many there were, so a
    watchdog that fires thousands of times stays one readable line."""
    if not events:
        return []
    by_instant = {}
    for e in events:
        by_instant.setdefault((e["time_ps"], e["event"]), []).append(e)
    marks = []
    for (t, kind), es in sorted(by_instant.items()):
        where = sorted({node_label(e["node"], nodes) for e in es})
        shown = ", ".join(where[:3]) + (f" +{len(where) - 3}" if len(where) > 3 else "")
        marks.append((t, f"{kind} {shown}", kind))
    if len(marks) > limit:
        counts = {}
        for _, _, kind in marks:
            counts[kind] = counts.get(kind, 0) + 1
        first = {}
        for t, label, kind in marks:
            first.setdefault(kind, (t, f"{label} (first of {counts[kind]})"
                                    if counts[kind] > 1 else label, kind))
        marks = sorted(first.values())
    return [(t, label) for t, label, _ in marks]


def paused_time_by_port(counters):
    """Total time each port spent paused (counters.csv paused_time_ps summed
    over its intervals) as [(node, port, kind, paused_ps)], longest first;
    ports never paused are left out."""
    if counters is None or counters["time_ps"].size == 0:
        return []
    key = counters["node"].astype(np.int64) * 100000 + counters["port"].astype(np.int64)
    uniq, inv = np.unique(key, return_inverse=True)
    total = np.zeros(uniq.size)
    np.add.at(total, inv, counters["paused_time_ps"])
    out = [(int(k // 100000), int(k % 100000), float(v)) for k, v in zip(uniq, total) if v > 0]
    return sorted(out, key=lambda r: (-r[2], r[0], r[1]))


# --------------------------------------------------------------------------
# Statistics.

def size_bins(sizes, nbins=10):
    """Upper size bounds of up to `nbins` bins holding about equal numbers of
    flows (flow-size percentiles, as in the HPCC paper's slowdown plots), never
    splitting flows of one size across two bins."""
    s = np.sort(np.asarray(sizes, dtype=float))
    s = s[np.isfinite(s)]
    if s.size == 0:
        return []
    uniq, counts = np.unique(s, return_counts=True)
    target = s.size / float(nbins)
    edges, acc, last = [], 0, 0
    for u, c in zip(uniq, counts):
        acc += c
        if acc - last >= target - 1e-9:
            edges.append(float(u))
            last = acc
    if acc > last:  # flows left over after the last full bin
        if edges and acc - last < target / 2:
            edges[-1] = float(uniq[-1])  # too few for a bin of their own
        else:
            edges.append(float(uniq[-1]))
    return edges


def slowdown_by_size(flows, edges):
    """Per size bin: (upper bound, cumulative % of all completed flows at the
    bound, count, p50, p95, p99) over completed flows."""
    done = np.isfinite(flows["slowdown"])
    size, sd = flows["size"][done], flows["slowdown"][done]
    out, lo, total = [], -np.inf, max(int(done.sum()), 1)
    for hi in edges:
        sel = (size > lo) & (size <= hi)
        v = sd[sel]
        cum = 100.0 * np.count_nonzero(size <= hi) / total
        out.append({"upper": hi, "cum_pct": cum, "count": int(v.size),
                    "p50": percentile(v, 50), "p95": percentile(v, 95),
                    "p99": percentile(v, 99)})
        lo = hi
    return out


def flow_throughput(flows, rates, mtu, window=None):
    """Per-flow delivered throughput from rates.csv: the change of snd_una
    (packets acknowledged) times the mtu over each sample interval.  Each flow
    starts at 0 packets at start_ps and, when it finished, ends with all its
    bytes at finish_ps, so the first and last partial intervals count, when
    those instants are inside the monitor `window` (start, end): beyond it
    nothing was sampled and nothing is drawn.
    Returns {flow id: (times_ps, bits_per_s, cc_rate_bps)}."""
    out = {}
    if rates is None or rates["time_ps"].size == 0:
        return out
    order = np.lexsort((rates["time_ps"], rates["flow"]))
    fid, t = rates["flow"][order], rates["time_ps"][order]
    una, cc_rate = rates["snd_una"][order], rates["rate_bps"][order]
    start = {}
    if flows is not None:
        for i, f in enumerate(flows["id"]):
            start[int(f)] = (flows["start_ps"][i], flows["finish_ps"][i], flows["size"][i])
    cuts = np.flatnonzero(np.diff(fid)) + 1
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, fid.size]):
        f = int(fid[lo])
        tt, bytes_ = t[lo:hi], una[lo:hi] * mtu
        rr = cc_rate[lo:hi]
        if f in start:
            s, fin, size = start[f]
            bytes_ = np.minimum(bytes_, size)
            ws, we = window if window is not None else (-math.inf, math.inf)
            if np.isfinite(s) and ws <= s < tt[0]:
                tt, bytes_, rr = np.r_[s, tt], np.r_[0.0, bytes_], np.r_[rr[0], rr]
            if np.isfinite(fin) and tt[-1] < fin <= we:
                tt, bytes_, rr = np.r_[tt, fin], np.r_[bytes_, size], np.r_[rr, rr[-1]]
        if tt.size < 2:
            continue
        dt = np.diff(tt)
        ok = dt > 0
        bps = np.diff(bytes_)[ok] * 8 / (dt[ok] * 1e-12)
        out[f] = (tt[1:][ok], bps, rr[1:][ok])
    return out


def cdf(values):
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    return v, np.arange(1, v.size + 1) / max(v.size, 1)


def time_scale(max_ps):
    """(divisor, unit) putting a time axis in us or ms as fits."""
    if max_ps >= 2e9:  # >= 2 ms
        return 1e9, "ms"
    return 1e6, "\u00b5s"


# --------------------------------------------------------------------------
# Sweeps.

# Column names (normalised: lower case, '.' -> '_') that are results, not
# parameters, in a sweep.csv; anything else is taken to be a swept parameter
# unless --param says otherwise.
_METRIC_PREFIXES = ("slowdown", "drops", "pfc", "pause", "ecn", "cnp", "fct", "flows",
                    "run_", "sim_", "wall", "cpu", "events", "peak_rss", "acks", "naks",
                    "retransmit", "timeouts", "conservation", "all_flows", "throughput",
                    "goodput", "completed", "total", "incomplete")
_ID_COLUMNS = {"point", "index", "idx", "i", "dir", "results", "results_dir", "path",
               "output", "label", "name", "status", "error", "exit_code", "ok", "seeds"}
# The swept key whose values repeat a point rather than change it.
SEED_COLUMN = "seed"


def norm_col(c):
    return c.strip().lower().replace(".", "_").replace("-", "_")


def load_sweep(d):
    """sweep.csv as (header, rows as dicts); None when absent."""
    path = os.path.join(d, "sweep.csv")
    if not os.path.isfile(path):
        return None
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        header = [h for h in (reader.fieldnames or [])]
    if not header:
        raise ResultsError(f"{path}: empty file")
    return header, rows


def sweep_columns(header, param=None, metric="slowdown_p99"):
    """(parameter columns, metric column) of a sweep.csv header.  The first
    parameter column goes on the x axis; `param` and `metric` may name
    columns with '.' or '_' interchangeably."""
    by_norm = {norm_col(h): h for h in header}
    m = by_norm.get(norm_col(metric))
    if m is None:
        raise ResultsError(f"sweep.csv has no column '{metric}' "
                           f"(columns: {', '.join(header)}); choose one with --metric")
    params = [h for h in header
              if h != m and norm_col(h) not in _ID_COLUMNS
              and not norm_col(h).startswith(_METRIC_PREFIXES)]
    if param is not None:
        p = by_norm.get(norm_col(param))
        if p is None:
            raise ResultsError(f"sweep.csv has no column '{param}' (columns: {', '.join(header)})")
        params = [p] + [h for h in params if h != p]
    if not params:
        raise ResultsError("sweep.csv has no parameter column (every column looks like a "
                           f"result: {', '.join(header)}); name one with --param")
    return params, m


# --------------------------------------------------------------------------
# Statistics over seeds: the same rule as sweep.csv's <metric>_mean and
# <metric>_ci95 columns (src/sweep/seed_statistics.cpp).

# Student t 0.975 quantiles for 1..30 degrees of freedom (scipy.stats.t.ppf).
_T975 = [12.7062047364, 4.3026527299, 3.1824463053, 2.7764451052, 2.5705818366, 2.4469118488,
         2.3646242510, 2.3060041350, 2.2621571627, 2.2281388520, 2.2009851601, 2.1788128297,
         2.1603686565, 2.1447866879, 2.1314495456, 2.1199052992, 2.1098155778, 2.1009220402,
         2.0930240544, 2.0859634473, 2.0796138447, 2.0738730679, 2.0686576104, 2.0638985616,
         2.0595385528, 2.0555294386, 2.0518305165, 2.0484071418, 2.0452296421, 2.0422724563]


def t975(df):
    """Two-sided 95% Student t quantile; Cornish-Fisher beyond the table."""
    if df < 1:
        return float("nan")
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = 1.959963984540054, float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4


def mean_ci95(values):
    """(n, mean, 95% half-width or None with fewer than two values)."""
    v = [float(x) for x in values]
    if not v:
        return 0, float("nan"), None
    m = v[0] + sum(x - v[0] for x in v) / len(v)  # exact when the seeds agree
    if len(v) < 2:
        return len(v), m, None
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))
    return len(v), m, t975(len(v) - 1) * sd / math.sqrt(len(v))


def incomplete_fraction(row):
    """Fraction of a sweep point's flows that did not complete, or None."""
    f = parse_quantity(row.get("flows_incomplete_fraction"))
    if f is not None:
        return f
    total, done = parse_quantity(row.get("flows_total")), parse_quantity(row.get("flows_completed"))
    if total and done is not None:
        return (total - done) / total
    return None


def sweep_aggregate(rows, params, metric):
    """The sweep plot's points: [(line label, [point])], one line per
    combination of the parameters after the first (seed aside), one point per
    x value with {x, n, mean, ci, incomplete}: the mean and 95% interval of
    `metric` over the rows that differ only in seed (status ok), and the mean
    fraction of their flows that did not complete."""
    x = params[0]
    others = [p for p in params[1:] if norm_col(p) != SEED_COLUMN]
    cells = {}
    for r in rows:
        if r.get("status", "ok") not in ("", "ok") or r.get(x) in (None, ""):
            continue
        line = ", ".join(f"{o}={r.get(o)}" for o in others)
        cell = cells.setdefault((line, r[x]), {"y": [], "inc": []})
        y = parse_quantity(r.get(metric))
        if y is not None:
            cell["y"].append(y)
        inc = incomplete_fraction(r)
        if inc is not None:
            cell["inc"].append(inc)
    lines = {}
    for (line, xv), cell in cells.items():
        if not cell["y"]:
            continue
        n, m, ci = mean_ci95(cell["y"])
        inc = sum(cell["inc"]) / len(cell["inc"]) if cell["inc"] else None
        lines.setdefault(line, []).append({"x": xv, "n": n, "mean": m, "ci": ci,
                                           "incomplete": inc})
    return list(lines.items())
