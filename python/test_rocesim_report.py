"""Tests of rocesim_report.py (`rocesim report` / `rocesim compare`) on small
hand-written results directories.

Run: python3 -m unittest discover -s python -p "test_*.py"   (ctest: python_report)

The script runs as a child process, as `rocesim report` runs it, under the
first interpreter that can import matplotlib and numpy (ROCESIM_PYTHON,
this one, python3 on PATH, /usr/bin/python3): the python3 running the tests
may be a pyenv or venv one without the Debian packages.  The tests are
skipped only when no interpreter has them.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "rocesim_report.py")


def _find_python():
    cands = [os.environ.get("ROCESIM_PYTHON"), sys.executable, shutil.which("python3"),
             "/usr/bin/python3"]
    for c in cands:
        if not c:
            continue
        try:
            r = subprocess.run([c, "-c", "import matplotlib, numpy"], capture_output=True,
                               timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            return c
    return None


PYTHON = _find_python()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(*args):
    r = subprocess.run([PYTHON, SCRIPT, *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def py_eval(code):
    """Runs `code` (which prints JSON) with python/ on sys.path, in PYTHON."""
    r = subprocess.run([PYTHON, "-c", f"import sys; sys.path.insert(0, {HERE!r})\n" + code],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)


# --------------------------------------------------------------------------
# Synthetic results.

MTU = 1000
INTERVAL_PS = 10_000_000  # 10 us


def write_flows(d, flows):
    with open(os.path.join(d, "flows.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "src", "dst", "size_bytes", "start_ps", "finish_ps", "fct_ps",
                    "ideal_fct_ps", "slowdown", "cc", "tag", "ecn_marked", "cnps"])
        for i, (size, start, fct, ideal, tag) in enumerate(flows):
            if fct is None:
                w.writerow([i, 1, 0, size, start, "", "", ideal, "", "dcqcn", tag, 0, 0])
            else:
                w.writerow([i, 1, 0, size, start, start + fct, fct, ideal,
                            f"{fct / ideal:.6f}", "dcqcn", tag, 3, 1])


def summary(name, p50, p95, p99, drops, pauses, ecn, completed, total, sim_s=0.002, cpu=0.25):
    return {
        "name": name, "seed": 7,
        "flows": {"total": total, "completed": completed, "incomplete": total - completed},
        "slowdown": {"p50": p50, "p95": p95, "p99": p99, "mean": p50, "max": p99},
        "drops": {"total": drops, "buffer_full": drops, "headroom_overflow": 0, "wred": 0},
        "pfc": {"pause_frames_sent": pauses, "pause_frames_received": pauses},
        "ecn_marks": ecn, "cnps_sent": 5, "cnps_received": 5, "events": 12345,
        "sim_seconds": sim_s, "all_flows_done": completed == total,
        "run": {"wall_seconds": 0.3, "cpu_seconds": cpu, "peak_rss_bytes": 5_000_000,
                "events_per_second": 41150.0, "ranks": 1, "threads": 2, "partitions": 4},
    }


SCENARIO = """name: synth
seed: 7
duration: 2ms
topology: {type: star, hosts: 5, host_link: {rate: 100Gbps, delay: 1us}}
host: {mtu: 1000B, cc: dcqcn}
monitors: {interval: 10us}
"""


def make_run(d, name="synth", monitors=True, slow=1.0, pauses=4242):
    """A results directory: 20 flows of 4 sizes (one unfinished) and, with
    monitors, queue/port/rate series with a PFC burst on switch 5."""
    os.makedirs(d, exist_ok=True)
    flows = []
    for i in range(20):
        size = [1_000, 10_000, 100_000, 1_000_000][i % 4]
        ideal = size * 80 + 2_000_000  # ps: 100 Gb/s plus 2 us base RTT
        fct = None if i == 19 else int(ideal * slow * (1 + 0.1 * (i % 5)))
        flows.append((size, 1_000_000 * i, fct, ideal, "mice" if size < 1e6 else "elephant"))
    write_flows(d, flows)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary(name, 1.1 * slow, 1.3 * slow, 12.345 * slow, 3, pauses, 777, 19, 20),
                  f)
    with open(os.path.join(d, "scenario.yaml"), "w") as f:
        f.write(SCENARIO.replace("synth", name))
    if not monitors:
        return
    with open(os.path.join(d, "queues.csv"), "w") as f:
        f.write("time_ps,node,port,priority,bytes\n")
        for k in range(1, 50):
            t = k * INTERVAL_PS
            f.write(f"{t},5,0,3,{(k % 10) * 10_000}\n")
            if k % 3 == 0:
                f.write(f"{t},5,2,3,5000\n")
    with open(os.path.join(d, "ports.csv"), "w") as f:
        f.write("time_ps,node,port,tx_bytes,pause_sent,pause_received,paused_mask\n")
        for k in range(0, 50):
            t = k * INTERVAL_PS
            # 62500 B per 10 us = 50 Gb/s on switch 5 port 0 and host 1.
            f.write(f"{t},5,0,62500,{2 if 10 <= k < 20 else 0},0,0\n")
            f.write(f"{t},1,0,62500,0,{2 if 10 <= k < 20 else 0},{8 if 10 <= k < 20 else 0}\n")
    with open(os.path.join(d, "rates.csv"), "w") as f:
        f.write("time_ps,flow,rate_bps,window_bytes,snd_una,snd_nxt\n")
        # Flow 3 (1 MB, starts at 3 us): 62.5 packets of 1000 B per 10 us = 50 Gb/s.
        for k in range(1, 16):
            t = 3_000_000 + k * INTERVAL_PS
            una = int(62.5 * k)
            f.write(f"{t},3,50000000000,0,{una},{una + 10}\n")


def write_story_files(d):
    """nodes.csv (hosts 0-4, switch 5 "tor0"), events.csv (a storm, then 20
    watchdog triggers), counters.csv (tor0 port 0 paused 30 us in all, host1
    port 0 paused 10 us) and input_queues.csv (a CIOQ input queue on tor0)."""
    with open(os.path.join(d, "nodes.csv"), "w") as f:
        f.write("node,kind,tier,index,name\n")
        for h in range(5):
            f.write(f"{h},host,host,{h},host{h}\n")
        f.write("5,switch,tor,0,tor0\n")
    with open(os.path.join(d, "events.csv"), "w") as f:
        f.write("time_ps,node,port,priority,event\n")
        f.write("100000000,1,0,3,storm_start\n")
        for i in range(20):
            f.write(f"{200_000_000 + i * 1_000_000},5,0,3,watchdog_trigger\n")
    with open(os.path.join(d, "counters.csv"), "w") as f:
        f.write("time_ps,node,port,kind,tx_bytes,pause_sent,pause_received,paused_time_ps\n")
        f.write(f"{INTERVAL_PS},5,0,switch,100,1,0,10000000\n")
        f.write(f"{2 * INTERVAL_PS},5,0,switch,100,1,0,20000000\n")
        f.write(f"{2 * INTERVAL_PS},1,0,host,100,0,1,10000000\n")
        f.write(f"{2 * INTERVAL_PS},5,1,switch,100,0,0,0\n")
    with open(os.path.join(d, "input_queues.csv"), "w") as f:
        f.write("time_ps,node,port,priority,bytes\n")
        for k in range(1, 30):
            f.write(f"{k * INTERVAL_PS},5,1,3,{(k % 7) * 8_000}\n")


@unittest.skipUnless(PYTHON, "no python3 with matplotlib and numpy "
                     "(apt-get install python3-matplotlib python3-numpy)")
class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocesim_report_test_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def assert_png(self, path):
        self.assertTrue(os.path.isfile(path), f"{path} missing")
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(PNG_MAGIC), path)
        self.assertGreater(len(data), 5000, f"{path} is suspiciously small")

    # -- report -------------------------------------------------------------

    def test_report_draws_every_plot_and_embeds_them(self):
        make_run(self.path("run"))
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        rep = self.path("run", "report")
        pngs = ["slowdown_by_size.png", "fct_cdf.png", "flow_throughput.png",
                "port_throughput.png", "queue_occupancy.png", "pause_frames.png",
                "pause_heatmap.png"]
        for p in pngs:
            self.assert_png(os.path.join(rep, p))
        with open(os.path.join(rep, "report.html")) as f:
            page = f.read()
        self.assertEqual(page.count('src="data:image/png;base64,'), len(pngs))
        self.assertNotIn('src="slowdown', page)  # self-contained: no file references
        self.assertIn("rocesim report: synth", page)  # scenario name
        for number in ("12.345", "4,242", "777", "19", "0.25"):  # p99, pauses, ECN, done, CPU
            self.assertIn(f">{number}<", page)
        self.assertNotIn("skipped", page)

    def test_report_tells_events_pauses_input_queues_with_node_names(self):
        make_run(self.path("run"))
        write_story_files(self.path("run"))
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        rep = self.path("run", "report")
        self.assert_png(os.path.join(rep, "input_queue_occupancy.png"))
        self.assert_png(os.path.join(rep, "paused_time.png"))
        with open(os.path.join(rep, "report.html")) as f:
            page = f.read()
        self.assertIn("<h2>Events</h2>", page)
        self.assertIn("<td>storm_start</td><td>host1</td>", page)
        self.assertEqual(page.count("<td>watchdog_trigger</td><td>tor0</td>"), 20)
        # 30 us of the 2 ms run paused: 1.5 %; host1 10 us: 0.5 %.
        self.assertIn("<td>tor0 port 0</td><td class=\"num\">30.000</td>"
                      "<td class=\"num\">1.500</td>", page)
        self.assertIn("<td>host1 port 0</td><td class=\"num\">10.000</td>"
                      "<td class=\"num\">0.500</td>", page)
        self.assertNotIn("tor0 port 1<", page)  # never paused
        self.assertNotIn("switch 5", page)  # named from nodes.csv

    def test_event_marks_collapse_repeats_and_name_nodes(self):
        d = self.path("run")
        make_run(d)
        write_story_files(d)
        got = py_eval(f"""
