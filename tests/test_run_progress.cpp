// Tests of the progress line's ETA (src/sim/run_progress.h): work is measured
// as simulated time from the first flow's start and as bytes of completed
// flows, so a run whose traffic starts late (the HPCC benchmark: flows from
// 2 s) no longer shows "ETA 0 s" from the start; the line shows flows
// completed of all flows.
#include <gtest/gtest.h>

#include "sim/run_progress.h"

namespace rocesim {
namespace test_run_progress {
namespace {

constexpr Time kSecond = 1000 * kMillisecond;

TEST(RunProgressTest, IdleLeadInBeforeTheFirstFlowIsNotProgress) {
  // Traffic from 2 s to a 2.1 s stop; 10 ms of it simulated in 10 s of wall
  // time: a tenth of the work, 90 s left (simulated time from 0 would say 95%
  // done and 0.5 s left).
  const RunProgress p{.now = 2010 * kMillisecond,
                      .events = 1'000'000,
                      .flows_finished = 0,
                      .flows_total = 5000,
                      .bytes_finished = 0,
                      .bytes_total = 1'000'000'000,
                      .traffic_start = 2 * kSecond};
  const std::optional<double> eta = EstimateRemainingSeconds(p, 2100 * kMillisecond, 10.0);
  ASSERT_TRUE(eta.has_value());
  EXPECT_NEAR(*eta, 90.0, 1e-6);
}

TEST(RunProgressTest, CompletedBytesEndTheRunBeforeTheStopTime) {
  // Half the simulated span, but 80% of the bytes delivered: the run ends
  // when the last flow finishes, so the sooner estimate (2.5 s) wins over 10 s.
  RunProgress p{.now = 1500 * kMillisecond,
                .events = 10,
                .flows_finished = 8,
                .flows_total = 10,
                .bytes_finished = 800,
                .bytes_total = 1000,
                .traffic_start = kSecond};
  EXPECT_NEAR(*EstimateRemainingSeconds(p, 2 * kSecond, 10.0), 2.5, 1e-9);
  // Nothing delivered yet: time alone.
  p.bytes_finished = 0;
  EXPECT_NEAR(*EstimateRemainingSeconds(p, 2 * kSecond, 10.0), 10.0, 1e-9);
}

TEST(RunProgressTest, MiceFinishingFirstDoNotShortenTheEstimate) {
  // 9 of 10 flows done, but they are mice: 10% of the bytes. The elephant
  // still runs, so time (half done, 10 s left) is the estimate, not 1.1 s.
  const RunProgress p{.now = 1500 * kMillisecond,
                      .events = 10,
                      .flows_finished = 9,
                      .flows_total = 10,
                      .bytes_finished = 100,
                      .bytes_total = 1000,
                      .traffic_start = kSecond};
  EXPECT_NEAR(*EstimateRemainingSeconds(p, 2 * kSecond, 10.0), 10.0, 1e-9);
}

TEST(RunProgressTest, NoMeasurableWorkGivesNoEstimate) {
  const RunProgress before{.now = kSecond / 2,
                           .events = 5,
                           .flows_finished = 0,
                           .flows_total = 4,
                           .bytes_finished = 0,
                           .bytes_total = 4000,
                           .traffic_start = kSecond};
  EXPECT_FALSE(EstimateRemainingSeconds(before, 2 * kSecond, 3.0).has_value());
  const std::string line = ProgressLineText(before, 2 * kSecond, 3.0);
  EXPECT_NE(line.find("ETA ?"), std::string::npos) << line;
  EXPECT_NE(line.find("flows 0/4"), std::string::npos) << line;
}

TEST(RunProgressTest, LineShowsSimulatedTimeFlowsRateAndEta) {
  const RunProgress p{.now = 2050 * kMillisecond,
                      .events = 3'000'000,
                      .flows_finished = 1234,
                      .flows_total = 5000,
                      .bytes_finished = 25,
                      .bytes_total = 100,
                      .traffic_start = 2 * kSecond};
  // Time: half done in 2 s -> 2 s left; bytes: a quarter -> 6 s; the sooner wins.
  EXPECT_EQ(ProgressLineText(p, 2100 * kMillisecond, 2.0),
            "sim 2050.000 ms / 2100.000 ms  flows 1234/5000  1.50 M events/s  ETA 2 s");
  // Long runs in minutes.
  EXPECT_NE(ProgressLineText(p, 2100 * kMillisecond, 600.0).find("ETA 10 min"), std::string::npos);
}

}  // namespace
}  // namespace test_run_progress
}  // namespace rocesim
