// Frames dropped on arrival at each port, by cause (counters.csv's per-cause
// columns). A lossless fabric drops few frames at few ports, and a large one
// has hundreds of thousands of ports: a full table of 13 counters per port
// was 41 MB of a k=64 fat tree's serial run, and each partition of a
// partitioned run touched its own scattered pages of it. So a port's counts
// exist once it has dropped a frame: four bytes of index per port, and the
// counts of the ports that dropped in a dense table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/counters.h"

namespace rocesim {

class PortDrops {
 public:
  using ByCause = DropsByCause;

  // `ports` ports (ids 0 .. ports - 1), none with a drop.
  void Reset(size_t ports) {
    index_.assign(ports, kNone);
    counts_.clear();
  }
  void Add(uint32_t port, DropCause cause) {
    uint32_t& i = index_[port];
    if (i == kNone) {
      i = static_cast<uint32_t>(counts_.size());
      counts_.emplace_back();
    }
    ++counts_[i][static_cast<size_t>(cause)];
  }
  // The port's counts (all zero if it dropped nothing).
  const ByCause& Of(uint32_t port) const {
    const uint32_t i = index_[port];
    return i == kNone ? kNoDrops : counts_[i];
  }
  // Ports that have dropped at least one frame.
  size_t PortsWithDrops() const { return counts_.size(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr ByCause kNoDrops{};
  std::vector<uint32_t> index_;  // per port: its row of counts_, or kNone
  std::vector<ByCause> counts_;
};

}  // namespace rocesim
