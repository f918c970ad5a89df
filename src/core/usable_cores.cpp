#include "core/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace rocesim {

uint32_t UsableCores() {
#ifdef __linux__
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0)
    return static_cast<uint32_t>(CPU_COUNT(&mask));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace rocesim
