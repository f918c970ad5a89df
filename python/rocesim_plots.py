"""The figures of `rocesim report` and `rocesim compare`, drawn with
matplotlib's Agg backend (no display needed) and saved as PNG.

Each function takes already-loaded data (see rocesim_data) and a PNG path,
and returns a short note when there was nothing to draw instead of saving
an empty figure.
"""

import matplotlib

matplotlib.use("Agg")  # before pyplot: headless machines and CI have no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LogNorm, Normalize  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

import rocesim_data as rd  # noqa: E402

DPI = 110
# Axis labels of the sweep.csv metrics rocesim writes (others show as named).
METRIC_LABELS = {
    "slowdown_p50": "p50 FCT slowdown", "slowdown_p95": "p95 FCT slowdown",
    "slowdown_p99": "p99 FCT slowdown", "slowdown_mean": "mean FCT slowdown",
    "slowdown_max": "max FCT slowdown", "drops": "packets dropped",
    "drops_total": "packets dropped", "pause_frames": "PFC pause frames sent",
    "pfc_pause_frames_sent": "PFC pause frames sent", "ecn_marks": "ECN-marked packets",
    "flows_completed": "flows completed", "sim_seconds": "simulated time (s)",
    "sim_ms": "simulated time (ms)", "wall_seconds": "wall time (s)",
    "cpu_seconds": "CPU time (s)", "pause_frames_sent": "PFC pause frames sent",
    "cnps_sent": "CNPs sent", "flows_incomplete": "flows not completed",
    "flows_incomplete_fraction": "fraction of flows not completed",
}
PERCENTILE_STYLE = {"p50": dict(marker="o", ls="-"),
                    "p95": dict(marker="s", ls="--"),
                    "p99": dict(marker="^", ls=":")}


def _new(figsize=(9, 4.8), **kw):
    fig, ax = plt.subplots(figsize=figsize, **kw)
    return fig, ax


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _colors(n):
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def _grid(ax):
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)