import json, rocesim_data as rd
nodes = rd.node_names({d!r}, None, None)
events = rd.load_events({d!r})
print(json.dumps({{
  "few": rd.event_marks(events[:3], nodes),
  "many": rd.event_marks(events, nodes, limit=12),
  "labels": [rd.node_label(5, nodes), rd.node_label(2, nodes), 5 in nodes, 2 in nodes],
  "paused": rd.paused_time_by_port(rd.load_series({d!r}, "counters.csv", rd.COUNTER_COLS)),
}}))""")
        self.assertEqual(got["few"], [[100e6, "storm_start host1"],
                                      [200e6, "watchdog_trigger tor0"],
                                      [201e6, "watchdog_trigger tor0"]])
        # 21 marks > 12: each kind's first, with its count.
        self.assertEqual(got["many"], [[100e6, "storm_start host1"],
                                       [200e6, "watchdog_trigger tor0 (first of 20)"]])
        self.assertEqual(got["labels"], ["tor0", "host2", True, False])
        self.assertEqual(got["paused"], [[5, 0, 30e6], [1, 0, 10e6]])

    def test_report_output_dir_option(self):
        make_run(self.path("run"))
        code, out = run("report", self.path("run"), "-o", self.path("elsewhere"))
        self.assertEqual(code, 0, out)
        self.assertTrue(os.path.isfile(self.path("elsewhere", "report.html")))
        self.assertFalse(os.path.exists(self.path("run", "report")))

    def test_missing_monitor_files_are_skipped_with_a_note(self):
        make_run(self.path("run"), monitors=False)
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        rep = self.path("run", "report")
        self.assert_png(os.path.join(rep, "slowdown_by_size.png"))
        self.assert_png(os.path.join(rep, "fct_cdf.png"))
        for p in ("flow_throughput.png", "port_throughput.png", "queue_occupancy.png",
                  "pause_frames.png", "pause_heatmap.png"):
            self.assertFalse(os.path.exists(os.path.join(rep, p)), p)
        with open(os.path.join(rep, "report.html")) as f:
            page = f.read()
        self.assertEqual(page.count("data:image/png;base64,"), 2)
        for f in ("rates.csv", "ports.csv", "queues.csv"):
            self.assertIn(f"skipped, {f} not in the results", page)

    def test_run_without_pauses_notes_it(self):
        make_run(self.path("run"))
        # Rewrite ports.csv with no pause frames at all.
        p = self.path("run", "ports.csv")
        with open(p) as f:
            rows = [r.split(",") for r in f.read().splitlines()]
        with open(p, "w") as f:
            f.write(",".join(rows[0]) + "\n")
            for r in rows[1:]:
                r[4] = "0"
                f.write(",".join(r) + "\n")
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        self.assertIn("no PFC pause frames were sent", out)
        self.assertFalse(os.path.exists(self.path("run", "report", "pause_heatmap.png")))
        self.assert_png(self.path("run", "report", "port_throughput.png"))

    def test_collectives_plot_and_jobs_table(self):
        make_run(self.path("run"), monitors=False)
        with open(self.path("run", "collectives.csv"), "w") as f:
            f.write("tag,traffic_index,iteration,op,algorithm,ranks,size_bytes,channels,flows,"
                    "complete,start_ps,finish_ps,time_ps,algbw_gbps,busbw_gbps,ideal_ps,slowdown,"
                    "straggler_host,straggler_lag_ps\n")
            for it in range(3):
                start = it * 3_000_000_000
                f.write(f"ar,0,{it},allreduce,ring,8,16000000,1,112,1,{start},"
                        f"{start + 2_600_000_000},2600000000,49.2,86.1,2500000000,1.04,3,0\n")
            f.write("ar,0,3,allreduce,ring,8,16000000,1,112,0,9000000000,,,,,2500000000,,,\n")
        with open(self.path("run", "summary.json")) as f:
            summary = json.load(f)
        summary["jobs"] = [{"tag": "ar", "op": "allreduce", "algorithm": "ring", "ranks": 8,
                            "size_bytes": 16000000, "iterations": 4, "completed": 3,
                            "iteration_s": {"mean": 0.0026}, "busbw_gbps_mean": 86.1,
                            "ideal_s": 0.0025, "slowdown_mean": 1.04}]
        with open(self.path("run", "summary.json"), "w") as f:
            json.dump(summary, f)
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        self.assert_png(self.path("run", "report", "collectives.png"))
        with open(self.path("run", "report", "report.html")) as f:
            page = f.read()
        self.assertIn("Jobs (collectives)", page)
        self.assertIn(">3/4<", page)      # iterations done of planned
        self.assertIn(">86.100<", page)  # mean busbw

    def test_no_summary_refused(self):
        # A run writes summary.json with its other files: without it the
        # files are not one finished run's, and neither command reads them.
        make_run(self.path("run"), monitors=False)
        make_run(self.path("other"), monitors=False)
        os.remove(self.path("run", "summary.json"))
        for args in (("report", self.path("run")),
                     ("compare", self.path("other"), self.path("run"))):
            code, out = run(*args)
            self.assertEqual(code, 2, out)
            self.assertIn("no summary.json", out)
            self.assertIn(self.path("run"), out)
        self.assertFalse(os.path.exists(self.path("run", "report")))

    def test_partial_run_labelled(self):
        make_run(self.path("run"))
        make_run(self.path("other"))
        with open(self.path("run", "summary.json")) as f:
            s = json.load(f)
        s["partial"] = True
        s["sim_seconds"] = 0.0005
        with open(self.path("run", "summary.json"), "w") as f:
            json.dump(s, f)
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        self.assertIn("partial: the run was interrupted at 0.5 ms simulated", out)
        with open(self.path("run", "report", "report.html")) as f:
            page = f.read()
        self.assertIn("(PARTIAL)", page)
        self.assertIn("interrupted at 0.5 ms", page)
        code, out = run("compare", self.path("run"), self.path("other"),
                        "--labels", "A,B")
        self.assertEqual(code, 0, out)
        self.assertIn("A (partial)", out)
        self.assertNotIn("B (partial)", out)
        # `rocesim compare DIR/*` again: the first compare's output is skipped.
        self.assertTrue(os.path.isfile(self.path("compare", "compare.html")))
        code, out = run("compare", self.path("compare"), self.path("other"), self.path("run"))
        self.assertEqual(code, 0, out)
        self.assertIn("skipping " + self.path("compare"), out)

    # -- bad input -----------------------------------------------------------

    def test_bad_directories_exit_2(self):
        os.makedirs(self.path("empty"))
        make_run(self.path("badjson"), monitors=False)
        with open(self.path("badjson", "summary.json"), "w") as f:
            f.write("{not json")
        make_run(self.path("badcsv"), monitors=False)
        with open(self.path("badcsv", "flows.csv"), "w") as f:
            f.write("a,b,c\n1,2,3\n")
        with open(self.path("afile"), "w") as f:
            f.write("x")
        cases = {"missing": "no such directory", "empty": "not a rocesim results directory",
                 "badjson": "not valid JSON", "badcsv": "missing column",
                 "afile": "not a directory"}
        for name, msg in cases.items():
            for cmd in ("report", "compare"):
                code, out = run(cmd, self.path(name))
                self.assertEqual(code, 2, f"{cmd} {name}: {out}")
                self.assertIn(msg, out, f"{cmd} {name}")
                self.assertIn(name, out)
                self.assertNotIn("Traceback", out)

    def test_usage_errors_exit_2(self):
        self.assertEqual(run()[0], 2)
        self.assertEqual(run("report")[0], 2)
        self.assertEqual(run("compare")[0], 2)
        make_run(self.path("a"), monitors=False)
        make_run(self.path("b"), monitors=False)
        code, out = run("compare", self.path("a"), self.path("b"), "--labels", "x")
        self.assertEqual(code, 2, out)
        self.assertIn("--labels has 1 label(s) for 2", out)

    # -- compare -------------------------------------------------------------

    def test_compare_table_has_each_runs_numbers(self):
        make_run(self.path("r", "fast"), name="fast", monitors=False, slow=1.0, pauses=10)
        make_run(self.path("r", "slow"), name="slow", monitors=False, slow=2.0, pauses=20)
        code, out = run("compare", self.path("r", "fast"), self.path("r", "slow"),
                        "--labels", "A,B")
        self.assertEqual(code, 0, out)
        outdir = self.path("r", "compare")  # default: the common parent's compare/
        with open(os.path.join(outdir, "compare.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["label"] for r in rows], ["A", "B"])
        a, b = rows
        self.assertAlmostEqual(float(a["slowdown_p99"]), 12.345)
        self.assertAlmostEqual(float(b["slowdown_p99"]), 24.69)
        self.assertAlmostEqual(float(b["slowdown_p50"]), 2.2)
        self.assertEqual((a["pause_frames"], b["pause_frames"]), ("10", "20"))
        self.assertEqual((a["flows_completed"], a["flows_total"]), ("19", "20"))
        self.assertEqual(a["drops"], "3")
        self.assertEqual(a["ecn_marks"], "777")
        self.assertAlmostEqual(float(a["sim_ms"]), 2.0)
        self.assertAlmostEqual(float(a["cpu_seconds"]), 0.25)
        self.assertAlmostEqual(float(a["wall_seconds"]), 0.3)
        self.assertEqual((a["ranks"], a["threads"], a["partitions"]), ("1", "2", "4"))
        # The printed table: a header and one line per run, in order.
        lines = [ln for ln in out.splitlines() if ln.startswith(("run", "A ", "B "))]
        self.assertEqual(len(lines), 3, out)
        self.assertIn("p99", lines[0])
        self.assertIn("19/20", lines[1])
        self.assertIn("12.345", lines[1])
        self.assertIn("24.690", lines[2])
        for p in ("slowdown_by_size.png", "fct_cdf.png"):
            self.assert_png(os.path.join(outdir, p))
        with open(os.path.join(outdir, "compare.html")) as f:
            page = f.read()
        self.assertEqual(page.count("data:image/png;base64,"), 2)
        self.assertIn(">24.690<", page)

    def test_compare_default_labels_and_output(self):
        make_run(self.path("x", "one"), monitors=False)
        make_run(self.path("y", "two"), monitors=False)
        code, out = run("compare", self.path("x", "one"), self.path("y", "two"),
                        "-o", self.path("cmp"))
        self.assertEqual(code, 0, out)
        with open(self.path("cmp", "compare.csv")) as f:
            self.assertEqual([r["label"] for r in csv.DictReader(f)], ["one", "two"])

    def test_compare_sweep_plots_metric_against_first_parameter(self):
        os.makedirs(self.path("sweep"))
        with open(self.path("sweep", "sweep.csv"), "w") as f:
            f.write("point,switch.ecn.kmin,host.cc,flows_completed,slowdown_p50,slowdown_p99,"
                    "pause_frames\n")
            for i, (k, cc) in enumerate([(k, cc) for cc in ("dcqcn", "dctcp")
                                         for k in ("40KB", "100KB", "400KB")]):
                f.write(f"{i},{k},{cc},10,{1 + i / 10},{3 + i},{100 * i}\n")
        code, out = run("compare", self.path("sweep"))
        self.assertEqual(code, 0, out)
        self.assertIn("slowdown_p99 vs switch.ecn.kmin (lines: host.cc), 6 points", out)
        self.assert_png(self.path("sweep", "compare", "sweep_sweep.png"))
        code, out = run("compare", self.path("sweep"), "--metric", "pause_frames",
                        "--param", "host.cc", "-o", self.path("o2"))
        self.assertEqual(code, 0, out)
        self.assertIn("pause_frames vs host.cc (lines: switch.ecn.kmin)", out)
        code, out = run("compare", self.path("sweep"), "--metric", "nope")
        self.assertEqual(code, 2, out)
        self.assertIn("no column 'nope'", out)

    def test_compare_sweep_merges_seeds_and_flags_incomplete_flows(self):
        os.makedirs(self.path("sweep"))
        with open(self.path("sweep", "sweep.csv"), "w") as f:
            f.write("point,dir,traffic.0.load,host.cc,seed,status,flows_total,flows_completed,"
                    "slowdown_p99,drops_total\n")
            i = 0
            for load in ("0.3", "0.7"):
                for cc in ("dcqcn", "hpcc"):
                    for seed in (1, 2, 3):
                        done = 9 if (load, cc, seed) == ("0.7", "dcqcn", 2) else 10
                        f.write(f"{i},p{i},{load},{cc},{seed},ok,10,{done},{2 + i % 3},{i}\n")
                        i += 1
        code, out = run("compare", self.path("sweep"))
        self.assertEqual(code, 0, out)
        self.assertIn("slowdown_p99 vs traffic.0.load (lines: host.cc), mean and 95% CI over "
                      "seeds, 12 points", out)
        # One of three seeds lost 1 of 10 flows: 3.3% on average at that point.
        self.assertIn("traffic.0.load=0.7, host.cc=dcqcn: 3.3% of flows did not complete", out)
        self.assert_png(self.path("sweep", "compare", "sweep_sweep.png"))
        with open(self.path("sweep", "compare", "compare.html")) as f:
            page = f.read()
        table = page[page.index("<h2>Sweep sweep</h2>"):]
        table = table[:table.index("</table>")]
        self.assertEqual(table.count("<tr>"), 5)  # heading + 4 points, seeds merged
        # slowdown_p99 at each point: 2, 3, 4 -> mean 3, t(2) * 1 / sqrt(3) = 2.48.
        self.assertIn("3 \u00b1 2.5", table)
        self.assertIn("<td class=\"num\">3.3%</td>", table)

    def test_report_orders_size_groups_and_leaves_out_empty_drops(self):
        make_run(self.path("run"), monitors=False)
        with open(self.path("run", "summary.json")) as f:
            s = json.load(f)
        stats = {"count": 5, "p50": 1.5, "p95": 2, "p99": 3, "mean": 1.6, "max": 3,
                 "mean_fct_us": 10}
        # As summary.json writes them: alphabetically.
        s["slowdown_groups"] = {"by_size": {k: stats for k in
                                            ("100KB-1MB", "10KB-100KB", "1MB-10MB", "<10KB")}}
        with open(self.path("run", "summary.json"), "w") as f:
            json.dump(s, f)
        code, out = run("report", self.path("run"))
        self.assertEqual(code, 0, out)
        with open(self.path("run", "report", "report.html")) as f:
            page = f.read()
        order = [page.index(f"<td>{k}</td>") for k in
                 ("&lt;10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB")]
        self.assertEqual(order, sorted(order))
        self.assertIn("drops: buffer full", page)  # 3 drops
        self.assertNotIn("drops: wred", page)  # none
        self.assertNotIn("drops: headroom overflow", page)

    # -- the statistics behind the plots ------------------------------------

    def test_seed_statistics(self):
        got = py_eval("""
