"""The Python module (python/module/rocesim/): dict and file scenarios alike,
errors naming the field, the tables' columns and dtypes, save() against the
command line's results directory, sweeps against `rocesim sweep`.

Run by ctest (python_module) with PYTHONPATH=build/python and ROCESIM_BIN."""

import copy
import filecmp
import json
import os
import subprocess
import tempfile
import threading
import time
import unittest

import numpy as np
import pandas as pd
import yaml

import rocesim
from rocesim import _tables

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUICKSTART = os.path.join(ROOT, "examples", "quickstart.yaml")
BIN = os.environ.get("ROCESIM_BIN", os.path.join(ROOT, "build", "rocesim"))
# Every table written: monitors on (queues, ports, rates, counters) and a
# PFC watchdog (events.csv).
MONITORED = ["monitors.interval=20us", "switch.watchdog.enabled=true", "duration=2ms"]


def quickstart_dict():
    with open(QUICKSTART) as f:
        return yaml.safe_load(f)


def without_run(summary):
    s = dict(summary)
    s.pop("run", None)
    return s


class RunTest(unittest.TestCase):
    def test_dict_and_file_give_identical_results(self):
        a = rocesim.run(QUICKSTART, overrides=MONITORED, seed=3)
        b = rocesim.run(quickstart_dict(), overrides=MONITORED, seed=3)
        self.assertEqual(without_run(a.summary), without_run(b.summary))
        self.assertEqual(a.summary["seed"], 3)
        for name in rocesim.Result.TABLES:
            pd.testing.assert_frame_equal(a.table(name), b.table(name))
        self.assertGreater(len(a.flows), 0)
        self.assertGreater(len(a.queues), 0)

    def test_dict_overrides_as_dict(self):
        a = rocesim.run(quickstart_dict(), overrides={"duration": "1ms", "host.mtu": 2000})
        self.assertEqual(a.summary["sim_seconds"] <= 1e-3, True)
        with open(os.path.join(a.dir, "scenario.yaml")) as f:
            self.assertEqual(yaml.safe_load(f)["host"]["mtu"], 2000)

    def test_bad_dict_names_the_field_as_the_file_error_does(self):
        sc = quickstart_dict()
        sc["traffic"][0]["size"] = "1XB"
        with self.assertRaises(rocesim.ScenarioError) as d:
            rocesim.run(sc)
        self.assertIsInstance(d.exception, ValueError)
        self.assertEqual(d.exception.field, "traffic.0.size")
        self.assertTrue(str(d.exception).startswith("<dict>: traffic.0.size: expected a size"),
                        str(d.exception))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.yaml")
            with open(path, "w") as f:
                yaml.safe_dump(sc, f)
            with self.assertRaises(rocesim.ScenarioError) as fe:
                rocesim.run(path)
        self.assertEqual(fe.exception.field, "traffic.0.size")
        self.assertIsNotNone(fe.exception.line)
        # The same message but for where: "<dict>" against "FILE:LINE:COLUMN".
        self.assertEqual(str(d.exception).split(": ", 1)[1], str(fe.exception).split(": ", 1)[1])

    def test_bad_dict_structure(self):
        sc = quickstart_dict()
        sc["switch"]["ecn"]["kmim"] = "10KB"
        with self.assertRaisesRegex(rocesim.ScenarioError, r"switch\.ecn.*unknown key 'kmim'"):
            rocesim.run(sc)
        sc = quickstart_dict()
        sc["topology"]["hosts"] = object()
        with self.assertRaisesRegex(TypeError, r"topology\.hosts"):
            rocesim.run(sc)
        with self.assertRaisesRegex(rocesim.ScenarioError, r"no\.such\.key"):
            rocesim.run(quickstart_dict(), overrides={"no.such.key": 1})

    def test_bad_seed_and_threads(self):
        with self.assertRaisesRegex(ValueError, "seed"):
            rocesim.run(QUICKSTART, seed=-1)
        with self.assertRaisesRegex(ValueError, "threads"):
            rocesim.run(QUICKSTART, threads=0)
        rocesim.check(QUICKSTART, seed=2**64 - 1)

    def test_tables_have_the_documented_columns_and_dtypes(self):
        r = rocesim.run(QUICKSTART, overrides=MONITORED)
        for name, schema in _tables.SCHEMAS.items():
            df = r.table(name)
            self.assertEqual(list(df.columns[:len(schema)]), [c for c, _ in schema], name)
            for c, t in schema:
                want = np.dtype(object) if t == "str" else np.dtype(t)
                self.assertEqual(df[c].dtype, want, f"{name}.{c}")
            for c in df.columns[len(schema):]:
                self.assertTrue(c.startswith("drops_") and df[c].dtype == np.int64, c)
        self.assertGreater(len(r.counters), 0)
        self.assertIn("tag", r.flows)
        # Tables of files the run did not write are empty, with the columns.
        plain = rocesim.run(QUICKSTART, overrides=["duration=1ms"])
        self.assertEqual(len(plain.events), 0)
        self.assertEqual(list(plain.events.columns), [c for c, _ in _tables.SCHEMAS["events"]])

    def test_numpy_tables_without_pandas(self):
        r = rocesim.run(QUICKSTART, overrides=MONITORED)
        for name in ("flows", "ports", "counters"):
            arrays = _tables.load_table(r.dir, name, use_pandas=False)
            df = r.table(name)
            self.assertEqual(list(arrays), list(df.columns))
            for c in df.columns:
                self.assertEqual(arrays[c].dtype, df[c].dtype, f"{name}.{c}")
                np.testing.assert_array_equal(arrays[c], df[c].to_numpy())

    def test_save_matches_the_command_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            cli = os.path.join(tmp, "cli")
            subprocess.run([BIN, "run", QUICKSTART, "-o", cli, "-q", "--seed", "5"] +
                           [a for s in MONITORED for a in ("--set", s)], check=True)
            py = rocesim.run(QUICKSTART, overrides=MONITORED, seed=5).save(os.path.join(tmp, "py"))
            self.assertEqual(sorted(os.listdir(cli)), sorted(os.listdir(py)))
            self.assertIn("events.csv", os.listdir(py))
            for name in os.listdir(cli):
                a, b = os.path.join(cli, name), os.path.join(py, name)
                if name == "summary.json":
                    with open(a) as fa, open(b) as fb:
                        self.assertEqual(without_run(json.load(fa)), without_run(json.load(fb)))
                else:
                    self.assertTrue(filecmp.cmp(a, b, shallow=False), name)
            with self.assertRaises(FileExistsError):
                rocesim.run(QUICKSTART, overrides=["duration=1ms"]).save(py)

    def test_save_keeps_the_packet_captures(self):
        capture = ["duration=200us", "monitors.pcap={ports: [{node: 0, port: 0}], end: 100us}"]
        with tempfile.TemporaryDirectory() as tmp:
            cli = os.path.join(tmp, "cli")
            subprocess.run([BIN, "run", QUICKSTART, "-o", cli, "-q"] +
                           [a for s in capture for a in ("--set", s)], check=True)
            py = rocesim.run(QUICKSTART, overrides=capture).save(os.path.join(tmp, "py"))
            self.assertEqual(os.listdir(os.path.join(py, "pcap")), ["0-p0.pcap"])
            a, b = os.path.join(cli, "pcap", "0-p0.pcap"), os.path.join(py, "pcap", "0-p0.pcap")
            self.assertGreater(os.path.getsize(b), 24)  # frames beyond the file header
            self.assertTrue(filecmp.cmp(a, b, shallow=False))

    def test_threads_give_the_serial_results(self):
        serial = rocesim.run(QUICKSTART, overrides=MONITORED)
        parted = rocesim.run(QUICKSTART, overrides=MONITORED, threads=2)
        self.assertEqual(without_run(serial.summary), without_run(parted.summary))
        for name in rocesim.Result.TABLES:
            pd.testing.assert_frame_equal(serial.table(name), parted.table(name))

    def test_threads_auto_takes_every_usable_core(self):
        serial = rocesim.run(QUICKSTART)
        auto = rocesim.run(QUICKSTART, threads="auto")
        self.assertEqual(auto.summary["run"]["threads"], len(os.sched_getaffinity(0)))
        self.assertEqual(without_run(serial.summary), without_run(auto.summary))
        with self.assertRaisesRegex(ValueError, "auto"):
            rocesim.run(QUICKSTART, threads="all")

    def test_threads_auto_fits_the_fabric_and_the_partitions(self):
        # A star whose window is longer than its links cannot be cut: "auto"
        # runs it serially, where threads=2 is refused; partitions=1 with
        # "auto" is a serial run too, not a refusal.
        whole = {"name": "whole", "seed": 1, "duration": "1ms",
                 "topology": {"type": "star", "hosts": 4, "sync_window": "5us"},
                 "traffic": [{"type": "incast", "senders": "0-2", "receiver": 3,
                              "size": "100KB"}]}
        serial = rocesim.run(whole)
        auto = rocesim.run(whole, threads="auto")
        self.assertEqual(auto.summary["run"]["threads"], 1)
        self.assertEqual(without_run(serial.summary), without_run(auto.summary))
        with self.assertRaisesRegex(ValueError, "cannot cut the fabric into 2 partitions"):
            rocesim.run(whole, threads=2)
        one = rocesim.run(QUICKSTART, threads="auto", partitions=1)
        self.assertEqual(one.summary["run"]["threads"], 1)
        with self.assertRaisesRegex(ValueError, "partitions: expected an integer from 1 to"):
            rocesim.run(QUICKSTART, threads="auto", partitions=0)
        swept = rocesim.sweep(whole, grid={"seed": [1, 2]}, threads="auto")
        self.assertEqual((len(swept.names), swept.failed), (2, []))
        self.assertEqual(swept.result(1).summary["run"]["threads"], 1)

    def test_partitions_shared_by_threads_give_the_serial_results(self):
        serial = rocesim.run(QUICKSTART, overrides=MONITORED)
        shared = rocesim.run(QUICKSTART, overrides=MONITORED, threads=2, partitions=3)
        self.assertEqual(without_run(serial.summary), without_run(shared.summary))
        for name in rocesim.Result.TABLES:
            pd.testing.assert_frame_equal(serial.table(name), shared.table(name))
        with self.assertRaisesRegex(ValueError, "partitions"):
            rocesim.run(QUICKSTART, threads=2, partitions=1)

    def test_partitions_follow_the_fabric_size_by_default(self):
        # A k=20 fat tree (6,000 links) on 2 threads is cut in 4 unless told.
        k20 = {"name": "k20", "duration": "100us", "topology": {"type": "fat_tree", "k": 20},
               "traffic": [{"type": "flows",
                            "flows": [{"src": 0, "dst": 1999, "size": "100KB"},
                                      {"src": 1500, "dst": 7, "size": "100KB"}]}]}
        serial = rocesim.run(k20)
        cut = rocesim.run(k20, threads=2)
        told = rocesim.run(k20, threads=2, partitions=2)
        self.assertEqual(serial.summary["run"]["partitions"], 1)
        self.assertEqual(cut.summary["run"]["partitions"], 4)
        self.assertEqual(told.summary["run"]["partitions"], 2)
        self.assertEqual(without_run(serial.summary), without_run(cut.summary))
        pd.testing.assert_frame_equal(serial.flows, cut.flows)

    def test_run_releases_the_gil(self):
        # While a run goes in another thread, this thread keeps running: its
        # longest pause is far shorter than the run (with the GIL held it
        # would be the whole run).
        sc = quickstart_dict()
        sc["topology"]["hosts"] = 65
        sc["traffic"][0]["senders"] = "1-64"
        sc["traffic"][0]["size"] = "4MB"
        sc["duration"] = "50ms"
        worker = threading.Thread(target=rocesim.run, args=(sc,))
        start = time.monotonic()
        worker.start()
        last, longest = time.monotonic(), 0.0
        while worker.is_alive():
            now = time.monotonic()
            longest, last = max(longest, now - last), now
        took = time.monotonic() - start
        self.assertGreater(took, 0.1)
        self.assertLess(longest, took / 4)


