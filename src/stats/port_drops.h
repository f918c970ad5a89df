// Frames dropped on arrival at each port, by cause (counters.csv's per-cause
// columns). A lossless fabric drops few frames at few ports, and a large one
// has hundreds of thousands of ports: a full table of 13 counters per port
// was 41 MB of a k=64 fat tree's serial run, and an index of four bytes per
// port was still 1.6 MB in every partition of a partitioned run. So a port's
// counts exist once it has dropped a frame, found through a hash map from
// the port to its row of counts; a fabric without drops holds nothing.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "stats/counters.h"

namespace rocesim {

class PortDrops {
 public:
  using ByCause = DropsByCause;

  // `ports` ports (ids 0 .. ports - 1), none with a drop.
  void Reset(size_t ports) {
    ports_ = ports;
    row_.clear();
    counts_.clear();
  }
  void Add(uint32_t port, DropCause cause) {
    assert(port < ports_);
    const auto [it, added] = row_.try_emplace(port, static_cast<uint32_t>(counts_.size()));
    if (added) counts_.emplace_back();
    ++counts_[it->second][static_cast<size_t>(cause)];
  }
  // The port's counts (all zero if it dropped nothing).
  const ByCause& Of(uint32_t port) const {
    if (counts_.empty()) return kNoDrops;  // the lossless fabric's case: no lookup
    const auto it = row_.find(port);
    return it == row_.end() ? kNoDrops : counts_[it->second];
  }
  // Ports that have dropped at least one frame.
  size_t PortsWithDrops() const { return counts_.size(); }

 private:
  static constexpr ByCause kNoDrops{};
  size_t ports_ = 0;
  std::unordered_map<uint32_t, uint32_t> row_;  // port -> its row of counts_
  std::vector<ByCause> counts_;
};

}  // namespace rocesim
