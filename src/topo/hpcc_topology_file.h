// Reader for the topology files of the HPCC ns-3 simulator (bench/README.md), so
// the same fabrics can be run in both simulators:
//   <nodes> <switches> <links>
//   <switch node ids, whitespace separated; may be empty or span lines>
//   <a> <b> <rate, e.g. 100Gbps> <delay, e.g. 1000ns or 0.001ms> <error rate>   (one per link)
// Nodes not listed as switches are hosts.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"

namespace rocesim {

// Names the file and, for content errors, the line: "fat.txt:3: ...".
class TopologyFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HpccTopology {
  int nodes = 0;
  std::vector<int> switch_ids;  // in file order
  std::vector<bool> is_switch;  // indexed by node id, size `nodes`
  struct Link {
    int a = 0;
    int b = 0;
    int64_t rate_bps = 0;
    Time delay = 0;
    double error_rate = 0;
  };
  std::vector<Link> links;  // in file order

  int HostCount() const { return nodes - static_cast<int>(switch_ids.size()); }
};

// Reads and validates the file at `path` (throws TopologyFileError).
HpccTopology ReadHpccTopologyFile(const std::string& path);

// Parses file contents; `display_name` prefixes error messages.
HpccTopology ParseHpccTopology(std::string_view text, const std::string& display_name);

}  // namespace rocesim
