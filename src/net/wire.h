// The wire of one link direction: a FIFO delay line of frames (DESIGN.md §5)
// with one pending kLinkArrive event, for its head. Each frame's entry holds
// its arrival time and packet id in a ring beside the port, so landing one
// frame and scheduling the next reads the ring, not the frames' packets
// (cold lines by then: they left about a link delay ago). Profiled in
// bench/NOTES.md.
#pragma once

#include <cstdint>

#include "core/packet.h"
#include "core/ring.h"
#include "core/time.h"

namespace rocesim {

class Wire {
 public:
  bool Empty() const { return frames_.Empty(); }
  uint32_t Count() const { return frames_.Size(); }
  // The head frame and its arrival time (the wire must not be empty).
  PktId Head() const { return frames_.Front().id; }
  Time HeadArrive() const { return frames_.Front().arrive; }
  // The i-th frame from the head, i < Count().
  PktId At(uint32_t i) const { return frames_[i].id; }
  Time ArriveAt(uint32_t i) const { return frames_[i].arrive; }

  void Push(PktId id, Time arrive) { frames_.PushBack(Slot{arrive, id}); }
  // Removes the head frame (the wire must not be empty).
  PktId Pop() { return frames_.PopFront().id; }
  // The same when the caller knows the head frame (its kLinkArrive names it):
  // its entry, written a link delay ago and cold by now, is not read.
  void Drop() { frames_.DropFront(); }

 private:
  struct Slot {
    Time arrive;
    PktId id;
  };
  Ring<Slot> frames_;
};

}  // namespace rocesim
