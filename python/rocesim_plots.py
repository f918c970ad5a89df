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
    "cpu_seconds": "CPU time (s)",
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

def flow_throughput(flows, thr, path, title, top):
    """Delivered throughput (from snd_una) and CC rate of the `top` largest
    flows over time."""
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
    shown = ids[:top]
    tmax = max(thr[f][0].max() for f in shown)
    div, unit = rd.time_scale(tmax)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for f, c in zip(shown, _colors(len(shown))):
        t, bps, rate = thr[f]
        lab = f"flow {f}"
        if tag.get(f):
            lab += f" ({tag[f]})"
        # steps-pre: each value is the average over the interval ending at t.
        a1.plot(t / div, bps / 1e9, color=c, lw=1.2, label=lab, drawstyle="steps-pre")
        a2.plot(t / div, rate / 1e9, color=c, lw=1.2, label=lab)
    a1.set_ylabel("delivered throughput\n(Gb/s of payload)")
    a2.set_ylabel("CC sending rate\n(Gb/s)")
    a2.set_xlabel(f"time ({unit})")
    note = f" (largest {len(shown)} of {len(ids)} flows)" if len(ids) > len(shown) else ""
    a1.set_title(f"Per-flow throughput{note}")
    a2.set_title("Rate set by congestion control (rate limiter)")
    for a in (a1, a2):
        a.set_ylim(bottom=0)
        _grid(a)
    _legend(a1, len(shown), outside=True)
    fig.suptitle(title)
    _save(fig, path)
    return None


def _totals(keys, values):
    """{key: sum of values}, vectorised: monitor files run to millions of rows."""
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=values, minlength=uniq.size)
    return {int(k): float(v) for k, v in zip(uniq, sums)}


def port_throughput(ports, switches, interval_ps, path, title, top):
    """tx throughput of the `top` busiest ports (tx_bytes per interval)."""
    if ports is None or ports["time_ps"].size == 0 or not interval_ps:
        return "ports.csv has no samples"
    key = ports["node"].astype(np.int64) * 100000 + ports["port"].astype(np.int64)
    totals = _totals(key, ports["tx_bytes"])
    busiest = sorted(totals, key=lambda k: -totals[k])[:top]
    busiest = [k for k in busiest if totals[k] > 0]
    if not busiest:
        return "no port transmitted anything"
    grid = rd.time_grid(ports["time_ps"], interval_ps)
    idx = rd.grid_index(grid, ports["time_ps"], interval_ps)
    div, unit = rd.time_scale(grid.max())
    fig, ax = _new(figsize=(10, 5))
    for k, c in zip(busiest, _colors(len(busiest))):
        sel = key == k
        v = np.zeros(grid.size)
        np.add.at(v, idx[sel], ports["tx_bytes"][sel])
        node, port = divmod(k, 100000)
        ax.plot(grid / div, v * 8 / (interval_ps * 1e-12) / 1e9, color=c, lw=1.2,
                label=f"{rd.node_label(node, switches)} port {port}", drawstyle="steps-pre")
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel(f"tx throughput (Gb/s, per {interval_ps / 1e6:g} \u00b5s interval)")
    n_all = len([k for k in totals if totals[k] > 0])
    note = f" (busiest {len(busiest)} of {n_all} ports)" if n_all > len(busiest) else ""
    ax.set_title(f"{title}: port throughput{note}")
    ax.set_ylim(bottom=0)
    _grid(ax)
    _legend(ax, len(busiest), outside=True)
    _save(fig, path)
    return None


def queue_occupancy(queues, interval_ps, path, title, top):
    """Bytes queued in the `top` busiest switch queues over time."""
    if queues is None or queues["time_ps"].size == 0:
        return "queues.csv has no samples (no switch queue was ever non-empty at a sample)"
    key = (queues["node"].astype(np.int64) * 100000 + queues["port"].astype(np.int64)) * 10 \
        + queues["priority"].astype(np.int64)
    totals = _totals(key, queues["bytes"])
    busiest = sorted(totals, key=lambda k: -totals[k])[:top]
    grid = rd.time_grid(queues["time_ps"], interval_ps)
    idx = rd.grid_index(grid, queues["time_ps"], interval_ps)
    div, unit = rd.time_scale(grid.max())
    fig, ax = _new(figsize=(10, 5))
    peak = 0.0
    for k, c in zip(busiest, _colors(len(busiest))):
        sel = key == k
        v = np.zeros(grid.size)
        v[idx[sel]] = queues["bytes"][sel]
        peak = max(peak, v.max())
        node_port, prio = divmod(k, 10)
        node, port = divmod(node_port, 100000)
        ax.plot(grid / div, v / 1e3, color=c, lw=1.2,
                label=f"switch {node} port {port} prio {prio}")
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("queue occupancy (KB)")
    note = f" (busiest {len(busiest)} of {len(totals)} queues)" if len(totals) > len(busiest) \
        else ""
    ax.set_title(f"{title}: switch queue occupancy{note}")
    ax.set_ylim(bottom=0)
    _grid(ax)
    _legend(ax, len(busiest), outside=True)
    _save(fig, path)
    return None


