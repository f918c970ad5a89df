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

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

enum class Admission : uint8_t { kAdmitted, kDropHeadroom, kDropShared };

class alignas(64) SwitchMmu {
 public:
  // headroom_per_port[p]: headroom of each lossless PG of port p;
  // port_rates_bps[p]: its link rate, which picks its alpha from
  // cfg.alpha_by_rate (empty: cfg.alpha everywhere).
  void Init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
            const std::array<bool, kNumPriorities>& lossless,
            const std::vector<int64_t>& port_rates_bps = {});
  // The alpha of an ingress port of `rate_bps` (cfg.alpha_by_rate, else cfg.alpha).
  static double AlphaFor(const SwitchConfig& cfg, int64_t rate_bps);

  // Shared pool after reserved and headroom are carved out; negative when the
  // buffer is too small for them (a misconfiguration the builder reports).
  int64_t SharedPoolBytes() const { return shared_pool_; }
  // What reserved and headroom carve out of a switch with these ports'
  // headroom: the builder checks every switch's buffer with it before any is
  // built (CheckSwitchBuffers, net/switch_buffers.h).
  static int64_t CarvedBytes(const SwitchConfig& cfg, const std::vector<int64_t>& headroom,
                             const std::array<bool, kNumPriorities>& lossless);
  // The lossless priorities: cfg.pfc.priorities when PFC is on, else none.
  static std::array<bool, kNumPriorities> Lossless(const SwitchConfig& cfg) {
    std::array<bool, kNumPriorities> lossless{};
    if (cfg.pfc.enabled)
      for (int p : cfg.pfc.priorities) lossless[static_cast<size_t>(p)] = true;
    return lossless;
  }

  // Per packet, so inline (below), and forced: as unrelated code joined
  // their translation unit (the unity build), GCC's inliner stopped
  // inlining PassesThrough into Simulation::RunEvents (+75 M instructions on
  // the k8 benchmark's first 3 ms, in call overhead) and for a while Admit
  // too (bench/NOTES.md, thirty-sixth session).
  Admission Admit(int port, int prio, int64_t bytes);
  void Release(int port, int prio, int64_t bytes);
  // Whether a frame of `bytes` that leaves again at once (a cut-through:
  // Switch::Forward onto an idle port) leaves every count as it found it and
  // causes no PFC frame: Admit would take it into the shared buffer, a
  // lossless PG would not be due for XOFF with it counted, and its PG has no
  // XOFF outstanding (which the departure would re-examine). Same arithmetic
  // as Admit and ShouldPause, without writing.
  bool PassesThrough(int port, int prio, int64_t bytes) const;

  // Inline always: every frame a lossless switch queues asks (GCC left it a
  // call when a unity batch's other code changed: +0.5% instructions on k8).
  [[gnu::always_inline]] bool ShouldPause(int port, int prio) const {
    const PgState& g = pg_[Pg(port, prio)];
    return g.headroom_used > 0 || static_cast<double>(SharedOf(g)) >= Threshold(g);
  }
  bool ShouldResume(int port, int prio) const {
    const PgState& g = pg_[Pg(port, prio)];
    if (g.headroom_used > 0) return false;
    const int64_t shared = SharedOf(g);
    return shared == 0 || static_cast<double>(shared + xon_offset_) <= Threshold(g);
  }
  uint8_t& Xoff(int port, int prio) { return pg_[Pg(port, prio)].xoff; }

  // The dynamic threshold now: how much shared buffer a PG of `port` may hold.
  double Threshold(int port) const { return Threshold(pg_[Pg(port, 0)]); }
  int64_t SharedUsed() const { return shared_used_; }
  int64_t PgShared(int port, int prio) const { return SharedOf(pg_[Pg(port, prio)]); }
  int64_t PgHeadroom(int port, int prio) const { return pg_[Pg(port, prio)].headroom_used; }
  int64_t PgBytes(int port, int prio) const {
    const PgState& g = pg_[Pg(port, prio)];
    return g.ingress + g.headroom_used;
  }
  int64_t TotalBytes() const { return total_bytes_; }
  // Invariants (stats/invariants.h): what is wrong with the counts -- one
  // negative, headroom used beyond its size, totals that disagree with the
  // PGs -- or empty.
  std::string CheckCounts() const;
  // An XOFF outstanding on an empty PG (its resume was never sent), or empty.
  std::string CheckXoffs() const;

 private:
  // One PG's state in one place: admission, release and the PFC checks of a
  // frame all touch the same PG, so one cache line instead of three arrays.
  struct PgState {
    int64_t ingress = 0;        // reserved + shared bytes held
    int64_t headroom_used = 0;  // bytes held in headroom
    double alpha = 1.0 / 16;    // its port's dynamic-threshold alpha
    uint8_t xoff = 0;           // XOFF sent and not yet resumed
  };
  static int Pg(int port, int prio) { return port * kNumPriorities + prio; }
  int64_t SharedOf(const PgState& g) const {
    return g.ingress > reserved_ ? g.ingress - reserved_ : 0;
  }
  double Threshold(const PgState& g) const {
    return g.alpha * static_cast<double>(shared_pool_ - shared_used_);
  }

  // What every frame's admission or cut-through reads, in one cache line.
  int64_t reserved_ = 0;
  int64_t shared_pool_ = 0;
  int64_t shared_used_ = 0;
  std::vector<PgState> pg_;  // per (port, priority)
  std::array<bool, kNumPriorities> lossless_{};
  int64_t total_bytes_ = 0;
  int64_t xon_offset_ = 0;
  std::vector<int64_t> headroom_;  // per port
};