import json, rocesim_data as rd
rows = [{"x": "0.3", "cc": "a", "seed": str(s), "status": "ok", "m": v, "flows_total": "4",
         "flows_completed": c} for s, v, c in ((1, "2", "3"), (2, "3", "4"), (3, "7", "2"))]
rows.append({"x": "0.3", "cc": "a", "seed": "4", "status": "failed", "m": "", "flows_total": "",
             "flows_completed": ""})
print(json.dumps({"t": [rd.t975(1), rd.t975(30), rd.t975(100)],
                  "five": rd.mean_ci95([1, 2, 3, 4, 5]), "one": rd.mean_ci95([7]),
                  "lines": rd.sweep_aggregate(rows, ["x", "cc", "seed"], "m")}))""")
        self.assertAlmostEqual(got["t"][0], 12.7062047364, places=9)
        self.assertAlmostEqual(got["t"][1], 2.0422724563, places=9)
        self.assertAlmostEqual(got["t"][2], 1.9839715184, places=7)
        # 1..5: mean 3, s = sqrt(2.5), t(4) = 2.7764451052 -> 1.9632431615.
        self.assertEqual(got["five"][:2], [5, 3.0])
        self.assertAlmostEqual(got["five"][2], 1.9632431615, places=9)
        self.assertEqual(got["one"], [1, 7.0, None])
        # Seeds merged (the failed one left out): 2, 3, 7 -> mean 4, half-width
        # 4.3026527299 * sqrt(7) / sqrt(3); incomplete 1/4, 0, 2/4 -> 0.25.
        [(line, [p])] = got["lines"]
        self.assertEqual(line, "cc=a")
        self.assertEqual((p["x"], p["n"], p["mean"]), ("0.3", 3, 4.0))
        self.assertAlmostEqual(p["ci"], 6.5724106080, places=8)
        self.assertAlmostEqual(p["incomplete"], 0.25)

    def test_time_axis_covers_the_run_and_stops_series_at_the_monitor_window(self):
        make_run(self.path("run"))
        got = py_eval(f"""
