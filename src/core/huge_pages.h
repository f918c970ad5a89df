// Transparent huge pages for the simulation's large arrays (bench/NOTES.md,
// thirty-eighth session). A frame's hop reads a port, its wire's ring, a
// queue and NIC state scattered over tens to hundreds of megabytes; with 4 KB
// pages most of those reads on a large fabric also miss the TLB. On k=32 the
// port array on 2 MB pages alone ran 6% faster, and with the heap on them
// too 15%, with every result identical. A Debian system's THP setting ("madvise")
// gives huge pages only to memory that asks for them: this is how rocesim asks.
#pragma once

#include <cstddef>

namespace rocesim {

// Whether to ask: not when ROCESIM_NO_HUGE_PAGES is set (and not "0"), nor
// when this machine's THP is "never" or unknown (no /sys entry).
bool HugePagesWanted();

// Marks [p, p + bytes) for huge pages (madvise MADV_HUGEPAGE) when wanted,
// before its pages are first touched: the kernel then backs each whole,
// aligned 2 MB of it with one page.
void AdviseHugePages(void* p, size_t bytes);

}  // namespace rocesim
