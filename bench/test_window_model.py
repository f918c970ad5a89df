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


class TraceFileTest(unittest.TestCase):
    """Writes the class's `trace` to a file of its own, `self.path`."""
    trace = ""

    def setUp(self):
        fd, self.path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "w") as f:
            f.write(self.trace)

    def tearDown(self):
        os.remove(self.path)


class WindowModelTest(TraceFileTest):
    trace = TRACE

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


# Three windows, four partitions (seconds; events the same), for two threads:
# thread 0's own share is partitions 0 and 1, thread 1's 2 and 3.
SHARED = """window,start_ps,partition,events,seconds
0,0,0,3,3.0
0,0,1,1,1.0
0,0,2,1,1.0
0,0,3,1,1.0
1,1000,0,1,1.0
1,1000,1,1,1.0
1,1000,2,1,1.0
1,1000,3,3,3.0
2,2000,0,1,1.0
2,2000,1,1,1.0
2,2000,2,3,3.0
2,2000,3,1,1.0
"""


class SharedPartitionsTest(TraceFileTest):
    trace = SHARED

    def setUp(self):
        super().setUp()
        _, rows = window_model.load(self.path)
        self.cost = [[s for s, _ in r] for r in rows]

    def test_own_shares_wait_for_the_heavier_share(self):
        # Shares take 4 and 2, 2 and 4, 2 and 4: 12 s of 2 x 12 busy 18.
        self.assertEqual(window_model.dealt(self.cost, 2, len(self.cost)), (12.0, 6.0))

    def test_claiming_takes_what_the_other_thread_has_not_begun(self):
        # Window 0: thread 0 runs partition 0 (3 s) while thread 1 runs 2, 3
        # and then thread 0's partition 1: both end at 3. Window 1: thread 0
        # runs 0 and 1 (2 s), thread 1 runs 2 and 3 (4 s). Window 2: thread 1
        # runs 2 (3 s), thread 0 runs 0, 1 and 3: 3 s.
        self.assertEqual(window_model.claiming(self.cost, 2), (10.0, 2.0))

    def test_dealing_every_window_by_its_own_loads_balances_it(self):
        # Each window's 3 s partition alone on one thread, the three 1 s on the other.
        self.assertEqual(window_model.dealt(self.cost, 2, 0), (9.0, 0.0))

    def test_a_deal_by_the_last_window_can_be_worse_than_none(self):
        # Window 0 by own shares (4 s); window 1 dealt by window 0's loads
        # (partition 0 alone): 1 against 5; window 2 by window 1's (3 alone): 5.
        self.assertEqual(window_model.dealt(self.cost, 2, 1), (14.0, 10.0))

    def test_a_deal_by_two_windows_keeps_the_own_shares_here(self):
        # Windows 0 and 1 took 4, 2, 2, 4: dealt 0 and 1 to thread 0, 2 and 3
        # to thread 1 again, so window 2 waits as before.
        self.assertEqual(window_model.dealt(self.cost, 2, 2), (12.0, 6.0))

    def test_command_line_prints_the_shared_schedules(self):
        out = subprocess.run([sys.executable, window_model.__file__, self.path, "--threads", "2",
                              "--every", "2"], capture_output=True, text=True, check=True).stdout
        self.assertIn("3 windows of 1000 ps, 4 partitions, 18.000 s of events (seconds)", out)
        self.assertRegex(out, r"claiming +10\.000 +2\.000 +11\.1%")
        self.assertRegex(out, r"own share +12\.000 +6\.000 +33\.3%")
        self.assertRegex(out, r"re-dealt every 2 windows +12\.000 +6\.000 +33\.3%")
        self.assertRegex(out, r"dealt every window +9\.000 +0\.000 +0\.0%")

    def test_more_threads_than_partitions_is_refused(self):
        r = subprocess.run([sys.executable, window_model.__file__, self.path, "--threads", "5"],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("5 threads for 4 partitions", r.stderr)


if __name__ == "__main__":
    unittest.main()
