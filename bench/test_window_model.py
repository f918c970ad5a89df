"""bench/window_model.py against schedules worked out by hand."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import window_model  # noqa: E402

# Three windows 1000 ps apart, two partitions: (seconds, events).
TRACE = """window,start_ps,partition,events,seconds
0,0,0,20,2.0
0,0,1,10,1.0
1,1000,0,10,1.0
1,1000,1,30,3.0
2,2000,0,20,2.0
2,2000,1,10,1.0
"""


class WindowModelTest(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "w") as f:
            f.write(TRACE)

    def tearDown(self):
        os.remove(self.path)

    def test_barrier_waits_for_each_windows_slowest_partition(self):
        starts, rows = window_model.load(self.path)
        self.assertEqual(starts, [0, 1000, 2000])
        cost = [[s for s, _ in r] for r in rows]
        # Windows last 2, 3 and 2 s; the partitions are busy 10 s of 2 x 7.
        self.assertEqual(window_model.barrier(cost), (7.0, 4.0))

    def test_slack_of_the_window_is_the_barrier(self):
        starts, rows = window_model.load(self.path)
        cost = [[s for s, _ in r] for r in rows]
        self.assertEqual(window_model.asynchronous(starts, cost, 1000, 1000), (7.0, 4.0))

    def test_two_windows_of_slack(self):
        # Window 1 waits for nothing: partition 1 ends it at 1 + 3 = 4, while
        # partition 0 ends it at 3. Window 2 waits for window 0 (ended at 2),
        # so both end at 5: no wait at all.
        starts, rows = window_model.load(self.path)
        cost = [[s for s, _ in r] for r in rows]
        self.assertEqual(window_model.asynchronous(starts, cost, 2000, 1000), (5.0, 0.0))

    def test_command_line_prints_each_schedule(self):
        out = subprocess.run([sys.executable, window_model.__file__, self.path, "--slack", "2000",
                              "--cost", "events"], capture_output=True, text=True, check=True).stdout
        self.assertIn("3 windows of 1000 ps, 2 partitions, 10.000 s of events (events)", out)
        self.assertRegex(out, r"barrier +7\.000 +4\.000 +40\.0%")
        self.assertRegex(out, r"asynchronous, slack 2000 ps +5\.000 +0\.000 +0\.0%")

    def test_a_trace_with_a_row_missing_is_refused(self):
        with open(self.path, "w") as f:
            f.write(TRACE.replace("1,1000,1,30,3.0\n", ""))
        r = subprocess.run([sys.executable, window_model.__file__, self.path],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(self.path, r.stderr)


if __name__ == "__main__":
    unittest.main()