def _log_if_wide(ax, values, axis="y", ratio=20.0):
    """Log scale when positive values span more than `ratio`: slowdowns and
    FCTs of mice and elephants differ by orders of magnitude."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size and v.max() / v.min() > ratio:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        fmt = FuncFormatter(lambda x, _: f"{x:g}")
        (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def _legend(ax, n, outside=False, **kw):
    """Time series fill the whole width, so their legend goes beside the
    axes (outside=True) instead of hiding a burst; so does any long legend."""
    if outside or n > 12:
        kw.pop("loc", None)
        ax.legend(fontsize=7 if n > 12 else 8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0, **kw)
    else:
        ax.legend(fontsize=8, **kw)


def _bin_ticks(ax, bins):
    ax.set_xticks(range(len(bins)))
    ax.set_xticklabels([f"{rd.fmt_size(b['upper'])}\n{b['cum_pct']:.0f}%" for b in bins],
                       fontsize=8)
    ax.set_xlabel("flow size (bin upper bound) and cumulative % of flows")


# --------------------------------------------------------------------------
# Flow completion.

def slowdown_by_size(bins, path, title):
    """HPCC-paper style: flows binned by size percentile, p50/p95/p99
    slowdown per bin."""
    if not bins or not any(b["count"] for b in bins):
        return "no completed flows"
    fig, ax = _new()
    x = np.arange(len(bins))
    allv = []
    for p in ("p50", "p95", "p99"):
        y = np.array([b[p] if b["count"] else np.nan for b in bins])
        allv.extend(y)
        ax.plot(x, y, label=f"{p} slowdown", **PERCENTILE_STYLE[p])
    _log_if_wide(ax, allv, ratio=10)
    _bin_ticks(ax, bins)
    ax.set_ylabel("FCT slowdown (FCT / ideal FCT)")
    ax.set_title(title)
    _grid(ax)
    ax.legend(fontsize=8)
    _save(fig, path)
    return None


def fct_cdf(flows, path, title):
    """CDF of FCT, overall and per tag when there are several tags, beside
    the CDF of slowdown."""
    done = np.isfinite(flows["fct_ps"])
    if not done.any():
        return "no completed flows"
    tags = np.array(flows["tag"])
    groups = [("all flows", done)]
    uniq = sorted(set(tags[done]))
    if 1 < len(uniq) <= 8:
        groups += [(f"tag {t}", done & (tags == t)) for t in uniq]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.6))
    colors = _colors(len(groups))
    for (label, sel), c in zip(groups, colors):
        n = int(sel.sum())
        x, y = rd.cdf(flows["fct_ps"][sel] / 1e6)
        a1.step(x, y, where="post", color=c, label=f"{label} (n={n})",
                lw=2.2 if label == "all flows" else 1.4)
        x, y = rd.cdf(flows["slowdown"][sel])
        a2.step(x, y, where="post", color=c, label=f"{label} (n={n})",
                lw=2.2 if label == "all flows" else 1.4)
    _log_if_wide(a1, flows["fct_ps"][done], axis="x", ratio=10)
    _log_if_wide(a2, flows["slowdown"][done], axis="x", ratio=10)
    a1.set_xlabel("flow completion time (\u00b5s)")
    a2.set_xlabel("FCT slowdown (FCT / ideal FCT)")
    for a in (a1, a2):
        a.set_ylabel("fraction of completed flows")
        a.set_ylim(0, 1.02)
        _grid(a)
        a.legend(fontsize=8, loc="lower right")
    a1.set_title("FCT CDF")
    a2.set_title("Slowdown CDF")
    fig.suptitle(title)
    _save(fig, path)
    return None


# --------------------------------------------------------------------------
# Time series.

# Above this many cells (series x samples) the min-max band of the series
# not drawn is left out rather than built in memory.
BAND_LIMIT = 20_000_000


def _time_unit(tax, grid_max):
    """(divisor, unit) of the run's time axis, or of this plot's data."""
    return (tax.div, tax.unit) if tax is not None else rd.time_scale(grid_max)


def _run_time_axis(ax, tax):
    """Every time plot spans the whole run (0 to its end) so plots line up;
    where the monitor window does not reach, the axis is greyed and says so."""
    if tax is None or not tax.end_ps:
        return
    end = tax.end_ps / tax.div
    ax.set_xlim(0, end)
    ws, we = (w / tax.div for w in tax.window)
    for lo, hi in ((0.0, ws), (we, end)):
        if hi - lo > 1e-9 * max(end, 1e-30):
            ax.axvspan(lo, hi, color="#ebebeb", zorder=0, lw=0)
            ax.text((lo + hi) / 2, 0.97, "not monitored", transform=ax.get_xaxis_transform(),
                    ha="center", va="top", fontsize=7, color="#777")
    _event_lines(ax, tax)


def _event_lines(ax, tax):
    """events.csv (faults, watchdog triggers, deadlocks) as labelled vertical
    lines, so a time plot shows what happened when."""
    for i, (t, label) in enumerate(tax.events):
        x = t / tax.div
        ax.axvline(x, color="#b2182b", lw=1.0, ls="--", zorder=3)
        # Staggered heights: marks close in time do not print over each other.
        ax.text(x, 0.95 - 0.12 * (i % 4), f" {label}", transform=ax.get_xaxis_transform(),
                rotation=0, ha="left", va="top", fontsize=7, color="#b2182b",
                bbox=dict(facecolor="white", alpha=0.7, lw=0, pad=1), zorder=4)


def _lines_and_band(ax, x, matrix, order, labels, top, what, scale=1.0, steps=True):
    """The `top` series of `order` (row indices, most important first) as
    lines, and the minimum to maximum of all the others at each instant as
    one grey band: a crowded plot stays readable and still shows the rest.
    Returns the title note."""
    shown, rest = order[:top], order[top:]
    style = dict(drawstyle="steps-pre") if steps else {}
    for r, c in zip(shown, _colors(len(shown))):
        ax.plot(x, matrix[r] * scale, color=c, lw=1.2, label=labels[r], **style)
    if len(rest) == 0:
        return ""
    band = f"other {len(rest)} {what} (min\u2013max)"
    lo = matrix[rest].min(axis=0) * scale
    hi = matrix[rest].max(axis=0) * scale
    ax.fill_between(x, lo, hi, color="0.55", alpha=0.35, lw=0, label=band,
                    step="pre" if steps else None)
    return f" (top {len(shown)} of {len(order)} {what}; grey: min\u2013max of the rest)"


def _series_matrix(keys, idx, values, size, accumulate=True):
    """(unique keys, matrix of one row per key over `size` grid samples)."""
    uniq, inv = np.unique(keys, return_inverse=True)
    m = np.zeros((uniq.size, size))
    if accumulate:
        np.add.at(m, (inv, idx), values)
    else:
        m[inv, idx] = values
    return uniq, m


def flow_throughput(flows, thr, path, title, top, tax=None):
    """Delivered throughput (from snd_una) and CC rate of the `top` largest
    flows over time, and a min-max band of the other flows."""
    if not thr:
        return "rates.csv has no samples"
    ids = list(thr)
    size = {}
    tag = {}
    if flows is not None:
        for i, f in enumerate(flows["id"]):
            size[int(f)] = flows["size"][i]
            tag[int(f)] = flows["tag"][i]
    # Largest flows first, earlier ids on ties: elephants carry the story.
    ids.sort(key=lambda f: (-size.get(f, 0), f))
    shown, rest = ids[:top], ids[top:]
    tmax = max(thr[f][0].max() for f in shown)
    div, unit = _time_unit(tax, tmax)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for f, c in zip(shown, _colors(len(shown))):
        t, bps, rate = thr[f]
        lab = f"flow {f}"
        if tag.get(f):
            lab += f" ({tag[f]})"
        # steps-pre: each value is the average over the interval ending at t.
        a1.plot(t / div, bps / 1e9, color=c, lw=1.2, label=lab, drawstyle="steps-pre")
        a2.plot(t / div, rate / 1e9, color=c, lw=1.2, label=lab)
    note = ""
    if rest:
        # The other flows on the sample instants they share: min and max of
        # those active at each instant.
        times = np.unique(np.concatenate([thr[f][0] for f in rest]))
        if times.size * len(rest) <= BAND_LIMIT:
            for ax, col in ((a1, 1), (a2, 2)):
                m = np.full((len(rest), times.size), np.nan)
                for i, f in enumerate(rest):
                    m[i, np.searchsorted(times, thr[f][0])] = thr[f][col]
                active = np.isfinite(m).any(axis=0)
                lo = np.nanmin(m[:, active], axis=0)
                hi = np.nanmax(m[:, active], axis=0)
                ax.fill_between(times[active] / div, lo / 1e9, hi / 1e9, color="0.55",
                                alpha=0.35, lw=0,
                                label=f"other {len(rest)} flows (min\u2013max)")
            note = f" (largest {len(shown)} of {len(ids)} flows; grey: min\u2013max of the rest)"
        else:
            note = f" (largest {len(shown)} of {len(ids)} flows)"
    a1.set_ylabel("delivered throughput\n(Gb/s of payload)")
    a2.set_ylabel("CC sending rate\n(Gb/s)")
    a2.set_xlabel(f"time ({unit})")
    a1.set_title(f"Per-flow throughput{note}")
    a2.set_title("Rate set by congestion control (rate limiter)")
    for a in (a1, a2):
        a.set_ylim(bottom=0)
        _grid(a)
        _run_time_axis(a, tax)
    _legend(a1, len(shown) + (1 if rest else 0), outside=True)
    fig.suptitle(title)
    _save(fig, path)
    return None


def _totals(keys, values):
    """{key: sum of values}, vectorised: monitor files run to millions of rows."""
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=values, minlength=uniq.size)
    return {int(k): float(v) for k, v in zip(uniq, sums)}


def port_throughput(ports, switches, interval_ps, path, title, top, tax=None):
    """tx throughput of the `top` busiest ports (tx_bytes per interval, by
    mean), and a min-max band of the other ports."""
    if ports is None or ports["time_ps"].size == 0 or not interval_ps:
        return "ports.csv has no samples"
    key = ports["node"].astype(np.int64) * 100000 + ports["port"].astype(np.int64)
    busy = ports["tx_bytes"] > 0
    if not busy.any():
        return "no port transmitted anything"
    window = tax.window if tax is not None else None
    grid = rd.time_grid(ports["time_ps"], interval_ps, window)
    idx = rd.grid_index(grid, ports["time_ps"], interval_ps)
    active = np.unique(key[busy])
    sel = np.isin(key, active)
    if active.size * grid.size > BAND_LIMIT:  # only the busiest, no band
        totals = _totals(key[sel], ports["tx_bytes"][sel])
        keep = np.array(sorted(totals, key=lambda k: -totals[k])[:top])
        sel &= np.isin(key, keep)
    uniq, m = _series_matrix(key[sel], idx[sel], ports["tx_bytes"][sel], grid.size)
    order = np.argsort(-m.sum(axis=1), kind="stable")
    labels = [f"{rd.node_label(int(k) // 100000, switches)} port {int(k) % 100000}" for k in uniq]
    div, unit = _time_unit(tax, grid.max())
    fig, ax = _new(figsize=(10, 5))
    note = _lines_and_band(ax, grid / div, m, order, labels, top, "ports",
                           scale=8 / (interval_ps * 1e-12) / 1e9)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel(f"tx throughput (Gb/s, per {interval_ps / 1e6:g} \u00b5s interval)")
    nodes = tax.nodes_note() if tax is not None else ""
    ax.set_title(f"{title}: port throughput{nodes}{note}", fontsize=10)
    ax.set_ylim(bottom=0)
    _grid(ax)
    _run_time_axis(ax, tax)
    _legend(ax, min(top, len(order)) + 1, outside=True)
    _save(fig, path)
    return None


def queue_occupancy(queues, interval_ps, path, title, top, tax=None, nodes=None,
                    what="switch queue"):
    """Bytes queued in the `top` switch queues with the highest peak over
    time, and a min-max band of the other queues (`what`: "CIOQ input
    queue" for input_queues.csv)."""
    if queues is None or queues["time_ps"].size == 0:
        return f"no samples (no {what} was ever non-empty at a sample)"
    key = (queues["node"].astype(np.int64) * 100000 + queues["port"].astype(np.int64)) * 10 \
        + queues["priority"].astype(np.int64)
    window = tax.window if tax is not None else None
    grid = rd.time_grid(queues["time_ps"], interval_ps, window)
    idx = rd.grid_index(grid, queues["time_ps"], interval_ps)
    sel = np.ones(key.size, dtype=bool)
    if np.unique(key).size * grid.size > BAND_LIMIT:  # only the highest peaks, no band
        uniq, inv = np.unique(key, return_inverse=True)
        peak = np.zeros(uniq.size)
        np.maximum.at(peak, inv, queues["bytes"])
        sel = np.isin(key, uniq[np.argsort(-peak, kind="stable")[:top]])
    uniq, m = _series_matrix(key[sel], idx[sel], queues["bytes"][sel], grid.size,
                             accumulate=False)
    # By peak, then by mean: a short burst to the buffer limit matters.
    order = np.lexsort((-m.sum(axis=1), -m.max(axis=1)))
    labels = []
    for k in uniq:
        node_port, prio = divmod(int(k), 10)
        node, port = divmod(node_port, 100000)
        name = rd.node_label(node, nodes) if nodes is not None else f"switch {node}"
        labels.append(f"{name} port {port} prio {prio}")
    div, unit = _time_unit(tax, grid.max())
    fig, ax = _new(figsize=(10, 5))
    note = _lines_and_band(ax, grid / div, m, order, labels, top, "queues", scale=1e-3,
                           steps=False)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel(f"{what} occupancy (KB)")
    monitored = tax.nodes_note() if tax is not None else ""
    ax.set_title(f"{title}: {what} occupancy{monitored}{note}", fontsize=10)
    ax.set_ylim(bottom=0)
    _grid(ax)
    _run_time_axis(ax, tax)
    _legend(ax, min(top, len(order)) + 1, outside=True)
    _save(fig, path)
    return None


def paused_time(paused, nodes, path, title, top, run_ps=None):
    """Time each port spent paused by PFC (counters.csv), the `top` ports
    longest first, as horizontal bars (in % of the run when its length is
    known)."""
    if not paused:
        return "no port was paused"
    shown = paused[:top]
    labels = [f"{rd.node_label(n, nodes)} port {p}" for n, p, _ in shown]
    values = np.array([v for _, _, v in shown])
    if run_ps:
        values, unit = values / run_ps * 100, "% of the run"
    else:
        div, u = rd.time_scale(values.max())
        values, unit = values / div, u
    fig, ax = _new(figsize=(9, 0.8 + 0.28 * len(shown)))
    y = np.arange(len(shown))
    ax.barh(y, values, color="#2166ac")
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"time paused ({unit})")
    more = f" (top {len(shown)} of {len(paused)} paused ports)" if len(paused) > len(shown) else ""
    ax.set_title(f"{title}: time paused per port{more}", fontsize=10)
    _grid(ax)
    _save(fig, path)
    return None


