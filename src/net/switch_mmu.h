// Shared-buffer memory management of an output-queued switch, ingress side
// (the Broadcom-style model: DESIGN.md §3, seed 003 §6.2).
//
// Every ingress (port, priority) — a "priority group" (PG) — owns `reserved`
// bytes, may then take from one shared pool while
//     alpha * (shared pool - shared in use) > this PG's shared use
// (dynamic threshold), and, for lossless priorities, has its own headroom for
// the frames that arrive after it sent XOFF. XOFF is due when a PG can no
// longer take shared buffer or has spilled into headroom; XON when its
// headroom is empty and its shared use is `xon_offset` below the threshold
// (or zero). A lossless PG drops only when its headroom overflows.
//
// Simplification: lossy priorities use the same ingress dynamic threshold
// (without headroom) instead of a separate egress-side limit.
#pragma once

#include <cstdint>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

enum class Admission : uint8_t { kAdmitted, kDropHeadroom, kDropShared };

class SwitchMmu {
 public:
  // headroom_per_port[p]: headroom of each lossless PG of port p.
  void Init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
            const std::array<bool, kNumPriorities>& lossless);

  // Shared pool after reserved and headroom are carved out; negative when the
  // buffer is too small for them (a misconfiguration the builder reports).
  int64_t SharedPoolBytes() const { return shared_pool_; }

  Admission Admit(int port, int prio, int64_t bytes);
  void Release(int port, int prio, int64_t bytes);

  bool ShouldPause(int port, int prio) const;
  bool ShouldResume(int port, int prio) const;
  uint8_t& Xoff(int port, int prio) { return xoff_[Pg(port, prio)]; }

  // The dynamic threshold now: how much shared buffer one PG may hold.
  double Threshold() const { return alpha_ * static_cast<double>(shared_pool_ - shared_used_); }
  int64_t SharedUsed() const { return shared_used_; }
  int64_t PgShared(int port, int prio) const { return SharedOf(Pg(port, prio)); }
  int64_t PgHeadroom(int port, int prio) const { return headroom_used_[Pg(port, prio)]; }
  int64_t PgBytes(int port, int prio) const {
    return ingress_[Pg(port, prio)] + headroom_used_[Pg(port, prio)];
  }
  int64_t TotalBytes() const { return total_bytes_; }

 private:
  static int Pg(int port, int prio) { return port * kNumPriorities + prio; }
  int64_t SharedOf(int pg) const { return ingress_[pg] > reserved_ ? ingress_[pg] - reserved_ : 0; }

  double alpha_ = 1.0 / 16;
  int64_t reserved_ = 0;
  int64_t xon_offset_ = 0;
  int64_t shared_pool_ = 0;
  int64_t shared_used_ = 0;
  int64_t total_bytes_ = 0;
  std::vector<int64_t> headroom_;       // per port
  std::vector<int64_t> ingress_;        // per PG: reserved + shared bytes held
  std::vector<int64_t> headroom_used_;  // per PG
  std::vector<uint8_t> xoff_;           // per PG: XOFF sent and not yet resumed
  std::array<bool, kNumPriorities> lossless_{};
};

}  // namespace rocesim
