// The ranks of an MPI job, as far as meeting before a run needs: which rank
// this is, how many there are, and an all-gather. Enough for the setup's
// agreement (apps/rank_agreement.h); a partitioned run's exchange adds the
// windows' traffic (sim/rank_exchange.h), a sweep's ranks nothing more
// (apps/sweep_command.cpp). Every call is collective.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rocesim {

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual uint32_t Ranks() const = 0;
  virtual uint32_t Rank() const = 0;
  // Every rank's `mine`, in rank order, on every rank: `mine` has the same
  // length on every rank.
  virtual std::vector<uint64_t> GatherAll(std::span<const uint64_t> mine) = 0;
};

}  // namespace rocesim
