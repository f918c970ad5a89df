#!/usr/bin/env python3
"""Plots and HTML reports of rocesim results directories.

Usage (normally through the simulator's command line, which runs this
script with a python3 that has matplotlib):

  rocesim report RESULTS_DIR [-o OUT] [--top N]
      Draws PNGs and one self-contained HTML page (images embedded) into
      OUT (default RESULTS_DIR/report/):
        slowdown_by_size.png   p50/p95/p99 slowdown per flow-size percentile bin
        fct_cdf.png            CDF of FCT and of slowdown (per tag if several)
        flow_throughput.png    per-flow throughput (rates.csv snd_una deltas x mtu)
                               and the CC rate limiter's rate
        port_throughput.png    tx Gb/s of the busiest ports (ports.csv)
        queue_occupancy.png    bytes in the busiest switch queues (queues.csv)
        pause_frames.png       PFC pause frames sent per node over time (ports.csv)
        pause_heatmap.png      the same as a node x time heat map
        report.html            summary table, size-bin table, all of the above
      A plot whose input file is missing (monitors off) is skipped, and the
      page says why.  Every time plot spans the run (0 to summary.json's
      sim_seconds) with the part outside the monitor window greyed and
      nothing drawn there; one limited to monitors.nodes says so; a crowded
      one draws the top N (--top) and a grey min-max band of the rest.

  rocesim compare DIR1 [DIR2 ...] [-o OUT] [--labels a,b,...]
                  [--metric slowdown_p99] [--param NAME]
      Prints a table of key numbers per run (flows completed, slowdown
      p50/p95/p99, drops, pause frames, ECN marks, simulated time, CPU
      seconds) and writes compare.csv, compare.html and overlaid plots
      (slowdown by size, FCT CDF) into OUT (default DIRS' common parent
      /compare).  A DIR holding sweep.csv (from `rocesim sweep`) also gets a
      parameter plot: the first parameter column on x, --metric on y, one line
      per value of the other parameters; rows that differ only in `seed` are
      merged into their mean with a 95% confidence interval (error bars and
      band), and points where flows did not complete are ringed in red.

Run directly as `python3 python/rocesim_report.py report DIR`.  Exit status:
0 done, 2 usage error or a directory that is not usable results, 1 missing
matplotlib/numpy or another failure.
"""

import argparse
import base64
import csv
import datetime
import html
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DEPS_HELP = ("install them with `apt-get install python3-matplotlib python3-numpy "
             "python3-yaml` (scripts/install-deps.sh does), or point ROCESIM_PYTHON "
             "at a python3 that has them")


def _import_deps():
    """numpy and matplotlib are imported only after the arguments and
    directories are checked, so usage errors are reported (exit 2) even on a
    machine without them; their absence is exit 1 with what to install."""
    global rd, rp, np
    try:
        import numpy as np  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as e:
        sys.stderr.write(f"rocesim: error: {sys.executable} cannot import {e.name}: "
                         f"plots need numpy and matplotlib; {DEPS_HELP}\n")
        sys.exit(1)
    import rocesim_data as rd
    import rocesim_plots as rp


class UsageError(Exception):
    pass


# --------------------------------------------------------------------------
# HTML.

CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1150px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
.meta { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 3px 9px; }
th { background: #f3f5f8; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: 4px 10px; margin: 6px 0; }
.wide { overflow-x: auto; max-width: 100%; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
"""


def _num(v, digits=3):
    if v is None or v == "":
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v != v:  # NaN
            return "-"
        if v == int(v) and abs(v) < 1e15 and digits == 0:
            return f"{int(v):,}"
        return f"{v:.{digits}f}"
    return str(v)


def sig(v, digits=3):
    """A number for people: integers in full with thousands separators, other
    values to `digits` significant digits without exponent notation unless
    tiny or huge ("0.00123", "12.3", "1,234")."""
    if v is None or (isinstance(v, float) and v != v):
        return "-"
    v = float(v)
    a = abs(v)
    if v == int(v) and a < 10**digits:
        return f"{int(v):,}"
    if a < 1e-4 or a >= 1e9:
        return f"{v:.{digits - 1}e}"
    decimals = digits - 1 - int(math.floor(math.log10(a)))
    if decimals <= 0:  # 12,345.6 -> 12,300
        return f"{int(round(v, decimals)):,}"
    return f"{v:,.{decimals}f}"


def html_table(header, rows, numeric_from=1):
    out = ["<table><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr>"]
    for r in rows:
        cells = []
        for i, v in enumerate(r):
            cls = ' class="num"' if i >= numeric_from else ""
            cells.append(f"<td{cls}>{html.escape(str(v))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    # A wide table scrolls inside the page instead of stretching it.
    return '<div class="wide">' + "\n".join(out) + "</div>"


def img_tag(png_path, alt):
    with open(png_path, "rb") as f:
        b64 = base64.b64encode(f.read()).decode("ascii")
    return f'<img src="data:image/png;base64,{b64}" alt="{html.escape(alt)}">'


def page(title, body):
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>\n"
            f"{body}\n<p class=\"meta\">Generated by rocesim_report.py on {now}.</p>"
            f"</body></html>\n")


# --------------------------------------------------------------------------
# report

def summary_rows(s):
    """(field, value) rows of the headline numbers in summary.json."""
    g = rd.get
    rows = []

    def add(label, path, digits=3, scale=1.0):
        v = g(s, path)
        if v is None:
            return
        if scale != 1.0 and isinstance(v, (int, float)):
            v = v * scale
        rows.append((label, _num(v, digits)))

    add("flows total", "flows.total")
    add("flows completed", "flows.completed")
    add("flows incomplete", "flows.incomplete")
    for p in ("p50", "p95", "p99", "mean", "max"):
        # null in summary.json: no flow completed, so there is no statistic.
        if isinstance(g(s, "slowdown"), dict) and g(s, f"slowdown.{p}") is None:
            rows.append((f"slowdown {p}", "n/a (no completed flow)"))
        else:
            add(f"slowdown {p}", f"slowdown.{p}")
    drops = g(s, "drops", {})
    if isinstance(drops, dict):
        rows.append(("drops total", _num(drops.get("total"))))
        for k, v in sorted(drops.items()):
            if k != "total" and v:  # causes that happened
                rows.append((f"drops: {k.replace('_', ' ')}", _num(v)))
    add("PFC pause frames sent", "pfc.pause_frames_sent")
    add("PFC pause frames received", "pfc.pause_frames_received")
    add("ECN marks", "ecn_marks")
    add("CNPs sent", "cnps_sent")
    add("CNPs received", "cnps_received")
    add("retransmitted packets", "retransmitted_packets")
    add("timeouts", "timeouts")
    add("all flows done", "all_flows_done")
    add("simulated time (ms)", "sim_seconds", 3, 1e3)
    add("events", "events")
    add("wall time (s)", "run.wall_seconds", 2)
    add("CPU time (s)", "run.cpu_seconds", 2)
    add("peak RSS (MB)", "run.peak_rss_bytes", 1, 1e-6)
    add("events per second (M)", "run.events_per_second", 2, 1e-6)
    # How the run was spread (absent from results written before they were recorded).
    add("MPI ranks", "run.ranks")
    add("threads per rank", "run.threads")
    add("partitions", "run.partitions")
    # How even the cut kept the windows: the extra events of each window's
    # busiest partition over the mean (docs/parallel.md "What a run prints").
    add("windows' event imbalance (%)", "run.partitioned_time.window_event_imbalance", 1, 100)
    return rows


def groups_html(s):
    """Tables of summary.json's slowdown_groups (by size, tag, cc), when the
    simulator wrote them."""
    groups = rd.get(s, "slowdown_groups")
    if not isinstance(groups, dict):
        return ""
    parts = []
    cols = ["count", "p50", "p95", "p99", "mean", "max", "mean_fct_us"]
    for name, val in groups.items():
        if not isinstance(val, dict):
            continue
        # Either {group: stats} or a stats dict itself (e.g. "mice"); size
        # groups in size order.
        items = [(name, val)] if "count" in val else \
            sorted(val.items(), key=lambda kv: rd.size_group_key(kv[0]))
        rows = [[k] + [_num(v.get(c), 0 if c == "count" else 3) for c in cols]
                for k, v in items if isinstance(v, dict) and v.get("count")]
        if rows:
            parts.append((name, rows))
    if not parts:
        return ""
    single = [r for n, rows in parts for r in rows if len(rows) == 1 and r[0] == n]
    out = ["<h2>Slowdown by group (summary.json)</h2>"]
    for name, rows in parts:
        if len(rows) == 1 and rows[0][0] == name:
            continue
        out.append(f"<h3>{html.escape(name.replace('_', ' '))}</h3>")
        out.append(html_table(["group"] + cols, rows))
    if single:
        out.append("<h3>other groups</h3>")
        out.append(html_table(["group"] + cols, single))
    return "\n".join(out)


def events_html(events, nodes, limit=50):
    """events.csv as a table: what happened, when and where (the first
    `limit` events, and how many more there were)."""
    rows = [[_num(e["time_ps"] / 1e6), e["event"], rd.node_label(e["node"], nodes), e["port"],
             e["priority"]]
            for e in events[:limit]]
    table = html_table(["time (\u00b5s)", "event", "node", "port", "priority"], rows,
                       numeric_from=3)
    more = len(events) - limit
    return table + (f'<p class="note">and {more} more events (events.csv)</p>' if more > 0
                    else "")


def do_report(args):
    d = args.results_dir
    rd.check_results_dir(d)
    if not rd.is_run_dir(d):
        raise rd.ResultsError(f"{d}: holds sweep.csv but no run results; "
                              f"use `rocesim compare {d}` for a sweep")
    out = args.output or os.path.join(d, "report")
    os.makedirs(out, exist_ok=True)

    summary = rd.load_summary(d) or {}
    scenario = rd.load_scenario(d)
    name = summary.get("name") or scenario.get("name") or os.path.basename(os.path.abspath(d))
    partial = rd.partial_note(summary)
    if partial:
        sys.stderr.write(f"rocesim report: note: {d}: {partial}\n")
        name = f"{name} (PARTIAL)"
    flows = rd.load_flows(d)
    queues = rd.load_series(d, "queues.csv", rd.QUEUE_COLS)
    ports = rd.load_series(d, "ports.csv", rd.PORT_COLS)
    rates = rd.load_series(d, "rates.csv", rd.RATE_COLS)
    inputs = rd.load_series(d, "input_queues.csv", rd.QUEUE_COLS)
    counters = rd.load_series(d, "counters.csv", rd.COUNTER_COLS)
    interval = rd.monitor_interval_ps(scenario, ports, queues, rates)
    tax = rd.time_axis(scenario, summary, ports, queues, rates)
    switches = rd.node_names(d, queues, ports)  # names from nodes.csv: tor3, agg1, ...
    tax.nodes = [rd.node_label(n, switches) if isinstance(n, int) else n for n in tax.nodes]
    only = tax.nodes_note()  # plots of per-node monitors cover these nodes only
    events = rd.load_events(d)
    tax.events = rd.event_marks(events, switches)
    mtu = rd.scenario_mtu(scenario)

    figures, notes = [], []

    def draw(fname, caption, needs, fn, *fargs):
        missing = [f for f, data in needs if data is None]
        if missing:
            note = f"{caption}: skipped, {' and '.join(missing)} not in the results"
            if any(m in ("queues.csv", "ports.csv", "rates.csv") for m in missing):
                note += " (monitor files are written when the scenario sets monitors.interval)"
            notes.append(note)
            return
        path = os.path.join(out, fname)
        why = fn(*fargs, path)
        if why:
            notes.append(f"{caption}: nothing to plot ({why})")
            if os.path.exists(path):
                os.remove(path)  # a stale PNG from an earlier report
        else:
            figures.append((path, caption))

    bins = []
    if flows is not None:
        done = np.isfinite(flows["slowdown"])
        bins = rd.slowdown_by_size(flows, rd.size_bins(flows["size"][done], args.bins))
    draw("slowdown_by_size.png", "FCT slowdown by flow size", [("flows.csv", flows)],
         lambda p: rp.slowdown_by_size(bins, p, f"{name}: FCT slowdown by flow size"))
    draw("fct_cdf.png", "FCT and slowdown CDF", [("flows.csv", flows)],
         lambda p: rp.fct_cdf(flows, p, f"{name}: flow completion"))
    draw("flow_throughput.png", "Per-flow throughput and CC rate", [("rates.csv", rates)],
         lambda p: rp.flow_throughput(flows, rd.flow_throughput(flows, rates, mtu, tax.window),
                                      p, name, args.top, tax))
    draw("port_throughput.png", "Port throughput" + only, [("ports.csv", ports)],
         lambda p: rp.port_throughput(ports, switches, interval, p, name, args.top, tax))
    draw("queue_occupancy.png", "Switch queue occupancy" + only, [("queues.csv", queues)],
         lambda p: rp.queue_occupancy(queues, interval, p, name, args.top, tax, switches))
    if inputs is not None:  # CIOQ switches only
        draw("input_queue_occupancy.png", "CIOQ input queue occupancy" + only,
             [("input_queues.csv", inputs)],
             lambda p: rp.queue_occupancy(inputs, interval, p, name, args.top, tax, switches,
                                          "CIOQ input queue"))
    paused = rd.paused_time_by_port(counters)
    if counters is not None:  # runs before counters.csv existed have none
        draw("paused_time.png", "Time paused per port" + only, [("counters.csv", counters)],
             lambda p: rp.paused_time(paused, switches, p, name, args.top, tax.end_ps))
    draw("pause_frames.png", "PFC pause frames over time" + only, [("ports.csv", ports)],
         lambda p: rp.pause_frames(ports, switches, interval, p, name, args.top, tax))
    draw("pause_heatmap.png", "PFC pause heat map" + only, [("ports.csv", ports)],
         lambda p: rp.pause_heatmap(ports, switches, interval, p, name, tax=tax))
    collectives = rd.load_collectives(d)
    if collectives is not None:
        draw("collectives.png", "Collective iteration time and bus bandwidth per job",
             [("collectives.csv", collectives)],
             lambda p: rp.collective_iterations(collectives, p, f"{name}: collectives"))

    body = [f"<h1>rocesim report: {html.escape(str(name))}</h1>",
            f"<p class=\"meta\">Results: {html.escape(os.path.abspath(d))}"
            + (f" &middot; seed {html.escape(str(summary['seed']))}" if "seed" in summary else "")
            + (f" &middot; monitor interval {interval / 1e6:g} \u00b5s" if interval else "")
            + f" &middot; mtu {mtu:g} B</p>"]
    if partial:
        body.append(f'<p class="note"><b>{html.escape(partial)}.</b></p>')
    body.append("<h2>Summary</h2>")
    if summary:
        body.append(html_table(["quantity", "value"], summary_rows(summary)))
    else:
        body.append('<p class="note">summary.json is missing.</p>')
    if bins:
        body.append("<h2>Slowdown by flow size</h2>")
        body.append(html_table(
            ["flow size bin", "cumulative % of flows", "flows", "p50", "p95", "p99"],
            [[f"\u2264 {rd.fmt_size(b['upper'])}", f"{b['cum_pct']:.1f}", b["count"],
              _num(b["p50"]), _num(b["p95"]), _num(b["p99"])] for b in bins]))
    body.append(groups_html(summary))
    if summary.get("jobs"):
        body.append("<h2>Jobs (collectives)</h2>")
        body.append(html_table(
            ["job", "op", "algorithm", "ranks", "size", "iterations done", "mean iteration ms",
             "mean busbw Gb/s", "ideal ms", "mean slowdown"],
            [[j.get("tag"), j.get("op"), j.get("algorithm"), j.get("ranks"),
              rd.fmt_size(j.get("size_bytes", 0)),
              f"{j.get('completed')}/{j.get('iterations')}",
              _num(j.get("iteration_s", {}).get("mean", float("nan")) * 1e3),
              _num(j.get("busbw_gbps_mean", float("nan"))),
              _num(j.get("ideal_s", float("nan")) * 1e3),
              _num(j.get("slowdown_mean", float("nan")))] for j in summary["jobs"]],
            numeric_from=3))
    if events:
        body.append("<h2>Events</h2>")
        body.append(events_html(events, switches))
    if paused:
        body.append("<h2>Time paused per port</h2>")
        body.append(html_table(
            ["port", "time paused (\u00b5s)", "% of the run"],
            [[f"{rd.node_label(n, switches)} port {p}", _num(v / 1e6),
              _num(v / tax.end_ps * 100) if tax.end_ps else "n/a"]
             for n, p, v in paused[:args.top]]))
    if notes:
        body.append("<h2>Notes</h2>")
        body.extend(f'<p class="note">{html.escape(n)}</p>' for n in notes)
    body.append("<h2>Plots</h2>")
    for path, caption in figures:
        body.append(f"<figure>{img_tag(path, caption)}<figcaption>{html.escape(caption)} "
                    f"({html.escape(os.path.basename(path))})</figcaption></figure>")
    spath = os.path.join(d, "scenario.yaml")
    if os.path.isfile(spath):
        with open(spath, encoding="utf-8") as f:
            body.append("<h2>Scenario</h2><details><summary>scenario.yaml as run</summary>"
                        f"<pre>{html.escape(f.read())}</pre></details>")
    html_path = os.path.join(out, "report.html")
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(page(f"rocesim report: {name}", "\n".join(body)))
    print(f"rocesim report: {len(figures)} plots, {html_path}")
    for n in notes:
        print(f"  note: {n}")
    return 0


# --------------------------------------------------------------------------
# compare

COMPARE_COLUMNS = [
    # (csv column, table heading, summary.json path, digits); the two flow
    # counts share one "done/total" column in the printed table.
    ("flows_completed", "flows done", "flows.completed", 0),
    ("flows_total", "flows done", "flows.total", 0),
    ("slowdown_p50", "p50", "slowdown.p50", 3),
    ("slowdown_p95", "p95", "slowdown.p95", 3),
    ("slowdown_p99", "p99", "slowdown.p99", 3),
    ("drops", "drops", "drops.total", 0),
    ("pause_frames", "pauses", "pfc.pause_frames_sent", 0),
    ("ecn_marks", "ECN marks", "ecn_marks", 0),
    ("sim_ms", "sim ms", "sim_seconds", 3),
    ("cpu_seconds", "CPU s", "run.cpu_seconds", 2),
    # How fast and how spread: a parallel run's point is its wall time, and
    # the same results may come from any ranks x threads (docs/parallel.md);
    # "-" for results written before these were recorded.
    ("wall_seconds", "wall s", "run.wall_seconds", 2),
    ("ranks", "ranks", "run.ranks", 0),
    ("threads", "threads", "run.threads", 0),
    ("partitions", "parts", "run.partitions", 0),
]


def _csv(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if v != v else f"{v:.9g}"
    return v


def run_numbers(summary, flows):
    """The compare columns of one run: from summary.json, or computed from
    flows.csv for the flow columns when summary.json is absent."""
    vals = {}
    for col, _, path, _ in COMPARE_COLUMNS:
        v = rd.get(summary, path) if summary else None
        if col == "sim_ms" and v is not None:
            v = v * 1e3
        vals[col] = v
    if flows is not None and vals["flows_total"] is None:
        done = np.isfinite(flows["slowdown"])
        vals["flows_total"] = int(flows["size"].size)
        vals["flows_completed"] = int(done.sum())
        for p in (50, 95, 99):
            vals[f"slowdown_p{p}"] = rd.percentile(flows["slowdown"][done], p)
    return vals


def default_labels(dirs):
    names = [os.path.basename(os.path.normpath(os.path.abspath(d))) for d in dirs]
    if len(set(names)) == len(names):
        return names
    common = os.path.commonpath([os.path.abspath(d) for d in dirs])
    return [os.path.relpath(os.path.abspath(d), common) for d in dirs]


# The sweep table's metrics: (sweep.csv column, heading); each shows the mean
# over seeds and its 95% interval.
SWEEP_TABLE_METRICS = [("slowdown_p50", "p50"), ("slowdown_p95", "p95"), ("slowdown_p99", "p99"),
                       ("slowdown_mean", "mean slowdown"), ("drops_total", "drops"),
                       ("pause_frames_sent", "pauses"), ("ecn_marks", "ECN marks"),
                       ("cnps_sent", "CNPs")]


def sweep_table(header, rows, params, metric):
    """(heading, rows) of the HTML sweep table: one row per point of the sweep
    plot (seeds merged), its parameters, seeds, incomplete flows, and
    "mean ± 95% interval" of each metric, to three significant digits."""
    metrics = [(c, h) for c, h in SWEEP_TABLE_METRICS if c in header]
    if metric not in [c for c, _ in metrics]:
        metrics.insert(0, (metric, metric))
    keyed = [p for p in params if rd.norm_col(p) != rd.SEED_COLUMN] or params[:1]
    heading = keyed + ["seeds", "flows incomplete"] + [h for _, h in metrics]
    per_metric = {}
    for c, _ in metrics:
        for line, pts in rd.sweep_aggregate(rows, [keyed[0]] + keyed[1:], c):
            for p in pts:
                per_metric.setdefault((line, p["x"]), {})[c] = p
    out = []
    for (line, x), by in per_metric.items():
        first = next(iter(by.values()))
        values = dict(kv.split("=", 1) for kv in line.split(", ") if "=" in kv)
        inc = first["incomplete"]
        cells = [x] + [values.get(k, "") for k in keyed[1:]]
        cells += [first["n"], "-" if inc is None else ("0" if inc == 0 else f"{inc:.1%}")]
        for c, _ in metrics:
            p = by.get(c)
            if p is None:
                cells.append("-")
            elif p["ci"] is None:
                cells.append(sig(p["mean"]))
            else:
                cells.append(f"{sig(p['mean'])} \u00b1 {sig(p['ci'], 2)}")
        out.append(cells)
    return heading, out


def is_compare_output(d):
    """An earlier compare's output directory (DIRS' common parent/compare),
    which `rocesim compare results/x/*` matches again."""
    return (os.path.isfile(os.path.join(d, "compare.html"))
            and not os.path.isfile(os.path.join(d, "summary.json"))
            and not os.path.isfile(os.path.join(d, "sweep.csv")))


def do_compare(args):
    dirs = []
    for d in args.dirs:
        if is_compare_output(d):
            sys.stderr.write(f"rocesim compare: note: skipping {d}: an earlier compare's output\n")
        else:
            dirs.append(d)
    if not dirs:
        raise UsageError("no results directories to compare")
    for d in dirs:
        rd.check_results_dir(d)
    labels = default_labels(dirs)
    if args.labels is not None:
        labels = [s.strip() for s in args.labels.split(",")]
        if len(labels) != len(dirs):
            raise UsageError(f"--labels has {len(labels)} label(s) for {len(dirs)} "
                             "director(y/ies); give one per DIR, comma-separated")
    if args.output:
        out = args.output
    else:
        common = os.path.commonpath([os.path.abspath(d) for d in dirs])
        out = os.path.join(common, "compare") if common != os.path.sep else "compare"
    os.makedirs(out, exist_ok=True)

    runs, sweeps = [], []
    for d, label in zip(dirs, labels):
        if rd.is_run_dir(d):
            summary = rd.load_summary(d)
            flows = rd.load_flows(d)
            partial = rd.partial_note(summary)
            if partial:
                sys.stderr.write(f"rocesim compare: note: {d}: {partial}\n")
                label = f"{label} (partial)"
            runs.append((label, d, summary, flows))
        sw = rd.load_sweep(d)
        if sw is not None:
            header, rows = sw
            params, metric = rd.sweep_columns(header, args.param, args.metric)
            sweeps.append((label, d, header, rows, params, metric))

    # Table: stdout, compare.csv, compare.html.
    table = []
    for label, d, summary, flows in runs:
        table.append((label, d, run_numbers(summary, flows)))
    figures, notes, body = [], [], []
    name = "rocesim compare: " + ", ".join(labels)
    body.append(f"<h1>{html.escape(name)}</h1>")
    if table:
        heads = ["run"] + [h for _, h, _, _ in COMPARE_COLUMNS[1:]]
        text_rows = [[lab, f"{_num(v['flows_completed'], 0)}/{_num(v['flows_total'], 0)}"]
                     + [_num(v[c], dg) for c, _, _, dg in COMPARE_COLUMNS[2:]]
                     for lab, _, v in table]
        widths = [max(len(str(x)) for x in col) for col in zip(heads, *text_rows)]
        line = lambda r: "  ".join(  # noqa: E731
            (str(x).ljust(w) if i == 0 else str(x).rjust(w)) for i, (x, w) in
            enumerate(zip(r, widths)))
        print(line(heads))
        for r in text_rows:
            print(line(r))
        with open(os.path.join(out, "compare.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["label", "dir"] + [c for c, _, _, _ in COMPARE_COLUMNS])
            for lab, d, v in table:
                w.writerow([lab, os.path.abspath(d)] + [_csv(v[c]) for c, _, _, _ in COMPARE_COLUMNS])
        body.append("<h2>Key numbers</h2>")
        body.append(html_table(heads, text_rows))
        body.append("<p class=\"meta\">flows done: finished of all flows; p50/p95/p99: "
                    "FCT slowdown percentiles of completed flows; pauses: PFC pause frames "
                    "sent; sim ms: simulated time; CPU s: simulator CPU time; wall s: "
                    "the simulation's wall-clock time; ranks, threads (per rank), parts: how "
                    "the run was spread (partitions of the fabric; 1, 1, 1 for a serial "
                    "run).</p>")
        body.append(html_table(["run", "results directory"],
                               [[lab, os.path.abspath(d)] for lab, d, _ in table],
                               numeric_from=2))

        fl = [(lab, flows) for lab, _, _, flows in runs]
        have = [f for _, f in fl if f is not None]
        if have:
            sizes = np.concatenate([f["size"][np.isfinite(f["slowdown"])] for f in have])
            edges = rd.size_bins(sizes, args.bins)
            for fname, caption, fn in (
                    ("slowdown_by_size.png", "Slowdown by flow size",
                     lambda p: rp.compare_slowdown_by_size(fl, edges, p)),
                    ("fct_cdf.png", "FCT and slowdown CDF", lambda p: rp.compare_fct_cdf(fl, p))):
                path = os.path.join(out, fname)
                why = fn(path)
                if why:
                    notes.append(f"{caption}: nothing to plot ({why})")
                else:
                    figures.append((path, caption))
        else:
            notes.append("No run has flows.csv: no slowdown or FCT plots.")

    for label, d, header, rows, params, metric in sweeps:
        lines = rd.sweep_aggregate(rows, params, metric)
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)
        path = os.path.join(out, f"sweep_{safe}.png")
        caption = f"Sweep {label}: {metric} vs {params[0]}"
        if not lines:
            notes.append(f"{caption}: no row has a numeric {metric}")
            continue
        rp.sweep_plot(lines, params[0], metric, path, caption)
        figures.append((path, caption))
        others = [p for p in params[1:] if rd.norm_col(p) != rd.SEED_COLUMN]
        seeded = any(rd.norm_col(p) == rd.SEED_COLUMN for p in params[1:])
        print(f"sweep {label}: {metric} vs {params[0]}"
              + (f" (lines: {', '.join(others)})" if others else "")
              + (", mean and 95% CI over seeds" if seeded else "")
              + f", {len(rows)} points")
        incomplete = [(ln, p) for ln, pts in lines for p in pts if p["incomplete"]]
        for ln, p in incomplete:
            notes.append(f"Sweep {label}: {params[0]}={p['x']}" + (f", {ln}" if ln else "")
                         + f": {p['incomplete']:.1%} of flows did not complete; its slowdowns "
                         "cover completed flows only")
        heading, table_rows = sweep_table(header, rows, params, metric)
        body.append(f"<h2>Sweep {html.escape(label)}</h2>")
        body.append(html_table(heading, table_rows, numeric_from=heading.index("seeds")))
        body.append("<p class=\"meta\">One row per point, seeds merged: the mean over seeds "
                    "\u00b1 the half-width of its 95% confidence interval (Student t; none "
                    "with one seed). Every point's own numbers are in "
                    f"{html.escape(os.path.join(os.path.abspath(d), 'sweep.csv'))}.</p>")

    if notes:
        body.append("<h2>Notes</h2>")
        body.extend(f'<p class="note">{html.escape(n)}</p>' for n in notes)
    if figures:
        body.append("<h2>Plots</h2>")
    for path, caption in figures:
        body.append(f"<figure>{img_tag(path, caption)}<figcaption>{html.escape(caption)}"
                    "</figcaption></figure>")
    html_path = os.path.join(out, "compare.html")
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(page(name, "\n".join(body)))
    print(f"rocesim compare: {len(figures)} plots, {html_path}")
    for n in notes:
        print(f"  note: {n}")
    return 0


# --------------------------------------------------------------------------

def build_parser():
    ap = argparse.ArgumentParser(
        prog="rocesim", description="Plots and HTML reports of rocesim results directories.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="{report,compare}")
    r = sub.add_parser("report", help="plots and an HTML page of one results directory",
                       description="Draw the plots of one results directory (from `rocesim "
                       "run`) and one self-contained HTML page.")
    r.add_argument("results_dir", metavar="RESULTS_DIR")
    r.add_argument("-o", "--output", metavar="OUT",
                   help="output directory (default: RESULTS_DIR/report)")
    r.add_argument("--top", type=int, default=10, metavar="N",
                   help="lines per time-series plot: the N busiest flows/ports/queues/nodes "
                   "(default 10)")
    r.add_argument("--bins", type=int, default=10, metavar="N",
                   help="flow-size percentile bins (default 10)")
    c = sub.add_parser("compare", help="several runs (or a sweep) side by side",
                       description="Compare results directories: a table of key numbers, "
                       "overlaid slowdown and FCT plots, and a parameter plot for sweep.csv.")
    c.add_argument("dirs", nargs="+", metavar="DIR")
    c.add_argument("-o", "--output", metavar="OUT",
                   help="output directory (default: the DIRs' common parent/compare)")
    c.add_argument("--labels", metavar="a,b,...",
                   help="comma-separated run names, one per DIR (default: directory names)")
    c.add_argument("--metric", default="slowdown_p99",
                   help="sweep.csv column on the y axis of a sweep plot (default slowdown_p99)")
    c.add_argument("--param", help="sweep.csv column on the x axis (default: the first "
                   "parameter column)")
    c.add_argument("--bins", type=int, default=10, metavar="N",
                   help="flow-size percentile bins (default 10)")
    return ap


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    for opt in ("top", "bins"):
        if getattr(args, opt, 1) < 1:
            ap.error(f"--{opt} must be at least 1")
    # Cheap checks first, so a wrong path is reported without loading
    # matplotlib (and even where it is not installed).
    dirs = [args.results_dir] if args.command == "report" else args.dirs
    for d in dirs:
        if not os.path.isdir(d):
            sys.stderr.write(f"rocesim: error: {d}: "
                             f"{'not a directory' if os.path.exists(d) else 'no such directory'}\n")
            return 2
    _import_deps()
    try:
        return do_report(args) if args.command == "report" else do_compare(args)
    except (rd.ResultsError, UsageError) as e:
        sys.stderr.write(f"rocesim: error: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
