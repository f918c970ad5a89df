#include "sim/mpi_launch_env.h"

#include <cstdlib>
#include <cstring>

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

}  // namespace rocesim