def _pause_matrix(ports, interval_ps, rows=None, window=None):
    """(nodes, time grid, pause frames sent per node and sample); rows are
    the nodes that sent pauses, plus `rows` (e.g. every switch) if given."""
    sent = ports["pause_sent"] > 0
    if not sent.any():
        return None
    grid = rd.time_grid(ports["time_ps"], interval_ps, window)
    idx = rd.grid_index(grid, ports["time_ps"], interval_ps)
    nodes = sorted(set(int(n) for n in np.unique(ports["node"][sent])) | set(rows or ()))
    rows_of = np.searchsorted(np.array(nodes), ports["node"][sent].astype(np.int64))
    m = np.zeros((len(nodes), grid.size))
    np.add.at(m, (rows_of, idx[sent]), ports["pause_sent"][sent])
    return nodes, grid, m


def pause_frames(ports, switches, interval_ps, path, title, top, tax=None):
    """PFC pause frames sent per interval, summed over each node's ports: the
    `top` nodes by total and a min-max band of the other nodes that paused."""
    if ports is None or ports["time_ps"].size == 0:
        return "ports.csv has no samples"
    pm = _pause_matrix(ports, interval_ps, window=tax.window if tax is not None else None)
    if pm is None:
        return "no PFC pause frames were sent"
    nodes, grid, m = pm
    order = np.argsort(-m.sum(axis=1), kind="stable")
    labels = [f"{rd.node_label(n, switches)} ({int(m[r].sum())} total)"
              for r, n in enumerate(nodes)]
    div, unit = _time_unit(tax, grid.max())
    fig, ax = _new(figsize=(10, 5))
    note = _lines_and_band(ax, grid / div, m, order, labels, top, "nodes")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"time ({unit})")
    per = f"per {interval_ps / 1e6:g} \u00b5s interval" if interval_ps else "per sample"
    ax.set_ylabel(f"pause frames sent ({per})")
    monitored = tax.nodes_note() if tax is not None else ""
    ax.set_title(f"{title}: PFC pause frames sent per node{monitored}{note}", fontsize=10)
    ax.set_ylim(bottom=0)
    _grid(ax)
    _run_time_axis(ax, tax)
    _legend(ax, min(top, len(order)) + 1, outside=True)
    _save(fig, path)
    return None


