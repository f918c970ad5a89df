// The wire of one link direction: a FIFO delay line of frames (DESIGN.md §5)
// with one pending kLinkArrive event, for its head.
//
// The frames in flight are threaded through their own packets: each frame's
// `next` names the frame launched after it on this wire and its
// `wire_next_arrive` holds the low 32 bits of that frame's arrival time.
// A landing reads the landing frame's packet, which the receiver reads
// anyway (and the event loop has prefetched), learns from it the next frame
// and when that lands, and schedules it: no other line is touched. Until
// the fortieth session each wire kept a ring of (arrival, id) entries
// beside the port; the landing that refreshed the port's copy of the second
// entry read a ring line written a link delay before, cold by then, and
// perf put about a sixth of the event loop's samples on that one load
// (bench/NOTES.md).
//
// 32 bits suffice while a delay plus one frame's serialization stays under
// 2^31 ps: a frame is launched while the one before it is still in flight,
// so it lands less than that after it. A longer link (Port::kLongDelay: 2.1
// ms or more) also keeps every frame's full arrival time in a ring
// (KeepFullArrivals), which its landings read.
#pragma once

#include <cstdint>
#include <memory>

#include "core/packet.h"
#include "core/ring.h"
#include "core/time.h"

namespace rocesim {

class Wire {
 public:
  bool Empty() const { return count_ == 0; }
  uint32_t Count() const { return count_; }
  // The head frame and its arrival time (the wire must not be empty).
  PktId Head() const { return head_; }
  Time HeadArrive() const { return head_arrive_; }

  // For a link whose frames may land 2^31 ps or more apart: keeps their full
  // arrival times too (before the first Push).
  void KeepFullArrivals() { full_arrive_ = std::make_unique<Ring<Time>>(); }

  // Puts frame `id`, landing at `arrive`, behind the frames in flight.
  [[gnu::always_inline]] void Push(PacketPool& pool, PktId id, Time arrive) {
    if (count_ == 0) {
      head_ = id;
      head_arrive_ = arrive;
    } else {
      Packet& last = pool[tail_];
      last.next = id;
      last.wire_next_arrive = static_cast<uint32_t>(arrive);
    }
    tail_ = id;
    ++count_;
    if (full_arrive_) [[unlikely]]
      full_arrive_->PushBack(arrive);
  }
  // Removes the head frame, whose packet is `head` (the wire must not be
  // empty); the frame behind it, if any, becomes the head.
  [[gnu::always_inline]] void Drop(const Packet& head) {
    --count_;
    if (full_arrive_) [[unlikely]] {
      full_arrive_->DropFront();
      if (count_ > 0) {
        head_ = head.next;
        head_arrive_ = full_arrive_->Front();
      }
      return;
    }
    if (count_ > 0) {
      head_ = head.next;
      head_arrive_ = Following(head_arrive_, head.wire_next_arrive);
    }
  }
  // Removes the head frame and returns it (the wire must not be empty).
  PktId Pop(const PacketPool& pool) {
    const PktId id = head_;
    Drop(pool[id]);
    return id;
  }
  // Calls fn(id, arrive) for each frame in flight, head first.
  template <typename Fn>
  void ForEach(const PacketPool& pool, Fn&& fn) const {
    PktId id = head_;
    Time arrive = head_arrive_;
    for (uint32_t i = 0; i < count_; ++i) {
      fn(id, full_arrive_ ? (*full_arrive_)[i] : arrive);
      const Packet& pkt = pool[id];
      arrive = Following(arrive, pkt.wire_next_arrive);
      id = pkt.next;
    }
  }

 private:
  // The time whose low 32 bits are `low`, at or less than 2^32 ps after `base`.
  static Time Following(Time base, uint32_t low) {
    return base + static_cast<uint32_t>(low - static_cast<uint32_t>(base));
  }

  PktId head_ = kNoPkt;
  PktId tail_ = kNoPkt;
  uint32_t count_ = 0;
  Time head_arrive_ = 0;
  std::unique_ptr<Ring<Time>> full_arrive_;  // long links only (KeepFullArrivals)
};

}  // namespace rocesim