import json, numpy as np, rocesim_data as rd
d = {self.path("run")!r}
sc = rd.load_scenario(d)
sc["monitors"].update({{"end": "100us", "nodes": [1, 5]}})
tax = rd.time_axis(sc, rd.load_summary(d))
grid = rd.time_grid(np.array([30e6, 50e6]), 10e6, tax.window)
fl = rd.load_flows(d)
rates = rd.load_series(d, "rates.csv", rd.RATE_COLS)
inside = rates["time_ps"] <= 100e6  # what a monitor ending at 100 us writes
rates = {{k: v[inside] for k, v in rates.items()}}
last = [float(rd.flow_throughput(fl, rates, 1000, w)[3][0][-1]) for w in (None, tax.window)]
print(json.dumps({{"end": tax.end_ps, "window": tax.window, "unit": tax.unit,
                   "note": tax.nodes_note(), "grid": [grid[0], grid[-1]], "last": last}}))""")
        self.assertEqual(got["end"], 0.002 * 1e12)  # summary.json sim_seconds
        self.assertEqual(got["window"], [0.0, 100e6])
        self.assertEqual(got["unit"], "ms")
        self.assertEqual(got["note"], " (monitored nodes only: 1, 5)")
        # Zeros are filled to the window's edges, not beyond.
        self.assertEqual(got["grid"], [0.0, 100e6])
        # Flow 3 finishes at 109.6 us, after the window: its series ends at
        # the last sample (93 us), not with a segment out to its finish.
        self.assertEqual(got["last"], [109.6e6, 93e6])


    def test_statistics(self):
        got = py_eval("""
