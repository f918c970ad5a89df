#include "core/huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace rocesim {

bool HugePagesWanted() {
  static const bool wanted = [] {
    if (const char* off = std::getenv("ROCESIM_NO_HUGE_PAGES");
        off != nullptr && *off != '\0' && std::strcmp(off, "0") != 0)
      return false;
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(in, modes);  // e.g. "always [madvise] never"
    return !modes.empty() && modes.find("[never]") == std::string::npos;
  }();
  return wanted;
}

void AdviseHugePages(void* p, size_t bytes) {
  if (bytes >= (size_t{2} << 20) && HugePagesWanted()) madvise(p, bytes, MADV_HUGEPAGE);
}

}  // namespace rocesim