class SweepTest(unittest.TestCase):
    GRID = {"traffic.0.size": ["200KB", "500KB"], "seed": [1, 2]}
    SET = {"duration": "2ms"}

    def test_sweep_matches_the_command_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec = {"base": QUICKSTART, "grid": self.GRID, "set": self.SET}
            with open(os.path.join(tmp, "s.yaml"), "w") as f:
                yaml.safe_dump(spec, f, sort_keys=False)
            subprocess.run([BIN, "sweep", os.path.join(tmp, "s.yaml"), "-o",
                            os.path.join(tmp, "cli"), "-j", "2"], check=True,
                           stderr=subprocess.DEVNULL)
            seen = []
            s = rocesim.sweep(QUICKSTART, grid=self.GRID, set=self.SET,
                              out=os.path.join(tmp, "py"), jobs=2, progress=seen.append)
            self.assertEqual(len(seen), 4)
            self.assertEqual(sorted(p.done for p in seen), [1, 2, 3, 4])
            self.assertTrue(all(p.ok for p in seen))
            cli = pd.read_csv(os.path.join(tmp, "cli", "sweep.csv"))
            self.assertEqual(list(cli.columns), list(s.table.columns))
            pd.testing.assert_frame_equal(cli.drop(columns="cpu_seconds"),
                                          s.table.drop(columns="cpu_seconds"))
            self.assertEqual(sorted(s.names), sorted(d for d in os.listdir(os.path.join(tmp, "cli"))
                                                     if d.startswith("p0")))
            # Resume: a second sweep into the same directory runs nothing.
            again = []
            rocesim.sweep(QUICKSTART, grid=self.GRID, set=self.SET, out=os.path.join(tmp, "py"),
                          progress=again.append)
            self.assertEqual(again, [])
            self.assertEqual(s.result(0).summary["seed"], 1)

    def test_sweep_points_run_on_shared_partitions(self):
        serial = rocesim.sweep(QUICKSTART, grid=self.GRID, set=self.SET, jobs=1)
        shared = rocesim.sweep(QUICKSTART, grid=self.GRID, set=self.SET, jobs=1, partitions=3)
        for i in range(len(serial.names)):
            pd.testing.assert_frame_equal(serial.result(i).flows, shared.result(i).flows)
        with self.assertRaisesRegex(ValueError, "partitions"):
            rocesim.sweep(QUICKSTART, grid=self.GRID, threads=2, partitions=1)

    def test_sweep_workers_share_the_cores(self):
        # Two workers' points on 2 threads each: a point's threads spin 1 ms
        # at the barrier only if its share of the machine (half of it, when
        # this process may use every core) gives each thread a core.
        s = rocesim.sweep(QUICKSTART, grid=self.GRID, set=self.SET, jobs=2, threads=2)
        usable, machine = rocesim._run.usable_cores(), os.cpu_count()
        share = max(1, usable // 2) if usable >= machine else usable
        for i in range(len(s.names)):
            spun = s.result(i).summary["run"]["partitioned_time"]["barrier_spin_seconds"]
            self.assertEqual(spun, 0.001 if 2 <= share else 20e-6)
        self.assertNotIn("ROCESIM_SWEEP_WORKERS", os.environ)

    def test_dict_sweep_and_a_failing_point(self):
        with tempfile.TemporaryDirectory() as tmp:
            sc = quickstart_dict()
            s = rocesim.sweep(sc, points=[{"traffic.0.size": "100KB"}], set=self.SET, out=tmp,
                              jobs=1)
            self.assertEqual(s.table["status"].tolist(), ["ok"])
            bad = copy.deepcopy(sc)
            with self.assertRaisesRegex(rocesim.ScenarioError, r"<dict>.*traffic\.0\.size"):
                rocesim.sweep(bad, points=[{"traffic.0.size": "1XB"}], out=tmp)


if __name__ == "__main__":
    unittest.main()
