// A partitioned run whose partition fails mid-run (an exception in its
// thread) ends with that exception: the other partitions, waiting at the
// window barrier, are stopped (SpinBarrier::Abort) instead of waiting for it
// forever, and no thread is left running when the run returns.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "scenario/scenario_reader.h"
#include "sim/partitioned_run.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_partitioned_failure {
namespace {

// The progress callback runs on partition 0's thread between windows; one
// that throws is that partition failing while the other waits for it.
TEST(PartitionedFailure, APartitionThatThrowsEndsTheRunWithItsError) {
  const Scenario sc = LoadScenario(test::ExamplePath("dcqcn-incast.yaml"), {}, std::nullopt);
  for (uint32_t threads : {2u, 3u}) {
    PartitionedRun run(sc, threads);
    int calls = 0;
    try {
      run.Run([&](const RunProgress&) {
        if (++calls == 1) throw std::runtime_error("progress failed");
      });
      ADD_FAILURE() << threads << " threads: the run returned normally";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "progress failed") << threads << " threads";
    }
    EXPECT_EQ(calls, 1);
  }
}

}  // namespace
}  // namespace test_partitioned_failure
}  // namespace rocesim
