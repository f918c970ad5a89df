// The wire of one link direction: a FIFO delay line of frames (DESIGN.md §5).
// Frames are threaded through Packet::next in arrival order, and their
// arrival times are kept here too, packed in a ring: when one frame lands the
// next arrival is scheduled from the ring, eight arrival times per cache
// line, instead of from the next frame's packet, a cold line of its own by
// then (it left about a link delay ago). Profiled in bench/NOTES.md.
#pragma once

#include <cstdint>
#include <vector>

#include "core/packet.h"
#include "core/time.h"

namespace rocesim {

class Wire {
 public:
  bool Empty() const { return frames_.Empty(); }
  PktId Head() const { return frames_.head; }
  uint32_t Count() const { return frames_.count; }
  // Arrival time of the head frame (the wire must not be empty).
  Time HeadArrive() const { return arrive_[head_]; }
  const PacketFifo& Frames() const { return frames_; }

  void Push(PacketPool& pool, PktId id, Time arrive) {
    if (frames_.count == arrive_.size()) Grow();
    arrive_[(head_ + frames_.count) & (arrive_.size() - 1)] = arrive;
    frames_.Push(pool, id);
  }
  // Removes the head frame (the wire must not be empty).
  PktId Pop(PacketPool& pool) {
    head_ = (head_ + 1) & static_cast<uint32_t>(arrive_.size() - 1);
    return frames_.Pop(pool);
  }

 private:
  // Doubles the ring (kept a power of two), unrolled to start at index 0.
  void Grow() {
    std::vector<Time> bigger(arrive_.empty() ? 16 : arrive_.size() * 2);
    for (uint32_t i = 0; i < frames_.count; ++i)
      bigger[i] = arrive_[(head_ + i) & (arrive_.size() - 1)];
    arrive_.swap(bigger);
    head_ = 0;
  }

  PacketFifo frames_;
  std::vector<Time> arrive_;  // ring: arrive_[head_] belongs to frames_.head
  uint32_t head_ = 0;
};

}  // namespace rocesim
