// The wire of one link direction: a FIFO delay line of frames (DESIGN.md §5)
// with one pending kLinkArrive event, for its head. Each frame's entry holds
// its arrival time and packet id in a ring beside the port, so landing one
// frame and scheduling the next reads the ring, not the frames' packets
// (cold lines by then: they left about a link delay ago).
//
// The wire also keeps a copy of the second frame's id and arrival time (the
// low 32 bits: the frame lands within 2^32 ps of the head while delay plus
// serialization stays under that, Port::kLinkLongDelay otherwise). A landing
// then schedules the next one from the port's first cache line, and the ring
// entry behind it (written a link delay ago, out of the L1 cache by then) is
// read off that critical path, only to refresh the copy. Profiled in
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
  // The second frame (Count() >= 2) from the copy: its id, and its arrival
  // time given the head's, which must lie less than 2^32 ps before it.
  PktId SecondId() const { return second_id_; }
  Time SecondArrive(Time head_arrive) const {
    return head_arrive +
           static_cast<uint32_t>(second_arrive_low_ - static_cast<uint32_t>(head_arrive));
  }

  void Push(PktId id, Time arrive) {
    frames_.PushBack(Slot{arrive, id});
    if (frames_.Size() == 2) Remember(id, arrive);
  }
  // Removes the head frame (the wire must not be empty).
  PktId Pop() {
    const PktId id = frames_.Front().id;
    Drop();
    return id;
  }
  // The same when the caller knows the head frame (its kLinkArrive names it):
  // its entry, written a link delay ago and cold by now, is not read.
  void Drop() {
    frames_.DropFront();
    if (frames_.Size() >= 2) {
      const Slot& second = frames_[1];
      Remember(second.id, second.arrive);
    }
  }

 private:
  struct Slot {
    Time arrive;
    PktId id;
  };
  void Remember(PktId id, Time arrive) {
    second_id_ = id;
    second_arrive_low_ = static_cast<uint32_t>(arrive);
  }
  Ring<Slot> frames_;
  PktId second_id_ = kNoPkt;
  uint32_t second_arrive_low_ = 0;
};

}  // namespace rocesim
