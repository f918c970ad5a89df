// Reader for the flow lists of the HPCC ns-3 simulator (bench/README.md):
//   <flow count>
//   <src> <dst> <priority> <dst port> <size bytes> <start seconds>   (one per flow)
// so the same workload runs in both simulators. Start times are absolute
// seconds (HPCC runs usually start traffic at 2 s); they are converted to
// picoseconds exactly from the decimal text.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

// Names the file and line: "flows.txt:12: ...".
class FlowFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the file at `path`; host ids must be below `hosts`.
std::vector<FlowSpec> ReadHpccFlowFile(const std::string& path, int hosts);
std::vector<FlowSpec> ParseHpccFlows(std::string_view text, const std::string& display_name,
                                     int hosts);

}  // namespace rocesim