def _pause_matrix(ports, interval_ps, rows=None):
    """(nodes, time grid, pause frames sent per node and sample); rows are
    the nodes that sent pauses, plus `rows` (e.g. every switch) if given."""
    sent = ports["pause_sent"] > 0
    if not sent.any():
        return None
    grid = rd.time_grid(ports["time_ps"], interval_ps)
    idx = rd.grid_index(grid, ports["time_ps"], interval_ps)
    nodes = sorted(set(int(n) for n in np.unique(ports["node"][sent])) | set(rows or ()))
    rows_of = np.searchsorted(np.array(nodes), ports["node"][sent].astype(np.int64))
    m = np.zeros((len(nodes), grid.size))
    np.add.at(m, (rows_of, idx[sent]), ports["pause_sent"][sent])
    return nodes, grid, m


def pause_frames(ports, switches, interval_ps, path, title, top):
    """PFC pause frames sent per interval, summed over each node's ports."""
    if ports is None or ports["time_ps"].size == 0:
        return "ports.csv has no samples"
    pm = _pause_matrix(ports, interval_ps)
    if pm is None:
        return "no PFC pause frames were sent"
    nodes, grid, m = pm
    order = np.argsort(-m.sum(axis=1))[:top]
    div, unit = rd.time_scale(grid.max())
    fig, ax = _new(figsize=(10, 5))
    for r, c in zip(order, _colors(len(order))):
        ax.plot(grid / div, m[r], color=c, lw=1.2, drawstyle="steps-pre",
                label=f"{rd.node_label(nodes[r], switches)} ({int(m[r].sum())} total)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"time ({unit})")
    per = f"per {interval_ps / 1e6:g} \u00b5s interval" if interval_ps else "per sample"
    ax.set_ylabel(f"pause frames sent ({per})")
    note = f" (top {len(order)} of {len(nodes)} nodes)" if len(nodes) > len(order) else ""
    ax.set_title(f"{title}: PFC pause frames sent per node{note}")
    ax.set_ylim(bottom=0)
    _grid(ax)
    _legend(ax, len(order), outside=True)
    _save(fig, path)
    return None


def pause_heatmap(ports, switches, interval_ps, path, title, max_cols=300, max_rows=64):
    """Node x time heat map of pause frames sent.  Every switch gets a row
    (quiet ones show where congestion did not spread) unless there are more
    than `max_rows`, when only nodes that paused are shown; time is binned
    to at most `max_cols` columns so long runs stay legible."""
    if ports is None or ports["time_ps"].size == 0:
        return "ports.csv has no samples"
    pm = _pause_matrix(ports, interval_ps, switches if len(switches) <= max_rows else None)
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
    div, unit = rd.time_scale(grid.max())
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
    ax.set_title(f"{title}: PFC pause frames sent (node \u00d7 time; grey = none)")
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


def sweep_plot(points, xname, metric, path, title):
    """`metric` against the first swept parameter; one line per combination
    of the other parameters.  `points` is [(group label, [(x text, y)])]."""
    fig, ax = _new()
    xs_all = [x for _, pts in points for x, _ in pts]
    numeric = [rd.parse_quantity(x) for x in xs_all]
    is_num = all(v is not None for v in numeric)
    cats = list(dict.fromkeys(xs_all))  # categorical x: order of first appearance
    ys_all = []
    colors = _colors(len(points))
    for (group, pts), c in zip(points, colors):
        if is_num:
            pts = sorted(pts, key=lambda p: rd.parse_quantity(p[0]))
            xv = [rd.parse_quantity(x) for x, _ in pts]
        else:
            xv = [cats.index(x) for x, _ in pts]
        yv = [y for _, y in pts]
        ys_all.extend(yv)
        ax.plot(xv, yv, marker="o", color=c, label=group or None)
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
    ax.set_title(title)
    _grid(ax)
    if any(g for g, _ in points):
        _legend(ax, len(points))
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
