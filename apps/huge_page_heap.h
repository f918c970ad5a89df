// The heap on transparent huge pages for `rocesim run` and `rocesim sweep`
// (core/huge_pages.h says why: k=32 runs 11% faster with the heap alone on
// them, at 1-2% more memory). glibc puts its heap on huge pages only when
// the tunable glibc.malloc.hugetlb=1 is set as the process starts, so the
// command sets it and executes itself again, once, before anything else
// (MPI's start included) has happened. The new process sees the tunable and
// goes on; a sweep's workers and mpirun's ranks inherit it. Not done when
// huge pages are not wanted (ROCESIM_NO_HUGE_PAGES, THP "never"), when the
// tunable is set already, or under valgrind (the exec would leave it).
#pragma once

#include <string>

namespace rocesim {

// Executes this program again with the tunable set, when it should; returns
// only when it does not (or the exec failed: the run goes on without).
void ExecWithHugePageHeap(char** argv);

// For `run -v`: whether this process's heap is on huge pages, or why not.
std::string HugePageHeapNote();

}  // namespace rocesim
