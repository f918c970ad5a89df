#include "sim/mpi_launch_env.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "core/usable_cores.h"

namespace rocesim {

const char* SingleMachinePml(const char* world_size, const char* local_size, const char* user_pml) {
  if (user_pml != nullptr || world_size == nullptr || local_size == nullptr) return nullptr;
  if (*world_size == '\0' || std::strcmp(world_size, local_size) != 0) return nullptr;
  return "ob1";
}

void PreferSharedMemoryPml() {
  if (const char* pml =
          SingleMachinePml(std::getenv("OMPI_COMM_WORLD_SIZE"),
                           std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"), std::getenv("OMPI_MCA_pml")))
    setenv("OMPI_MCA_pml", pml, /*overwrite=*/0);
}

namespace {
// A count of processes from the environment: at least 1 (unset or not a number).
uint32_t ProcessCount(const char* text) {
  if (text == nullptr) return 1;
  const std::string_view s(text);
  uint32_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc() && end == s.data() + s.size() && n > 1 ? n : 1;
}
}  // namespace

uint32_t AutoThreads(uint32_t usable, uint32_t machine, const char* local_ranks) {
  usable = std::max(usable, 1u);
  const uint32_t sharing = ProcessCount(local_ranks);
  if (sharing > 1 && usable >= machine) return std::max(1u, usable / sharing);
  return usable;
}

uint32_t LocalRanksHere() {
  return ProcessCount(std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"));
}

uint32_t AutoThreadsHere() {
  const char* sharing = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (sharing == nullptr) sharing = std::getenv(kSweepWorkersVar);
  return AutoThreads(UsableCores(), std::max(1u, std::thread::hardware_concurrency()), sharing);
}

}  // namespace rocesim