def pause_heatmap(ports, switches, interval_ps, path, title, max_cols=300, max_rows=64,
                  tax=None):
    """Node x time heat map of pause frames sent.  Every switch gets a row
    (quiet ones show where congestion did not spread) unless there are more
    than `max_rows`, when only nodes that paused are shown; time is binned
    to at most `max_cols` columns so long runs stay legible."""
    if ports is None or ports["time_ps"].size == 0:
        return "ports.csv has no samples"
    pm = _pause_matrix(ports, interval_ps, switches if len(switches) <= max_rows else None,
                       window=tax.window if tax is not None else None)
    if pm is None:
        return "no PFC pause frames were sent"
    nodes, grid, m = pm
    if len(nodes) > max_rows:  # keep the nodes that paused most, in id order
        keep = np.sort(np.argsort(-m.sum(axis=1))[:max_rows])
        nodes, m = [nodes[i] for i in keep], m[keep]
    per = max(1, int(np.ceil(grid.size / max_cols)))
    ncols = int(np.ceil(grid.size / per))
    pad = ncols * per - grid.size
    mb = np.pad(m, ((0, 0), (0, pad))).reshape(len(nodes), ncols, per).sum(axis=2)
    step = (interval_ps or (grid[1] - grid[0] if grid.size > 1 else 1)) * per
    div, unit = _time_unit(tax, grid.max())
    # A sample at time t counts the interval (t - interval, t]: draw it there.
    first = grid[0] - (interval_ps or 0)
    t0, t1 = first / div, (first + step * ncols) / div
    fig, ax = _new(figsize=(10, min(12.0, max(3.2, 1.4 + 0.28 * len(nodes)))))
    masked = np.ma.masked_where(mb <= 0, mb)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#f2f2f2")  # intervals without pauses stay light grey
    # Log colours when counts span a wide range, so single pauses still show.
    norm = LogNorm(vmin=1, vmax=mb.max()) if mb.max() > 20 else Normalize(0, mb.max())
    im = ax.imshow(masked, aspect="auto", interpolation="nearest", cmap=cmap, norm=norm,
                   extent=(t0, t1, len(nodes) - 0.5, -0.5))
    ax.set_yticks(range(len(nodes)))
    ax.set_yticklabels([rd.node_label(n, switches) for n in nodes],
                       fontsize=8 if len(nodes) <= 32 else 6)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("node")
    cb = fig.colorbar(im, ax=ax, pad=0.01, format=FuncFormatter(lambda x, _: f"{x:g}"))
    if norm.__class__ is Normalize:
        cb.locator = MaxNLocator(integer=True)  # counts: no 0.25 pause frames
        cb.update_ticks()
    cb.set_label(f"pause frames sent\nper {step / 1e6:g} \u00b5s")
    monitored = tax.nodes_note() if tax is not None else ""
    ax.set_title(f"{title}: PFC pause frames sent (node \u00d7 time; grey = none){monitored}",
                 fontsize=10)
    _run_time_axis(ax, tax)
    _save(fig, path)
    return None


