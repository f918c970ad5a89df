// Tests of the MPI launch-environment choice (sim/mpi_launch_env.h): ob1
// only when every rank of the job is on this machine and the user has not
// chosen a messaging layer; nothing outside an OpenMPI launch.
#include <gtest/gtest.h>

#include <string>

#include "sim/mpi_launch_env.h"

namespace rocesim {
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

}  // namespace
}  // namespace rocesim
