// The pieces collectives are built from (workload/collectives.h, and the
// training loops of workload/training_loop.h): a Builder that turns
// messages into dependent flows, and the algorithms that emit an
// operation's messages through it.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "workload/collectives.h"

namespace rocesim::collective_detail {

inline constexpr uint32_t kNone = UINT32_MAX;
// While building, a join is named by this bit and its index; Finish turns
// it into flows.size() + index (FlowSpec::after).
inline constexpr uint32_t kJoinBit = 0x80000000u;

// `total` cut into `parts` near-equal pieces: piece i.
inline int64_t Split(int64_t total, int64_t parts, int64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

class Builder {
 public:
  // Flows take entry `t`'s priority, congestion control and tag; `hosts`
  // bounds the host ids used. Tracking keeps, per host, the flows since the
  // last join over them: per phase (TakePhase, GateOnPhase) and per
  // iteration (GateOnPhase with whole_iteration).
  Builder(const TrafficSpec& t, size_t index, int hosts, bool track_phases, bool track_iterations);

  // One message of `bytes` from `src` to `dst` on connection `conn`, waiting
  // for `after` and for its source rank's gate, not before the source's
  // earliest start.
  uint32_t Flow(int conn, int src, int dst, int64_t bytes, std::vector<uint32_t> after);

  // Every rank's flows since the last call wait-for-all at a join (delay
  // after the last), which becomes the rank's gate.
  void GateOnPhase(const std::vector<int>& ranks, Time delay, bool whole_iteration);

  // A join at `host` over `after` (flows or joins), completing `delay`
  // after the last of them; its node name.
  uint32_t Join(int host, std::vector<uint32_t> after, Time delay);
  // The flows touching `host` since its phase was last taken.
  std::vector<uint32_t> TakePhase(int host);
  uint32_t Gate(int host) const { return gate_[host]; }
  void SetGate(int host, uint32_t node) { gate_[host] = node; }
  // No flow from `host` starts before `at` (a rank busy computing before
  // anything it could wait for).
  void SetNotBefore(int host, Time at) { not_before_[host] = at; }
  // Connections of different communicators between the same pair are
  // different QPs: `space` (0-15) is part of every connection's name, and
  // of its source port when not 0.
  void SetConnectionSpace(int space) { space_ = space; }

  // Flows record the current step; a pinned step overrides the algorithms'.
  void SetStep(int step) { step_ = pinned_ >= 0 ? pinned_ : step; }
  void PinStep(int step) { pinned_ = step_ = step; }
  int MaxStep() const { return max_step_; }
  void ResetSteps() { max_step_ = 0; }
  uint32_t FlowCount() const { return static_cast<uint32_t>(plan_.flows.size()); }

  CollectivePlan Finish();
  CollectivePlan& plan() { return plan_; }

 private:
  uint16_t Sport(int conn, int src, int dst) const;

  const TrafficSpec& t_;
  size_t index_;
  bool track_phases_, track_iterations_;
  CollectivePlan plan_;
  std::unordered_map<uint64_t, uint32_t> last_on_connection_;  // its newest message
  std::vector<uint32_t> gate_;                    // per host: what its next flows wait for
  std::vector<Time> not_before_;                  // per host: its flows' earliest start
  std::vector<std::vector<uint32_t>> phase_;      // per host: flows touching it this phase
  std::vector<std::vector<uint32_t>> iteration_;  // ... this iteration
  int space_ = 0;
  int step_ = 0;
  int pinned_ = -1;
  int max_step_ = 0;
};

// Ring steps [from, to) over ranks `r` on `bytes`: [0, n-1) is a
// reduce-scatter, [n-1, 2n-2) an all-gather (collectives.h "ring").
void Ring(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, int64_t chunk, int from,
          int to, int step0);
// The pipelined chain r[0] -> r[1] -> ... carrying all `bytes` (broadcast).
void Chain(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, int64_t chunk,
           int step0);
// NCCL's double binary tree AllReduce; connections 2 conn and 2 conn + 1.
void DoubleTree(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, int64_t chunk);
// Rabenseifner: recursive halving and / or doubling (n a power of two).
void HalvingDoubling(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, bool halve,
                     bool dbl);
// One message per ordered pair (all-to-all; own_piece: all-gather).
void Direct(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, bool own_piece);
// Intra-server ring, inter-server ring per local index, intra-server ring.
void Hierarchical(Builder& b, const std::vector<int>& r, int channels, int64_t size, int64_t chunk,
                  int gpus_per_server);

// One instance of `op` by `algorithm` over `r` on `size` bytes cut into
// `channels` (connections conn0 .. conn0 + channels - 1; a tree uses two
// per channel).
void EmitCollective(Builder& b, CollectiveOp op, CollectiveAlgorithm algorithm,
                    const std::vector<int>& r, int64_t size, int channels, int64_t chunk,
                    int gpus_per_server, int conn0);

}  // namespace rocesim::collective_detail