# --------------------------------------------------------------------------
# Comparisons.

def compare_slowdown_by_size(runs, edges, path):
    """p50 and p99 slowdown by size bin, one line per run; the bins come from
    all runs' flows together so the x positions mean the same in every run."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharex=True)
    drawn = False
    colors = _colors(len(runs))
    bins_ref = None
    for (label, flows), c in zip(runs, colors):
        if flows is None:
            continue
        bins = rd.slowdown_by_size(flows, edges)
        if not any(b["count"] for b in bins):
            continue
        bins_ref = bins_ref or bins
        drawn = True
        for ax, p in zip(axes, ("p50", "p99")):
            y = [b[p] if b["count"] else np.nan for b in bins]
            ax.plot(range(len(bins)), y, color=c, label=label, ls="-",
                    marker=PERCENTILE_STYLE[p]["marker"])
    if not drawn:
        plt.close(fig)
        return "no run has completed flows"
    # Tick labels from the union of flows: cumulative % over all runs.
    for ax, p in zip(axes, ("p50", "p99")):
        _log_if_wide(ax, [v for line in ax.get_lines() for v in line.get_ydata()], ratio=10)
        _bin_ticks(ax, bins_ref)
        ax.set_ylabel(f"{p} FCT slowdown")
        ax.set_title(f"{p} slowdown by flow size")
        _grid(ax)
        _legend(ax, len(runs))
    _save(fig, path)
    return None


def compare_fct_cdf(runs, path):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.8))
    allf, alls, n = [], [], 0
    for (label, flows), c in zip(runs, _colors(len(runs))):
        if flows is None or not np.isfinite(flows["fct_ps"]).any():
            continue
        n += 1
        x, y = rd.cdf(flows["fct_ps"] / 1e6)
        a1.step(x, y, where="post", color=c, label=label, lw=1.5)
        allf.extend(x)
        x, y = rd.cdf(flows["slowdown"])
        a2.step(x, y, where="post", color=c, label=label, lw=1.5)
        alls.extend(x)
    if n == 0:
        plt.close(fig)
        return "no run has completed flows"
    _log_if_wide(a1, allf, axis="x", ratio=10)
    _log_if_wide(a2, alls, axis="x", ratio=10)
    a1.set_xlabel("flow completion time (\u00b5s)")
    a2.set_xlabel("FCT slowdown (FCT / ideal FCT)")
    a1.set_title("FCT CDF")
    a2.set_title("Slowdown CDF")
    for a in (a1, a2):
        a.set_ylabel("fraction of completed flows")
        a.set_ylim(0, 1.02)
        _grid(a)
        _legend(a, n, loc="lower right")
    _save(fig, path)
    return None


def sweep_plot(lines, xname, metric, path, title):
    """`metric` against the first swept parameter, one line per combination
    of the other parameters (seed aside): the mean over seeds with its 95%
    confidence interval as error bars and a shaded band.  Points where some
    flows did not complete get a red ring and their incomplete fraction: their
    slowdowns cover completed flows only.  `lines` is
    rocesim_data.sweep_aggregate's [(line label, [point])]."""
    fig, ax = _new()
    xs_all = [p["x"] for _, pts in lines for p in pts]
    numeric = [rd.parse_quantity(x) for x in xs_all]
    is_num = all(v is not None for v in numeric)
    cats = list(dict.fromkeys(xs_all))  # categorical x: order of first appearance
    ys_all, seeds, flagged = [], set(), False
    for k, ((label, pts), c) in enumerate(zip(lines, _colors(len(lines)))):
        pts = sorted(pts, key=lambda p: rd.parse_quantity(p["x"])) if is_num else \
            sorted(pts, key=lambda p: cats.index(p["x"]))
        xv = np.array([rd.parse_quantity(p["x"]) if is_num else cats.index(p["x"]) for p in pts],
                      dtype=float)
        yv = np.array([p["mean"] for p in pts])
        ci = np.array([p["ci"] if p["ci"] is not None else 0.0 for p in pts])
        seeds.update(p["n"] for p in pts)
        ys_all.extend(yv - ci)
        ys_all.extend(yv + ci)
        ax.errorbar(xv, yv, yerr=ci if ci.any() else None, marker="o", color=c, capsize=3,
                    label=label or None)
        if ci.any():
            ax.fill_between(xv, yv - ci, yv + ci, color=c, alpha=0.15, lw=0)
        for x, y, p in zip(xv, yv, pts):
            if p["incomplete"]:
                flagged = True
                ax.plot([x], [y], marker="o", ms=13, mfc="none", mec="red", mew=1.8, ls="none")
                # In the line's colour, alternately above and below: lines
                # often meet.
                ax.annotate(f"{p['incomplete'] * 100:.2g}% incomplete", (x, y),
                            xytext=(9, 7 if k % 2 == 0 else -15), textcoords="offset points",
                            color=c, fontsize=7, fontweight="bold")
    if is_num:
        vals = sorted(set(numeric))
        if len(vals) > 2 and vals[0] > 0 and vals[-1] / vals[0] > 10:
            ax.set_xscale("log")
        # Ticks as the sweep wrote them ("400KB"), not as bytes.
        label_of = {rd.parse_quantity(x): x for x in xs_all}
        if len(vals) <= 12:
            ax.set_xticks(vals)
            ax.set_xticklabels([label_of[v] for v in vals], fontsize=8)
            ax.minorticks_off() if ax.get_xscale() == "log" else None
    else:
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, fontsize=8)
    _log_if_wide(ax, ys_all, ratio=50)
    ax.set_xlabel(xname)
    ax.set_ylabel(METRIC_LABELS.get(rd.norm_col(metric), metric))
    if max(seeds, default=1) > 1:
        n = f"{min(seeds)}-{max(seeds)}" if min(seeds) != max(seeds) else f"{max(seeds)}"
        title += f"\nmean and 95% confidence interval over {n} seeds"
    else:
        title += "\none seed per point: no confidence interval"
    ax.set_title(title, fontsize=10)
    _grid(ax)
    handles, labels = ax.get_legend_handles_labels()
    if flagged:
        handles.append(plt.Line2D([], [], marker="o", ms=10, mfc="none", mec="red", mew=1.8,
                                  ls="none"))
        labels.append("some flows did not complete\n(slowdown of completed flows only)")
    if handles:
        ax.legend(handles, labels, fontsize=8)
    _save(fig, path)
    return None


