// What the results say of each flow beside its numbers: the congestion
// control it runs and the tag of the traffic entry that made it (flows.csv's
// `cc` and `tag` columns, the collectives' results). Every flow has them, so
// a process keeps one copy: the replicas of a partitioned run read the one
// their shared build recorded (sim/shared_flow_build.h), as they read its
// flows' ends. 5 bytes a flow (up to twice that in the vectors' spare
// room), which every partition kept before: sharing them took
// ai-1024-gpus's 718,848 messages in 8 partitions from 822 MB to 777 MB.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

class FlowLabels {
 public:
  // Labels the next flow (id Count()).
  void Add(CcKind cc, const std::string& tag) {
    cc_.push_back(cc);
    // Mostly the previous flow's tag; else one seen before, or a new one.
    if (!tag_.empty() && tags_[tag_.back()] == tag) {
      tag_.push_back(tag_.back());
      return;
    }
    const auto [it, fresh] = index_.try_emplace(tag, static_cast<uint32_t>(tags_.size()));
    if (fresh) tags_.push_back(tag);
    tag_.push_back(it->second);
  }
  uint32_t Count() const { return static_cast<uint32_t>(cc_.size()); }
  // Per flow id.
  const std::vector<CcKind>& Cc() const { return cc_; }
  const std::string& Tag(uint32_t flow) const { return tags_[tag_[flow]]; }

 private:
  std::vector<CcKind> cc_;
  // By flow, into tags_, each distinct tag once: a collective's hundreds of
  // thousands of messages share a handful.
  std::vector<uint32_t> tag_;
  std::vector<std::string> tags_;
  std::unordered_map<std::string, uint32_t> index_;  // tags_ by tag
};

}  // namespace rocesim
