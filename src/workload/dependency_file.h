// Reader for dependency files (issue "AI training on RoCE fabrics"): a
// workload as flows that wait for other flows, so a user can feed a trace
// exported from their training framework. Two formats, by extension:
//
// CSV (any name but *.json): '#' starts a comment; the first line names the
// columns, in any order:
//   id          a name for the flow, unique in the file (no ',' ';' or spaces)
//   src, dst    host ids
//   size        bytes ("1MB", "4KiB", 1000)
//   depends_on  ids of the flows it waits for, separated by ';' or spaces
//               (optional; empty: none)
//   delay       compute time after the last of them completes ("5us";
//               optional; a flow without dependencies starts at start + delay)
//   start       earliest start ("0", "10us"; optional, default 0)
//   tag, priority  optional, per flow (else the traffic entry's)
// e.g.
//   id,src,dst,size,depends_on,delay
//   a,0,1,1MB,,
//   b,1,2,1MB,a,2us
//
// JSON (*.json): {"flows": [{"id": "a", "src": 0, "dst": 1, "size": "1MB",
// "depends_on": [], "delay": "2us", "start": "0", "tag": "x", "priority": 3},
// ...]} with the same fields (numbers or strings with units).
//
// A flow may only wait for flows that start or end at its own source host
// (the dependency is resolved there: transport/flow_dependencies.h); a
// dependency on an unknown id, a cycle (named flow by flow), a duplicate id
// or a bad field is an error naming the file and line (CSV) or the flow's
// index (JSON).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

class DependencyFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Flows in file order, FlowSpec::after holding file indices. Host ids must
// be below `hosts`; `priority` and `tag` are the defaults.
std::vector<FlowSpec> ReadDependencyFile(const std::string& path, int hosts, int priority,
                                         const std::string& tag);
std::vector<FlowSpec> ParseDependencyCsv(std::string_view text, const std::string& name, int hosts,
                                         int priority, const std::string& tag);
std::vector<FlowSpec> ParseDependencyJson(std::string_view text, const std::string& name, int hosts,
                                          int priority, const std::string& tag);

}  // namespace rocesim
