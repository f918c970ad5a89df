#include "apps/huge_page_heap.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/huge_pages.h"

namespace rocesim {
namespace {

// The tunable, up to its value.
constexpr const char* kTunableName = "glibc.malloc.hugetlb=";

// The tunable's value in this process's environment ('\0' when not set).
char HeapTunable() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  const char* at = t != nullptr ? std::strstr(t, kTunableName) : nullptr;
  return at != nullptr ? at[std::strlen(kTunableName)] : '\0';
}

bool UnderValgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::strstr(preload, "vgpreload") != nullptr;
}

}  // namespace

void ExecWithHugePageHeap(char** argv) {
  if (!HugePagesWanted() || HeapTunable() != '\0' || UnderValgrind()) return;
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before != nullptr ? before : "";
  const std::string tunable = std::string(kTunableName) + "1";
  const std::string tunables = saved.empty() ? tunable : saved + ":" + tunable;
  // The program's own path, not /proc/self/exe, so that the process keeps
  // its name (ps, pgrep and killall see "rocesim", not "exe").
  std::string self(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0 || static_cast<size_t>(n) >= self.size() - 1) return;
  self.resize(static_cast<size_t>(n));
  setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  execv(self.c_str(), argv);
  // No exec (the file replaced or gone): run on as started, and leave
  // children as they were.
  if (before != nullptr)
    setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

std::string HugePageHeapNote() {
  if (!HugePagesWanted())
    return "heap and ports on 4 KB pages (ROCESIM_NO_HUGE_PAGES set, or this machine's "
           "transparent huge pages are off)";
  if (HeapTunable() == '0')
    return "heap on 4 KB pages (GLIBC_TUNABLES sets glibc.malloc.hugetlb=0); a serial run's ports "
           "on transparent huge pages";
  if (HeapTunable() == '\0')
    return "heap on 4 KB pages (not restarted with glibc.malloc.hugetlb=1: under valgrind, or "
           "its own file unavailable); a serial run's ports on transparent huge pages";
  return "heap on transparent huge pages (glibc.malloc.hugetlb=1), a serial run's ports too; "
         "ROCESIM_NO_HUGE_PAGES=1 turns them off";
}

}  // namespace rocesim