# --------------------------------------------------------------------------
# Collectives (AI training jobs).

def collective_iterations(rows, path, title):
    """Per job: each iteration's time against its idle-fabric ideal (left),
    and its bus bandwidth at the time it finished (right). Training jobs
    (SimAI workloads) run many operations and have no busbw: when no job
    has one, the right side shows each iteration's slowdown instead."""
    jobs = sorted({r["tag"] for r in rows})
    done = [r for r in rows if np.isfinite(r["time_ps"])]
    if not done:
        return "no collective instance completed"
    right_key = "busbw_gbps" if any(np.isfinite(r["busbw_gbps"]) for r in done) else "slowdown"
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for job, color in zip(jobs, _colors(len(jobs))):
        mine = sorted((r for r in done if r["tag"] == job), key=lambda r: r["iteration"])
        if not mine:
            continue
        it = [r["iteration"] for r in mine]
        left.plot(it, [r["time_ps"] / 1e9 for r in mine], marker="o", color=color, label=job)
        left.plot(it, [r["ideal_ps"] / 1e9 for r in mine], ls="--", color=color, alpha=0.6,
                  label=f"{job} ideal")
        right.plot([r["finish_ps"] / 1e9 for r in mine], [r[right_key] for r in mine],
                   marker="o", color=color, label=job)
    left.set_xlabel("iteration")
    left.set_ylabel("completion time (ms)")
    left.set_ylim(bottom=0)
    left.set_title("iteration time (dashed: idle-fabric ideal)", fontsize=10)
    right.set_xlabel("time the iteration finished (ms)")
    if right_key == "busbw_gbps":
        right.set_ylabel("bus bandwidth (Gb/s, NCCL's busbw)")
        right.set_title("bus bandwidth over time", fontsize=10)
    else:
        right.set_ylabel("slowdown (time / idle-fabric ideal)")
        right.set_title("iteration slowdown over time", fontsize=10)
    right.set_ylim(bottom=0)
    for ax in (left, right):
        _grid(ax)
        _legend(ax, len(jobs) * 2)
    fig.suptitle(title)
    _save(fig, path)
    return None
