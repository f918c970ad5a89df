// How many cores this process may run on: its CPU affinity mask (taskset,
// a cgroup's cpuset), which std::thread::hardware_concurrency ignores, or
// the machine's count where the mask cannot be read.
#pragma once

#include <cstdint>

namespace rocesim {

uint32_t UsableCores();

}  // namespace rocesim
