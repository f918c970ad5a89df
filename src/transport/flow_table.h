// The flows of a run, by id. Simulation::BuildFlows numbers them, and frames,
// events, routes, dependencies and results name them by that id everywhere.
//
// A serial run holds every flow. A partition of a parallel run
// (sim/partitioned_run.h) holds only the flows its own hosts send or receive:
// the requester's side of a flow runs at its sender, the responder's at its
// receiver, and nothing else reads a flow's state. Those are kept densely,
// in id order, behind a map from id to place; of every other flow the
// partition knows only its ends (FlowEnds, 16 bytes against a Flow's 368),
// which a transit switch's route cache and a port capture read, in one copy
// that the partitions of a process share. So what a
// partition spends on flows falls with the partition count: on a collective
// of 718,848 messages, a whole table is 265 MB.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mapped_vector.h"
#include "transport/flow.h"

namespace rocesim {

// What every partition knows of every flow.
struct FlowEnds {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint32_t packets = 0;  // ceil(size / mtu): a capture names the last one
  uint16_t sport = 0;    // the QP's UDP source port (its ECMP entropy)
};

class FlowTable {
 public:
  // Holds every flow added: a serial run, a merged result.
  FlowTable() = default;
  // Holds the flows sent or received by the hosts `h` with host_held[h] != 0.
  explicit FlowTable(std::vector<uint8_t> host_held)
      : partial_(true), host_held_(std::move(host_held)) {
    auto ends = std::make_shared<std::vector<FlowEnds>>();
    recording_ = ends.get();
    ends_ = std::move(ends);
  }

  // Every flow's ends are the same in every partition of a process
  // (sim/shared_flow_build.h): one partition records them and shares them
  // (SharedEnds) once it has added every flow; the others record none
  // (LeaveEndsToOthers, before their first Add) and take the recorder's
  // (TakeEnds) before anything asks for a flow's ends. With 16 partitions of
  // a collective of 718,848 messages, 15 copies of 11.5 MB not spent.
  void LeaveEndsToOthers() {
    recording_ = nullptr;
    ends_.reset();
  }
  std::shared_ptr<const std::vector<FlowEnds>> SharedEnds() const { return ends_; }
  void TakeEnds(std::shared_ptr<const std::vector<FlowEnds>> ends) { ends_ = std::move(ends); }

  // Adds flow Count() (`fl.id` must be Count()): returns its place in the
  // table, or nullptr when the table does not hold it.
  Flow* Add(const Flow& fl) {
    assert(fl.id == count_);
    ++count_;
    if (!partial_) return &(held_.emplace_back() = fl);
    if (recording_ != nullptr)
      recording_->push_back(FlowEnds{fl.src, fl.dst, fl.packets, fl.sport});
    if (!WouldHold(fl.src, fl.dst)) {
      slot_.push_back(kNotHeld);
      return nullptr;
    }
    slot_.push_back(static_cast<uint32_t>(held_.size()));
    return &(held_.emplace_back() = fl);
  }
  // Room for `more` flows beyond Count() (address space until they are
  // held), growing at least twofold: a scenario may add many small entries.
  void Reserve(size_t more) {
    const size_t want = count_ + more;
    auto grow = [want](auto& v) {
      if (want > v.capacity()) v.reserve(std::max(want, 2 * v.capacity()));
    };
    grow(held_);
    if (!partial_) return;
    grow(slot_);
    if (recording_ != nullptr) grow(*recording_);
  }

  // Whether a flow from `src` to `dst` would be held here.
  bool WouldHold(uint32_t src, uint32_t dst) const {
    return !partial_ || host_held_[src] != 0 || host_held_[dst] != 0;
  }
  // Flows in the run: ids 0 .. Count() - 1, held here or not.
  uint32_t Count() const { return count_; }
  // Flows held here.
  size_t HeldCount() const { return held_.size(); }
  bool Holds(uint32_t id) const { return id < count_ && (!partial_ || slot_[id] != kNotHeld); }

  // Flow `id`, which must be held here: reading one that is not is a bug
  // in the caller (the checked build, ROCESIM_CHECKS, throws on it).
  Flow& operator[](uint32_t id) {
    CheckHeld(id);
    return held_[partial_ ? slot_[id] : id];
  }
  const Flow& operator[](uint32_t id) const {
    CheckHeld(id);
    return held_[partial_ ? slot_[id] : id];
  }
  // As [], but throws std::out_of_range for a flow not held here.
  const Flow& at(uint32_t id) const {
    if (!Holds(id)) throw std::out_of_range("flow " + std::to_string(id) + " is not held here");
    return (*this)[id];
  }
  FlowEnds Ends(uint32_t id) const {
    if (partial_) return (*ends_)[id];
    const Flow& fl = held_[id];
    return FlowEnds{fl.src, fl.dst, fl.packets, fl.sport};
  }

  // Where held flow `fl` (one of this table's) lies among the held flows:
  // its id in a whole table. Arrays beside the table index by it.
  uint32_t PlaceOf(const Flow& fl) const { return static_cast<uint32_t>(&fl - held_.begin()); }

  // The held flows, in id order.
  Flow* begin() { return held_.begin(); }
  Flow* end() { return held_.end(); }
  const Flow* begin() const { return held_.begin(); }
  const Flow* end() const { return held_.end(); }

  // Gives back the memory of the first `n` held flows: a merge has read
  // them for the last time (core/mapped_vector.h).
  void ReleaseFront(size_t n) { held_.ReleaseFront(n); }

 private:
  void CheckHeld([[maybe_unused]] uint32_t id) const {
#ifdef ROCESIM_CHECKS
    if (!Holds(id)) throw std::logic_error("flow " + std::to_string(id) + " read where not held");
#else
    assert(Holds(id));
#endif
  }

  static constexpr uint32_t kNotHeld = UINT32_MAX;
  bool partial_ = false;
  uint32_t count_ = 0;
  std::vector<uint8_t> host_held_;  // partial: per host
  MappedVector<Flow> held_;
  std::vector<uint32_t> slot_;  // partial: per id, its place in held_ (kNotHeld: none)
  // Partial: per id, recorded here (recording_) or another partition's.
  std::shared_ptr<const std::vector<FlowEnds>> ends_;
  std::vector<FlowEnds>* recording_ = nullptr;
};

}  // namespace rocesim