import json, numpy as np, rocesim_data as rd
print(json.dumps({
  "pct": [rd.percentile([1, 2, 3, 4], 50), rd.percentile([1, 2, 3, 4], 99),
          rd.percentile(range(1, 101), 95)],
  "bins": rd.size_bins([1] * 5 + [2] * 5 + [3] * 10, 4),
  "qty": [rd.parse_quantity(x) for x in ("400KB", "4KiB", "20us", "100Gbps", "1/16", "0.2",
                                          "dcqcn")],
  "size": [rd.fmt_size(x) for x in (999, 250_000, 1_500_000)],
}))""")
        self.assertEqual(got["pct"], [2, 4, 95])  # nearest rank, as summary.json
        self.assertEqual(got["bins"], [1, 2, 3])  # equal sizes never split across bins
        self.assertEqual(got["qty"], [400_000, 4096, 20e-6, 100e9, 0.0625, 0.2, None])
        self.assertEqual(got["size"], ["999B", "250KB", "1.5MB"])

    def test_no_completed_flow_reads_n_a(self):
        # summary.json holds null statistics when no flow completed.
        got = py_eval("""
import json, rocesim_report as rr
rr._import_deps()
s = {"flows": {"total": 1, "completed": 0},
     "slowdown": {"p50": None, "p95": None, "p99": None, "mean": None, "max": None}}
