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

uint32_t AutoThreads(uint32_t usable, uint32_t machine, const char* local_ranks) {
  usable = std::max(usable, 1u);
  uint32_t sharing = 1;
  if (local_ranks != nullptr) {
    const std::string_view text(local_ranks);
    uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && end == text.data() + text.size() && n > 1) sharing = n;
  }
  if (sharing > 1 && usable >= machine) return std::max(1u, usable / sharing);
  return usable;
}

uint32_t AutoThreadsHere() {
  return AutoThreads(UsableCores(), std::max(1u, std::thread::hardware_concurrency()),
                     std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"));
}

}  // namespace rocesim
