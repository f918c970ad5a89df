#include "sim/window_trace.h"

#include <fmt/format.h>

#include "core/checked_write.h"

namespace rocesim {

void WriteWindowTraceCsv(const WindowTrace& trace, const std::string& path, size_t flush_bytes) {
  CheckedFileWriter out(path);
  auto text = std::back_inserter(out.Text());
  fmt::format_to(text, "window,start_ps,partition,events,seconds\n");
  const size_t parts = trace.partitions;
  for (size_t w = 0; w < trace.starts.size(); ++w) {
    for (size_t p = 0; p < parts; ++p)
      fmt::format_to(text, "{},{},{},{},{:.9f}\n", w, trace.starts[w], p,
                     trace.events[w * parts + p],
                     static_cast<double>(trace.nanoseconds[w * parts + p]) * 1e-9);
    out.FlushIfOver(flush_bytes);
  }
  out.Close();
}

}  // namespace rocesim