print(json.dumps(dict(rr.summary_rows(s))))""")
        self.assertEqual(got["slowdown p50"], "n/a (no completed flow)")
        self.assertEqual(got["flows completed"], "0")

    def test_summary_says_how_the_run_was_spread(self):
        got = py_eval("""
import json, rocesim_report as rr
rr._import_deps()
print(json.dumps(dict(rr.summary_rows({"run": {"ranks": 2, "threads": 2, "partitions": 8,
    "partitioned_time": {"window_event_imbalance": 0.0482}}}))))""")
        self.assertEqual(got["windows' event imbalance (%)"], "4.8")
        self.assertEqual(got["MPI ranks"], "2")
        self.assertEqual(got["threads per rank"], "2")
        self.assertEqual(got["partitions"], "8")
        older = py_eval("""
import json, rocesim_report as rr
rr._import_deps()
print(json.dumps(dict(rr.summary_rows({"run": {"wall_seconds": 1.0}}))))""")
        self.assertNotIn("partitions", older)  # results written before they were recorded
        self.assertNotIn("windows' event imbalance (%)", older)  # and serial runs

    def test_flow_throughput_from_snd_una(self):
        make_run(self.path("run"))
        got = py_eval(f"""
import json, rocesim_data as rd
d = {self.path("run")!r}
fl = rd.load_flows(d)
rates = rd.load_series(d, "rates.csv", rd.RATE_COLS)
thr = rd.flow_throughput(fl, rates, rd.scenario_mtu(rd.load_scenario(d)))
t, bps, rate = thr[3]
print(json.dumps({{"bps": list(bps), "interval": rd.monitor_interval_ps(rd.load_scenario(d))}}))
""")
        self.assertEqual(got["interval"], INTERVAL_PS)
        # Whole 10 us intervals in the middle carry exactly 50 Gb/s (62.5 packets x 1000 B).
        mid = got["bps"][2:-2]
        self.assertTrue(mid)
        for v in mid:
            self.assertAlmostEqual(v / 1e9, 50.0, delta=0.5)


if __name__ == "__main__":
    unittest.main()
