// Tests of the MPI launch-environment choice (sim/mpi_launch_env.h): ob1
// only when every rank of the job is on this machine and the user has not
// chosen a messaging layer; nothing outside an OpenMPI launch. And
// --threads auto's count under a launcher.
#include <gtest/gtest.h>

#include <string>

#include "sim/mpi_launch_env.h"

namespace rocesim {
namespace test_mpi_launch_env {
namespace {

TEST(MpiLaunchEnv, OneMachineJobGetsSharedMemoryPml) {
  const char* pml = SingleMachinePml("2", "2", nullptr);
  ASSERT_NE(pml, nullptr);
  EXPECT_EQ(std::string(pml), "ob1");
  EXPECT_NE(SingleMachinePml("16", "16", nullptr), nullptr);
}

TEST(MpiLaunchEnv, JobAcrossMachinesKeepsOpenMpisChoice) {
  EXPECT_EQ(SingleMachinePml("4", "2", nullptr), nullptr);
  EXPECT_EQ(SingleMachinePml("16", "1", nullptr), nullptr);
}

TEST(MpiLaunchEnv, UsersChoiceWins) {
  EXPECT_EQ(SingleMachinePml("2", "2", "ucx"), nullptr);
  EXPECT_EQ(SingleMachinePml("2", "2", ""), nullptr);
}

TEST(MpiLaunchEnv, NoOpenMpiLaunchNoChoice) {
  EXPECT_EQ(SingleMachinePml(nullptr, nullptr, nullptr), nullptr);
  EXPECT_EQ(SingleMachinePml("2", nullptr, nullptr), nullptr);
  EXPECT_EQ(SingleMachinePml(nullptr, "2", nullptr), nullptr);
  EXPECT_EQ(SingleMachinePml("", "", nullptr), nullptr);
}

// Outside mpirun, or a rank bound to its own cores: the mask.
TEST(MpiLaunchEnv, AutoThreadsTakeTheMask) {
  EXPECT_EQ(AutoThreads(2, 2, nullptr), 2u);
  EXPECT_EQ(AutoThreads(16, 16, "1"), 16u);
  EXPECT_EQ(AutoThreads(1, 2, "2"), 1u) << "mpirun's default binding: a core per rank";
  EXPECT_EQ(AutoThreads(4, 16, "4"), 4u) << "--map-by slot:PE=4: four cores per rank";
  EXPECT_EQ(AutoThreads(0, 2, nullptr), 1u);
}

// --bind-to none: every rank may use the whole machine, so the ranks on it
// share its cores, at least one thread each.
TEST(MpiLaunchEnv, AutoThreadsShareAnUnboundMachine) {
  EXPECT_EQ(AutoThreads(2, 2, "2"), 1u);
  EXPECT_EQ(AutoThreads(16, 16, "4"), 4u);
  EXPECT_EQ(AutoThreads(16, 16, "3"), 5u);
  EXPECT_EQ(AutoThreads(2, 2, "8"), 1u);
  EXPECT_EQ(AutoThreads(2, 2, "two"), 2u) << "unreadable: as outside mpirun";
}

}  // namespace
}  // namespace test_mpi_launch_env
}  // namespace rocesim