[[gnu::always_inline]] inline Admission SwitchMmu::Admit(int port, int prio, int64_t bytes) {
  PgState& g = pg_[Pg(port, prio)];
  const int64_t shared_before = SharedOf(g);
  const int64_t shared_after = g.ingress + bytes > reserved_ ? g.ingress + bytes - reserved_ : 0;
  const int64_t extra_shared = shared_after - shared_before;
  // Within reserve, or the dynamic threshold lets this PG take more shared buffer.
  if (extra_shared == 0 || (static_cast<double>(shared_before) < Threshold(g) &&
                            shared_used_ + extra_shared <= shared_pool_)) {
    g.ingress += bytes;
    shared_used_ += extra_shared;
    total_bytes_ += bytes;
    return Admission::kAdmitted;
  }
  if (lossless_[prio]) {
    if (g.headroom_used + bytes <= headroom_[port]) {
      g.headroom_used += bytes;
      total_bytes_ += bytes;
      return Admission::kAdmitted;
    }
    return Admission::kDropHeadroom;
  }
  return Admission::kDropShared;
}

[[gnu::always_inline]] inline bool SwitchMmu::PassesThrough(int port, int prio,
                                                            int64_t bytes) const {
  const PgState& g = pg_[Pg(port, prio)];
  if (g.xoff) return false;
  const int64_t shared_before = SharedOf(g);
  const int64_t shared_after = g.ingress + bytes > reserved_ ? g.ingress + bytes - reserved_ : 0;
  const int64_t extra_shared = shared_after - shared_before;
  if (extra_shared != 0 && !(static_cast<double>(shared_before) < Threshold(g) &&
                             shared_used_ + extra_shared <= shared_pool_))
    return false;
  if (!lossless_[prio]) return true;
  // ShouldPause with the frame counted.
  const double threshold_after =
      g.alpha * static_cast<double>(shared_pool_ - (shared_used_ + extra_shared));
  return g.headroom_used == 0 && static_cast<double>(shared_after) < threshold_after;
}

inline void SwitchMmu::Release(int port, int prio, int64_t bytes) {
  PgState& g = pg_[Pg(port, prio)];
  total_bytes_ -= bytes;
  if (g.headroom_used == 0) [[likely]] {  // the same as below with from_headroom 0 (bytes >= 0)
    const int64_t shared_before = SharedOf(g);
    g.ingress -= bytes;
    shared_used_ -= shared_before - SharedOf(g);
    return;
  }
  // Headroom drains first: it holds the frames that arrived after XOFF.
  const int64_t from_headroom = g.headroom_used < bytes ? g.headroom_used : bytes;
  g.headroom_used -= from_headroom;
  const int64_t shared_before = SharedOf(g);
  g.ingress -= bytes - from_headroom;
  shared_used_ -= shared_before - SharedOf(g);
}

}  // namespace rocesim
