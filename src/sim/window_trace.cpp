#include "sim/window_trace.h"

#include <fmt/format.h>

namespace rocesim {

std::string WindowTraceCsv(const WindowTrace& trace) {
  std::string csv = "window,start_ps,partition,events,seconds\n";
  const size_t parts = trace.partitions;
  csv.reserve(csv.size() + trace.starts.size() * parts * 40);
  for (size_t w = 0; w < trace.starts.size(); ++w)
    for (size_t p = 0; p < parts; ++p)
      fmt::format_to(std::back_inserter(csv), "{},{},{},{},{:.9f}\n", w, trace.starts[w], p,
                     trace.events[w * parts + p],
                     static_cast<double>(trace.nanoseconds[w * parts + p]) * 1e-9);
  return csv;
}

}  // namespace rocesim
